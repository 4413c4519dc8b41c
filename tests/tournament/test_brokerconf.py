"""`tournament init`: password hashes Mosquitto reads, the ACL, the credentials files."""
from __future__ import annotations

import os
import stat
import subprocess

import pytest

from referee.cli import main
from tournament.brokerconf import InitError, check_password, hash_password, init_event
from tournament.credentials import CredentialsError, load
from tournament.topics import TopicNameError

from .conftest import need_program


def test_python_hash_is_the_mosquitto_passwd_format(tmp_path) -> None:
    tool = need_program("mosquitto_passwd")
    path = tmp_path / "pw"
    subprocess.run([tool, "-c", "-b", str(path), "alice", "s3cret"], check=True)
    hashed = path.read_text().strip().split(":", 1)[1]
    assert check_password("s3cret", hashed)
    assert not check_password("s3cret!", hashed)
    assert hash_password("x").startswith("$7$101$")


def test_init_writes_an_acl_per_table_and_private_credentials(tmp_path) -> None:
    r = init_event("spring", 3, tmp_path / "cfg", port=18999)
    acl = (tmp_path / "cfg" / "acl").read_text()
    assert "user table-2\ntopic write spit/spring/table-2/#" in acl
    assert "user dashboard\ntopic read spit/spring/#" in acl
    assert "write spit/spring/#" not in acl
    conf = r.config.read_text()
    assert "allow_anonymous false" in conf and "listener 18999 127.0.0.1" in conf
    for user, path in r.credentials.items():
        cred = load(path)
        assert cred.username == user and cred.event == "spring"
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load(r.credentials["dashboard"]).role == "dashboard"
    passwords = {load(p).password for p in r.credentials.values()}
    assert len(passwords) == 4  # every user has its own


def test_init_refuses_to_overwrite_without_force(tmp_path) -> None:
    init_event("spring", 1, tmp_path)
    with pytest.raises(InitError, match="--force"):
        init_event("spring", 1, tmp_path)
    init_event("spring", 2, tmp_path, force=True)


def test_tls_stanzas_when_certificates_are_given(tmp_path) -> None:
    for name in ("ca.crt", "server.crt", "server.key"):
        (tmp_path / name).write_text("PEM")
    assert main(["tournament", "init", "--tables", "2", "--event", "e", "--out",
                 str(tmp_path / "cfg"), "--cafile", str(tmp_path / "ca.crt"), "--certfile",
                 str(tmp_path / "server.crt"), "--keyfile", str(tmp_path / "server.key")]) == 0
    conf = (tmp_path / "cfg" / "mosquitto.conf").read_text()
    assert "listener 8883 127.0.0.1" in conf
    assert f"cafile {tmp_path / 'ca.crt'}" in conf and "tls_version tlsv1.2" in conf
    assert load(tmp_path / "cfg" / "credentials" / "table-1.json").cafile == \
        str(tmp_path / "ca.crt")


def test_tls_needs_all_three_files(tmp_path, capsys) -> None:
    assert main(["tournament", "init", "--tables", "1", "--event", "e", "--out",
                 str(tmp_path), "--cafile", "ca.crt"]) == 1
    assert "--certfile" in capsys.readouterr().err


def test_event_names_that_would_escape_the_acl_are_refused(tmp_path) -> None:
    for bad in ("a/b", "+", "#", "", "with space"):
        with pytest.raises(TopicNameError):
            init_event(bad, 1, tmp_path / "x", force=True)


def test_a_table_file_is_refused_where_the_dashboard_file_is_needed(tmp_path) -> None:
    r = init_event("spring", 1, tmp_path)
    with pytest.raises(CredentialsError, match="dashboard"):
        load(r.credentials["table-1"], role="dashboard")
    with pytest.raises(CredentialsError, match="not found"):
        load(tmp_path / "nope.json")
