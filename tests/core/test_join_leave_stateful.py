"""Random play with fighters joining and leaving mid-fight (GM rulings `join` and `leave`), under
initiative-yards (turns in order) and round-meters (passes within a round): each ruleset's own random
play, with newcomers brought in on random cells at random places in the order and taken out again
(acting or not; the scenario's own fighters stay, as that play's rules reach for them), keeps the
shared harness's promises (replay equals live, undo then redo changes nothing, undo of everything
gives the starting board, a refusal appends nothing) and one of its own: the turn order holds every
fighter on the board exactly once, and whose turn it is is one of them."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule
from tabletrail.core.engine.registry import get as get_ruleset

from tests.rulesets.initiative_yards.test_stateful import InitiativeYardsTable
from tests.rulesets.round_meters.test_stateful import RoundMetersPlay


class Arrivals:
    """The join and leave rules, mixed into a ruleset's random play."""

    joined = 0

    def _stats(self) -> str:
        rs = get_ruleset(self.enc.state.ruleset)  # type: ignore[attr-defined]
        needed = [f"{s.name}:{3 if s.length else 4}" for s in rs.stats if s.default is None]
        return f" stats={','.join(needed)}" if needed else ""

    @rule(x=st.integers(0, 12), y=st.integers(0, 8), after=st.integers(-1, 6))
    def join(self, x: int, y: int, after: int) -> None:
        state = self.enc.state  # type: ignore[attr-defined]
        order = state.turn.order
        self.joined += 1
        where = f" after={order[after % len(order)]}" if after >= 0 and order else ""
        self.run(f"join n{self.joined} {x},{y} side=red{self._stats()}{where} why=arrives")  # type: ignore[attr-defined]

    @rule(pick=st.integers(0, 8))
    def leave(self, pick: int) -> None:
        """A newcomer leaves, acting or not."""
        came = [f.id for f in self.enc.state.fighters if f.id.startswith("n")]  # type: ignore[attr-defined]
        if came:
            self.run(f"leave {came[pick % len(came)]} why=leaves")  # type: ignore[attr-defined]

    @invariant()
    def order_is_the_board(self) -> None:
        state = self.enc.state  # type: ignore[attr-defined]
        assert sorted(state.turn.order) == sorted(f.id for f in state.fighters), state.turn.order
        assert state.turn.active in state.turn.order


class InitiativeYardsArrivals(Arrivals, InitiativeYardsTable):
    pass


class RoundMetersArrivals(Arrivals, RoundMetersPlay):
    @invariant()
    def the_order_is_a_permutation_and_one_fighter_acts(self) -> None:
        """round-meters' own invariant, over whoever is on the board now (newcomers included)."""
        state = self.enc.state
        assert sorted(state.turn.order) == sorted(f.id for f in state.fighters)
        acting = [f.id for f in state.fighters if f.state("turn", "waiting") == "acting"]
        assert acting == [state.turn.active]


SETTINGS = settings(max_examples=40, stateful_step_count=30, deadline=None)
InitiativeYardsArrivals.TestCase.settings = SETTINGS
RoundMetersArrivals.TestCase.settings = SETTINGS
TestInitiativeYardsArrivals = InitiativeYardsArrivals.TestCase
TestRoundMetersArrivals = RoundMetersArrivals.TestCase
