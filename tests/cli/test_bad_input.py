"""Bad input through the CLI (issue 2, "Bad input").

"A malformed scenario, command or log line gets a clear error naming the file,
line and field, a non-zero exit, and no change to any log. An illegal move is
refused with its rule id. No traceback for a user mistake."

Input errors exit 2, refusals exit 1. Each case checks the message names what
and where, and that no log was created or changed.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support import rechain
from tabletrail.cli import main
from tabletrail.events.errors import InputError
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"
REPLAY = ROOT / "replays" / "speed-meters-skirmish.jsonl"
TEXT = SCENARIO.read_text(encoding="utf-8")


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def input_error(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> str:
    """Run argv, which must fail as an input error (exit 2); returns the message."""
    code, out, err = run(capsys, *argv)
    assert code == 2, f"exit {code}; stdout: {out!r}; stderr: {err!r}"
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, f"one line of error, not a dump: {err!r}"
    return err


@pytest.fixture
def log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A fresh log of the skirmish with one accepted move in it."""
    path = tmp_path / "fight.jsonl"
    assert main(["new", str(SCENARIO), "--log", str(path)]) == 0
    assert main(["do", str(path), "move", "ari", "2,2"]) == 0
    capsys.readouterr()
    return path


def rewrite(path: Path, lineno: int, change) -> None:  # noqa: ANN001
    """Change one record of a log file (1-based line) through its JSON."""
    lines = path.read_bytes().splitlines()
    record = json.loads(lines[lineno - 1])
    change(record)
    lines[lineno - 1] = json.dumps(record, separators=(",", ":")).encode()
    path.write_bytes(b"".join(line + b"\n" for line in lines))


# --- malformed scenarios -----------------------------------------------------------

SCENARIO_MISTAKES = [
    # (what, old text, new text, words the message must contain)
    ("toml syntax", 'name = "Warehouse brawl"', 'name = "Warehouse', ["not valid TOML", "line 5"]),
    ("missing field", 'name = "Warehouse brawl"\n', "", ["encounter.name", "non-empty string"]),
    ("legend char", '"#..~~~..#..#",', '"#..~~~..Q..#",', ["map.rows[3]", "'Q'", "column 8", "map.legend"]),
    ("unknown terrain", '"#" = "wall"', '"#" = "lava"', ["map.legend.'#'.terrain", "'lava'"]),
    ("unknown tag", 'tags = ["soft"]', 'tags = ["slipery"]', ["map.legend.'~'.tags", "'slipery'"]),
    ("ragged row", '"#..~~~..#..#",', '"#..~~~..#.#",', ["map.rows[3]", "11 characters", "12"]),
    ("off the map", "at = [1, 1]", "at = [40, 1]", ["fighters[0].at", "40,1", "off the 12x8 map"]),
    ("inside a wall", "at = [1, 1]", "at = [0, 0]", ["fighters[0].at", "0,0", "wall"]),
    ("duplicate id", 'id = "bo"', 'id = "ari"', ["fighters", "'ari'", "twice"]),
    (
        "unknown setting",
        'diagonal = "every-1"',
        'diagnal = "every-1"',
        ["settings.diagnal", "no such setting"],
    ),
    ("bad setting choice", 'diagonal = "every-1"', 'diagonal = "hex"', ["settings.diagonal", "'hex'"]),
    (
        "bad setting number",
        'diagonal = "every-1"',
        "actions_per_turn = 2.5",
        ["settings.actions_per_turn", "2.5"],
    ),
    ("bad setting flag", 'diagonal = "every-1"', 'strict_turns = "yes"', ["settings.strict_turns", "'yes'"]),
    ("missing stat", "speed = 6\n", "", ["fighters[0]", "ari", "missing stat 'speed'"]),
    ("stat not a number", "speed = 6", 'speed = "fast"', ["fighters[0].speed", "'fast'"]),
    ("negative stat", "speed = 6", "speed = -6", ["fighters[0].speed", "negative", "-6"]),
    ("unknown stat", "speed = 6", "speed = 6\nstrength = 3", ["fighters[0].strength", "no stat"]),
    ("unknown section", "[settings]", "[setings]", ["setings", "unknown section"]),
    ("bad seed", "seed = 2026", 'seed = "x"', ["encounter.seed", "'x'"]),
    (
        "initiative",
        'initiative = ["ari", "bo", "cyn", "dax"]',
        'initiative = ["ari", "bo", "cyn", "zed"]',
        ["encounter.initiative[3]", "'zed'"],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "words"), [m[1:] for m in SCENARIO_MISTAKES], ids=[m[0] for m in SCENARIO_MISTAKES]
)
def test_a_malformed_scenario_is_named_and_starts_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, words: list[str]
):
    assert old in TEXT
    bad = tmp_path / "bad.toml"
    bad.write_text(TEXT.replace(old, new, 1), encoding="utf-8")
    target = tmp_path / "bad.jsonl"
    err = input_error(capsys, "new", bad, "--log", target)
    assert str(bad) in err
    for word in words:
        assert word in err, f"{word!r} not in {err!r}"
    assert not target.exists()


def test_a_missing_scenario_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    err = input_error(capsys, "new", tmp_path / "nowhere.toml", "--log", tmp_path / "x.jsonl")
    assert "nowhere.toml" in err and "no such scenario file" in err
    assert not (tmp_path / "x.jsonl").exists()


def test_a_scenario_that_is_not_text_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bad = tmp_path / "bin.toml"
    bad.write_bytes(b"\xff\xfe\x00")
    err = input_error(capsys, "new", bad, "--log", tmp_path / "x.jsonl")
    assert str(bad) in err and "UTF-8" in err


def test_an_unknown_ruleset_names_the_file_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bad = tmp_path / "bad.toml"
    bad.write_text(TEXT.replace('ruleset = "speed-meters"', 'ruleset = "speed-metres"'), encoding="utf-8")
    err = input_error(capsys, "new", bad, "--log", tmp_path / "x.jsonl")
    assert "'speed-metres'" in err
    assert str(bad) in err and "encounter.ruleset" in err


def test_two_fighters_starting_on_one_space_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bad = tmp_path / "bad.toml"
    bad.write_text(TEXT.replace("at = [10, 6]", "at = [1, 1]"), encoding="utf-8")  # cyn onto ari
    err = input_error(capsys, "new", bad, "--log", tmp_path / "x.jsonl")
    assert "fighters[2].at" in err and "1,1" in err


def test_new_refuses_to_overwrite_a_log(log: Path, capsys: pytest.CaptureFixture[str]):
    before = log.read_bytes()
    err = input_error(capsys, "new", SCENARIO, "--log", log)
    assert str(log) in err and "already exists" in err
    assert log.read_bytes() == before


def test_play_refuses_to_overwrite_a_log(log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    before = log.read_bytes()
    script = tmp_path / "s.script"
    script.write_text("end-turn\n", encoding="utf-8")
    input_error(capsys, "play", SCENARIO, script, "--log", log)
    assert log.read_bytes() == before


# --- malformed commands --------------------------------------------------------------

COMMAND_MISTAKES = [
    (["jump", "ari"], ["unknown command 'jump'", "move"]),
    (["move", "ari", "2,x"], ["path", "'2,x'", "not a cell"]),
    (["move", "ari", "2,2,1,4"], ["path", "'2,2,1,4'"]),
    (["move", "ari", "2,2", "foo=3"], ["no option 'foo'", "options"]),
    (["move", "ari", "2,2", "roll=many"], ["rolls", "'many'"]),
    (["move"], ["move needs fighter, path", "usage"]),
    (["end-turn", "ari", "bo"], ["unexpected word 'bo'", "usage"]),
    ([], ["empty command"]),
    (["move", "ari"], ["move needs path"]),
]


@pytest.mark.parametrize(("words", "expect"), COMMAND_MISTAKES, ids=lambda v: " ".join(v) if v else "empty")
def test_a_malformed_command_is_named_and_appends_nothing(
    log: Path, capsys: pytest.CaptureFixture[str], words: list[str], expect: list[str]
):
    before = log.read_bytes()
    err = input_error(capsys, "do", log, *words)
    for word in expect:
        assert word in err, f"{word!r} not in {err!r}"
    assert log.read_bytes() == before
    assert not log.with_name(log.name + ".refused").exists(), "a parse error is not a refusal"


def test_an_illegal_move_is_refused_with_its_rule_and_numbers(log: Path, capsys: pytest.CaptureFixture[str]):
    before = log.read_bytes()
    code, out, err = run(capsys, "do", log, "move", "ari", "2,2", "9,2")  # ari already used 1 m of 6
    assert code == 1
    assert "speed-meters/movement" in err and "6 m" in err
    assert out == ""
    assert log.read_bytes() == before


@pytest.mark.parametrize(
    ("words", "rule"),
    [
        (["move", "bo", "3,3"], "tabletrail/turn-order"),
        (["move", "ari", "2,1"], "speed-meters/occupancy"),  # bo stands there
        (["move", "ari", "0,2"], "speed-meters/occupancy"),  # a wall
        (["sprint", "ari"], "tabletrail/command"),  # a round-meters command
        (["move", "zed", "3,3"], "tabletrail/fighter"),
    ],
)
def test_every_refusal_exits_1_with_its_rule_and_leaves_the_log(
    log: Path, capsys: pytest.CaptureFixture[str], words: list[str], rule: str
):
    before = log.read_bytes()
    code, _, err = run(capsys, "do", log, *words)
    assert (code, err.split(":")[0]) == (1, f"refused by {rule}")
    assert log.read_bytes() == before


def test_nothing_to_undo_or_redo_is_a_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "f.jsonl"
    run(capsys, "new", SCENARIO, "--log", path)
    before = path.read_bytes()
    for verb in ("undo", "redo"):
        code, _, err = run(capsys, verb, path)
        assert code == 1 and "tabletrail/undo" in err
    assert path.read_bytes() == before


# --- malformed log lines ------------------------------------------------------------------


def test_a_missing_log_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    err = input_error(capsys, "show", tmp_path / "gone.jsonl")
    assert "gone.jsonl" in err and "no such log file" in err


def test_an_empty_log_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert "empty.jsonl: the log is empty" in input_error(capsys, "show", empty)


def test_garbage_json_names_its_line(log: Path, capsys: pytest.CaptureFixture[str]):
    lines = log.read_bytes().splitlines()
    log.write_bytes(b"".join(x + b"\n" for x in [*lines[:3], b"{not json", *lines[3:]]))
    err = input_error(capsys, "show", log)
    assert f"{log}:4:" in err and "not a log record" in err


def test_a_wrong_field_type_names_the_line_and_field(log: Path, capsys: pytest.CaptureFixture[str]):
    rewrite(log, 6, lambda r: r.__setitem__("seq", "six"))
    err = input_error(capsys, "show", log)
    assert f"{log}:6:" in err and "$.seq" in err and "int" in err


def test_a_wrong_event_field_names_the_path_into_the_event(log: Path, capsys: pytest.CaptureFixture[str]):
    rewrite(log, 7, lambda r: r["event"].__setitem__("fighter", 3))
    err = input_error(capsys, "show", log)
    assert f"{log}:7:" in err and "$.event.fighter" in err


def test_a_wrong_seq_names_the_line(log: Path, capsys: pytest.CaptureFixture[str]):
    rewrite(log, 5, lambda r: r.__setitem__("seq", 9))
    err = input_error(capsys, "show", log)
    assert f"{log}:5:" in err and "seq is 9, expected 5" in err


def test_a_broken_hash_chain_names_the_line(log: Path, capsys: pytest.CaptureFixture[str]):
    rewrite(log, 4, lambda r: r["event"].__setitem__("note", "edited by hand"))
    err = input_error(capsys, "show", log)
    assert f"{log}:5:" in err and "line 4 was changed after it was written" in err


def test_a_log_must_start_with_the_encounter(log: Path, capsys: pytest.CaptureFixture[str]):
    lines = log.read_bytes().splitlines()
    log.write_bytes(b"".join(x + b"\n" for x in rechain(lines[1:])))
    err = input_error(capsys, "show", log)
    assert f"{log}:1:" in err and "encounter-started" in err


def test_a_torn_last_line_is_named(log: Path, capsys: pytest.CaptureFixture[str]):
    log.write_bytes(log.read_bytes()[:-20])
    code, out, _ = run(capsys, "verify", log)  # verify looks and names it; the other verbs cut it
    assert code == 1 and "torn" in out
    code, _, err = run(capsys, "show", log)
    assert code == 0 and str(log) in err and "torn line" in err and err.startswith("warning: ")


def test_an_event_that_does_not_fit_the_board_names_its_line(log: Path, capsys: pytest.CaptureFixture[str]):
    lines = log.read_bytes().splitlines()
    record = json.loads(lines[-1])
    record["event"]["fighter"] = "zed"  # a move by nobody
    log.write_bytes(b"".join(x + b"\n" for x in rechain([*lines[:-1], json.dumps(record).encode()])))
    err = input_error(capsys, "show", log)
    assert f"{log}:{len(lines)}:" in err and "does not fit" in err


@pytest.mark.parametrize("verb", ["do", "undo", "redo"])
def test_a_broken_log_is_never_appended_to(log: Path, capsys: pytest.CaptureFixture[str], verb: str):
    rewrite(log, 3, lambda r: r.__setitem__("seq", 30))
    before = log.read_bytes()
    words = ["end-turn"] if verb == "do" else []
    err = input_error(capsys, verb, log, *words)
    assert f"{log}:3:" in err
    assert log.read_bytes() == before


def test_a_move_with_no_steps_names_its_line(log: Path, capsys: pytest.CaptureFixture[str]):
    lines = log.read_bytes().splitlines()
    record = json.loads(lines[-1])
    assert record["event"]["type"] == "moved"
    record["event"]["steps"] = []
    log.write_bytes(b"".join(x + b"\n" for x in rechain([*lines[:-1], json.dumps(record).encode()])))
    err = input_error(capsys, "show", log)
    assert f"{log}:{len(lines)}:" in err


def test_a_move_off_the_map_in_a_log_names_its_line(log: Path, capsys: pytest.CaptureFixture[str]):
    lines = log.read_bytes().splitlines()
    record = json.loads(lines[-1])
    record["event"]["steps"][-1][0] = [99, 2, 0]
    log.write_bytes(b"".join(x + b"\n" for x in rechain([*lines[:-1], json.dumps(record).encode()])))
    err = input_error(capsys, "show", log)
    assert f"{log}:{len(lines)}:" in err


def test_a_log_whose_scenario_is_broken_names_line_1(log: Path, capsys: pytest.CaptureFixture[str]):
    rewrite(log, 1, lambda r: r["event"]["scenario"]["fighters"][0].__setitem__("at", [99, 99]))
    lines = log.read_bytes().splitlines()
    log.write_bytes(b"".join(x + b"\n" for x in rechain(lines)))
    err = input_error(capsys, "show", log)
    assert f"{log}:1:" in err


def test_a_log_written_before_a_setting_existed_takes_its_default(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    """Schema evolution: settings a later version added take their defaults in older logs."""
    rewrite(log, 1, lambda r: r["event"].__setitem__("settings", {}))
    log.write_bytes(b"".join(x + b"\n" for x in rechain(log.read_bytes().splitlines())))
    code, out, _ = run(capsys, "do", log, "move", "ari", "3,3")
    assert code == 0 and "ari moved" in out


def test_a_log_with_an_unknown_setting_names_line_1(log: Path, capsys: pytest.CaptureFixture[str]):
    rewrite(log, 1, lambda r: r["event"]["settings"].__setitem__("diagonl", "every-1"))
    log.write_bytes(b"".join(x + b"\n" for x in rechain(log.read_bytes().splitlines())))
    before = log.read_bytes()
    err = input_error(capsys, "do", log, "move", "ari", "3,3")
    assert f"{log}:1:" in err and "diagonl" in err
    assert log.read_bytes() == before


def test_a_log_with_an_ill_typed_setting_names_line_1(log: Path, capsys: pytest.CaptureFixture[str]):
    rewrite(log, 1, lambda r: r["event"]["settings"].__setitem__("diagonal", "hexes"))
    log.write_bytes(b"".join(x + b"\n" for x in rechain(log.read_bytes().splitlines())))
    err = input_error(capsys, "show", log)
    assert f"{log}:1:" in err and "hexes" in err


def append_record(path: Path, event: dict) -> int:
    """Append a well-formed, well-chained GM record holding `event`; returns its line number."""
    lines = path.read_bytes().splitlines()
    last = json.loads(lines[-1])
    record = {
        "seq": len(lines) + 1,
        "batch": last["batch"] + 1,
        "actor": "gm",
        "at": last["at"],
        "prev": line_hash(lines[-1]),
        "event": event,
    }
    with open(path, "ab") as fh:
        fh.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")
    return len(lines) + 1


def undo_event(kind: str, batch: int) -> dict:
    return {"type": kind, "batch": batch, "by": "gm", "why": "", "rules": ["tabletrail/undo"], "note": ""}


def test_undoing_a_batch_not_in_force_names_its_line(log: Path, capsys: pytest.CaptureFixture[str]):
    lineno = append_record(log, undo_event("undone", 7))
    err = input_error(capsys, "show", log)
    assert f"{log}:{lineno}:" in err


def test_undoing_an_older_batch_than_the_latest_names_its_line(log: Path, capsys: pytest.CaptureFixture[str]):
    assert run(capsys, "do", log, "move", "ari", "3,3")[0] == 0  # batch 3; the fixture's move is batch 2
    lineno = append_record(log, undo_event("undone", 2))
    err = input_error(capsys, "show", log)
    assert f"{log}:{lineno}:" in err


def test_redoing_out_of_order_names_its_line(log: Path, capsys: pytest.CaptureFixture[str]):
    assert run(capsys, "do", log, "move", "ari", "3,3")[0] == 0  # batch 3
    assert run(capsys, "undo", log)[0] == 0  # undoes 3
    assert run(capsys, "undo", log)[0] == 0  # undoes 2; the redo stack is [3, 2]
    lineno = append_record(log, undo_event("redone", 3))
    err = input_error(capsys, "show", log)
    assert f"{log}:{lineno}:" in err


# --- fuzz: whatever is injected into a good log, the answer is an InputError ---------------

GOOD = REPLAY.read_bytes()
GOOD_LINES = GOOD.splitlines()

junk_lines = st.one_of(
    st.binary(max_size=80),
    st.text(max_size=80).map(lambda s: s.encode("utf-8")),
    st.sampled_from(GOOD_LINES),  # a good line in the wrong place
    st.builds(
        lambda k, v: json.dumps({**json.loads(GOOD_LINES[1]), k: v}).encode(),
        st.sampled_from(["seq", "batch", "actor", "at", "prev", "event"]),
        st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2)),
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    where=st.integers(0, len(GOOD_LINES)),
    junk=st.lists(junk_lines, min_size=1, max_size=3),
    replace=st.booleans(),
)
def test_junk_in_a_log_is_always_an_input_error(tmp_path: Path, where: int, junk: list[bytes], replace: bool):
    lines = list(GOOD_LINES)
    if replace and where < len(lines):
        assume(junk != [lines[where]])
        lines[where : where + 1] = junk
    else:
        lines[where:where] = junk
    data = b"".join(line + b"\n" for line in lines)
    assume(data != GOOD)
    path = tmp_path / "fuzzed.jsonl"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        Encounter.open(JsonlStore(path))
    assert str(path) in str(caught.value)
    assert path.read_bytes() == data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(junk=junk_lines)
def test_junk_in_a_log_is_refused_by_the_cli_without_a_change(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], junk: bytes
):
    path = tmp_path_factory.mktemp("fuzz") / "fuzzed.jsonl"
    data = b"".join(line + b"\n" for line in [*GOOD_LINES[:5], junk, *GOOD_LINES[5:]])
    path.write_bytes(data)
    code = main(["do", str(path), "end-turn"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"error: {path}")
    assert path.read_bytes() == data
    shutil.rmtree(path.parent)


# Valid records with correct seq and hash chain whose event content is wrong: the
# fold itself must reject them with an InputError naming the line.
field_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["", "ari", "zed", "prone", "posture", "movement", "moved", "undone"]),
    st.lists(st.integers(0, 3), max_size=3),
    st.just([[[2, 2, 0], 100, "floor", True, 1, ""]]),
)


@settings(max_examples=150, deadline=None)
@given(index=st.integers(1, len(GOOD_LINES) - 1), data=st.data())
def test_a_well_chained_record_with_a_bad_event_is_an_input_error(index: int, data: st.DataObject):
    record = json.loads(GOOD_LINES[index])
    key = data.draw(st.sampled_from(sorted(record["event"])), label="field")
    value = data.draw(field_values, label="value")
    record["event"][key] = value
    lines = rechain([*GOOD_LINES[:index], json.dumps(record).encode(), *GOOD_LINES[index + 1 :]])
    try:
        Encounter.open(MemoryStore(lines))
    except InputError as exc:
        named = re.match(r"<memory>:(\d+):", str(exc))
        assert named and 1 <= int(named.group(1)) <= len(lines), exc
