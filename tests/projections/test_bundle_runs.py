"""A bundle numbers its explanations' lines from their runs (text.audit.explain_runs), a run its
batch's events share numbered once; it must give the very steps and table of lines that numbering
each whole text gives, for the GM's bundle and a player's (the rulings' line replaced, lines
withheld), on every shipped replay and on a log with rulings, undos, refusals and a range."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tabletrail.bundle import withheld_from_players
from tabletrail.bundle.data import Lines, _run_ids, carry
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
        made.append((steps, strings.table))
    assert made[0][1] == made[1][1], "the same lines, numbered in the same order"
    for a, b in zip(made[0][0], made[1][0], strict=True):
        assert a == b


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


def test_a_line_holding_a_newline_is_cut_as_the_joined_text_would_be() -> None:
    """A note may hold a newline: its run is numbered as its lines joined, so it is cut the same."""
    runs = [[["a", "b\nc"], ["d"], [], ["b"]], [["a"], ["c\nd"]]]
    by_runs = Lines()

    got = _run_ids(runs, by_runs, True)
    whole = Lines()
    want = [whole.ids("\n".join(line for run in text for line in run)) for text in runs]
    assert got == want
    assert by_runs.table == whole.table


@pytest.mark.parametrize("log", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_every_explanation_of_a_replay_is_explains_own(log: Path) -> None:
    """The words kept from batch to batch (a fighter's card after one batch as the next one's before,
    the settings while unchanged, an event's words) give at every event of every shipped replay what
    `tabletrail explain LOG SEQ` prints, folding the log for that event alone."""
    records = Encounter.open(JsonlStore(log), snapshots=False).records
    strings = Lines()
    made = carry(records, 1, len(records), explain_texts, (), strings=strings, explain_runs=explain_runs)
    steps = list(made)
    for seq, (_, _, ids) in enumerate(steps, start=1):
        carried = "\n".join(strings.table[i] for i in ids)
        assert carried == explain_text(audit.explain(records, seq)), (log.name, seq)
