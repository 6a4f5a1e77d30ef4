"""Replay's fold (`Timeline.extend`) folds a batch's fighter facts into a working list of its
fighters and puts the board together once a batch. It must leave what `Timeline.apply`, one record
at a time, leaves: the same board before and after every batch, the same error at the same record.

The facts are generated over a shipped log's start: moves with and without a √2 part (which read
the board's exact budgets), refreshes of fighters that hold exact budgets or not, fighters joining
and leaving mid-batch (the working list's index by id is then stale), unknown fighters, undo and redo.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabletrail.core.fold.evolve import APPLY, FIGHTER, _on_fighter, fighter_alone
from tabletrail.events import types as ev
from tabletrail.events.stores.record import Record, decode
from tabletrail.projections.timeline import FoldError, Timeline

ROOT = Path(__file__).resolve().parents[2]
START = decode((ROOT / "replays" / "speed-meters-skirmish.jsonl").read_bytes().split(b"\n")[0], "skirmish:1")
IDS = [f.id for f in START.event.scenario.fighters]  # type: ignore[union-attr]
WHO = st.sampled_from([*IDS * 8, "newcomer", "nobody"])  # now and then one not on the board
CELL = st.tuples(st.integers(1, 3), st.integers(1, 3), st.just(0))
STEP = st.builds(ev.Step, to=CELL, cost=st.integers(100, 300), root2=st.sampled_from([0, 0, 100, 200]))
RESOURCE = st.sampled_from(["movement", "actions"])

FACT = st.one_of(
    st.builds(
        ev.Moved, fighter=WHO, steps=st.lists(STEP, min_size=1, max_size=3).map(tuple), resource=RESOURCE
    ),
    st.builds(ev.Moved, fighter=WHO, steps=st.just(()), stopped=st.sampled_from(["", *["a wall"] * 5])),
    st.builds(ev.Placed, fighter=WHO, to=CELL),
    st.builds(ev.Spent, fighter=WHO, resource=RESOURCE, amount=st.integers(-100, 300)),
    st.builds(ev.Refreshed, fighter=WHO, resources=st.lists(RESOURCE, max_size=2).map(tuple)),
    st.builds(
        ev.StateChanged,
        fighter=WHO,
        machine=st.just("posture"),
        trigger=st.just("t"),
        source=st.just("standing"),
        dest=st.sampled_from(["standing", "prone"]),
    ),
    st.builds(ev.Damaged, fighter=WHO, amount=st.integers(0, 5)),
    st.builds(ev.Marked, fighter=WHO, key=st.sampled_from(["k", "j"]), value=st.integers(0, 3)),
    st.builds(ev.Unmarked, fighter=WHO, key=st.sampled_from(["k", "j"])),
    st.builds(
        ev.FighterJoined, fighter=st.just("newcomer"), name=st.just("N"), side=st.just("red"), pos=CELL
    ),
    st.builds(ev.FighterLeft, fighter=WHO),
    st.builds(ev.TurnEnded, fighter=WHO),
    st.just("undo"),
    st.just("redo"),
)


def records(batches: list[list[Any]]) -> list[Record]:
    """The start, then each list's facts as one batch, each undo or redo in it a batch of its own after it."""
    out = [START]
    batch, in_force, undone = 1, [], []  # batches undo may take back (not the setup), and the redo stack

    def add(event: ev.Event) -> None:
        out.append(Record(seq=len(out) + 1, batch=batch, actor="gm", at="", prev="", event=event))

    for facts in batches:
        plain = [fact for fact in facts if not isinstance(fact, str)]
        if plain:
            batch += 1
            in_force.append(batch)
            undone.clear()  # a new command: what was undone can no longer be redone here
            for fact in plain:
                add(fact)
        for verb in (fact for fact in facts if isinstance(fact, str)):
            if verb == "undo" and in_force:
                undone.append(in_force.pop())
                batch += 1
                add(ev.Undone(batch=undone[-1]))
            elif verb == "redo" and undone:
                in_force.append(undone.pop())
                batch += 1
                add(ev.Redone(batch=in_force[-1]))
    return out


def one_by_one(recs: list[Record]) -> tuple[Timeline, int | None, str]:
    timeline = Timeline()
    for i, record in enumerate(recs):
        try:
            timeline.apply(record)
        except Exception as exc:  # noqa: BLE001 - the very error extend must name
            return timeline, i, repr(exc)
    return timeline, None, ""


def all_at_once(recs: list[Record]) -> tuple[Timeline, int | None, str]:
    timeline = Timeline()
    try:
        timeline.extend(recs)
    except FoldError as failed:
        return timeline, failed.index, repr(failed.cause)
    return timeline, None, ""


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(FACT, min_size=1, max_size=6), max_size=8))
def test_extend_folds_as_apply_does(batches: list[list[Any]]) -> None:
    recs = records(batches)
    a, a_at, a_why = all_at_once(recs)
    b, b_at, b_why = one_by_one(recs)
    assert (a_at, a_why) == (b_at, b_why)
    if a_at is None:  # after an error the fold stops: what it left is not a board anyone reads
        assert a.state == b.state
        assert dict(a.before) == dict(b.before)
        assert dict(a.after) == dict(b.after)
        assert (a.applied, a.undone, a.last_seq) == (b.applied, b.undone, b.last_seq)


@settings(max_examples=300, deadline=None)
@given(st.lists(FACT.filter(lambda f: type(f) in FIGHTER), min_size=1, max_size=8))
def test_a_fact_about_one_fighter_alone_is_its_change(facts: list[Any]) -> None:
    """Where `fighter_alone` says so, the board's fold of the fact is the fighter's change, no more."""
    state = Timeline.of([START]).board
    for fact in facts:
        try:
            board = APPLY[type(fact)](state, fact)
        except (KeyError, ValueError):
            continue
        if fighter_alone(state, fact):
            assert _on_fighter(FIGHTER[type(fact)], state, fact) == board
        state = board
