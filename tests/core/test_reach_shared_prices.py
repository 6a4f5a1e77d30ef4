"""Many fighters of different Speeds share kept step prices, and still get the slow path's answer.

Issue 29: with a table per Speed, 64 fighters of 64 Speeds overflowed the 32 kept
tables and every reach priced its area afresh. A speed-meters price reads of the
mover's Speed only whether it is 1 ("rough: 2 m a space, unless the mover's Speed
is 1"), so the key says just that; these tests hold the shared table to the search
that asks the ruleset about every step.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import encounter, grid
from tabletrail.core.board.state import EncounterState
from tabletrail.core.search.reach import reach

LEGEND = '"^" = {terrain = "floor", ground = 1}\n":" = {terrain = "floor", ground = 2.5}'


def scene(size: int, seed: int, speeds: list[int], diagonal: str) -> str:
    """A seeded map of mixed terrain with one blue fighter per Speed, each on open floor."""
    rnd = random.Random(seed)
    inner = [[rnd.choice(".....~~^:#") for _ in range(size)] for _ in range(size)]
    cells = [(x, y) for y in range(1, size + 1) for x in range(1, size + 1)]
    spots = rnd.sample(cells, len(speeds))
    for x, y in spots:
        inner[y - 1][x - 1] = "."
    rows = ["#" * (size + 2), *(f"#{''.join(r)}#" for r in inner), "#" * (size + 2)]
    fighters = "".join(
        f'[[fighters]]\nid = "f{i}"\nside = "{"blue" if i % 3 else "red"}"\nat = [{x}, {y}]\nspeed = {s}\n'
        for i, ((x, y), s) in enumerate(zip(spots, speeds, strict=True))
    )
    return f"""
[encounter]
name = "many speeds"
ruleset = "speed-meters"
[settings]
diagonal = "{diagonal}"
{grid(rows, LEGEND)}
{fighters}
"""


def same(state: EncounterState, fid: str) -> None:
    fast, slow = reach(state, fid), reach(state, fid, table=False)
    assert fast.costs == slow.costs, fid
    assert fast.events == slow.events, fid
    for cell in slow.costs:
        assert fast.steps(cell) == slow.steps(cell), (fid, cell)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    speeds=st.lists(st.integers(1, 9), min_size=2, max_size=8),
    diagonal=st.sampled_from(["every-1", "alternating", "euclidean", "manhattan"]),
    size=st.sampled_from([6, 14]),
)
def test_fighters_of_any_speeds_sharing_a_table_get_the_answer_of_pricing_every_step(
    seed, speeds, diagonal, size
):
    state = encounter(scene(size, seed, speeds, diagonal)).state
    order = random.Random(seed).sample([f.id for f in state.fighters], len(state.fighters))
    for _ in range(3):  # cold, completing the tables, then (on the larger map) the compiled search
        for fid in order:
            same(state, fid)


def test_the_tables_kept_do_not_grow_with_the_number_of_speeds():
    """Forty Speeds in play: one table for Speed 1, one for all the others (the cliff's cause, gone)."""
    state = encounter(scene(14, 3, list(range(1, 41)), "every-1")).state
    for f in state.fighters:
        reach(state, f.id)
    assert len(state.grid.tables) == 2
