"""Exact Euclidean lengths (issue 36, items 12 and 9a), from the catalogue's default ruling for
initiative-yards' move: "Euclidean, exact to 0.01 yd: a path's length is the exact sum of its
steps, compared with the budget exactly and rounded once, for display". The same wherever
`diagonal = "euclidean"` is set (round-meters' default; a setting of speed-meters and ap-squares).

A diagonal is √2 cells: one crawled costs 2·√2 = 2.83 (doubled, then rounded once), three walked
3·√2 = 4.24, and 17 on Initiative 24 are 24.04 yd, more than the move action has.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from support import begun_under, do, encounter, grid, of_type, rechain, refuse
from tabletrail.cli import main
from tabletrail.core.board.corrections import FIRST, RULES_VERSION, version_key
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.units import CU
from tabletrail.core.engine.movement import length_of
from tabletrail.core.search.reach import reach, waypoints
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.types import Moved
from tabletrail.projections.audit import verify_lines, whatif
from tabletrail.projections.snapshot import board_of, state_of
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse

ROOT = Path(__file__).resolve().parents[2]
OPEN = ["." * 22 for _ in range(22)]  # room for 20 diagonals


def initiative_yards(initiative: float = 24, settings: str = "") -> Encounter:
    """a (Initiative 24 by default) at 1,1 on open floor; a friend far off, so nothing engages."""
    return encounter(
        f"""
[encounter]
name = "exact"
ruleset = "initiative-yards"
seed = 3
[settings]
{settings}
{grid(OPEN)}
[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
initiative = {initiative}
height = 1.5
[[fighters]]
id = "f"
side = "blue"
at = [0, 21]
initiative = 8
height = 1.5
"""
    )


def round_meters(movement: float, settings: str = "") -> Encounter:
    rows = ["." * 12 for _ in range(8)]
    rows[2] = ".....~......"  # one cell of difficult ground, 5,2
    return encounter(
        f"""
[encounter]
name = "exact"
ruleset = "round-meters"
seed = 3
[settings]
{settings}
{grid(rows)}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]
movement = {movement}
ap = 3
"""
    )


def speed_meters(speed: float) -> Encounter:
    rows = ["." * 22 for _ in range(22)]
    rows[3] = "....~................."  # one rough space
    return encounter(
        f"""
[encounter]
name = "exact"
ruleset = "speed-meters"
seed = 3
[settings]
diagonal = "euclidean"
{grid(rows)}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]
speed = {speed}
"""
    )


def next_turn_of(enc: Encounter, fid: str) -> None:
    do(enc, "end-turn")
    while enc.state.turn.active != fid:
        do(enc, "end-turn")


def spent(enc: Encounter, fid: str) -> int:
    return enc.state.fighter(fid).used("movement")


# --- the arithmetic ------------------------------------------------------------------------------


def test_root2_parts_round_once_and_compare_in_integers():
    from tabletrail.core.board.units import fmt_exact, root2_cu, sign

    assert [root2_cu(b) for b in (100, 200, 300, 1600, 1700)] == [141, 283, 424, 2263, 2404]
    assert sign(-2400, 1700) == 1 and sign(-2300, 1600) == -1  # 17·√2 > 24, 16·√2 < 23
    assert sign(0, 0) == 0 and sign(5, -3) == 1 and sign(-5, 3) == -1  # 5 > 3√2 = 4.24
    assert fmt_exact(0, 1700, 2400) == "24.04"
    # a length that rounds to the budget it exceeds is told to the ten-thousandth
    assert fmt_exact(-4, 1700, 2400) == "24.0016"


# --- initiative-yards: the document's numbers ------------------------------------------------------


def test_seventeen_diagonals_on_initiative_24_are_refused():
    enc = initiative_yards()
    r = refuse(enc, "move a 18,18", "initiative-yards/move")
    assert "costs 24.04 yd by 18,18" in r.reason and "only 24 yd are left" in r.reason
    assert (18, 18) not in reach(enc.state, "a").costs


def test_sixteen_diagonals_on_initiative_24_are_allowed_and_cost_22_63():
    enc = initiative_yards()
    assert reach(enc.state, "a").costs[(17, 17)] == 2263
    (m,) = of_type(do(enc, "move a 17,17"), Moved)
    assert sum(s.root2 for s in m.steps) == 16 * CU and {s.cost for s in m.steps} == {141}
    assert spent(enc, "a") == 2263  # 16·√2 = 22.627, rounded once (not 16 x 1.41 = 22.56)


def test_three_walked_diagonals_cost_4_24():
    enc = initiative_yards()
    assert reach(enc.state, "a").costs[(4, 4)] == 424
    do(enc, "move a 4,4")
    assert spent(enc, "a") == 424  # 3·√2 = 4.243 (not 3 x 1.41 = 4.23)


def test_one_crawled_diagonal_costs_2_83():
    enc = initiative_yards()
    do(enc, "drop-prone a")
    next_turn_of(enc, "a")
    (m,) = of_type(do(enc, "move a 2,2"), Moved)
    assert [(s.cost, s.root2, s.mode) for s in m.steps] == [(283, 2 * CU, "crawl")]
    assert spent(enc, "a") == 283


def test_a_crawled_yard_and_diagonal_cost_4_83_doubled_then_rounded():
    """Issue 36, 9a: 2 x (1 + √2) = 4.83, not 2 + 2 x 1.41 = 4.82."""
    enc = initiative_yards()
    do(enc, "drop-prone a")
    next_turn_of(enc, "a")
    do(enc, "move a 2,1 3,2")
    assert spent(enc, "a") == 483


def test_a_split_move_is_held_against_the_exact_remainder():
    """17 moves of one diagonal each in one move action: 16 go (each 1.41 on its own, 22.63 in
    all), the 17th is refused, as the one move of 17 is: splitting a move never rounds any away."""
    enc = initiative_yards()
    for n in range(2, 18):
        do(enc, f"move a {n},{n}")
    assert spent(enc, "a") == 2263
    assert enc.state.root2("a", "movement") == 16 * CU
    refuse(enc, "move a 18,18", "initiative-yards/move")
    assert (18, 18) not in reach(enc.state, "a").costs
    # 1.37 yd are left, exactly 24 - 16·√2 = 1.3726: one more straight yard goes, a diagonal doesn't
    assert reach(enc.state, "a").costs == {(18, 17): CU, (17, 18): CU, (16, 17): CU, (17, 16): CU}
    assert reach(enc.state, "a", table=False).costs == reach(enc.state, "a").costs


def test_a_new_move_action_starts_the_exact_count_afresh():
    enc = initiative_yards()
    do(enc, "move a 17,17")
    next_turn_of(enc, "a")
    assert enc.state.root2("a", "movement") == 0 and spent(enc, "a") == 0
    do(enc, "move a 1,1")  # 16 diagonals back
    assert spent(enc, "a") == 2263


def test_the_log_and_the_audit_show_the_length_rounded_once(tmp_path, capsys):
    path = tmp_path / "fight.jsonl"
    enc = initiative_yards()
    do(enc, "move a 4,4")
    path.write_bytes(b"".join(line + b"\n" for line in enc.store.lines))
    assert main(["log", str(path)]) == 0
    out = capsys.readouterr().out
    assert "a moved 2,2 (1.41 yd), 3,3 (1.41 yd), 4,4 (1.41 yd): 4.24 yd of 24 yd" in out
    assert main(["explain", str(path), "--json", str(len(enc.store.lines))]) == 0
    data = json.loads(capsys.readouterr().out)
    text = json.dumps(data)
    assert '"total": 424' in text and '"left": 1976' in text


# --- round-meters and speed-meters, with diagonal = euclidean -----------------------------------


def test_round_meters_three_diagonals_are_more_than_4_24_meters():
    """Movement 4.24 m: three diagonals are 4.2426 m (not 4.23): refused; a Movement of 4.25 walks them."""
    enc = round_meters(4.24)
    r = refuse(enc, "move ari 4,4", "round-meters/round-budget")
    assert "4.2426 m by 4,4" in r.reason
    assert (4, 4) not in reach(enc.state, "ari").costs
    enc = round_meters(4.25)
    do(enc, "move ari 4,4")
    assert spent(enc, "ari") == 424


def test_round_meters_a_diagonal_into_difficult_ground_costs_2_83():
    enc = round_meters(6)
    do(enc, "move ari 4,1")
    (m,) = of_type(do(enc, "move ari 5,2"), Moved)
    assert [(s.cost, s.root2) for s in m.steps] == [(283, 2 * CU)]
    assert "2.83 m of this round's Movement (5.83 m moved of 6 m this round, 0.17 m left)" in m.note
    assert spent(enc, "ari") == 583


def test_round_meters_split_moves_carry_the_exact_remainder_across_turns():
    enc = round_meters(4.24)
    do(enc, "move ari 2,2")
    do(enc, "move ari 3,3")
    refuse(enc, "move ari 4,4", "round-meters/round-budget")  # 3·√2 in three pieces: still too long
    assert (4, 4) not in reach(enc.state, "ari").costs
    assert reach(enc.state, "ari", table=False).costs == reach(enc.state, "ari").costs


def test_speed_meters_with_euclidean_diagonals():
    enc = speed_meters(24)
    refuse(enc, "move ari 18,18", "speed-meters/movement")
    do(enc, "move ari 17,17")
    assert spent(enc, "ari") == 2263
    enc = speed_meters(6)
    do(enc, "move ari 4,4")
    assert spent(enc, "ari") == 424
    enc = speed_meters(6)
    (m,) = of_type(do(enc, "move ari 2,2 3,3 4,4"), Moved)
    assert sum(s.cost for s in m.steps) == 423 and spent(enc, "ari") == 424  # each shown 1.41; 4.24 in all


def test_speed_meters_a_rough_diagonal_costs_2_83():
    enc = speed_meters(6)
    (m,) = of_type(do(enc, "move ari 2,2 3,2 4,3"), Moved)  # 4,3 is rough: "a rough space costs 2 m"
    assert [(s.cost, s.root2) for s in m.steps] == [(141, CU), (100, 0), (283, 2 * CU)]
    assert spent(enc, "ari") == 524  # 1 + 3·√2 = 5.243


# --- the state: folded from the log, undone, replayed ---------------------------------------------


def test_the_exact_part_is_folded_from_the_log_and_undone_with_its_batch():
    enc = initiative_yards()
    do(enc, "move a 2,2")
    do(enc, "move a 4,4")
    assert enc.state.root2("a", "movement") == 3 * CU and spent(enc, "a") == 424
    again = Encounter.open(MemoryStore(list(enc.store.lines))).state
    assert again.fighters == enc.state.fighters and again.roots == enc.state.roots
    do(enc, "undo")
    assert enc.state.root2("a", "movement") == CU and spent(enc, "a") == 141
    next_turn_of(enc, "a")
    assert enc.state.roots == {}  # the move action starts over, and its √2 part with it


def test_the_board_view_is_the_same_shape_as_before():
    enc = initiative_yards()
    do(enc, "move a 4,4")
    from tabletrail.projections.board import view

    fighter = view(enc.state)["fighters"][0]
    assert "roots" not in fighter and fighter["spent"] == {"movement": 424}


# --- an older log: begun before rules 0.3, it keeps 1.41 a diagonal for its whole life ------------


def test_a_log_begun_under_0_2_keeps_each_diagonal_at_1_41_and_verifies_as_recorded():
    """17 diagonals on Initiative 24 were 17 x 1.41 = 23.97 yd before 0.3: allowed. A log begun then
    goes on deciding so, and verify re-decides it under its own version: it passes, nothing named."""
    old = begun_under(initiative_yards(), "0.2")
    assert old.state.rules_version == "0.2"
    assert reach(old.state, "a").costs[(18, 18)] == 2397
    (m,) = of_type(do(old, "move a 18,18"), Moved)
    assert {(s.cost, s.root2) for s in m.steps} == {(141, 0)} and spent(old, "a") == 2397
    do(old, "end-turn")
    report = verify_lines(old.store.lines, "old")
    assert report["ok"], report["finding"]
    assert report["corrected"] == [] and report["rules_version"] == "0.2"
    assert report["checked"]["command"] == 2


def test_the_same_log_begun_under_0_3_refuses_the_seventeenth_diagonal():
    enc = begun_under(initiative_yards(), "0.3")
    refuse(enc, "move a 18,18", "initiative-yards/move")
    assert (18, 18) not in reach(enc.state, "a").costs


def test_a_new_log_records_0_3_on_its_first_line_and_measures_exactly():
    enc = initiative_yards()
    started = json.loads(enc.store.lines[0])["event"]
    assert started["rules_version"] == RULES_VERSION == enc.state.rules_version
    assert version_key(RULES_VERSION) >= version_key("0.3")


def test_a_log_that_records_no_version_began_under_0_1_and_keeps_1_41():
    old = begun_under(initiative_yards(), "")
    assert old.state.rules_version == FIRST
    do(old, "move a 4,4")
    assert spent(old, "a") == 423  # 3 x 1.41, as a tabletrail before 0.3 decided it


def test_an_old_log_split_and_crawled_is_decided_the_old_way_throughout():
    """Split moves add 1.41s (no √2 part carried); a crawled diagonal is 2 x 1.41 = 2.82; a reopened
    log, folded from its snapshots or its lines, keeps its version: a fight never changes midway."""
    old = begun_under(initiative_yards(), "0.2")
    for n in range(2, 19):
        do(old, f"move a {n},{n}")
    assert spent(old, "a") == 2397 and old.state.roots == {}
    again = Encounter.open(MemoryStore(list(old.store.lines)))
    assert again.state.rules_version == "0.2"
    assert state_of(board_of(old.state)).rules_version == "0.2"
    old = begun_under(initiative_yards(), "0.2")
    do(old, "drop-prone a")
    next_turn_of(old, "a")
    (m,) = of_type(do(old, "move a 2,2"), Moved)
    assert [(s.cost, s.root2) for s in m.steps] == [(282, 0)]


def test_old_round_meters_and_speed_meters_logs_keep_their_roundings():
    old = begun_under(round_meters(4.24), "0.2")
    do(old, "move ari 4,4")  # 3 x 1.41 = 4.23: within 4.24 m then
    assert spent(old, "ari") == 423
    old = begun_under(speed_meters(6), "0.2")
    (m,) = of_type(do(old, "move ari 2,2 3,2 4,3"), Moved)  # 4,3 is rough: 2 x 1.41
    assert [(s.cost, s.root2) for s in m.steps] == [(141, 0), (100, 0), (282, 0)]
    assert verify_lines(old.store.lines, "old")["ok"]


def test_whatif_re_decides_an_old_log_under_its_own_version():
    """A what-if of a 0.2 log changes only what it sets: 17 diagonals are still 23.97 yd, allowed."""
    old = begun_under(initiative_yards(), "0.2")
    do(old, "move a 18,18")
    same = whatif(old.records, ["diagonal=euclidean"])
    assert same.divergence is None and same.refused == [] and same.differences == []
    assert same.alternative.rules_version == "0.2"
    new = initiative_yards()
    do(new, "move a 17,17")
    assert whatif(new.records, ["diagonal=euclidean"]).alternative.fighter("a").used("movement") == 2263


def test_kept_step_prices_of_one_version_never_price_another():
    """The step table is kept per map: a state of the same map under 0.2 reads its own prices."""
    enc = initiative_yards()
    assert reach(enc.state, "a").costs[(17, 17)] == 2263  # the table keeps exact prices
    old = replace(enc.state, rules_version="0.2")
    assert old.grid is enc.state.grid
    assert reach(old, "a").costs[(17, 17)] == 16 * 141 and reach(old, "a").costs[(18, 18)] == 2397
    assert reach(old, "a").costs == reach(old, "a", table=False).costs


def test_an_edited_move_in_an_old_log_is_a_fault_not_the_correction():
    """The 0.3 correction changed nothing an older log decides, so it never excuses a difference."""
    old = begun_under(initiative_yards(), "0.2")
    do(old, "move a 4,4")
    do(old, "end-turn")
    lines = [json.loads(line) for line in old.store.lines]
    for line in lines:
        if line["event"]["type"] == "moved":
            line["event"]["steps"] = [[*step[:6], 100] for step in line["event"]["steps"]]  # a √2 part each
    report = verify_lines(rechain([json.dumps(line).encode() for line in lines]), "edited")
    assert not report["ok"] and report["finding"]["kind"] == "decision" and report["corrected"] == []


@pytest.mark.parametrize("name", ["initiative-yards-ruined-bridge", "round-meters-ambush"])
def test_the_shipped_replays_with_euclidean_diagonals_verify_as_recorded(name):
    """vex's vault 2.82 yd, bo's ladder climb 6.82 yd, ari's difficult diagonal 2.82 m: as recorded."""
    lines = (ROOT / "replays" / f"{name}.jsonl").read_bytes().splitlines()
    report = verify_lines(lines, name)
    assert report["ok"], report["finding"]
    assert report["corrected"] == [] and report["rules_version"] == FIRST
    moved = [json.loads(line)["event"] for line in lines if b'"type":"moved"' in line]
    # diagonals recorded at 2 x 1.41 in one move (2·√2 = 2.83 measured exactly), with no √2 part
    assert any(sum(step[1] for step in m["steps"] if step[3]) == 282 for m in moved)
    assert all(len(step) < 7 or step[6] == 0 for m in moved for step in m["steps"])


# --- every search agrees with the others and with walk, on an exact remainder ------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ruleset=st.sampled_from(["initiative-yards", "round-meters"]),
    version=st.sampled_from(["0.2", RULES_VERSION]),
    budget=st.sampled_from([3, 4.23, 4.24, 4.25, 5.64, 5.66, 6.5, 8]),
    first=st.tuples(st.integers(1, 6), st.integers(1, 6)),
    mud=st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), max_size=6),
)
def test_after_a_first_move_every_search_gives_the_area_walk_accepts(ruleset, version, budget, first, mud):
    """A move leaves an exact remainder (a √2 part spent): the table, compiled and step-by-step
    searches give the same area and paths, and walk accepts the cheapest path to every cell of it
    at the cost the area says, and refuses a step more where the area has none. The same in a log
    begun under 0.2, where each diagonal is 1.41, added."""
    rows = [list("." * 8) for _ in range(8)]
    for x, y in mud:
        if (x, y) not in ((1, 1), first):
            rows[y][x] = "~"
    stats = (
        f"initiative = {budget}\nheight = 1.5"
        if ruleset == "initiative-yards"
        else f"movement = {budget}\nap = 3"
    )
    enc = encounter(
        f"""
[encounter]
name = "exact"
ruleset = "{ruleset}"
seed = 3
[settings]
diagonal = "euclidean"
{grid(["".join(r) for r in rows])}
[[fighters]]
id = "m"
side = "blue"
at = [1, 1]
{stats}
"""
    )
    enc = begun_under(enc, version)
    if first != (1, 1):
        enc.execute(parse(f"move m {first[0]},{first[1]}"), "first")  # refused or not: either is a start
    state = enc.state
    fast, slow, every = reach(state, "m"), reach(state, "m", table=False), reach(state, "m", shortcut=False)
    assert fast.costs == slow.costs == every.costs
    for cell in slow.costs:
        assert fast.steps(cell) == slow.steps(cell), cell
    here = state.fighter("m").pos
    for cell, cost in fast.costs.items():
        path = " ".join(f"{x},{y}" for x, y in waypoints((here[0], here[1]), fast.path(cell)))
        result = enc.preview(parse(f"move m {path}"))
        assert not isinstance(result, Rejection), (cell, path, result)
        taken = [s for m in of_type(result, Moved) for s in m.steps]
        assert length_of(taken) == cost
        assert version == RULES_VERSION or not any(s.root2 for s in taken), "0.2: 1.41 a diagonal, added"


def test_speed_meters_a_movement_going_on_past_a_door_keeps_its_length_rounded_once():
    """Two diagonals to the door (2·√2 = 2.83 m of 6), a free door, then the same Movement walks on
    with 3.17 m: the sum of two roundings (2.82) would leave it 3.18."""
    enc = encounter(
        """
[encounter]
name = "a door on the way"
ruleset = "speed-meters"
[settings]
diagonal = "euclidean"
[map]
rows = ["..........", "..........", ".........."]
legend = { "." = "floor" }
walls = ["4,0-4,1", "4,2-4,3"]
doors = [{ at = "3,1|4,1", closed = true }]
[[fighters]]
id = "m"
side = "blue"
at = [1, 1]
speed = 6
"""
    )
    do(enc, "move m 2,0 3,1")
    do(enc, "open m 3,1|4,1")
    (m,) = of_type(do(enc, "move m 6,1"), Moved)
    assert m.budget == 317
    assert spent(enc, "m") == 583  # 2·√2 + 3, rounded once


def test_speed_meters_a_diagonal_jump_is_measured_exactly_against_the_maneuver_meters():
    """maneuver: "no more than 2 meters of the movement"; with 0.59 m taken by the GM, 1.41 m are
    left, and a diagonal jump up onto the platform is √2 = 1.4142 m: more than that."""
    rows = ["##########", "#........#", "#........#", "#..^.....#", "#........#", "##########"]
    scene = f"""
[encounter]
name = "a jump"
ruleset = "speed-meters"
[settings]
diagonal = "euclidean"
{grid(rows, '"^" = {terrain = "floor", ground = 1}')}
[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = 5
"""
    enc = encounter(scene)
    do(enc, 'adjust a -0.59 resource=maneuver why="a slippery take-off"')
    r = refuse(enc, "move a 2,2 3,3", "speed-meters/maneuver")
    assert "1.4142 m by 3,3" in r.reason and "at most 1.41 m" in r.reason
    enc = encounter(scene)
    do(enc, 'adjust a -0.58 resource=maneuver why="a slippery take-off"')
    do(enc, "move a 2,2 3,3")
    assert enc.state.fighter("a").pos == (3, 3, CU)
