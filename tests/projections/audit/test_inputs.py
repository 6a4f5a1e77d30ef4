"""The audit on plain inputs (projections/audit/inputs.py): a log's records or lines and a decision
function, no Encounter service. A Replay folded from records answers a dry run as the open encounter
does; a decision given to verify or what-if is the one they use."""

from __future__ import annotations

from support import do, encounter
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Command
from tabletrail.events.types import Event
from tabletrail.projections.audit import Replay, decide_on, dry_run, verify_lines, whatif
from tabletrail.projections.timeline import Timeline
from tabletrail.service.syntax import parse

from tests.projections.audit.test_undo_policy import arena

ARENA = arena()  # two sides, blue and red, no strict turns


def played():
    enc = encounter(ARENA)
    do(enc, "move a 3,1 by=blue")
    do(enc, "move r 4,2 by=red")
    do(enc, "undo by=red")
    return enc


def folded(records) -> Replay:
    replay = Replay()
    for r in records:
        replay.apply(r)
    return replay


def test_a_replay_of_the_records_answers_the_dry_run_as_the_open_encounter_does():
    enc = played()
    replay = folded(enc.records)
    for text in ("move a 4,1 by=blue", "move a 9,9 by=blue", "redo by=red", "undo by=blue", "undo"):
        assert dry_run(replay, parse(text), text) == dry_run(enc, parse(text), text), text
    assert dry_run(replay, parse("redo by=red"), "redo by=red")["target"]["batch"] == 3


def test_the_dry_run_asks_the_replays_decision():
    def nothing_allowed(timeline: Timeline, command: Command) -> list[Event] | Rejection:
        return Rejection("house/none", f"nothing after event {timeline.last_seq}")

    replay = Replay(nothing_allowed)
    for r in played().records:
        replay.apply(r)
    data = dry_run(replay, parse("move a 4,1 by=blue"), "move a 4,1 by=blue")
    assert not data["allowed"] and data["rule"]["id"] == "house/none"
    assert data["reason"] == f"nothing after event {len(replay.records)}"


def test_verify_re_decides_with_the_decision_it_is_given():
    enc = played()
    lines = list(enc.store.lines)
    reds = next(r for r in enc.records if r.actor == "red")  # the CommandIssued heading red's move
    assert verify_lines(lines, decide=decide_on)["ok"]
    seen: list[str] = []

    def strict(timeline: Timeline, command: Command) -> list[Event] | Rejection:
        seen.append(type(command).__name__)
        if command.by == "red":
            return Rejection("house/no-red", "red may not act here")
        return decide_on(timeline, command)

    report = verify_lines(lines, decide=strict)
    assert not report["ok"]
    f = report["finding"]
    assert (f["kind"], f["rule"], f["seq"]) == ("decision", "house/no-red", reds.seq + 1)
    assert seen == ["Move", "Move"]  # re-decided batch by batch, stopping at the first fault


def test_whatif_reruns_with_the_decision_it_is_given():
    enc = played()

    def refuse_blue(timeline: Timeline, command: Command) -> list[Event] | Rejection:
        return (
            Rejection("house/no-blue", "not blue") if command.by == "blue" else decide_on(timeline, command)
        )

    result = whatif(enc.records, ["diagonal=euclidean"], decide=refuse_blue)
    assert [r["rule"] for r in result.refused] == ["house/no-blue"]
    assert result.divergence is not None and result.divergence["differs"] == ["refused"]
    assert result.alternative.fighter("a").pos[:2] == (1, 1)
    assert whatif(enc.records, ["diagonal=euclidean"]).refused == []


def test_a_replay_started_from_a_scenario_writes_the_setup_batch_the_service_writes():
    enc = encounter(ARENA)
    started = enc.records[0].event
    replay = Replay.start(started.scenario, clock=lambda: enc.records[0].at)
    assert [r.event for r in replay.records] == [r.event for r in enc.records]
    assert replay.last_hash == enc.last_hash


def test_decide_on_refuses_an_undo_or_redo_with_nothing_to_act_on_under_the_undo_rule():
    fresh = folded(encounter(ARENA).records)  # the setup batch only: it is never undone
    undo = decide_on(fresh.timeline, parse("undo"))
    assert isinstance(undo, Rejection) and undo.rule == "tabletrail/undo"
    assert undo.reason == "nothing to undo: no command is in force"
    redo = decide_on(fresh.timeline, parse("redo"))
    assert isinstance(redo, Rejection) and redo.rule == "tabletrail/undo"
    assert redo.reason == "nothing to redo: no undone command since the last new one"
    after = folded(played().records)  # red's move undone: red may redo it, blue may not
    (redone,) = decide_on(after.timeline, parse("redo by=red"))
    assert (type(redone).__name__, redone.batch, redone.by) == ("Redone", 3, "red")
    assert decide_on(after.timeline, parse("redo by=blue")).rule == "tabletrail/undo"
