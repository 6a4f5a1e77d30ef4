"""A bundle writes its explanations from their runs (text.audit.explain_runs) as codes: a run its
batch's events share written once, an event's head line and its batch's listing as lines the page
makes from the events carried. Read back as the page reads them, they must say what each whole text
says, for the GM's bundle and a player's (the rulings' line replaced, lines withheld), on every
shipped replay and on a log with rulings, undos, refusals and a range."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support_bundle import texts_of
from tabletrail.bundle import withheld_from_players
from tabletrail.bundle.data import (
    HEAD_LINE,
    LISTING,
    Lines,
    _listings,
    _run_codes,
    carry,
    event_of,
    explanation,
    head_line,
    listed_line,
)
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.record import Record
from tabletrail.projections import audit
from tabletrail.service.encounter import Encounter
from tabletrail.text.audit import explain_runs, explain_text, explain_texts

from tests.projections.test_bundle_one_pass import played  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


def both_ways(records: list[Record], first: int, refused: Any, player: bool) -> None:
    hidden = withheld_from_players(records) if player else {}
    shown: Callable[[Record], bool] = lambda r: r.seq not in hidden  # noqa: E731
    made = []
    for runs in (None, explain_runs):
        strings = Lines()
        steps = list(
            carry(
                records,
                first,
                len(records),
                explain_texts,
                refused,
                shown=shown,
                rulings=not player,
                strings=strings,
                explain_runs=runs,
            )
        )
        made.append((steps, texts_of(steps, strings.table)))
    (by_texts, texts), (by_runs, read) = made
    assert read == texts, "the same words"
    assert [s[:2] for s in by_runs] == [s[:2] for s in by_texts], "the same boards and events"
    codes = [c for _, _, cs in by_runs for c in cs]
    assert HEAD_LINE in codes and LISTING in codes, "the page makes the head lines and listings"


@pytest.mark.parametrize("player", [False, True], ids=["gm", "player"])
@pytest.mark.parametrize("log", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_runs_number_the_lines_as_whole_texts_do(log: Path, player: bool) -> None:
    records = Encounter.open(JsonlStore(log), snapshots=False).records
    both_ways(records, 1, (), player)


@pytest.mark.parametrize("player", [False, True], ids=["gm", "player"])
def test_runs_on_a_log_with_rulings_undos_and_refusals(played: Encounter, player: bool) -> None:  # noqa: F811
    records = played.records
    refused = played.store.refused()
    both_ways(records, 1, refused, player)
    lo = next(r.seq for r in records if r.seq >= 9 and r.batch != records[r.seq - 2].batch)
    both_ways(records, lo, refused, player)


def events(*notes: str) -> list[list[Any]]:
    """A batch's events as carried (bundle.data.FIELDS), one a note."""
    return [[7 + i, 3, f"a moved {i}", ["r/x"] if i else [], note, ""] for i, note in enumerate(notes)]


@pytest.mark.parametrize("rulings", [True, False], ids=["gm", "player"])
def test_codes_read_back_as_the_joined_texts(rulings: bool) -> None:
    """Runs shared and not, head lines and listings that are what the page makes and some that only
    look alike, lines holding a newline, the rulings' line (a player's replaced): each text read back
    is its runs' lines joined, as a whole text is cut and said."""
    said = events("", "why\nnot", "")
    heads = [head_line(seq, batch, status, text) for seq, batch, text, _, _, status in said]
    listings = _listings([listed_line(seq, text, rules, note) for seq, _, text, rules, note, _ in said])
    others, _, _ = listings[0]
    none = "GM rulings in force before it: none"
    shared = ["moves:", "  a 1,1\n  b", none]
    runs = [
        [[heads[0], "why: x"], shared, [listings[0][1], *others[1:]], []],
        [["x", heads[1], "y", heads[1]], shared, [others[0], others[1], others[2]]],  # not its listing
        [[heads[0]], shared, [others[0], others[1], listings[2][1]], [none, heads[2] + " "]],
    ]
    strings = Lines()
    codes = _run_codes(runs, strings, rulings, heads, [*listings])
    carried = [event_of(e) for e in said]
    got = [explanation(carried, c, strings.table, k) for k, c in enumerate(codes)]
    want = ["\n".join(line for run in text for line in run) for text in runs]
    if not rulings:
        want = [t.replace(none, "GM rulings: left out of a player's bundle") for t in want]
    assert got == want
    assert codes[0][0] == HEAD_LINE and LISTING in codes[0] and LISTING in codes[2]
    assert LISTING not in codes[1] and codes[1].count(HEAD_LINE) == 2
    assert HEAD_LINE not in codes[2][1:], "the third's first line is the first event's head, said as written"
    assert codes[0][1] != codes[1][0], "one code for the shared run, after the head"


@pytest.mark.parametrize("log", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_every_explanation_of_a_replay_is_explains_own(log: Path) -> None:
    """The words kept from batch to batch (a fighter's card after one batch as the next one's before,
    the settings while unchanged, an event's words) give at every event of every shipped replay what
    `tabletrail explain LOG SEQ` prints, folding the log for that event alone."""
    records = Encounter.open(JsonlStore(log), snapshots=False).records
    strings = Lines()
    made = carry(records, 1, len(records), explain_texts, (), strings=strings, explain_runs=explain_runs)
    for seq, text in enumerate(texts_of(list(made), strings.table), start=1):
        assert text == explain_text(audit.explain(records, seq)), (log.name, seq)
