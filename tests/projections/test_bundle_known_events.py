"""A bundle gives each batch's explanation the events it holds and its own words (text.audit
explain_runs `known`, `words`): it must say what the plain path says. (How the runs are written
and read back: tests/projections/test_bundle_runs.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.projections import audit
from tabletrail.service.encounter import Encounter
from tabletrail.text import render
from tabletrail.text.audit import explain_runs

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


@pytest.mark.parametrize("log", REPLAYS[:3], ids=[p.stem for p in REPLAYS[:3]])
def test_known_events_and_words_say_what_decoding_says(log: Path) -> None:
    """The events as held and the bundle's words give the runs the plain forms decoded give; words
    of another unit are not used (the answer's own are made)."""
    records = Encounter.open(JsonlStore(log), snapshots=False).records
    seqs = sorted({r.batch: r.seq for r in records}.values())[:40]  # a batch's last event, 40 batches
    for seq in seqs:
        data = audit.explain(records, seq)
        batch = [r for r in records if r.batch == records[seq - 1].batch]
        known = {r.seq: r.event for r in batch}
        plain = explain_runs([data])
        own = render.Words(unit=data["unit"], centi=tuple(data["centi"]))
        assert explain_runs([data], known=known, words=own) == plain, (log.name, seq)
        other = render.Words(unit="furlongs", centi=())
        assert explain_runs([data], known=known, words=other) == plain, (log.name, seq)
