"""calibrate deck: templates from real card images or guided capture, names validated."""
from __future__ import annotations

import json
import shutil

import cv2
import numpy as np
import pytest

from calibration import deck
from calibration.deck import DeckError, build_from_folder, capture, scan_folder
from calibration.store import load
from referee.cards import Card
from referee.cli import main
from vision.card import CARD_H, CARD_W


def _similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised correlation of two card images, the better of upright and upside down."""
    def prep(x):
        g = cv2.cvtColor(cv2.resize(x, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA),
                         cv2.COLOR_BGR2GRAY).astype(np.float32)
        g = cv2.GaussianBlur(g, (0, 0), 2.0)
        return (g - g.mean()) / (g.std() + 1e-6)
    pa, pb = prep(a), prep(b)
    return max(float((pa * pb).mean()), float((pa * pb[::-1, ::-1]).mean()))


def _art(shared_data, deck_name, code) -> np.ndarray:
    return deck._read(shared_data / "decks" / deck_name / f"{code}.png")


def test_photos_named_by_code_become_flattened_templates(shared_data, tmp_path):
    src = tmp_path / "photos"
    src.mkdir()
    for code in ("7H", "QS", "2C", "AD"):
        shutil.copy(shared_data / "photos" / "single-cards" / f"{code}.jpg", src / f"{code.lower()}.jpg")
    out = tmp_path / "templates"
    cards = build_from_folder(scan_folder(src), out)
    assert sorted(c.code for c in cards) == ["2C", "7H", "AD", "QS"]
    assert sorted(p.name for p in out.iterdir()) == ["2C.png", "7H.png", "AD.png", "QS.png"]
    for p in out.iterdir():
        img = cv2.imread(str(p))
        assert img.shape == (CARD_H, CARD_W, 3)
        # The card, not the wooden table: a flattened card is mostly white paper.
        assert np.median(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)) > 150


def test_artwork_already_cut_to_the_card_is_taken_whole(shared_data, tmp_path):
    src = tmp_path / "art"
    src.mkdir()
    for code in ("KD", "10S"):
        shutil.copy(shared_data / "decks" / "kde-standard" / f"{code}.png", src)
    out = tmp_path / "t"
    build_from_folder(scan_folder(src), out)
    for code in ("KD", "10S"):
        flat = cv2.imread(str(out / f"{code}.png"))
        assert _similarity(flat, _art(shared_data, "kde-standard", code)) > 0.8
        # ... and is not some other card of the deck.
        assert _similarity(flat, _art(shared_data, "kde-standard", "3C")) < 0.6


def test_unknown_card_codes_are_named_with_the_fix(shared_data, tmp_path):
    src = tmp_path / "photos"
    src.mkdir()
    shutil.copy(shared_data / "photos" / "single-cards" / "7H.jpg", src / "7H.jpg")
    shutil.copy(shared_data / "photos" / "single-cards" / "8H.jpg", src / "eight of hearts.jpg")
    shutil.copy(shared_data / "photos" / "single-cards" / "9H.jpg", src / "1H.jpg")
    with pytest.raises(DeckError, match=r"1H\.jpg, eight of hearts\.jpg: not named by a card code.*7H\.png"):
        scan_folder(src)


def test_the_same_card_twice_is_refused(shared_data, tmp_path):
    src = tmp_path / "photos"
    src.mkdir()
    shutil.copy(shared_data / "photos" / "single-cards" / "7H.jpg", src / "7H.jpg")
    shutil.copy(shared_data / "photos" / "single-cards" / "7H.jpg", src / "7h.png")
    with pytest.raises(DeckError, match=r"the same card twice \(7H\.jpg and 7h\.png are both 7H\)"):
        scan_folder(src)


def test_folder_without_images_says_how_to_name_them(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(DeckError, match="no images in it; name one image per card"):
        scan_folder(tmp_path)


def test_photo_with_no_card_is_refused_and_old_templates_survive(shared_data, tmp_path):
    out = tmp_path / "t"
    out.mkdir()
    (out / "AS.png").write_bytes(b"previous template")
    src = tmp_path / "photos"
    src.mkdir()
    shutil.copy(shared_data / "photos" / "single-cards" / "7H.jpg", src / "7H.jpg")
    # A plain crop of wooden table (from a real photo's corner): no card in it.
    table = cv2.imread(str(shared_data / "photos" / "single-cards" / "7H.jpg"))[:200, :300]
    cv2.imwrite(str(src / "8C.jpg"), table)
    with pytest.raises(DeckError, match=r"no card found in .*8C\.jpg"):
        build_from_folder(scan_folder(src), out)
    assert (out / "AS.png").read_bytes() == b"previous template"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_cli_records_the_templates_folder_in_the_calibration(shared_data, tmp_path, capsys):
    src = tmp_path / "photos"
    src.mkdir()
    for code in ("7H", "QS"):
        shutil.copy(shared_data / "photos" / "single-cards" / f"{code}.jpg", src)
    cal_path = tmp_path / "cal" / "calibration.json"
    cal_path.parent.mkdir()
    assert main(["calibrate", "deck", "--images", str(src), "--calibration", str(cal_path)]) == 0
    out = capsys.readouterr().out
    assert "flattened 2 cards" in out and "2 of 52 cards have templates" in out
    cal = load(cal_path)
    assert cal.deck.templates_dir == (cal_path.parent / "deck-templates").resolve()
    assert json.loads(cal_path.read_text())["deck"]["templates_dir"] == "deck-templates"
    assert sorted(p.name for p in cal.deck.templates_dir.iterdir()) == ["7H.png", "QS.png"]


def test_cli_with_bad_names_exits_1_without_touching_the_calibration(tmp_path, shared_data, capsys):
    src = tmp_path / "photos"
    src.mkdir()
    shutil.copy(shared_data / "photos" / "single-cards" / "7H.jpg", src / "seven.jpg")
    cal_path = tmp_path / "calibration.json"
    assert main(["calibrate", "deck", "--images", str(src), "--calibration", str(cal_path)]) == 1
    assert "not named by a card code" in capsys.readouterr().err
    assert not cal_path.exists()


# --- guided capture, on frames from the scene renderer -----------------------------------------

def test_guided_capture_takes_each_card_from_the_zone(tmp_path, shared_data):
    from vision.render import CameraPose, PlacedCard, Renderer, Scene
    from vision.sources import GeneratorSource

    renderer = Renderer(decks_dir=shared_data / "decks")
    pose = CameraPose(tilt_deg=8.0, yaw_deg=3.0)
    state = {"card": None}  # what lies in spit.left right now

    def produce(i, t_ns):
        piles = {} if state["card"] is None else {"spit.left": (PlacedCard(state["card"], 4.0, -3.0, 12.0),)}
        frame, truth = renderer.render(Scene(piles, deck="gnome-tango", camera=pose, noise_seed=i))
        state["frame_to_table"] = truth.frame_to_table
        return frame

    answers = iter(["", "", "", "s", "q"])  # empty zone first: must be asked again
    asked, said = [], []

    def ask(prompt):
        asked.append(prompt)
        answer = next(answers)
        # The player lays the asked-for card after being asked, except the first time.
        if len(asked) >= 2:
            state["card"] = Card.parse(prompt.split("(")[1].split(")")[0]).code
        return answer

    frames = iter(GeneratorSource(produce, start_ns=0))
    produce(0, 0)
    cards = (Card.parse("9D"), Card.parse("JC"), Card.parse("4S"), Card.parse("KH"))
    out = tmp_path / "t"
    taken = capture(frames, state["frame_to_table"], renderer.layout.zones["spit.left"], "spit.left",
                    out, ask, said.append, cards=cards)
    assert [c.code for c in taken] == ["9D", "JC"]
    assert any("no card found in spit.left" in s for s in said)
    assert sorted(p.name for p in out.iterdir()) == ["9D.png", "JC.png"]
    for code in ("9D", "JC"):
        flat = cv2.imread(str(out / f"{code}.png"))
        assert _similarity(flat, _art(shared_data, "gnome-tango", code)) > 0.6
        assert _similarity(flat, _art(shared_data, "gnome-tango", "2H")) < 0.5
    # Resuming asks only for the cards not yet taken.
    answers = iter(["q"])
    asked.clear()
    capture(frames, state["frame_to_table"], renderer.layout.zones["spit.left"], "spit.left",
            out, ask, said.append, cards=cards)
    assert "(4S)" in asked[0]


def test_cli_guided_capture_from_a_folder_of_frames_without_table_calibration(tmp_path, shared_data, capsys):
    """`--camera DIR`: the mat's markers are found in the first frames (no table section yet),
    then each card is taken from the frames that follow the player's Enter."""
    import argparse

    from vision.render import CameraPose, PlacedCard, Renderer, Scene

    renderer = Renderer(decks_dir=shared_data / "decks")
    frames = tmp_path / "frames"
    frames.mkdir()
    n = deck.FRESH_FRAMES
    for i, card in enumerate([None] * n + ["AS"] * n + ["2S"] * n):
        piles = {} if card is None else {"spit.right": (PlacedCard(card, -5.0, 2.0, -15.0),)}
        frame, _ = renderer.render(Scene(piles, deck="gnome-paris", noise_seed=i,
                                         camera=CameraPose(tilt_deg=5.0, roll_deg=2.0)))
        cv2.imwrite(str(frames / f"f{i:03d}.png"), frame)
    cal_path = tmp_path / "calibration.json"
    args = argparse.Namespace(images=None, camera=str(frames), zone="spit.right",
                              calibration=str(cal_path), out=None)
    answers = iter(["", "", "q"])
    assert deck.command(args, ask=lambda prompt: next(answers)) == 0
    out = capsys.readouterr().out
    assert "found the mat's markers in the first frame" in out and "took 2 cards" in out
    templates = load(cal_path).deck.templates_dir
    assert sorted(p.name for p in templates.iterdir()) == ["2S.png", "AS.png"]
    for code in ("AS", "2S"):
        flat = cv2.imread(str(templates / f"{code}.png"))
        assert _similarity(flat, _art(shared_data, "gnome-paris", code)) > 0.6


def _one_photo(shared_data, tmp_path):
    src = tmp_path / "photos"
    src.mkdir()
    shutil.copy(shared_data / "photos" / "single-cards" / "7H.jpg", src)
    return src


def test_out_that_is_a_file_is_refused_and_left_alone(shared_data, tmp_path, capsys):
    src = _one_photo(shared_data, tmp_path)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    assert main(["calibrate", "deck", "--images", str(src), "--out", str(notes),
                 "--calibration", str(tmp_path / "cal.json")]) == 1
    assert "is a file, not a folder" in capsys.readouterr().err
    assert notes.read_text() == "my notes"
    assert not (tmp_path / "cal.json").exists()


def test_out_folder_holding_other_files_is_not_replaced(shared_data, tmp_path, capsys):
    src = _one_photo(shared_data, tmp_path)
    out = tmp_path / "Pictures"
    out.mkdir()
    (out / "holiday.jpg").write_bytes(b"not a template")
    assert main(["calibrate", "deck", "--images", str(src), "--out", str(out),
                 "--calibration", str(tmp_path / "cal.json")]) == 1
    assert "holds files that are not card templates (holiday.jpg)" in capsys.readouterr().err
    assert (out / "holiday.jpg").read_bytes() == b"not a template"


def test_out_below_a_file_is_a_clear_error(shared_data, tmp_path, capsys):
    src = _one_photo(shared_data, tmp_path)
    (tmp_path / "afile").write_text("x")
    assert main(["calibrate", "deck", "--images", str(src), "--out", str(tmp_path / "afile" / "t"),
                 "--calibration", str(tmp_path / "cal.json")]) == 1
    assert "part of that path is a file" in capsys.readouterr().err


def test_cli_over_an_older_file_keeps_a_backup_and_records_the_templates(shared_data, tmp_path, capsys):
    src = _one_photo(shared_data, tmp_path)
    cal_path = tmp_path / "cal.json"
    cal_path.write_text(json.dumps({"version": 0, "pads": {}}))
    assert main(["calibrate", "deck", "--images", str(src), "--calibration", str(cal_path)]) == 0
    assert f"kept it as {cal_path}.bak" in capsys.readouterr().out
    assert load(cal_path).deck.templates_dir == (tmp_path / "deck-templates").resolve()
