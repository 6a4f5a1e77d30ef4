"""Fuzz (issue 8): malformed scenario files, command lines and log lines, through the CLI.

Whatever comes in, the answer is an exit code, never a traceback: 0 when the
input happened to be fine, 1 for a refusal (rule id and numbers), 2 for bad
input with one line `error: WHERE: WHAT` naming the file. Bad input writes
nothing: no log is created, no log changes, no refusal is noted. Every store
kind is fuzzed: JSON Lines and SQLite.

The examples per test are TABLETRAIL_FUZZ_EXAMPLES (default 250; six tests).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from support_store import SCENARIO, fresh, play
from tabletrail.cli import main
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import verbs

EXAMPLES = int(os.environ.get("TABLETRAIL_FUZZ_EXAMPLES", "250"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
TEXT = SCENARIO.read_text(encoding="utf-8")
TEXT_LINES = TEXT.splitlines()


def _played() -> list[bytes]:
    """A log this version writes (moves, undo, redo, refusals): the golden log records settings
    of its day, and fuzzing commands on it would also test how rulesets treat settings added
    since, which is not this file's business."""
    enc = fresh(MemoryStore())
    play(enc, 40, seed=17)
    return list(enc.store.read())


GOOD_LINES = _played()
GOOD = b"".join(line + b"\n" for line in GOOD_LINES)
KINDS = st.sampled_from(["jsonl", "db"])


@contextmanager
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="tabletrail-fuzz-") as name:
        yield Path(name)


def cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    """Run the CLI; a traceback escapes as an exception and fails the test with the example."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    event(f"{argv[0]} exit {code}")
    assert code in (0, 1, 2), code
    assert "Traceback" not in out + err
    if code == 2:
        assert err.startswith("error: ") and err.count("\n") == 1, err
    return code, err


def snapshot_of(path: Path) -> object:
    """Everything a log holds, to check that nothing was written."""
    if path.suffix == ".db":
        store = SqliteStore(path)
        try:
            return (list(store.read()), store.refused_lines())
        finally:
            store.close()
    side = path.with_name(path.name + ".refused")
    return (path.read_bytes(), side.read_bytes() if side.exists() else b"")


# --- scenario files -----------------------------------------------------------------------------

toml_values = st.one_of(
    st.sampled_from(
        ['""', "-1", "0", "1.5", "1e400", "true", "[]", "{}", "[1]", "[99, 99]", '"#"', '"zz"', "[[1, 2]]"]
    ),
    st.integers(-(2**70), 2**70).map(str),
    st.text(max_size=12).map(json.dumps),
)
line_numbers = st.integers(0, len(TEXT_LINES) - 1)


def _set_value(text_lines: list[str], n: int, value: str) -> str:
    lines = list(text_lines)
    if "=" in lines[n]:
        key = lines[n].split("=", 1)[0]
        lines[n] = f"{key}= {value}"
    else:
        lines[n] = value
    return "\n".join(lines)


def _drop_line(n: int) -> str:
    return "\n".join(TEXT_LINES[:n] + TEXT_LINES[n + 1 :])


def _splice(at: int, cut: int, junk: str) -> str:
    return TEXT[:at] + junk + TEXT[at + cut :]


scenario_texts = st.one_of(
    st.builds(lambda n, v: _set_value(TEXT_LINES, n, v), line_numbers, toml_values),
    st.builds(_drop_line, line_numbers),
    st.builds(_splice, st.integers(0, len(TEXT)), st.integers(0, 30), st.text(max_size=20)),
    st.text(max_size=200),
)


@FUZZ
@given(text=st.one_of(scenario_texts, st.binary(max_size=200)), kind=KINDS)
def test_a_malformed_scenario_is_named_and_creates_nothing(
    capsys: pytest.CaptureFixture[str], text: str | bytes, kind: str
):
    with folder() as here:
        scenario, log = here / "bad.toml", here / f"fight.{kind}"
        if isinstance(text, bytes):
            scenario.write_bytes(text)
        else:
            scenario.write_text(text, encoding="utf-8", errors="surrogatepass")
        code, err = cli(capsys, "new", scenario, "--log", log)
        if code == 0:
            assert Encounter.open(SqliteStore(log) if kind == "db" else _jsonl(log)).records
        else:
            assert code == 2 and str(scenario) in err
            assert sorted(p.name for p in here.iterdir()) == ["bad.toml"], "nothing was written"


def _jsonl(path: Path):  # noqa: ANN202 - a JsonlStore
    from tabletrail.events.stores.jsonl import JsonlStore

    return JsonlStore(path)


# --- command lines --------------------------------------------------------------------------------

cells = st.builds(lambda x, y: f"{x},{y}", st.integers(-3, 14), st.integers(-3, 10))
words = st.one_of(
    st.sampled_from(sorted(verbs())),
    st.sampled_from(["ari", "bo", "cyn", "dax", "zed", "gm", "blue", "red"]),
    cells,
    st.builds(lambda x: f"{x},", st.integers(-(2**40), 2**40)),
    st.builds(
        lambda k, v: f"{k}={v}",
        st.sampled_from(["roll", "by", "why", "fighter", "to", "rule", "cost", "amount", "resource", "x"]),
        st.one_of(st.integers(-(2**70), 2**70).map(str), st.text(max_size=8), cells),
    ),
    st.text(max_size=10),
)


@pytest.fixture(scope="module")
def base_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The golden encounter as a JSONL log and as a SQLite store, to be copied for each example."""
    here = tmp_path_factory.mktemp("fuzz-base")
    logs = {"jsonl": here / "base.jsonl", "db": here / "base.db"}
    logs["jsonl"].write_bytes(GOOD)
    assert main(["import", str(logs["jsonl"]), str(logs["db"]), "--snapshot-every", "20"]) == 0
    return logs


plausible = st.builds(
    lambda verb, who, rest: [verb, who, *rest],
    st.sampled_from(["move", "end-turn", "undo", "redo", "place", "adjust", "forbid", "setting", "override"]),
    st.sampled_from(["ari", "bo", "cyn", "zed", "5,1"]),
    st.lists(st.one_of(cells, words), max_size=3),
)


@FUZZ
@given(line=st.one_of(st.lists(words, min_size=0, max_size=6), plausible), kind=KINDS, raw=st.booleans())
def test_a_malformed_command_line_is_named_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], base_logs: dict[str, Path], line: list[str], kind: str, raw: bool
):
    with folder() as here:
        log = here / f"fight.{kind}"
        shutil.copy(base_logs[kind], log)
        before = snapshot_of(log)
        argv = ["do", log, " ".join(line)] if raw else ["do", log, *line]
        code, err = cli(capsys, *argv)
        after = snapshot_of(log)
        if code == 2:
            assert after == before, "bad input wrote nothing"
            assert "command" in err or str(log) in err or re.match(r"error: [\w-]+", err)
        elif code == 1:
            assert after[0] == before[0], "a refusal appends nothing to the log"
        else:
            assert after[0][: len(before[0])] == before[0] and after[0] != before[0]


# --- log lines --------------------------------------------------------------------------------------


def _rechain(lines: list[bytes]) -> list[bytes]:
    out, prev = [], ""
    for n, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
            record["seq"], record["prev"] = n, prev
            line = json.dumps(record, separators=(",", ":")).encode()
        except (ValueError, TypeError, AttributeError):
            pass
        out.append(line)
        prev = line_hash(line)
    return out


def _flip(lines: list[bytes], n: int, at: int, byte: int) -> list[bytes]:
    line = lines[n]
    at %= len(line)
    return [*lines[:n], line[:at] + bytes([byte]) + line[at + 1 :], *lines[n + 1 :]]


def _field(lines: list[bytes], n: int, path: list[str], value: object) -> list[bytes]:
    record = json.loads(lines[n])
    target = record
    for key in path[:-1]:
        target = target.get(key) if isinstance(target, dict) else None
    if isinstance(target, dict):
        target[path[-1]] = value
    return [*lines[:n], json.dumps(record, separators=(",", ":")).encode(), *lines[n + 1 :]]


json_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.text(max_size=6),
    st.lists(st.integers(-2, 12), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
fields = st.sampled_from(
    [
        ["seq"],
        ["batch"],
        ["size"],
        ["command_id"],
        ["schema"],
        ["event", "type"],
        ["event", "fighter"],
        ["event", "steps"],
        ["event", "batch"],
        ["event", "to"],
        ["event", "resource"],
        ["event", "amount"],
        ["event", "scenario"],
        ["event", "settings"],
        ["event", "batches"],
        ["event", "round"],
        ["event", "order"],
        ["event", "index"],
    ]
)
indexes = st.integers(0, len(GOOD_LINES) - 1)
mutated_logs = st.one_of(
    st.builds(_flip, st.just(GOOD_LINES), indexes, st.integers(0, 10_000), st.integers(0, 255)),
    st.builds(_field, st.just(GOOD_LINES), indexes, fields, json_values),
    st.builds(lambda n: GOOD_LINES[:n] + GOOD_LINES[n + 1 :], indexes),
    st.builds(lambda n, m: GOOD_LINES[:n] + [GOOD_LINES[m]] + GOOD_LINES[n:], indexes, indexes),
)


def _write_db(path: Path, lines: list[bytes]) -> None:
    """Put lines into a SQLite store's events table as they are, the way a damaged file would hold them."""
    path.with_suffix(".jsonl").write_bytes(GOOD)
    assert main(["import", str(path.with_suffix(".jsonl")), str(path), "--snapshot-every", "30"]) == 0
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM events")
        db.executemany(
            "INSERT INTO events VALUES ('main', ?, ?, ?)",
            [(n, 1, line) for n, line in enumerate(lines, start=1)],
        )


def test_an_undo_that_reaches_a_damaged_older_line_writes_nothing(capsys: pytest.CaptureFixture[str]):
    """Found by the fuzz below: a SQLite log opens from its newest snapshot, so a damaged line before
    it shows only when an undo needs the state from there; the undo was appended first, then failed."""
    with folder() as here:
        log = here / "fight.db"
        _write_db(log, _flip(GOOD_LINES, 60, 0, 0))  # line 61 begins with a NUL byte, not "{"
        capsys.readouterr()
        # The newest snapshot keeps the board before its latest batch, so the first undo needs no
        # older line (issue 29); the undo after it folds from before the snapshot, through line 61.
        assert main(["undo", str(log)]) == 0, capsys.readouterr().err
        capsys.readouterr()
        before = snapshot_of(log)
        code, err = main(["undo", str(log)]), capsys.readouterr().err
        assert code == 2 and f"{log}:61: not a log record" in err
        assert snapshot_of(log) == before, "a broken log is never written to"


def test_an_undo_that_reaches_an_unfit_older_fact_writes_nothing(capsys: pytest.CaptureFixture[str]):
    """Found by the fuzz below: a fact before the newest snapshot that the fold can't take (a spend by
    a fighter named "") reached an undo as a KeyError traceback; it is named like any unfit line."""
    at = next(i for i, line in enumerate(GOOD_LINES) if b'"type":"spent"' in line and i > 60)
    with folder() as here:
        log = here / "fight.db"
        _write_db(log, _field(GOOD_LINES, at, ["event", "fighter"], ""))
        capsys.readouterr()
        assert main(["undo", str(log)]) == 0, capsys.readouterr().err  # the snapshot's own before-board
        capsys.readouterr()
        before = snapshot_of(log)
        code, err = main(["undo", str(log)]), capsys.readouterr().err
        assert code == 2 and f"{log}:{at + 1}: this event does not fit the board before it" in err, err
        assert snapshot_of(log) == before


@FUZZ
@given(lines=mutated_logs, rechain=st.booleans(), kind=KINDS, verb=st.sampled_from(["replay", "do", "undo"]))
def test_a_malformed_log_line_is_named_and_nothing_is_written(
    capsys: pytest.CaptureFixture[str], lines: list[bytes], rechain: bool, kind: str, verb: str
):
    lines = _rechain(lines) if rechain else lines
    with folder() as here:
        log = here / f"fight.{kind}"
        if kind == "db":
            _write_db(log, lines)
            capsys.readouterr()
        else:
            log.write_bytes(b"".join(line + b"\n" for line in lines))
        before = snapshot_of(log)
        argv = {"replay": ["replay", log, "--json"], "do": ["do", log, "end-turn"], "undo": ["undo", log]}[
            verb
        ]
        code, err = cli(capsys, *argv)
        if code == 2:
            assert str(log) in err, err
            assert snapshot_of(log) == before, "a broken log is never written to"


@FUZZ
@given(junk=st.binary(min_size=0, max_size=300), kind=KINDS)
def test_a_file_that_is_not_a_log_at_all_is_named(capsys: pytest.CaptureFixture[str], junk: bytes, kind: str):
    with folder() as here:
        log = here / f"fight.{kind}"
        log.write_bytes(junk)
        for argv in (
            ["show", log],
            ["do", log, "end-turn"],
            ["repair", log],
            ["export", log, here / "out.jsonl"],
        ):
            code, err = cli(capsys, *argv)
            if code == 2:
                assert str(log) in err, err
            assert log.read_bytes() == junk, f"{argv[0]} wrote to a file that is not a log"
        assert not (here / "out.jsonl").exists() or code == 0
