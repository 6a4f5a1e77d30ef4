"""A bundle's explanations say the same with the explanation's memos as without them: each fighter's
card taken from its view (bundle.data.CARDS_FROM_VIEWS: FighterViews.card, kept while what the view
read is the same, however far apart in the log), and an event's plain form and its move told kept
by value (projections.audit.explain.KEEP_BY_VALUE). Without them, every batch's explanation is
explain_batch's plainly: each card parts.fighter_card's, each event made plain and each move told
afresh. Each batch's explanation data (as JSON) and the page are compared byte for byte, on a long
log played as benchmarks/bench_log.py plays it, on random logs with undos and redos, and on every
shipped replay (a GM's and a side's bundle). Calls are counted, never timed."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from tabletrail import bundle
from tabletrail.bundle import data
from tabletrail.core.board.state import EncounterState
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import Record
from tabletrail.events.types import Moved
from tabletrail.projections.audit import parts
from tabletrail.service.encounter import Encounter

from tests.bundle.test_bundle_same_bytes import random_log

# the module (the package's `explain` is its function of the same name)
explain = importlib.import_module("tabletrail.projections.audit.explain")
ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))
LONG = 3_000  # events: enough turns that a fighter stands again where and as it stood, many batches apart


@pytest.fixture(scope="module")
def long_lines() -> list[bytes]:
    """A log of at least LONG events, every line from executing a command (bench_log.py's)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_log import fresh, play

    return list(play(fresh(), LONG).store.lines)


class _Plain(explain._Kept):
    """explain's keeper, each card made afresh (parts.fighter_card), none kept by the state's identity."""

    def card(self, rs: Ruleset, state: EncounterState | None, fid: str) -> dict[str, Any] | None:
        return parts.fighter_card(rs, state, fid)


def plainly(m: pytest.MonkeyPatch) -> None:
    """Every memo of the explanation off: each batch's explanation made as explain_batch makes it
    called alone."""
    m.setattr(data, "CARDS_FROM_VIEWS", False)
    m.setattr(explain, "KEEP_BY_VALUE", False)
    m.setattr(explain, "_KEPT", _Plain())


def memos_fresh(m: pytest.MonkeyPatch, bound: int | None = None) -> None:
    """The memos on, starting empty (none left by another test), bounded by `bound` if given (so that
    they fill and are cleared many times over in one build)."""
    m.setattr(data, "CARDS_FROM_VIEWS", True)
    m.setattr(explain, "KEEP_BY_VALUE", True)
    m.setattr(explain, "_KEPT", explain._Kept())
    if bound is not None:
        m.setattr(explain, "_KEPT_BY_VALUE", bound)
        m.setattr(data, "CARDS_KEPT", bound)


def built(lines: list[bytes] | Path, role: str, m: pytest.MonkeyPatch) -> tuple[bytes, list[bytes]]:
    """The bundle, and each batch's explanation data as JSON, as explain_batch gave it to the build."""
    said: list[bytes] = []
    real = explain.explain_batch

    def noted(batch: list[Record], seq: int, around: explain.Around) -> dict[str, Any]:
        out = real(batch, seq, around)
        said.append(msgspec.json.encode(out))
        return out

    m.setattr(data, "explain_batch", noted)
    store = JsonlStore(lines) if isinstance(lines, Path) else MemoryStore(lines)
    return bundle.build(store, role=role), said


def both_ways(lines: list[bytes] | Path, roles: tuple[str, ...], bound: int | None = None) -> None:
    for role in roles:
        with pytest.MonkeyPatch.context() as m:
            memos_fresh(m, bound)
            fast = built(lines, role, m)
        with pytest.MonkeyPatch.context() as m:
            plainly(m)
            slow = built(lines, role, m)
        assert len(fast[1]) == len(slow[1]) > 0
        for n, (a, b) in enumerate(zip(fast[1], slow[1], strict=True)):
            assert a == b, (role, f"batch {n}")
        assert fast[0] == slow[0], role


@pytest.mark.parametrize("bound", [None, 3], ids=["bounded", "cleared-often"])
def test_a_long_played_log_says_the_same_words_with_the_memos(
    long_lines: list[bytes], bound: int | None
) -> None:
    both_ways(long_lines, ("gm", "red"), bound)


@pytest.mark.parametrize("seed", range(1, 4))
def test_a_random_log_with_undos_says_the_same_words_with_the_memos(seed: int) -> None:
    both_ways(random_log(seed), ("gm", "red"))


@pytest.mark.parametrize("log", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_a_shipped_replay_says_the_same_words_with_the_memos(log: Path) -> None:
    side = sorted({f.side for f in Encounter.open(JsonlStore(log), snapshots=False).state.fighters})[0]
    both_ways(log, ("gm", side))


def test_the_memos_do_answer_on_the_long_log(
    long_lines: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a timing: with the memos, a fighter's card is made for a few of the batches only (the fight
    goes between the same few states of a fighter, turn after turn), each move told once a value and
    each event made plain once a value; without them, at every batch."""
    counts = {"cards": 0, "moves": 0, "plain": 0}

    def counted(name: str, fn: Any) -> Any:
        def call(*args: Any) -> Any:
            counts[name] += 1
            return fn(*args)

        return call

    def told(numbered: Any, *args: Any) -> Any:  # the moves told, counted
        counts["moves"] += sum(isinstance(e, Moved) for _, e in numbered)
        return parts.moves(numbered, *args)

    batches = len({r.batch for r in Encounter.open(MemoryStore(long_lines), snapshots=False).records})
    card = counted("cards", parts.fighter_card)
    for module in (data, explain, parts):  # the bundle's, explain's own (_Kept) and _Plain's
        monkeypatch.setattr(module, "fighter_card", card)
    monkeypatch.setattr(explain, "moves", told)
    monkeypatch.setattr(explain, "plain", counted("plain", parts.plain))
    with pytest.MonkeyPatch.context() as m:
        memos_fresh(m)
        bundle.build(MemoryStore(long_lines))
    fast = dict(counts)
    counts.update(cards=0, moves=0, plain=0)
    with pytest.MonkeyPatch.context() as m:
        plainly(m)
        bundle.build(MemoryStore(long_lines))
    assert counts["cards"] >= batches  # a card before and after a batch, at every batch
    assert counts["moves"] > batches // 4 and counts["plain"] >= len(long_lines)
    assert 0 < fast["cards"] < batches // 20
    assert 0 < fast["moves"] < counts["moves"] // 2
    assert 0 < fast["plain"] < len(long_lines) // 2
