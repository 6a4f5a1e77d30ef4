"""The reachable area's answer, and what the two searches that find it share.

core/search/reach.py searches step by step, core/search/reach_arrays.py with compiled code; both give a
`Reach`. These pieces sit apart from both so the compiled search (imported only when it is asked
for, for numpy and scipy) and the step-by-step one that calls it do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from msgspec.structs import replace
from tabletrail.core.board.geometry import XY, Pos
from tabletrail.core.board.refusal import Refusal
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.events.types import Step

# A search node: a position, and the diagonal parity when it matters (else 0).
Node = tuple[int, int, int, int]


@dataclass(frozen=True)
class Reach:
    """Where a fighter's next move may end, what it costs, and how to get there."""

    fighter: str
    start: Pos
    budget: int  # what the move may still cost, in hundredths of `unit`
    # every cell the move may end on -> its cheapest cost (a dict, or the compiled search's arrays read
    # as one: core/search/reach_arrays.py `_Costs`)
    costs: Mapping[XY, int]
    events: frozenset[XY] = frozenset()  # reachable cells where something happens (a check, a stop)
    ends: Mapping[XY, Node] = field(default_factory=dict)  # the search node each cell's cost comes from
    came: Mapping[Node, tuple[Node, Step]] = field(default_factory=dict)  # how the search got to a node
    unit: str = ""  # what the costs count: the policy's unit (m, yd, AP)

    def steps(self, cell: XY) -> tuple[Step, ...]:
        """The steps of the cheapest move to `cell`, as the ruleset priced them; KeyError if out of reach."""
        node = self.ends[cell]
        out: list[Step] = []
        while node in self.came:
            node, step = self.came[node]
            out.append(step)
        return tuple(reversed(out))

    def path(self, cell: XY) -> list[XY]:
        """The cells of the cheapest move to `cell` (start excluded); KeyError if it is out of reach."""
        return [(s.to[0], s.to[1]) for s in self.steps(cell)]


def may_end(state: EncounterState, f: Fighter, can_end: Callable[..., None], x: int, y: int, z: int) -> bool:
    """Does the policy let a move end at (x, y, z)?"""
    moved = state.with_fighter(replace(f, pos=(x, y, z)))
    try:
        can_end(moved, moved.fighter(f.id))
    except Refusal:
        return False
    return True


class Nodes(Mapping[Node, tuple[Node, Step]]):
    """A search's trail read by node: a node not in it, or no node at all, is simply absent."""

    def __contains__(self, node: object) -> bool:
        try:
            self[node]  # type: ignore[index]
        except (KeyError, TypeError, IndexError):
            return False
        return True


def as_counted(step: Step, parity: int) -> Step:
    """A kept step as priced after `parity` diagonals (kept prices stand for each parity class)."""
    return step if step.parity == parity else replace(step, parity=parity)
