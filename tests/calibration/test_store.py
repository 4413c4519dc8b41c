"""The calibration file: round trips, validation messages that name the field, atomic saves."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from calibration import store
from calibration.layout import default_layout
from calibration.store import (
    CalibrationCorruptError, CalibrationError, CalibrationMissingError, CalibrationVersionError,
    CameraSection, DeckSection, TableSection, default_calibration, load, save,
)
from referee.errors import UserError

H = ((0.5, 0.01, -12.0), (0.002, 0.49, -8.0), (1e-6, 2e-6, 1.0))


def _doc(tmp_path: Path) -> dict:
    save(default_calibration(), tmp_path / "cal.json")
    return json.loads((tmp_path / "cal.json").read_text())


def _write(tmp_path: Path, doc) -> Path:
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    return p


def test_default_calibration_round_trips_through_the_file(tmp_path):
    cal = default_calibration()
    save(cal, tmp_path / "cal.json")
    assert load(tmp_path / "cal.json") == cal
    assert cal.layout == default_layout()
    assert dict(cal.pads.pins) == {"p1.left": 17, "p1.right": 27, "p2.left": 22, "p2.right": 23}
    assert cal.camera is None and cal.table is None and cal.deck is None


def test_file_is_one_json_document_with_version_1(tmp_path):
    doc = _doc(tmp_path)
    assert doc["version"] == 1
    assert set(doc) >= {"layout", "pads", "outputs", "referee", "vision"}
    assert doc["outputs"]["speech"] == {"enabled": False, "voice": "en", "rate": 170}


def test_camera_table_and_deck_sections_round_trip(tmp_path):
    cam = CameraSection(((900.0, 0.0, 640.0), (0.0, 905.0, 360.0), (0.0, 0.0, 1.0)),
                        (0.1, -0.2, 0.001, 0.0, 0.05), (1280, 720), 0.31)
    table = TableSection(H, 0.42, (1280, 720))
    deck = DeckSection((tmp_path / "templates").resolve())
    cal = default_calibration().replace_section(camera=cam, table=table).replace_section("deck", deck)
    save(cal, tmp_path / "cal.json")
    assert load(tmp_path / "cal.json") == cal
    # The templates folder is stored relative to the file, so the folder can be moved whole.
    assert json.loads((tmp_path / "cal.json").read_text())["deck"]["templates_dir"] == "templates"


def test_replace_section_refuses_the_wrong_type():
    with pytest.raises(TypeError, match="TableSection"):
        default_calibration().replace_section(table={"homography": H})
    with pytest.raises(ValueError, match="no calibration section"):
        default_calibration().replace_section(tabel=None)


def test_sections_left_out_take_their_defaults(tmp_path):
    cal = load(_write(tmp_path, {"version": 1}))
    assert cal == default_calibration()


def test_bad_pin_names_the_field_and_the_fix(tmp_path):
    doc = _doc(tmp_path)
    doc["pads"]["pins"]["p1.left"] = "x"
    with pytest.raises(CalibrationError) as e:
        load(_write(tmp_path, doc))
    msg = str(e.value)
    assert 'pads.pins.p1.left: expected an integer GPIO number, got "x"' in msg
    assert "calibrate pads" in msg
    assert isinstance(e.value, UserError)


def test_pin_out_of_range_is_refused(tmp_path):
    doc = _doc(tmp_path)
    doc["pads"]["pins"]["p2.right"] = 40
    with pytest.raises(CalibrationError, match=r"pads\.pins\.p2\.right: .* from 0 to 27, got 40"):
        load(_write(tmp_path, doc))


def test_two_pads_on_one_pin_are_refused(tmp_path):
    doc = _doc(tmp_path)
    doc["pads"]["pins"]["p2.left"] = 17
    with pytest.raises(CalibrationError, match=r"pads\.pins\.p2\.left: GPIO 17 is already used by pads\.pins\.p1\.left"):
        load(_write(tmp_path, doc))


def test_led_on_a_pad_pin_is_refused(tmp_path):
    doc = _doc(tmp_path)
    doc["outputs"]["leds"]["spit.left"] = 27
    with pytest.raises(CalibrationError, match=r"outputs\.leds\.spit\.left: GPIO 27 is already used"):
        load(_write(tmp_path, doc))


def test_missing_pad_is_named(tmp_path):
    doc = _doc(tmp_path)
    del doc["pads"]["pins"]["p1.right"]
    with pytest.raises(CalibrationError, match=r"pads\.pins\.p1\.right: is missing"):
        load(_write(tmp_path, doc))


def test_misspelt_field_is_named_with_the_known_ones(tmp_path):
    doc = _doc(tmp_path)
    doc["vision"]["stable_frame"] = 4
    with pytest.raises(CalibrationError, match=r"vision\.stable_frame: unknown field .*stable_frames"):
        load(_write(tmp_path, doc))


def test_unknown_section_is_named(tmp_path):
    with pytest.raises(CalibrationError, match=r"tabel: unknown field"):
        load(_write(tmp_path, {"version": 1, "tabel": {}}))


def test_boolean_field_refuses_a_number(tmp_path):
    doc = _doc(tmp_path)
    doc["pads"]["pull_up"] = 1
    with pytest.raises(CalibrationError, match=r"pads\.pull_up: expected true or false, got 1"):
        load(_write(tmp_path, doc))


def test_singular_homography_is_refused_with_table_advice(tmp_path):
    doc = _doc(tmp_path)
    doc["table"] = {"homography": [[1, 2, 3], [2, 4, 6], [0, 0, 1]],
                    "reprojection_error_mm": 0.3, "resolution": [1280, 720]}
    with pytest.raises(CalibrationError, match=r"table\.homography: is singular.*calibrate table"):
        load(_write(tmp_path, doc))


def test_homography_element_not_a_number_is_named(tmp_path):
    doc = _doc(tmp_path)
    doc["table"] = {"homography": [[1, 0, 0], [0, "a", 0], [0, 0, 1]],
                    "reprojection_error_mm": 0.3, "resolution": [1280, 720]}
    with pytest.raises(CalibrationError, match=r"table\.homography\[1\]\[1\]: expected a number"):
        load(_write(tmp_path, doc))


def test_layout_without_a_zone_is_refused(tmp_path):
    doc = _doc(tmp_path)
    del doc["layout"]["zones"]["spit.right"]
    with pytest.raises(CalibrationError, match=r"layout\.zones\.spit\.right: is missing"):
        load(_write(tmp_path, doc))


def test_zone_outside_the_mat_is_refused(tmp_path):
    doc = _doc(tmp_path)
    doc["layout"]["zones"]["p1.stock1"] = [500, 350, 90, 105]
    with pytest.raises(CalibrationError, match=r"layout\.zones\.p1\.stock1: lies outside"):
        load(_write(tmp_path, doc))


def test_duplicate_marker_id_is_refused(tmp_path):
    doc = _doc(tmp_path)
    doc["layout"]["markers"][1]["id"] = 0
    with pytest.raises(CalibrationError, match=r"layout\.markers\[1\]\.id: marker id 0 appears twice"):
        load(_write(tmp_path, doc))


def test_unknown_variant_is_refused(tmp_path):
    doc = _doc(tmp_path)
    doc["referee"]["variant"] = "speed"
    with pytest.raises(CalibrationError, match=r"referee\.variant: expected one of points, standard"):
        load(_write(tmp_path, doc))


def test_missing_file_says_how_to_make_one(tmp_path):
    with pytest.raises(CalibrationMissingError, match=r"no calibration file at .*calibrate table"):
        load(tmp_path / "nope.json")


def test_corrupt_file_gets_its_own_message(tmp_path):
    p = tmp_path / "cal.json"
    save(default_calibration(), p)
    p.write_text(p.read_text()[:100])  # cut short, as by a crash of another program
    with pytest.raises(CalibrationCorruptError, match=r"is not valid JSON .*line \d+"):
        load(p)


def test_binary_file_is_corrupt_not_a_crash(tmp_path):
    p = tmp_path / "cal.json"
    p.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(CalibrationCorruptError, match="not a text file"):
        load(p)


def test_json_that_is_not_an_object_is_corrupt(tmp_path):
    with pytest.raises(CalibrationCorruptError, match="expected a JSON object"):
        load(_write(tmp_path, [1, 2, 3]))


def test_older_version_says_which_command_regenerates_it(tmp_path):
    doc = _doc(tmp_path)
    doc["version"] = 0
    with pytest.raises(CalibrationVersionError,
                       match=r"older than version 1.*`spit-referee calibrate table --calibration "
                             r"\S*bad\.json --camera SRC` \(or --image PHOTO.*bad\.json\.bak"):
        load(_write(tmp_path, doc))


def test_newer_version_says_to_upgrade(tmp_path):
    doc = _doc(tmp_path)
    doc["version"] = 2
    with pytest.raises(CalibrationVersionError, match=r"newer spit-referee .*upgrade"):
        load(_write(tmp_path, doc))


def test_file_without_version_is_refused(tmp_path):
    with pytest.raises(CalibrationVersionError, match=r"no \"version\" field"):
        load(_write(tmp_path, {"pads": {}}))


def test_save_refuses_an_invalid_calibration_and_keeps_the_old_file(tmp_path):
    p = tmp_path / "cal.json"
    save(default_calibration(), p)
    before = p.read_bytes()
    bad = default_calibration().replace_section(
        pads=store.PadsSection(pins={"p1.left": 99, "p1.right": 27, "p2.left": 22, "p2.right": 23}))
    with pytest.raises(CalibrationError, match=r"pads\.pins\.p1\.left"):
        save(bad, p)
    assert p.read_bytes() == before
    assert [x.name for x in tmp_path.iterdir()] == ["cal.json"]


def test_crash_during_save_leaves_the_old_file_whole(tmp_path, monkeypatch):
    p = tmp_path / "cal.json"
    save(default_calibration(), p)
    before = p.read_bytes()

    def crash(fd):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(os, "fsync", crash)
    new = default_calibration().replace_section(table=TableSection(H, 0.4, (640, 480)))
    with pytest.raises(CalibrationError, match=r"Input/output error; the previous file is unchanged"):
        save(new, p)
    monkeypatch.undo()
    assert p.read_bytes() == before
    assert load(p) == default_calibration()
    assert [x.name for x in tmp_path.iterdir()] == ["cal.json"]  # no temp file left behind


def test_saving_over_a_folder_is_a_clear_error(tmp_path):
    (tmp_path / "cal.json").mkdir()
    with pytest.raises(CalibrationError, match=r"cannot write the calibration file .*cal\.json"):
        save(default_calibration(), tmp_path / "cal.json")
    assert [x.name for x in tmp_path.iterdir()] == ["cal.json"]


def test_loading_a_folder_says_to_give_the_file(tmp_path):
    with pytest.raises(CalibrationError, match="is a folder, not a calibration file"):
        load(tmp_path)


def test_update_writes_one_section_and_keeps_the_others(tmp_path):
    p = tmp_path / "cal.json"
    doc = _doc(tmp_path)
    doc["pads"]["bounce_ms"] = 35.0
    p.write_text(json.dumps(doc))
    store.update(p, lambda c: c.replace_section(table=TableSection(H, 0.4, (640, 480))))
    cal = load(p)
    assert cal.pads.bounce_ms == 35.0
    assert cal.table == TableSection(H, 0.4, (640, 480))


# --- the referee section's rules decisions, checked against referee.rules.RulesConfig ---------

def test_rules_decisions_round_trip_and_build_the_rules_config(tmp_path):
    from referee.rules import RulesConfig, Variant
    doc = _doc(tmp_path)
    doc["referee"]["variant"] = "points"
    doc["referee"]["rules"] = {"equal_ranks_adjacent": True, "points_limit": 50}
    cal = load(_write(tmp_path, doc))
    assert cal.rules_config() == RulesConfig(equal_ranks_adjacent=True, points_limit=50,
                                             variant=Variant.POINTS)


def test_unknown_rules_decision_lists_the_known_ones(tmp_path):
    doc = _doc(tmp_path)
    doc["referee"]["rules"] = {"equal_rank_adjacent": True}
    with pytest.raises(CalibrationError, match=r"referee\.rules\.equal_rank_adjacent: is not a rules decision; known decisions: .*equal_ranks_adjacent"):
        load(_write(tmp_path, doc))


def test_rules_decision_of_the_wrong_type_is_named(tmp_path):
    doc = _doc(tmp_path)
    doc["referee"]["rules"] = {"tie_is_draw": "yes"}
    with pytest.raises(CalibrationError, match=r'referee\.rules\.tie_is_draw: expected true or false, got "yes"'):
        load(_write(tmp_path, doc))
    doc["referee"]["rules"] = {"points_limit": 0}
    with pytest.raises(CalibrationError, match=r"referee\.rules\.points_limit: expected a whole number from 1"):
        load(_write(tmp_path, doc))


def test_variant_belongs_in_the_referee_section_not_the_rules(tmp_path):
    doc = _doc(tmp_path)
    doc["referee"]["rules"] = {"variant": "points"}
    with pytest.raises(CalibrationError, match=r"referee\.rules\.variant: set the variant in referee\.variant"):
        load(_write(tmp_path, doc))


def test_a_field_written_twice_is_refused(tmp_path):
    p = tmp_path / "cal.json"
    p.write_text('{"version": 1, "pads": {"bounce_ms": 20, "bounce_ms": 35}}')
    with pytest.raises(CalibrationCorruptError, match=r"field 'bounce_ms' appears twice"):
        load(p)


# --- load_for_update: what a calibrate step starts from ---------------------------------------

def test_every_command_the_messages_advise_has_its_required_arguments(tmp_path):
    """`calibrate table` needs --image or --camera, `calibrate camera` --images, --camera or
    --print-board: advice without them would end in a usage error."""
    import re
    doc = _doc(tmp_path)
    messages = []
    for version in (0, 2):
        doc["version"] = version
        with pytest.raises(CalibrationVersionError) as exc:
            load(_write(tmp_path, doc))
        messages.append(str(exc.value))
    with pytest.raises(CalibrationVersionError) as exc:
        load(_write(tmp_path, {"pads": {}}))
    messages.append(str(exc.value))
    with pytest.raises(CalibrationMissingError) as exc:
        load(tmp_path / "nope.json")
    messages.append(str(exc.value))
    for message in messages:
        commands = re.findall(r"`spit-referee (calibrate (?:table|camera)[^`]*)`", message)
        assert commands, message
        for cmd in commands:
            assert re.search(r"--(image|camera|images|print-board) ", cmd + " "), cmd


def test_an_older_file_is_started_afresh_with_a_backup(tmp_path):
    doc = _doc(tmp_path)
    doc["version"] = 0
    p = _write(tmp_path, doc)
    before = p.read_bytes()
    said = []
    assert store.load_for_update(p, "table", said.append) == default_calibration()
    assert p.read_bytes() == before  # replaced only when the step saves
    assert (tmp_path / "bad.json.bak").read_bytes() == before
    assert said and f"kept it as {tmp_path / 'bad.json.bak'}" in said[0]


def test_a_different_backup_already_there_is_kept(tmp_path):
    p = _write(tmp_path, {"version": 0})
    (tmp_path / "bad.json.bak").write_text("an earlier backup")
    store.load_for_update(p, "table", lambda s: None)
    assert (tmp_path / "bad.json.bak").read_text() == "an earlier backup"
    assert (tmp_path / "bad.json.bak2").read_bytes() == p.read_bytes()


def test_a_file_that_is_not_ours_is_never_replaced(tmp_path):
    p = _write(tmp_path, {"name": "my-package", "dependencies": {}})
    with pytest.raises(CalibrationVersionError, match=r"not one — check the path"):
        store.load_for_update(p, "table", lambda s: None)
    assert [x.name for x in tmp_path.iterdir()] == ["bad.json"]


def test_a_newer_file_is_never_replaced(tmp_path):
    doc = _doc(tmp_path)
    doc["version"] = 2
    with pytest.raises(CalibrationVersionError, match="newer spit-referee"):
        store.load_for_update(_write(tmp_path, doc), "table", lambda s: None)
    assert not (tmp_path / "bad.json.bak").exists()


def test_a_bad_field_in_another_section_is_still_refused(tmp_path):
    doc = _doc(tmp_path)
    doc["pads"]["bounce_ms"] = -1
    with pytest.raises(CalibrationError, match=r"pads\.bounce_ms"):
        store.load_for_update(_write(tmp_path, doc), "table", lambda s: None)
    assert not (tmp_path / "bad.json.bak").exists()


def test_a_saved_file_is_readable_by_others_as_a_new_file_would_be(tmp_path):
    """mkstemp's 0600 would leave the file unreadable to the service's own user."""
    old = os.umask(0o022)
    try:
        save(default_calibration(), tmp_path / "cal.json")
    finally:
        os.umask(old)
    assert (tmp_path / "cal.json").stat().st_mode & 0o777 == 0o644
    os.chmod(tmp_path / "cal.json", 0o640)
    save(default_calibration(), tmp_path / "cal.json")  # an existing file keeps its mode
    assert (tmp_path / "cal.json").stat().st_mode & 0o777 == 0o640
