"""A bundle draws each fighter with its own view (bundle_data.fighter_view, which asks the ruleset
each answer once, for speed); it must stay the table view's fighter (cards.fighter) less what a
replay does not draw, at every event of every shipped replay (all four rulesets)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tabletrail.bundle.data import NOT_DRAWN, fighter_view
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.projections.timeline import Timeline
from tabletrail.service.encounter import Encounter
from tabletrail.web import cards

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


@pytest.mark.parametrize("log", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_the_bundles_fighter_is_the_table_views_at_every_event(log: Path) -> None:
    records = Encounter.open(JsonlStore(log), snapshots=False).records
    timeline, seen, drawn = Timeline(), None, 0
    for r in records:
        timeline.apply(r)
        state = timeline.state
        if state is None or state is seen:
            continue
        seen = state
        rs = get_ruleset(state.ruleset)
        for f in state.fighters:
            table = {k: v for k, v in cards.fighter(state, f).items() if k not in NOT_DRAWN}
            assert fighter_view(state, f, rs) == table, (log.name, r.seq, f.id)
            assert list(fighter_view(state, f, rs)) == list(table), "the same keys in the same order"
            drawn += 1
    assert drawn > len(records) // 2
