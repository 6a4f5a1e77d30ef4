"""A bundle keeps a fighter's view from the board before while nothing it read changed
(bundle_data.FighterViews); the kept views must be the very views drawn afresh, at every event of
every shipped replay (all four rulesets), and the board around them too."""

from __future__ import annotations

import contextlib
from pathlib import Path

import msgspec
import pytest
from tabletrail.bundle.data import FighterViews, _Watched, board_view, fighter_view
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.projections.timeline import Timeline
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


@pytest.mark.parametrize("log", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_kept_fighter_views_are_the_ones_drawn_afresh_at_every_event(log: Path) -> None:
    records = Encounter.open(JsonlStore(log), snapshots=False).records
    timeline, seen, views, board_views = Timeline(), None, FighterViews(), FighterViews()
    boards = kept = 0
    before: dict[str, dict[str, object]] = {}
    for r in records:
        timeline.apply(r)
        state = timeline.state
        if state is None or state is seen:
            continue
        seen = state
        rs = get_ruleset(state.ruleset)
        fresh = {f.id: fighter_view(state, f, rs) for f in state.fighters}
        cached = views.of(state, rs)
        assert cached == fresh, (log.name, r.seq)
        assert list(cached) == list(fresh), "the fighters in the state's order"
        kept += sum(1 for fid, v in cached.items() if before.get(fid) is v)
        before = cached
        for rulings in (True, False):
            assert board_view(state, rulings, board_views) == board_view(state, rulings), (log.name, r.seq)
        boards += 1
    assert boards > len(records) // 2


def test_views_are_kept_on_the_bench_log_where_only_one_fighter_moves() -> None:
    """Not a timing: the cache does keep views (else it would only cost), on a shipped replay."""
    log = ROOT / "replays" / "speed-meters-skirmish.jsonl"
    records = Encounter.open(JsonlStore(log), snapshots=False).records
    timeline, views, seen = Timeline(), FighterViews(), None
    kept = drawn = 0
    before: dict[str, dict[str, object]] = {}
    for r in records:
        timeline.apply(r)
        state = timeline.state
        if state is None or state is seen:
            continue
        seen = state
        now = views.of(state, get_ruleset(state.ruleset))
        kept += sum(1 for fid, v in now.items() if before.get(fid) is v)
        drawn += len(now)
        before = now
    assert 0 < kept < drawn


def test_every_way_of_reading_the_fighters_is_noted() -> None:
    records = Encounter.open(JsonlStore(REPLAYS[0]), snapshots=False).records
    state = Timeline.of(records).state
    assert state is not None
    first = state.fighters[0]
    reads = [
        lambda s: list(s.fighters),
        lambda s: s.fighters[0],
        lambda s: s.fighters[:1],
        lambda s: len(s.fighters),
        lambda s: bool(s.fighters),
        lambda s: first in s.fighters,
        lambda s: list(reversed(s.fighters)),
        lambda s: s.fighters == (),
        lambda s: hash(s.fighters),
        lambda s: s.fighters.index(first),
        lambda s: s.fighters.count(first),
        lambda s: s.fighter(first.id),
        lambda s: s.at(*first.pos[:2]),
        lambda s: [*s.fighters],
        lambda s: tuple(s.fighters),
        lambda s: s == state,
    ]
    for n, read in enumerate(reads):
        seen = _Watched(state.fighters)
        watched = msgspec.structs.replace(state, fighters=seen)
        with contextlib.suppress(TypeError):  # hashing: a fighter holds dicts, but the read is noted first
            read(watched)
        assert seen.read, f"read {n} was not noted"
