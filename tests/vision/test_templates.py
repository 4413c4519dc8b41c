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


def test_templates_given_as_a_file_say_it_is_a_file_and_name_the_option(tmp_path):
    not_a_folder = tmp_path / "deck.jpg"
    cv2.imwrite(str(not_a_folder), photo("7H"))
    with pytest.raises(TemplateError) as info:
        load_templates(not_a_folder, given_as="--templates")
    message = str(info.value)
    assert "is a file, not a folder" in message and "leave out --templates" in message
    assert "does not exist" not in message and "deck.templates_dir" not in message


def test_templates_named_by_code_but_not_readable_say_which_files_and_why(tmp_path):
    (tmp_path / "7H.png").write_text("not a picture", encoding="utf-8")
    ok, jpeg = cv2.imencode(".jpg", photo("8H"))
    (tmp_path / "8H.jpg").write_bytes(jpeg.tobytes()[: len(jpeg) // 2])
    cv2.imwrite(str(tmp_path / "9H.png"), photo("9H")[:10, :10])
    with pytest.raises(TemplateError) as info:
        load_templates(tmp_path)
    message = str(info.value)
    assert "7H.png is not an image OpenCV can read" in message
    assert "8H.jpg is truncated" in message
    assert "9H.png shows no card" in message
    assert "name them by card code" not in message


def test_a_folder_without_card_codes_says_to_name_them_by_code(tmp_path):
    cv2.imwrite(str(tmp_path / "card.png"), photo("7H"))
    with pytest.raises(TemplateError, match="no card images in .*name them by card code"):
        load_templates(tmp_path)
