"""Issue 28, item 16: a log records the rules version that wrote it (line 1, every snapshot), and
`verify` of an older log names the correction where a batch differs ("decided under 0.1;
speed-meters `adjust` has given meters to the next Movement since 0.2") and still checks
everything else. The corrections are one list, core/board/corrections.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest
from support import rechain
from support_store import fresh, play
from tabletrail.cli import main
from tabletrail.core.board.corrections import CORRECTIONS, FIRST, RULES_VERSION, version_key
from tabletrail.core.engine.registry import RULESETS
from tabletrail.core.engine.ruleset import ENGINE_RULE_WORDS
from tabletrail.core.engine.rulings import known_rules
from tabletrail.events.stores.record import decode
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.events.types import AnyEvent
from tabletrail.projections.audit import verify_lines
from tabletrail.projections.snapshot import FORMAT, loads
from tabletrail.service.syntax import verbs, verbs_for

TAGS = {t.__struct_config__.tag for t in get_args(AnyEvent)}
GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "golden.jsonl"
ADJUST = 37  # the golden log's adjust batch starts at line 38 (batch 12)
SAID = "decided under 0.1; speed-meters `adjust` has given meters to the next Movement since 0.2"


def golden() -> list[bytes]:
    return GOLDEN.read_bytes().splitlines()


def edited(lines: list[bytes], n: int, change: dict) -> list[bytes]:
    """Line n (0-based) with its record's fields changed (nested: {"event": {...}}), then re-chained."""
    raw = json.loads(lines[n])
    for key, value in change.items():
        if isinstance(value, dict):
            raw[key] = {**raw[key], **value}
        else:
            raw[key] = value
    return rechain([*lines[:n], json.dumps(raw).encode(), *lines[n + 1 :]])


def test_a_new_log_records_this_rules_version_on_line_1_and_in_every_snapshot(tmp_path: Path):
    store = SqliteStore(tmp_path / "fight.db", snapshot_every=10)
    play(fresh(store), 40, seed=3)
    first = decode(next(iter(store.read())), "1")
    assert first.event.rules_version == RULES_VERSION
    snapshots = store.snapshots(FORMAT)
    assert snapshots and all(loads(blob).rules_version == RULES_VERSION for _, blob in snapshots)


def test_an_older_log_names_the_correction_where_its_batch_differs(capsys: pytest.CaptureFixture[str]):
    """Named, checked past, and not passed: nothing tells an older log's difference from an edit."""
    report = verify_lines(golden(), "golden")
    assert report["rules_version"] == FIRST and not report["ok"]
    [note] = report["corrected"]
    assert note["seq"] == 41 and note["batch"] == 12 and note["words"] == SAID
    finding = report["finding"]
    assert finding["kind"] == "corrected" and finding["seq"] == 41 and SAID in finding["reason"]
    assert report["checked"] == {"command": 14, "undo": 2, "redo": 1}, "every other batch was re-decided"
    assert main(["verify", str(GOLDEN)]) == 1
    out = capsys.readouterr().out
    assert "FAILED at line/seq 41 (corrected): batch 12 ('adjust cyn 1 why=\"a tailwind\"') differs" in out
    assert SAID in out and "Traceback" not in out


FORBID = 45  # the forbid ruling after it marks cell 5,3 (line 46)


def test_after_a_named_correction_everything_else_is_still_checked():
    value = [[5, 4, "tabletrail/gm-ruling", "a collapsed floor"]]
    lines = edited(golden(), FORBID, {"event": {"value": value}})  # a later ruling's cell, moved by hand
    report = verify_lines(lines, "golden")
    finding = report["finding"]
    assert finding["seq"] == 46 and finding["kind"] == "decision", "the fault, not the note"
    assert [c["seq"] for c in report["corrected"]] == [41]


def test_a_log_decided_under_this_version_is_excused_nothing():
    """The same difference in a log that says it was decided under today's rules is a fault."""
    lines = edited(golden(), 0, {"event": {"rules_version": RULES_VERSION}})
    report = verify_lines(lines, "golden")
    assert report["finding"]["kind"] == "decision" and report["finding"]["seq"] == 41
    assert report["corrected"] == []


def test_an_unversioned_batch_decided_after_the_correction_was_made_is_not_excused():
    """A log from before versions were recorded, whose batch was decided after the correction was
    made: the tabletrail that wrote it already decided that way, so the difference is no correction."""
    lines = golden()
    for n in range(ADJUST, ADJUST + 3):  # every line of the adjust batch, a day later
        lines = edited(lines, n, {"at": "2026-12-02T12:00:00+00:00"})
    report = verify_lines(lines, "golden")
    assert report["finding"]["kind"] == "decision" and report["finding"]["seq"] == 41
    assert report["corrected"] == []


@pytest.mark.parametrize("verb", ["forbid", "adjust"])
def test_a_difference_no_correction_bears_on_is_still_a_fault(verb: str):
    """An older log edited by hand where no correction changed that command's rules: a fault,
    even in the batch a correction names when the edit is of another rule's fact."""
    if verb == "forbid":
        lines = edited(golden(), FORBID, {"event": {"value": [[5, 4, "tabletrail/gm-ruling", "x"]]}})
        seq = 46
    else:  # the adjust batch's refund of the spent budget: a fact no correction changed
        lines = edited(golden(), ADJUST + 2, {"event": {"amount": -900}})
        seq = 40
    report = verify_lines(lines, "golden")
    finding = report["finding"]
    assert finding["kind"] != "corrected" and finding["seq"] <= seq, finding


def test_every_correction_is_well_formed():
    """One entry per correction: a version after 0.1 and up to this one, its time, a ruleset, the
    verbs and rule ids that exist under it, in the order they were made."""
    assert version_key(FIRST) < version_key(RULES_VERSION)
    made = [c.made for c in CORRECTIONS]
    assert made == sorted(made)
    for c in CORRECTIONS:
        assert version_key(FIRST) < version_key(c.since) <= version_key(RULES_VERSION), c
        assert c.ruleset == "" or c.ruleset in RULESETS, c
        rulesets = [c.ruleset] if c.ruleset else list(RULESETS)
        known = {v for r in rulesets for v in verbs_for(r)}
        assert set(c.commands) <= known <= set(verbs()), c
        ids = {i for r in rulesets for i in (*known_rules(RULESETS[r]), *ENGINE_RULE_WORDS)}
        assert c.rules and set(c.rules) <= ids, c
        assert set(c.events) <= {*TAGS, "refused"}, c
        assert c.says and not c.says.endswith("."), c
