"""ap-squares under random play: walking, crawling, invading, area effects, losing and regaining
gravity, drifting, pushing off, braking, grabbing, undo and redo.

A Hypothesis state machine types commands at random, many of them illegal (out of
turn, past the AP, into walls, parallel push-offs, blocked squares, answers by the
wrong side). After every step it checks what the rules promise:

- a refused command appends nothing, and cites an ap-squares or engine rule;
- replaying the log from its lines gives the live board;
- no character's AP left is ever negative;
- a body is weightless (drifting, pushing off, crawling) exactly when it stands on a
  square without gravity, and it has a trajectory exactly when it drifts or pushes off;
- at most one invasion waits, and only while its occupant still shares no square with it;
- end-turn is refused only while an invasion or an area effect waits for answers.

What any ruleset owes the log is checked by the shared EncounterMachine in
support_stateful.py; the ap-squares checks above are this file's own.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule
from support_ap_squares import RULES, arena
from support_stateful import EncounterMachine
from tabletrail.core.board.geometry import NEIGHBOURS
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.rulesets.ap_squares.zero_g import (
    DIRECTIONS,
    gravity,
    is_object,
    push_off_directions,
    weightless,
)
from tabletrail.events.stores.record import Record

ROWS = [
    "##########",
    "#........#",
    "#..S.....#",
    "#........#",
    "#.....S..#",
    "##########",
]
WIDTH, HEIGHT = len(ROWS[0]), len(ROWS)
SCENARIO = arena(
    "ari blue 1,1 ap=12 strength=1 dexterity=2",
    "bo red 3,1 ap=10 parry=2 weapon_damage=3",
    "crate gm 5,1 tags=object",
    "cyn blue 6,3 ap=8 celerity=3 strength_bonus=1",
    rows=ROWS,
    legend='"S" = "stable"',
    seed=11,
)
PEOPLE = ("ari", "bo", "cyn")
SIDES = {"ari": "blue", "bo": "red", "cyn": "blue"}
OWN_RULES = frozenset(
    {f"ap-squares/{r.name}" for r in RULES.rules}
    | {
        "tabletrail/turn-order",
        "tabletrail/command",
        "tabletrail/side",  # a side enters only its own fighters' rolls (issue 13)
        "tabletrail/checks",
        "tabletrail/undo",
    }
)

cells = st.tuples(st.integers(0, WIDTH - 1), st.integers(0, HEIGHT - 1))
hops = st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=1, max_size=2)
directions = st.sampled_from(sorted(DIRECTIONS))
rolls = st.lists(st.integers(1, 20), max_size=3)


def cell(c: tuple[int, int]) -> str:
    return f"{c[0]},{c[1]}"


class ApSquaresMachine(EncounterMachine):
    """ap-squares' commands; the shared harness runs them, with end-turn, undo and redo."""

    scenario = SCENARIO
    refusing_rules = OWN_RULES  # every refusal cites an ap-squares or engine rule

    def ended_turn(self, before: str, result: list[Record] | Rejection) -> None:
        """invade, reflexive-leap: no turn ends while an invasion or an area effect waits for answers."""
        if isinstance(result, Rejection):
            waiting = RULES.pending_invasion(self.enc.state) or "area-effect" in self.enc.state.marks
            assert waiting, f"{before} could not end its turn though nothing waits: {result}"
            assert result.rule in ("ap-squares/invade", "ap-squares/reflexive-leap"), result

    def at(self, fid: str) -> tuple[int, int]:
        f = self.enc.state.fighter(fid)
        return f.pos[0], f.pos[1]

    @staticmethod
    def table(numbers: list[int]) -> str:
        return " ".join(f"roll={n}" for n in numbers)

    # --- commands ------------------------------------------------------------------

    @rule(offsets=hops)
    def hop(self, offsets: list[tuple[int, int]]) -> None:
        x, y = self.at(self.active)
        self.run(f"move {self.active} " + " ".join(cell((x + dx, y + dy)) for dx, dy in offsets))

    @rule(whom=st.sampled_from(PEOPLE))
    def walk_at(self, whom: str) -> None:
        """Head for someone's square: invasions."""
        self.run(f"move {self.active} {cell(self.at(whom))}")

    @rule(choice=st.sampled_from(("parry", "block", "allow")), honest=st.booleans(), numbers=rolls)
    def answer(self, choice: str, honest: bool, numbers: list[int]) -> None:
        waiting = RULES.pending_invasion(self.enc.state)
        occupant = waiting[1]["occupant"] if waiting else "bo"
        by = SIDES[occupant] if honest else "blue" if SIDES[occupant] == "red" else "red"
        self.run(f"react-invasion {occupant} {choice} by={by} {self.table(numbers[:2])}")

    @rule(pivot=cells, clockwise=st.booleans(), squares=st.integers(1, 6))
    def rotate(self, pivot: tuple[int, int], clockwise: bool, squares: int) -> None:
        turn = "cw" if clockwise else "ccw"
        self.run(f"rotate-about {self.active} {cell(pivot)} {turn} {squares}")

    @rule(prone=st.booleans())
    def posture(self, prone: bool) -> None:
        self.run(f"{'drop-prone' if prone else 'stand-up'} {self.active}")

    @rule(a=cells, b=cells, grabbers=st.sets(st.sampled_from(PEOPLE)))
    def gravity_off(self, a: tuple[int, int], b: tuple[int, int], grabbers: set[str]) -> None:
        grab = f"grab={','.join(sorted(grabbers))}" if grabbers else ""
        self.run(f"gravity-off {cell(a)} {cell(b)} {grab}")  # trajectories from the seeded dice

    @rule(a=cells, b=cells)
    def gravity_on(self, a: tuple[int, int], b: tuple[int, int]) -> None:
        self.run(f"gravity-on {cell(a)} {cell(b)}")

    @rule(direction=directions, speed=st.integers(0, 5))
    def push_off(self, direction: str, speed: int) -> None:
        self.run(f"push-off {self.active} {direction} {speed}")

    @rule(grabbers=st.sets(st.sampled_from(PEOPLE)))
    def gravity_off_everywhere(self, grabbers: set[str]) -> None:
        grab = f"grab={','.join(sorted(grabbers))}" if grabbers else ""
        self.run(f"gravity-off 1,1 {WIDTH - 2},{HEIGHT - 2} {grab}")

    @rule(pick=st.integers(0, 7), speed=st.integers(1, 4), brake=st.booleans())
    def push_off_away(self, pick: int, speed: int, brake: bool) -> None:
        """A push-off in a direction the surface allows, when there is one; maybe a brake after it."""
        options = push_off_directions(self.enc.state.grid, self.at(self.active)) or ["n"]
        if self.ok(f"push-off {self.active} {options[pick % len(options)]} {speed}") and brake:
            self.run(f"brake {self.active}")

    @rule()
    def brake(self) -> None:
        self.run(f"brake {self.active}")

    @rule(direction=directions)
    def turn_drift(self, direction: str) -> None:
        self.run(f"turn-drift {self.active} {direction}")

    @rule(direction=directions, grab=st.booleans())
    def hold_or_let_go(self, direction: str, grab: bool) -> None:
        self.run(f"grab-hold {self.active}" if grab else f"let-go {self.active} {direction}")

    @rule(centre=cells, on=st.sampled_from((None, *PEOPLE)), damage=st.integers(0, 6))
    def area(self, centre: tuple[int, int], on: str | None, damage: int) -> None:
        x, y = self.at(on) if on else centre
        squares = " ".join(cell((x + dx, y)) for dx in (0, 1) if 0 <= x + dx < WIDTH)
        self.run(f"area-effect {squares} damage={damage}")

    @rule(who=st.sampled_from(PEOPLE), to=st.one_of(st.none(), cells), numbers=rolls)
    def leap(self, who: str, to: tuple[int, int] | None, numbers: list[int]) -> None:
        where = cell(to) if to else ""
        self.run(f"reflexive-leap {who} {where} {self.table(numbers[:1])}")

    @rule(pick=st.integers(0, 7), dive=st.booleans(), numbers=rolls)
    def leap_caught(self, pick: int, dive: bool, numbers: list[int]) -> None:
        """A character caught in the area dives to a neighbouring square or braces."""
        area = self.enc.state.marks.get("area-effect")
        caught = list(area["caught"]) if area else []
        who = caught[pick % len(caught)] if caught else "ari"
        x, y = self.at(who)
        dx, dy = NEIGHBOURS[pick]
        where = cell((x + dx, y + dy)) if dive else ""
        self.run(f"reflexive-leap {who} {where} {self.table(numbers[:1])}")

    @rule()
    def area_hit(self) -> None:
        self.run("area-hit")

    # --- invariants ------------------------------------------------------------------

    @invariant()
    def ap_never_negative(self) -> None:
        for fid in PEOPLE:
            assert RULES.ap_left(self.enc.state, fid) >= 0, fid

    @invariant()
    def weightless_exactly_where_gravity_is_off(self) -> None:
        state = self.enc.state
        off = weightless(state)
        for f in state.fighters:
            afloat = gravity(f) != "grounded"
            assert afloat == ((f.pos[0], f.pos[1]) in off), f
            carried = gravity(f) in ("drifting", "pushing_off")
            assert carried == ("trajectory" in f.marks), f
            if is_object(f):
                assert gravity(f) in ("grounded", "drifting")

    @invariant()
    def one_invasion_at_a_time(self) -> None:
        waiting = [f for f in self.enc.state.fighters if "invading" in f.marks]
        assert len(waiting) <= 1
        for f in waiting:
            occupant = self.enc.state.fighter(f.marks["invading"]["occupant"])
            assert occupant.pos[:2] == tuple(f.marks["invading"]["cell"])
            assert max(abs(occupant.pos[0] - f.pos[0]), abs(occupant.pos[1] - f.pos[1])) == 1


TestApSquaresRandomPlay = ApSquaresMachine.TestCase
TestApSquaresRandomPlay.settings = settings(
    max_examples=80,
    stateful_step_count=35,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
