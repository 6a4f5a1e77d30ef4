"""round-meters under random play: moves, sprints, actions, delays, holds, end-turns, undo, redo.

A Hypothesis state machine plays one encounter with commands that are often
illegal (out of turn, past the budget, vague triggers, delays into a later pass).
After every step it checks what the rules promise:

- replaying the log from its lines gives the live board;
- no fighter's AP or Movement left is ever negative, and AP spent never exceeds the pool;
- the initiative order is a permutation of the combatants, and exactly the active
  combatant is in the TURN machine's acting state;
- a refused command appends nothing.

Replay, refusals and batches are checked, with round trips and the undo and
redo rules, by EncounterMachine (support_stateful.py), which this machine extends.
"""

from __future__ import annotations

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule
from support import grid
from support_stateful import EncounterMachine
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.engine.registry import get
from tabletrail.events.commands import Command
from tabletrail.events.stores.record import Record

ROWS = [
    "#########",
    "#...~~..#",
    "#...~~..#",
    "#.......#",
    "#########",
]
FIGHTERS = ("ari", "bo", "cyn")
SCENARIO = f"""
[encounter]
name = "random mud"
ruleset = "round-meters"
seed = 5
initiative = ["ari", "bo", "cyn"]
{grid(ROWS)}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]
movement = 4
ap = 3
athletics = 1
[[fighters]]
id = "bo"
side = "blue"
at = [1, 3]
movement = 3
ap = 2
[[fighters]]
id = "cyn"
side = "red"
at = [7, 2]
movement = 5
ap = 2
"""
RS = get("round-meters")

someone = st.one_of(st.none(), st.sampled_from(FIGHTERS))  # None: whoever's turn it is
steps = st.tuples(st.integers(-3, 3), st.integers(-2, 2))
rolls = st.one_of(st.just(""), st.integers(1, 20).map(lambda n: f" roll={n}"))
TRIGGERS = ("enemy-enters", "starts-move", "takes-action", "vague")


class RoundMetersPlay(EncounterMachine):
    """round-meters' commands; the shared harness runs them, with end-turn, undo and redo."""

    scenario = SCENARIO

    def run(self, command: Command | str) -> list[Record] | Rejection:
        """Also label how far play got and whether a held action interrupted, for the statistics."""
        result = super().run(command)
        if not isinstance(result, Rejection) and any(
            "resolves at once, interrupting" in r.event.note for r in result
        ):
            event("a held action interrupted")
        turn = self.enc.state.turn
        event(f"reached round {min(turn.round, 3)}, pass {min(turn.pass_no, 3)}")
        return result

    def who(self, f: str | None) -> str:
        return f or self.enc.state.turn.active

    @rule(f=someone, by=steps, roll=rolls)
    def move(self, f: str | None, by: tuple[int, int], roll: str) -> None:
        fid = self.who(f)
        x, y, _ = self.enc.state.fighter(fid).pos
        self.run(f"move {fid} {x + by[0]},{y + by[1]}{roll}")

    @rule(f=someone, roll=rolls)
    def sprint(self, f: str | None, roll: str) -> None:
        self.run(f"sprint {self.who(f)}{roll}")

    @rule(f=someone, kind=st.sampled_from(["shoot", "aim", "juggle"]), test=st.booleans(), roll=rolls)
    def act(self, f: str | None, kind: str, test: bool, roll: str) -> None:
        self.run(f"take-action {self.who(f)} {kind}" + (f" test=12{roll}" if test else ""))

    @rule(f=someone, after=st.one_of(st.just(""), st.sampled_from(FIGHTERS)), into=st.integers(0, 3))
    def delay(self, f: str | None, after: str, into: int) -> None:
        self.run(
            f"delay {self.who(f)}"
            + (f" after={after}" if after else "")
            + (f" into_pass={into}" if into else "")
        )

    @rule(
        f=someone,
        action=st.sampled_from(["shoot", "aim"]),
        kind=st.sampled_from(TRIGGERS),
        other=st.sampled_from(FIGHTERS),
        watched=st.sampled_from(["shoot", "aim", "sprint"]),
    )
    def hold(self, f: str | None, action: str, kind: str, other: str, watched: str) -> None:
        fid = self.who(f)
        if kind == "enemy-enters":  # the cells around another fighter, where it may well step
            x, y, _ = self.enc.state.fighter(other).pos
            around = [f"{x + dx},{y + dy}" for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
            trigger = "enemy-enters " + " ".join(around)
        elif kind == "starts-move":
            trigger = f"starts-move {other}"
        elif kind == "takes-action":
            trigger = f"takes-action {other} {watched}"
        else:
            trigger = "when something happens"
        self.run(f'hold {fid} {action} "{trigger}" target={other}')

    @rule(pick=st.integers(0, 8))
    def tempt(self, pick: int) -> None:
        """The active fighter does what some held trigger watches for (random play rarely would)."""
        state = self.enc.state
        me = state.fighter(state.turn.active)
        for f in state.fighters:
            held = f.marks.get("held")
            if not held or f.id == me.id:
                continue
            trigger = held["trigger"]
            if trigger["kind"] == "enemy-enters" and f.side != me.side:
                x, y = trigger["cells"][pick % len(trigger["cells"])]
                self.run(f"move {me.id} {x},{y}")
            elif trigger["kind"] == "starts-move" and trigger["fighter"] == me.id:
                self.run(f"move {me.id} {me.pos[0] + 1},{me.pos[1]}")
            elif trigger["kind"] == "takes-action" and trigger["fighter"] == me.id:
                verb = "sprint" if trigger["action"] == "sprint" else f"take-action {me.id}"
                self.run(f"{verb} {me.id}" if verb == "sprint" else f"{verb} {trigger['action']}")
            return

    @invariant()
    def budgets_never_go_negative(self) -> None:
        for f in self.enc.state.fighters:
            assert 0 <= f.used("ap") <= RS.ap(f), f"{f.id}: ap {f.spent}"
            assert RS.meters_left(f) >= 0, f"{f.id}: movement {f.spent}"

    @invariant()
    def the_order_is_a_permutation_and_one_fighter_acts(self) -> None:
        state = self.enc.state
        assert sorted(state.turn.order) == sorted(FIGHTERS)
        acting = [f.id for f in state.fighters if f.state("turn", "waiting") == "acting"]
        assert acting == [state.turn.active]


RoundMetersPlay.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestRoundMetersPlay = RoundMetersPlay.TestCase
