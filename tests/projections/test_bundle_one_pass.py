"""The replay bundle's words made in one pass over the log (issue 40, item 1): each event's
explanation is what `explain` gives for it alone, folding the log three times as it does,
on a log with rulings made, undone, redone and cut off, refusals, and a range of it."""

from __future__ import annotations

import pytest
from support import do, encounter
from support_bundle import texts_of
from tabletrail.bundle.data import Lines, carry
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.projections import audit
from tabletrail.projections.audit.parts import RulingsInForce
from tabletrail.projections.timeline import Timeline
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse
from tabletrail.text.audit import explain_text, explain_texts

from tests.projections.audit.test_rulings import arena

PLAY = [
    "forbid 2,2 why='pit'",
    "move a 2,1",
    "adjust a 1 why='haste'",
    "undo",  # the adjustment taken back
    "redo",  # and put back
    "end-turn",
    "require-test 4,2 target=12 why='ice'",
    "move e 6,2",
    "undo",  # a move taken back
    "forbid 5,1 why='fire'",  # and cut off by a ruling: abandoned
    "undo",  # the ruling taken back
    "end-turn",
    "place e 5,3 why='shoved'",
    "move a 3,2",
    "end-turn",
]


@pytest.fixture(scope="module")
def played() -> Encounter:
    enc = encounter(arena(speed=5))
    for n, text in enumerate(PLAY):
        if n == 5:
            refused = enc.execute(parse("move a 2,2"), "move a 2,2")  # kept beside the log
            assert isinstance(refused, Rejection)
        do(enc, text)
    return enc


def carried_texts(records, first: int, refused) -> list[str]:
    """Each carried event's explanation, as the one pass writes it into a bundle."""
    strings = Lines()
    steps = list(carry(records, first, len(records), explain_texts, refused, strings=strings))
    return texts_of(steps, strings.table)


def explained_alone(records, seq: int, refused) -> str:
    """What `tabletrail explain LOG SEQ` prints: the log folded for this one event."""
    return explain_text(audit.explain(records, seq, refused))


@pytest.mark.parametrize("first", [1, 9], ids=["whole", "from-9"])
def test_each_explanation_equals_explain_of_that_event_alone(played: Encounter, first: int) -> None:
    records = played.records
    refused = played.store.refused()
    assert refused, "the play keeps a refusal"
    lo = next(r.seq for r in records if r.seq >= first and r.batch != records[r.seq - 2].batch)
    texts = carried_texts(records, lo, refused)
    for seq in range(lo, len(records) + 1):
        assert texts[seq - lo] == explained_alone(records, seq, refused), seq


def test_the_rulings_fold_agrees_with_the_timeline_at_every_batch(played: Encounter) -> None:
    """Rulings made, undone, redone and cut off: the fold says at every batch what the timeline holds."""
    records = played.records
    fold, timeline = RulingsInForce(), Timeline()
    seen = set()
    for r in records:
        fold.apply(r)
        timeline.apply(r)
        assert fold.now() == audit.rulings_in_force(records, timeline), r.seq
        seen.add(len(fold.now()))
    assert seen >= {0, 1, 2, 3}, "rulings come and go in the play"


def test_a_log_read_back_explains_the_same(played: Encounter) -> None:
    """The same check on the log as a store gives it (decoded afresh), not the live records."""
    store = MemoryStore(list(played.store.lines))
    records = Encounter.open(store, snapshots=False).records
    texts = carried_texts(records, 1, ())
    assert texts == [explained_alone(records, seq, ()) for seq in range(1, len(records) + 1)]
