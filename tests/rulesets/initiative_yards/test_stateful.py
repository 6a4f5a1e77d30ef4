"""Stateful property tests of initiative-yards: random moves, checks, undo and redo.

Whatever the table enters, in any order: the log replays to the live board,
undo then redo changes nothing, undoing everything gives the starting board,
a refused command appends nothing, every line survives a decode/encode round
trip, and the board keeps the ruleset's own invariants (no move action overspent,
engagement states agree with the engaged pairs, a resolved Strike ends the engagement).
The generic checks and the end-turn, undo and redo rules are the shared harness in
support_stateful.py; this file adds initiative-yards' commands and invariants.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule
from support import grid
from support_stateful import EncounterMachine
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.service.encounter import Encounter

ROWS = [
    "##########",
    "#..s^^...#",
    "#.H.L....#",
    "#.o.__.o.#",
    "#./u.....#",
    "#....//..#",
    "##########",
]
LEGEND = """
"s" = { terrain = "stairs", ground = 1 }
"^" = { terrain = "floor", ground = 2 }
"H" = "ladder"
"L" = { terrain = "ledge", height = 2 }
"o" = { terrain = "obstacle", height = 0.5 }
"_" = { terrain = "gap", ground = -3 }
"/" = "slippery"
"u" = "unstable"
"""
SCENARIO = f"""
[encounter]
name = "fuzz"
ruleset = "initiative-yards"
seed = 11
{grid(ROWS, LEGEND)}
[[fighters]]
id = "a"
side = "blue"
at = [3, 2]
initiative = 6
height = 1.5
[[fighters]]
id = "b"
side = "blue"
at = [1, 3]
initiative = 5
height = 2
[[fighters]]
id = "e"
side = "red"
at = [4, 5]
initiative = 6
height = 1.5
reach = 1.5
[[fighters]]
id = "crate"
side = "none"
at = [3, 1]
tags = ["object"]
initiative = 0
height = 1
"""
RULESET = get_ruleset("initiative-yards")
WHO = ("a", "b", "e")
# Where to, from the active fighter: never where it stands, the nearest first (hypothesis shrinks
# toward the first), out to 3 cells so that leaps and vaults can land.
near = st.sampled_from(
    sorted(
        ((dx, dy) for dx in range(-3, 4) for dy in range(-3, 4) if (dx, dy) != (0, 0)),
        key=lambda d: (max(abs(d[0]), abs(d[1])), -d[0], -d[1]),
    )
)
ways = st.sampled_from([(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)])
# Most commands leave their checks to the seeded dice; some bring table rolls (too many is refused).
rolls = st.one_of(st.just([]), st.lists(st.integers(0, 20), min_size=1, max_size=2))


def _cell(c: tuple[int, int]) -> str:
    return f"{c[0]},{c[1]}"


def _near(enc: Encounter, offset: tuple[int, int], fid: str = "") -> str:
    """A cell near the fighter (the active one by default), kept inside the walls."""
    f = enc.state.fighter(fid or enc.state.turn.active)
    x = min(max(f.pos[0] + offset[0], 1), len(ROWS[0]) - 2)
    y = min(max(f.pos[1] + offset[1], 1), len(ROWS) - 2)
    return _cell((x, y))


def _rolls(r: list[int]) -> str:
    return f" roll={','.join(map(str, r))}" if r else ""


class InitiativeYardsTable(EncounterMachine):
    """initiative-yards' commands; the shared harness runs them, with end-turn, undo and redo."""

    scenario = SCENARIO

    @rule(path=st.lists(near, min_size=1, max_size=2), r=rolls)
    def move(self, path: list[tuple[int, int]], r: list[int]) -> None:
        self.run(f"move {self.active} {' '.join(_near(self.enc, p) for p in path)}{_rolls(r)}")

    @rule(r=rolls)
    def charge(self, r: list[int]) -> None:
        """Walk straight at the nearest foe: engagement should stop the move in its Reach."""
        state = self.enc.state
        me = state.fighter(self.active)
        foes = [f for f in state.fighters if f.side not in (me.side, "none")]
        foe = min(foes, key=lambda f: (abs(f.pos[0] - me.pos[0]) + abs(f.pos[1] - me.pos[1]), f.id))
        self.run(f"move {me.id} {_cell(foe.pos)}{_rolls(r)}")

    @rule(verb=st.sampled_from(["leap", "vault", "pull-up"]), way=ways, length=st.integers(1, 3), r=rolls)
    def attempt(self, verb: str, way: tuple[int, int], length: int, r: list[int]) -> None:
        # straight lines, so that some go over a gap or an obstacle, or up a ledge
        to = (way[0] * length, way[1] * length)
        self.run(f"{verb} {self.active} {_near(self.enc, to)}{_rolls(r)}")

    @rule(way=ways, length=st.integers(1, 3), put=ways, r=rolls)
    def drag(self, way: tuple[int, int], length: int, put: tuple[int, int], r: list[int]) -> None:
        # the nearest other piece, put next to where the drag should end
        state = self.enc.state
        me = state.fighter(self.active)
        whom = min(
            (f for f in state.fighters if f.id != me.id),
            key=lambda f: (abs(f.pos[0] - me.pos[0]) + abs(f.pos[1] - me.pos[1]), f.id),
        )
        end = (way[0] * length, way[1] * length)
        put_at = _near(self.enc, (end[0] + put[0], end[1] + put[1]))
        self.run(f"drag {me.id} {whom.id} {_near(self.enc, end)} put={put_at}{_rolls(r)}")

    def foe(self, fid: str, fallback: str) -> str:
        """Who the fighter is engaged with, if anyone; else the fallback."""
        linked = self.enc.state.linked("engaged", fid)
        return linked[0] if linked else fallback

    @rule(action=st.sampled_from(["strike", "command", "manifest", "reload"]), whom=st.sampled_from(WHO))
    def act(self, action: str, whom: str) -> None:
        self.run(f"act {self.active} {action} target={self.foe(self.active, whom)}")

    @rule(striker=st.sampled_from((None, *WHO)), struck=st.sampled_from(WHO), damage=st.integers(0, 2))
    def resolve(self, striker: str | None, struck: str, damage: int) -> None:
        striker = striker or self.active  # mostly the one whose Strike it was
        self.run(f"resolve {striker} {self.foe(striker, struck)} outcome=hit damage={damage}")

    @rule(damage=st.integers(0, 2))
    def strike_and_resolve(self, damage: int) -> None:
        """Strike whoever the active fighter is engaged with, and enter the outcome."""
        foe = self.foe(self.active, "")
        if foe and self.ok(f"act {self.active} strike target={foe}"):
            assert self.ok(f"resolve {self.active} {foe} outcome=hit damage={damage}")
            assert foe not in self.enc.state.linked("engaged", self.active)

    @rule(verb=st.sampled_from(["drop-prone", "stand-up"]))
    def posture(self, verb: str) -> None:
        self.run(f"{verb} {self.active}")

    # --- what must always hold --------------------------------------------------

    @invariant()
    def the_board_keeps_the_rules(self) -> None:
        state = self.enc.state
        for f in state.fighters:
            # move: a move action never spends more than the Initiative.
            assert f.used("movement") <= RULESET.initiative(f), f
            # engage: a fighter is engaged exactly while it is one of an engaged pair.
            engaged = f.state("engagement", "free") == "engaged"
            assert engaged == bool(state.linked("engaged", f.id)), (f.id, state.links)
            assert f.state("posture", "standing") in ("standing", "prone")
            assert f.damage >= 0


InitiativeYardsTable.TestCase.settings = settings(max_examples=100, stateful_step_count=40, deadline=None)
TestInitiativeYardsTable = InitiativeYardsTable.TestCase
