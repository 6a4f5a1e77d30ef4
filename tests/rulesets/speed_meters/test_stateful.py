"""speed-meters under random play: modes, special movement, forced movement, grabs, falls, undo, redo.

A Hypothesis state machine plays one encounter with every speed-meters verb,
legal or not, with seeded dice. After every step:

- a refused command cites a speed-meters or engine (tabletrail/) rule;
- every fighter's position fits its mode (walkers stand on the ground,
  swimmers are in deep water, hoverers 1 m up, nobody inside the ground);
- grab links and grab states agree, and every link joins two grab states.

What any ruleset owes the log is checked by the shared EncounterMachine in
support_stateful.py, which this machine extends: a refused command appends
nothing and an accepted one exactly one batch; end-turn is always accepted;
replaying the log from its lines gives the live board; a refused undo leaves the
board alone, undo then redo gives it back, and undoing everything gives the
starting board while redoing it all gives back the board the undos took away.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule
from support_stateful import EncounterMachine
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.rulesets.speed_meters import hover_height, swimmable, water_bottom
from tabletrail.events.commands import Command
from tabletrail.events.stores.record import Record

from tests.rulesets.speed_meters.test_scenes import fighter, scene

ROWS = [
    "##########",
    "#..^..CC.#",
    "#.ww.~...#",
    "#.ww._.:.#",
    "#..H...Q.#",
    "##########",
]
FIGHTERS = ("a", "b", "r", "s")
SCENARIO = scene(
    ROWS,
    fighter("a", at=(1, 1), brawn=2, fly=6, swim=4, jump=5, teleport=5, hover=4, glide=5),
    fighter("b", at=(2, 1), brawn=1, size="small", speed=3, swim=3, jump=4, teleport=4),
    fighter("r", "red", at=(8, 1), brawn=2, speed=4, climb=4, fly=4, tags=["aquatic"]),
    fighter("s", "red", at=(8, 4), brawn=3, size="large", speed=4, hover=4, teleport=6, glide=5),
    settings='ledge_drop = "fall"\nactions_per_turn = 3',
    seed=11,
)

# Mostly short hops (most of them legal, so the log grows), now and then a long one.
small = st.tuples(st.integers(-1, 1), st.integers(-1, 1), st.integers(-1, 2))
large = st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 4))
near = st.one_of(small, small, small, large)
who = st.sampled_from(FIGHTERS)
PATH_VERBS = ("move", "fly", "hover", "swim", "climb", "special-jump")


class SpeedMetersPlay(EncounterMachine):
    """speed-meters' commands; the shared harness runs them, with end-turn, undo and redo."""

    scenario = SCENARIO

    def run(self, command: Command | str) -> list[Record] | Rejection:
        """Every refusal cites a speed-meters or engine rule."""
        result = super().run(command)
        if isinstance(result, Rejection):
            assert result.rule.startswith(("speed-meters/", "tabletrail/")), result
        return result

    def cell(self, fid: str, offset: tuple[int, int, int], with_z: bool) -> str:
        x, y, z = self.enc.state.fighter(fid).pos
        cell = f"{x + offset[0]},{y + offset[1]}"
        return f"{cell},{z // 100 + offset[2]}" if with_z else cell

    def path(self, fid: str, offsets: list[tuple[int, int, int]], with_z: bool) -> str:
        """Waypoints, each offset from the one before (heights in whole meters)."""
        x, y, z = self.enc.state.fighter(fid).pos
        z //= 100
        out = []
        for dx, dy, dz in offsets:
            x, y, z = x + dx, y + dy, z + dz
            out.append(f"{x},{y},{z}" if with_z else f"{x},{y}")
        return " ".join(out)

    def nearest(self, fid: str) -> str:
        me = self.enc.state.fighter(fid).pos
        others = [f for f in self.enc.state.fighters if f.id != fid]
        return min(others, key=lambda o: (max(abs(o.pos[0] - me[0]), abs(o.pos[1] - me[1])), o.id)).id

    # --- the table's commands ---------------------------------------------------------

    @rule(verb=st.sampled_from(PATH_VERBS), offsets=st.lists(near, min_size=1, max_size=2), z=st.booleans())
    def movement(self, verb: str, offsets: list[tuple[int, int, int]], z: bool) -> None:
        fid = self.enc.state.turn.active
        flat = verb in ("move", "hover")
        self.run(f"{verb} {fid} {self.path(fid, offsets, z and not flat)}")

    @rule(offset=near, z=st.booleans())
    def teleport(self, offset: tuple[int, int, int], z: bool) -> None:
        fid = self.enc.state.turn.active
        self.run(f"teleport {fid} {self.cell(fid, offset, z)}")

    @rule(offset=near, fid=who)
    def glide_or_land(self, offset: tuple[int, int, int], fid: str) -> None:
        self.run(f"glide {fid} {self.cell(fid, offset, False)}")
        self.run(f"land {fid}")

    @rule(
        moved=who,
        kind=st.sampled_from(("push", "pull", "slide")),
        source=who,
        offsets=st.lists(near, min_size=1, max_size=2),
        aware=st.booleans(),
    )
    def force(self, moved: str, kind: str, source: str, offsets: list, aware: bool) -> None:
        path = self.path(moved, offsets, False)
        self.run(f"force {moved} {kind} {path} source={source} aware={'yes' if aware else 'no'}")

    @rule(moved=who, meters=st.integers(1, 3))
    def random(self, moved: str, meters: int) -> None:
        self.run(f"random {moved} meters={meters}")

    @rule(verb=st.sampled_from(("shove", "push", "pull", "grab")), anyone=st.booleans(), other=who)
    def grapple(self, verb: str, anyone: bool, other: str) -> None:
        fid = self.enc.state.turn.active
        self.run(f"{verb} {fid} {other if anyone else self.nearest(fid)}")

    @rule(fid=who)
    def escape_or_release(self, fid: str) -> None:
        self.run(f"escape {self.enc.state.turn.active}")
        self.run(f"release {fid}")

    @rule(fid=who, bumps=st.integers(0, 4))
    def fall(self, fid: str, bumps: int) -> None:
        self.run(f"fall {fid} bumps={bumps}")

    # --- invariants -----------------------------------------------------------------

    @invariant()
    def positions_fit_modes(self) -> None:
        state = self.enc.state
        grid = state.grid
        for f in state.fighters:
            x, y, z = f.pos
            top = grid.top[y][x]
            mode = f.states.get("mode", "walking")
            assert not grid.blocked(x, y), f"{f.id} stands in a wall at {x},{y}"
            if mode == "walking":
                assert z == top, f"{f.id} walks at {z}, the ground is {top}"
            elif mode == "swimming":
                assert swimmable(grid, x, y) and water_bottom(grid, x, y) <= z <= top, (f.id, f.pos)
            elif mode == "hovering":
                assert z == hover_height(grid, x, y), (f.id, f.pos)
            elif mode == "falling":
                assert z > top and "fallen" in f.marks, (f.id, f.pos)
            else:
                assert z >= top, (f.id, mode, f.pos)

    @invariant()
    def grabs_agree_with_links(self) -> None:
        state = self.enc.state
        grabbing = {a for kind, a, _ in state.links if kind == "grab"}
        grabbed = {b for kind, _, b in state.links if kind == "grab"}
        for f in state.fighters:
            expected = "grabbing" if f.id in grabbing else "grabbed" if f.id in grabbed else "free"
            assert f.states.get("grab", "free") == expected, (f.id, f.states, state.links)


SpeedMetersPlay.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_speed_meters_random_play = SpeedMetersPlay.TestCase
