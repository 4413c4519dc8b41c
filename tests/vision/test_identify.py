"""`spit-referee identify IMAGE [--json | --text]`: one real photo, one card, any orientation."""
from __future__ import annotations

import json

import cv2
import pytest

from referee.cli import main
from tests.vision.helpers_cards import DECKS, PHOTOS, SCENES, camera_canonical, photo
from vision.card import CARD_H, CARD_W, find_cards, flatten
from vision.corner_model import RANKS, SUITS
from vision.recognize import read_card

ALL_CARDS = [r + s for r in RANKS for s in SUITS]


def run(capsys, *argv):
    code = main(["identify", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_identify_prints_the_card_as_json(capsys):
    code, out, _ = run(capsys, PHOTOS / "7H.jpg", "--json")
    got = json.loads(out)
    assert code == 0
    assert (got["card"], got["rank"], got["suit"]) == ("7H", "7", "H")
    assert 0.9 <= got["confidence"] <= 1.0


def test_identify_reads_a_card_turned_a_quarter(capsys, tmp_path):
    path = tmp_path / "turned.jpg"
    cv2.imwrite(str(path), cv2.rotate(photo("KC"), cv2.ROTATE_90_CLOCKWISE))
    code, out, _ = run(capsys, path, "--json")
    assert code == 0 and json.loads(out)["card"] == "KC"


def test_identify_reads_a_card_seen_along_its_length_at_a_steep_angle(capsys):
    # q16: a 7C photographed low over the table, its long sides running away from the camera,
    # so it looks wider than long; flattened with the short sides as top and bottom it is on
    # its side and reads nothing.
    code, out, _ = run(capsys, SCENES / "q16.jpg", "--json")
    assert code == 0 and json.loads(out)["card"] == "7C"


def test_a_card_flattened_on_its_side_never_reads(shared_data):
    # What makes read_outline's second look safe: the 52 real photos and every card of the
    # seven decks, flattened with their long sides as top and bottom, read no card.
    read = []
    for p in sorted(PHOTOS.glob("*.jpg")):
        img = photo(p.stem)
        r = read_card(flatten(img, find_cards(img)[0], sideways=True))
        read += [(p.stem, r.card)] if r.card else []
    for deck in sorted(d.name for d in DECKS.iterdir() if d.is_dir()):
        for code in ALL_CARDS:
            img = camera_canonical(deck, code)
            squashed = cv2.resize(cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE), (CARD_W, CARD_H),
                                  interpolation=cv2.INTER_AREA)
            r = read_card(squashed)
            read += [(deck, code, r.card)] if r.card else []
    assert read == []


def test_identify_plain_text_names_the_card(capsys):
    code, out, _ = run(capsys, PHOTOS / "QH.jpg", "--text")
    assert code == 0 and out.startswith("QH (Q♥)")


def test_identify_prints_json_without_being_asked(capsys):
    # DESIGN.md: "`identify IMAGE` | one card image's rank and suit as JSON"; --json is the
    # default said explicitly, --text the plain words.
    code, out, _ = run(capsys, PHOTOS / "QH.jpg")
    assert code == 0 and json.loads(out)["card"] == "QH"
    with pytest.raises(SystemExit) as exit_:
        run(capsys, PHOTOS / "QH.jpg", "--json", "--text")
    assert exit_.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_no_card_in_the_photo_gives_null_and_exit_1(capsys, tmp_path):
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), photo("5C")[:140])
    code, out, _ = run(capsys, path, "--json")
    got = json.loads(out)
    assert code == 1
    assert got["card"] is None and "no card" in got["reason"]


def test_unreadable_file_is_a_clear_error(capsys, tmp_path):
    path = tmp_path / "broken.jpg"
    path.write_bytes(b"this is not a JPEG")
    code, out, err = run(capsys, path)
    assert code == 1 and out == ""
    assert "not an image" in err


def test_empty_file_is_a_clear_error(capsys, tmp_path):
    path = tmp_path / "empty.png"
    path.write_bytes(b"")
    code, _, err = run(capsys, path, "--json")
    assert code == 1 and "empty" in err


def test_missing_file_is_a_clear_error(capsys, tmp_path):
    code, _, err = run(capsys, tmp_path / "nowhere.jpg")
    assert code == 1 and "nowhere.jpg does not exist" in err


def test_a_card_too_blurred_to_read_gives_null_without_a_guess(capsys, tmp_path):
    path = tmp_path / "blurred.jpg"
    cv2.imwrite(str(path), cv2.GaussianBlur(photo("8C"), (0, 0), 9))
    code, out, _ = run(capsys, path, "--json")
    got = json.loads(out)
    assert code == 1 and got["card"] is None
    assert got["rank"] is None and got["suit"] is None and got["reason"]


def test_templates_that_are_a_file_are_not_called_a_missing_folder(capsys, tmp_path):
    not_a_folder = tmp_path / "templates.jpg"
    not_a_folder.write_text("text", encoding="utf-8")
    code, _, err = run(capsys, PHOTOS / "QH.jpg", "--templates", not_a_folder)
    assert code == 1
    assert "is a file, not a folder" in err and "leave out --templates" in err
    assert "deck.templates_dir" not in err
