"""Character state machines, built with `transitions`.

One shared `Machine` per state graph, never one per character: building a
Machine is costly (each is built the first time its graph is asked: a command
asks few, a plain move none, and never even imports `transitions`), and a
fighter's state is just a string on the board. decide asks a graph whether a
trigger is legal from a state and where it leads; evolve never fires triggers,
it writes the destination the event recorded. `replay_strict` re-fires every
recorded trigger through the real Machine, for tests and `verify`.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from tabletrail.core.board.refusal import Refusal

if TYPE_CHECKING:
    from transitions import Machine


class Graph:
    """A state machine (a `transitions` graph): named states and the triggers between them.

    `Ruleset.change(b, f, machine, trigger, rule)` asks it and records the StateChanged; a
    ruleset adds its own with `register(Graph(...))`.
    """

    def __init__(
        self,
        name: str,
        states: list[str],
        transitions: list[dict[str, object]],
        initial: str,
        says: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.initial = initial
        self.says = says or {}  # trigger -> what the table reads when it fires ("{f} drops prone")
        self._spec = (states, transitions)  # the Machine is built when first asked (see the docstring)

    @cached_property
    def machine(self) -> Machine:
        from transitions import Machine  # imported with the first graph asked: a plain move loads none

        states, transitions = self._spec
        return Machine(
            model=None,
            states=states,
            transitions=transitions,
            initial=self.initial,
            auto_transitions=False,
            send_event=False,
        )

    @cached_property
    def _table(self) -> dict[tuple[str, str], str]:
        """The machine's own event table, flattened once for O(1) questions."""
        table: dict[tuple[str, str], str] = {}
        for trigger, event in self.machine.events.items():
            for source, transitions_from in event.transitions.items():
                table[(trigger, source)] = transitions_from[0].dest or source
        return table

    @property
    def states(self) -> list[str]:
        return list(self.machine.states)

    def target(self, trigger: str, source: str) -> str | None:
        """Where `trigger` leads from `source`, or None when it is not allowed."""
        return self._table.get((trigger, source))

    def require(self, trigger: str, source: str, rule: str, reason: str = "") -> str:
        dest = self.target(trigger, source)
        if dest is None:
            allowed = sorted(t for (t, s) in self._table if s == source)
            raise Refusal(
                rule,
                reason
                or f"cannot {trigger.replace('_', ' ')} while {source.replace('_', ' ')}"
                f" (from {source}: {', '.join(allowed) or 'nothing'})",
            )
        return dest

    def fire(self, source: str, trigger: str) -> str:
        """Run the trigger through the real Machine (strict replay); returns the new state."""

        class _Piece:
            state = source

        piece = _Piece()
        self.machine.add_model(piece, initial=source)
        try:
            getattr(piece, trigger)()
            return piece.state
        finally:
            self.machine.remove_model(piece)


POSTURE = Graph(
    "posture",
    ["standing", "prone"],
    [
        {"trigger": "drop_prone", "source": "standing", "dest": "prone"},
        {"trigger": "stand_up", "source": "prone", "dest": "standing"},
        {"trigger": "knock_down", "source": ["standing", "prone"], "dest": "prone"},
    ],
    "standing",
    {"drop_prone": "{f} drops prone", "stand_up": "{f} stands up", "knock_down": "{f} is knocked prone"},
)

ENGAGEMENT = Graph(
    "engagement",
    ["free", "engaged"],
    [
        {"trigger": "engage", "source": ["free", "engaged"], "dest": "engaged"},
        {"trigger": "resolve", "source": "engaged", "dest": "free"},
        {"trigger": "break_away", "source": "engaged", "dest": "free"},
    ],
    "free",
    {"engage": "{f} is engaged", "resolve": "{f}'s engagement is resolved", "break_away": "{f} breaks away"},
)

TURN = Graph(
    "turn",
    ["waiting", "acting", "delayed", "holding", "done"],
    [
        {"trigger": "start", "source": ["waiting", "delayed", "holding"], "dest": "acting"},
        {"trigger": "finish", "source": "acting", "dest": "done"},
        {"trigger": "delay", "source": "acting", "dest": "delayed"},
        {"trigger": "hold", "source": "acting", "dest": "holding"},
        {"trigger": "skip", "source": ["waiting", "delayed"], "dest": "done"},
        {"trigger": "new_pass", "source": ["done", "waiting", "holding"], "dest": "waiting"},
    ],
    "waiting",
    {
        "start": "{f} is acting",
        "finish": "{f} has had its turn",
        "delay": "{f} delays its turn",
        "hold": "{f} holds its action",
        "skip": "{f}'s turn is skipped",
        "new_pass": "{f} waits for its next turn",
    },
)

# A door on a cell edge (core/engine/doors.py): fighters open and close it; a locked one stays shut
# until the GM unlocks it (and only the GM locks one).
DOOR = Graph(
    "door",
    ["closed", "open", "locked"],
    [
        {"trigger": "open", "source": "closed", "dest": "open"},
        {"trigger": "close", "source": "open", "dest": "closed"},
        {"trigger": "lock", "source": "closed", "dest": "locked"},
        {"trigger": "unlock", "source": "locked", "dest": "closed"},
    ],
    "closed",
)

GRAPHS: dict[str, Graph] = {g.name: g for g in (POSTURE, ENGAGEMENT, TURN)}


def register(graph: Graph) -> Graph:
    """Rulesets add their own graphs (gravity, grab, mode) here, once, at import."""
    GRAPHS[graph.name] = graph
    return graph
