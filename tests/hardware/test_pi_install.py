"""README's "Install on a Raspberry Pi" steps, checked as a user with sudo would run them, and
against the systemd unit in deploy/ (the same paths in both)."""
import shlex
from pathlib import PurePosixPath as P

REPO = P(__file__).parents[2]
README = REPO / "README.md"
UNIT = REPO / "deploy" / "spit-referee.service"
HOME = P("/home/pi")
ROOT_OWNED = [P(d) for d in ("/opt", "/etc", "/usr", "/var", "/srv")]  # root's, not the user's


def install_commands():
    """The install block's commands, one token list each (comments dropped, `&&` split)."""
    section = open(README).read().split("### Install on a Raspberry Pi", 1)[1]
    block = section.split("```", 2)[1]
    out = []
    for line in block.splitlines():
        tokens = shlex.split(line, comments=True)
        while tokens:
            cut = tokens.index("&&") if "&&" in tokens else len(tokens)
            out.append(tokens[:cut])
            tokens = tokens[cut + 1:]
    return out


def unit_settings():
    settings = {}
    for line in open(UNIT).read().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings[key.strip()] = value.strip()
    return settings


def test_pi_install_steps_write_only_where_the_user_may_or_with_sudo():
    """Every command without sudo writes only into the user's own folders: /opt and the like
    are root's, so a folder there must first be made and given to the user with sudo."""
    owned, cwd = [HOME], HOME

    def writable(path):
        path = cwd / path
        mine = any(path == d or d in path.parents for d in owned)
        return mine or not any(path == d or d in path.parents for d in ROOT_OWNED)

    for cmd in install_commands():
        if cmd[0] == "sudo":
            if cmd[1] == "chown" and cmd[2].startswith("$USER"):
                owned.append(P(cmd[3]))
            continue
        if cmd[0] == "cd":
            cwd = cwd / cmd[1]
            continue
        assert writable(cwd), f"{shlex.join(cmd)!r} runs in {cwd}, which is root's"
        for arg in cmd[1:]:
            if arg.startswith(("/", ".")):
                assert writable(arg), f"{shlex.join(cmd)!r} writes to {arg} without sudo"


def test_the_unit_runs_the_program_where_the_readme_installs_it():
    commands = install_commands()
    clone = next(P(c[-1]) for c in commands if c[:2] == ["git", "clone"])
    venv = next(c[-1] for c in commands if c[:3] == ["python3", "-m", "venv"])
    cal = next(P(c[-1]) for c in commands if c[:2] == ["sudo", "cp"] and c[-1].endswith(".json"))
    unit = unit_settings()
    exec_start = shlex.split(unit["ExecStart"])
    assert P(exec_start[0]) == clone / venv / "bin" / "spit-referee"
    assert P(exec_start[exec_start.index("--calibration") + 1]) == cal
    assert unit["WorkingDirectory"] == f"/var/lib/{unit['StateDirectory']}"
    assert any(c[:2] == ["sudo", "useradd"] and c[-1] == unit["User"] for c in commands)
    assert ["sudo", "cp", f"deploy/{UNIT.name}", "/etc/systemd/system/"] in commands
