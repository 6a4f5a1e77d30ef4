"""Issue 13, items 6 and 8: bad files never crash, and nothing typed can drive the terminal.

"14 of 2,000 fuzzed scenarios and 91 of 5,000 fuzzed log verbs died with a
traceback ... a list where a terrain string belongs (TypeError), at = [1, 0,
nan], eye_height = nan/inf (and an unreadable log left behind — create logs by
writing a temporary file and renaming it), a log line with 50,000 nested
brackets (RecursionError in every verb, verify included). Non-finite numbers are
refused everywhere; nesting depth is bounded before decoding."
"why=$'\\e[2J' is stored and log prints it raw ... Control characters are
escaped on every human output."
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from tabletrail.cli import main
from tabletrail.events.errors import InputError
from tabletrail.events.limits import MAX_MAP_CELLS, MAX_MAP_SIDE, MAX_NESTING, check_nesting, nesting
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.text.render import printable

ROOT = Path(__file__).resolve().parents[2]
BRAWL = (ROOT / "scenarios" / "speed-meters-brawl.toml").read_text()


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


SQUARE = math.isqrt(MAX_MAP_CELLS) + 1  # rows and columns of a square map one row past MAX_MAP_CELLS


def map_of(width: int, height: int) -> str:
    """The brawl with its map replaced by a width x height field of floor (past a limit, or not)."""
    head, rest = BRAWL.split("rows = [", 1)
    return head + "rows = [" + f'  "{"." * width}",' * height + rest[rest.index("]") :]


def edited(old: str, new: str, text: str = BRAWL) -> str:
    assert old in text
    return text.replace(old, new, 1)


BAD_SCENARIOS = {
    "a list where a terrain string belongs": (
        edited('"#" = "wall"', '"#" = { terrain = ["wall"] }'),
        "terrain",
    ),
    "a height that is not a number": (edited("at = [3, 2]", "at = [3, 2, nan]"), "at[2]"),
    "an infinite height": (edited("at = [3, 2]", "at = [3, 2, inf]"), "at[2]"),
    "eye_height = nan": (edited("[map]", "[settings]\neye_height = nan\n\n[map]"), "settings.eye_height"),
    "eye_height = inf": (edited("[map]", "[settings]\neye_height = inf\n\n[map]"), "settings.eye_height"),
    "a stat past 2**64": (edited("speed = 5", f"speed = {2**70}"), "speed"),
    "a seed past 2**63": (edited("seed = 913", f"seed = {2**64}"), "encounter.seed"),
    "a size that is a list": (edited('size = "large"', 'size = ["large"]'), "size"),
    "arrays nested 5,000 deep": (edited("seed = 913", "seed = " + "[" * 5000 + "]" * 5000), "nest"),
    "a map past MAX_MAP_CELLS": (map_of(SQUARE, SQUARE), "MAX_MAP_CELLS"),  # each side within MAX_MAP_SIDE
    "a map past MAX_MAP_SIDE": (map_of(MAX_MAP_SIDE + 1, 6), "MAX_MAP_SIDE"),
}


@pytest.mark.parametrize("case", list(BAD_SCENARIOS))
@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_bad_scenario_is_exit_2_naming_the_field_and_leaves_no_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, suffix: str
):
    text, field = BAD_SCENARIOS[case]
    scenario = tmp_path / "bad.toml"
    scenario.write_text(text)
    log = tmp_path / f"fight{suffix}"
    code, _, err = run(capsys, "new", scenario, "--log", log)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert field in err
    assert not log.exists() and list(tmp_path.iterdir()) == [scenario]


def test_a_log_is_created_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A crash half-way through writing a new log (here: fsync failing) leaves no file at its name."""
    from tabletrail.events.stores import jsonl as log_module

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(log_module.os, "fsync", broken)
    path = tmp_path / "fight.jsonl"
    with pytest.raises(OSError):
        JsonlStore(path).create([b'{"seq":1}'])
    assert list(tmp_path.iterdir()) == []


def test_creating_over_an_existing_log_still_refuses(tmp_path: Path):
    path = tmp_path / "fight.jsonl"
    path.write_bytes(b"mine\n")
    with pytest.raises(InputError, match="already exists"):
        JsonlStore(path).create([b'{"seq":1}'])
    assert path.read_bytes() == b"mine\n" and list(tmp_path.iterdir()) == [path]


# --- a log line nested 50,000 deep ---------------------------------------------------------------


@pytest.fixture
def nested_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    log = tmp_path / "fight.jsonl"
    assert run(capsys, "new", ROOT / "scenarios/speed-meters-brawl.toml", "--log", log)[0] == 0
    assert run(capsys, "do", log, "end-turn")[0] == 0
    lines = log.read_bytes().split(b"\n")[:-1]
    record = json.loads(lines[-1])
    record["event"]["note"] = 0
    bomb = json.dumps(record).replace('"note": 0', '"note": ' + "[" * 50_000 + "]" * 50_000)
    log.write_bytes(b"\n".join([*lines[:-1], bomb.encode()]) + b"\n")
    return log


@pytest.mark.parametrize("verb", ["show", "log", "replay", "verify", "explain", "do"])
def test_a_line_nested_50000_deep_is_a_finding_in_every_verb(
    nested_log: Path, capsys: pytest.CaptureFixture[str], verb: str
):
    before = nested_log.read_bytes()
    extra = {"explain": ["1"], "do": ["end-turn"]}.get(verb, [])
    code, out, err = run(capsys, verb, nested_log, *extra)
    assert code in (1, 2) and "nest" in out + err
    assert nested_log.read_bytes() == before


def test_nesting_is_measured_without_recursing():
    assert nesting(b"[" * 50_000 + b"]" * 50_000) == MAX_NESTING + 1  # it stops counting past the limit
    assert nesting(b'{"a": "[[[[[[[[", "b": [1, [2]]}') <= 2  # brackets inside strings do not count
    assert nesting(b'{"a": "\\"[[[[[[", "b": ' + b"[1]," * 100 + b"0}") == 1 + 1
    with pytest.raises(InputError, match="MAX_NESTING"):
        check_nesting(b"[" * (MAX_NESTING + 1), "body")
    check_nesting(b"[" * MAX_NESTING + b"]" * MAX_NESTING, "body")


# --- 8: control characters --------------------------------------------------------------------


def test_control_characters_are_escaped_on_every_human_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = tmp_path / "fight.jsonl"
    assert run(capsys, "new", ROOT / "scenarios/speed-meters-brawl.toml", "--log", log)[0] == 0
    code, out, err = run(capsys, "do", log, "end-turn", "why=\x1b[2J\x9b31m\x07")
    assert code == 0 and "\x1b" not in out + err
    assert "\\u001b[2J" in log.read_text()  # kept as typed (JSON-escaped): the log is evidence
    run(capsys, "do", log, "move", "ogre", "9,9", "why=\x1b]0;pwned\x07")  # refused: kept in the side log
    outputs = []
    for argv in (["log", log], ["show", log], ["explain", log, "6"], ["refused", log], ["verify", log]):
        code, out, err = run(capsys, *argv)
        outputs.append(out + err)
    every = "".join(outputs)
    assert "\\x1b[2J" in every and "\\x1b]0;pwned\\x07" in every
    assert not any(ch in every for ch in "\x1b\x07\x9b\x00")
    code, out, _ = run(capsys, "log", log, "--json") if "--json" in _help(capsys, "log") else (0, "[]", "")
    json.loads(out)


def _help(capsys: pytest.CaptureFixture[str], verb: str) -> str:
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    return capsys.readouterr().out


def test_printable_keeps_newlines_tabs_and_unicode():
    assert printable("a\tb\nc é ☃") == "a\tb\nc é ☃"
    assert printable("\x1b[2J\r\x7f\x85") == "\\x1b[2J\\x0d\\x7f\\x85"
    assert os.linesep == "\n"


# --- HTTP bodies: size and nesting bounded before decoding ---------------------------------------


@pytest.fixture
def client(tmp_path: Path, capsys: pytest.CaptureFixture[str]):  # noqa: ANN201
    from starlette.testclient import TestClient
    from tabletrail.web.server import create_app

    log = tmp_path / "web.jsonl"
    assert run(capsys, "new", ROOT / "scenarios/speed-meters-brawl.toml", "--log", log)[0] == 0
    from support_web import bearer, invite

    return TestClient(create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log)[1])), log


def post(client, raw: bytes, path: str = "/api/do"):  # noqa: ANN001, ANN201
    return client.post(path, content=raw, headers={"content-type": "application/json"})


def test_a_body_past_the_limit_is_413_and_changes_nothing(client):  # noqa: ANN001
    from tabletrail.events.limits import MAX_BODY_BYTES

    web, log = client
    before = log.read_bytes()
    r = post(web, json.dumps({"version": 5, "text": "end-turn", "by": "x" * MAX_BODY_BYTES}).encode())
    assert r.status_code == 413 and "MAX_BODY_BYTES" in r.json()["message"]
    assert log.read_bytes() == before


@pytest.mark.parametrize("path", ["/api/do", "/api/preview", "/api/undo"])
def test_a_body_nested_past_the_limit_is_400(client, path: str):  # noqa: ANN001
    web, log = client
    before = log.read_bytes()
    r = post(web, b"[" * 20_000 + b"]" * 20_000, path)
    assert r.status_code == 400 and "MAX_NESTING" in r.json()["message"]
    assert log.read_bytes() == before


def test_too_many_waypoints_from_the_board_are_400(client):  # noqa: ANN001
    web, _ = client
    body = {"move": {"fighter": "tam", "waypoints": [[3, 3], [4, 3]] * 2_000}}
    r = post(web, json.dumps(body).encode(), "/api/preview")
    assert r.status_code == 400 and "MAX_WAYPOINTS" in r.json()["message"]


HUGE = str(10**400)  # a whole number no float can hold


@pytest.mark.parametrize(
    ("words", "field"),
    [(["move", "ari", "2,2", f"bumps={HUGE}"], "bumps"), (["move", "ari", f"{HUGE},1"], "path")],
)
def test_a_number_too_big_for_a_float_is_refused_naming_the_field(tmp_path: Path, capsys, words, field):
    log = tmp_path / "fight.jsonl"
    assert run(capsys, "new", ROOT / "scenarios" / "speed-meters-skirmish.toml", "--log", log)[0] == 0
    before = log.read_bytes()
    code, _, err = run(capsys, "why", log, *words)
    assert code == 2 and f"{field}: a number of 401 digits is out of range" in err
    assert log.read_bytes() == before


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", HUGE])
def test_a_setting_ruling_takes_only_a_finite_number_and_the_log_stays_usable(tmp_path: Path, capsys, value):
    log = tmp_path / "cellar.jsonl"
    assert run(capsys, "new", ROOT / "scenarios" / "initiative-yards-cellar.toml", "--log", log)[0] == 0
    before = log.read_bytes()
    code, out, err = run(capsys, "do", log, "setting", "door_cost", value, "why=test")
    assert code == 1 and "door_cost: expected a finite number" in out + err and log.read_bytes() == before
    assert run(capsys, "do", log, "setting", "door_cost", "1.5", "why=test")[0] == 0  # later rulings work
