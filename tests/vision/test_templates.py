"""vision.templates: a known deck's own glyphs (`calibrate deck`), optional, agreeing with the
model on the real photos."""
from __future__ import annotations

import cv2
import pytest

from tests.vision.helpers_cards import flat, photo
from vision.recognize import read_card
from vision.templates import TemplateError, load_templates


def test_templates_are_optional_and_agree_with_the_model(tmp_path):
    for code in ("2H", "JD", "7C", "AS"):
        cv2.imwrite(str(tmp_path / f"{code}.jpg"), photo(code))
    t = load_templates(tmp_path)
    assert set(t.rank_features) == {"2", "J", "7", "A"}
    for code in ("2H", "JD", "7C"):
        with_t = read_card(flat(code), t)
        assert with_t.card == code
        assert with_t.confidence >= read_card(flat(code)).confidence - 1e-9


def test_templates_folder_must_exist(tmp_path):
    with pytest.raises(TemplateError):
        load_templates(tmp_path / "missing")
