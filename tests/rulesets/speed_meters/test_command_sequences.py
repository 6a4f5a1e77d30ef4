"""speed-meters, a fidelity review of sequences (several commands, turns and rounds) against document 004.

Each test quotes the sentence it holds the engine to and cites its rule id.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import Moved, Placed, StateChanged

from tests.rulesets.speed_meters.test_scenes import fighter, scene

WALL = ["#######", "#.CCB.#", "#.....#", "#######"]  # 6 m blocks: C brick (difficulty 2), B glass (3)
CLIFF = ["############", "#Q.........#", "############"]  # a 10 m pillar, then open ground


def test_a_climber_the_gm_places_on_open_ground_walks_again():
    # speed-meters/climb: "A climbing creature moves at half Speed" and speed-meters/movement: "Every
    # character has a stat called Speed that indicates how many meters they may move by using an
    # Action". A climber the GM sets down on open ground is no longer on any surface: its mode follows
    # where it now is (recorded as an event), so it walks (and may climb again) instead of being stuck.
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), speed=4)))
    do(enc, "climb a 1,1,2 roll=6")
    events = do(enc, 'place a 1,2 by=gm why="the rope gives way"')
    assert [(e.machine, e.dest) for e in of_type(events, StateChanged)] == [("mode", "walking")]
    do(enc, "move a 2,2")
    a = enc.state.fighter("a")
    assert a.pos == (2, 2, 0) and a.states["mode"] == "walking"


def test_a_climber_placed_higher_on_the_face_keeps_climbing():
    # speed-meters/climb: only the ground ends a climb; a climber the GM moves up the wall still hangs on it.
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), speed=4)))
    do(enc, "climb a 1,1,2 roll=6")
    do(enc, 'place a 1,1,4 by=gm why="a gust lifts it"')
    assert enc.state.fighter("a").states["mode"] == "climbing"
    refuse(enc, "move a 1,2", "speed-meters/climb")


def test_a_glide_moves_at_the_documents_rate_of_five_meters():
    # speed-meters/glide: "You automatically move horizontally as you fall, at a rate of 5 meters
    # when your turn starts." The rate is the document's, not the number after Glide.
    for stat in (2, 5, 8):
        enc = encounter(scene(CLIFF, fighter("a", glide=stat)))
        do(enc, "glide a 9,1")
        events = do(enc, "end-turn")
        moved = of_type(events, Moved)[0]
        assert sum(s.cost for s in moved.steps) == 5 * CU and moved.steps[-1].to == (6, 1, 10 * CU), stat


def test_a_climber_who_falls_onto_someone_lands_in_the_nearest_free_space():
    # speed-meters/occupancy: "can't end a Movement in an occupied space"; the document is silent on
    # a fall onto another fighter, so (a documented house ruling, fall-table) the faller lands in the
    # nearest free space no higher than it fell from, not in the other's space.
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), speed=6), fighter("b", "red", at=(2, 2))))
    do(enc, "climb a 1,1,3 roll=6")
    do(enc, "end-turn")
    do(enc, "move b 1,1")
    do(enc, "end-turn")
    events = do(enc, "climb a 1,1,5 roll=1")  # fails: loses its grip 3 m up, above b
    land = of_type(events, Placed)[-1]
    assert land.to == (1, 2, 0) and "1,1 is taken by b" in land.note
    a, b = enc.state.fighter("a"), enc.state.fighter("b")
    assert a.pos == (1, 2, 0) and a.states["mode"] == "walking" and b.pos == (1, 1, 0)


def test_a_table_may_rule_that_a_faller_shares_the_space_it_falls_onto():
    # The house ruling is a setting (fall_onto_fighter = same-space): then the fall ends on b's space.
    enc = encounter(
        scene(
            WALL,
            fighter("a", at=(1, 1), speed=6),
            fighter("b", "red", at=(2, 2)),
            settings='fall_onto_fighter = "same-space"',
        )
    )
    do(enc, "climb a 1,1,3 roll=6")
    do(enc, "end-turn")
    do(enc, "move b 1,1")
    do(enc, "end-turn")
    land = of_type(do(enc, "climb a 1,1,5 roll=1"), Placed)[-1]
    assert land.to == (1, 1, 0) and "taken" not in land.note


def test_a_glide_that_sinks_onto_someone_lands_beside_it():
    # speed-meters/glide: "If you're still gliding by the time you reach the ground, you don't take any
    # damage from falling"; it comes down in the nearest free space when a fighter stands where it sinks.
    enc = encounter(
        scene(
            CLIFF,
            fighter("a", glide=5),
            fighter("b", "red", at=(6, 1)),
            fighter("c", "red", at=(7, 1)),
            settings="glide_descent = 12",
        )
    )
    do(enc, "glide a 9,1")
    do(enc, "end-turn")
    do(enc, "end-turn")
    events = do(enc, "end-turn")  # a's next turn starts: 5 m across to above 6,1, and down
    land = of_type(events, Placed)[-1]
    assert land.to == (5, 1, 0) and "no falling damage" in land.note
    assert enc.state.fighter("a").pos == (5, 1, 0) and enc.state.fighter("b").pos == (6, 1, 0)


def test_a_fighter_shoved_over_an_edge_onto_someone_lands_beside_it_below():
    # speed-meters/shove: "The attacker pushes the target 1 meter for every 2 points remaining on their
    # side"; over the edge it falls (fall-table). Someone stands below the edge, so it comes down in
    # the nearest free space below, never back on the ledge it was shoved from.
    rows = ["######", "#QQ..#", "#....#", "######"]  # a 10 m block at 1,1 and 2,1
    enc = encounter(
        scene(rows, fighter("b", "red", at=(1, 1)), fighter("a", at=(2, 1)), fighter("c", at=(3, 1)))
    )
    events = do(enc, "shove b a roll=6 roll=1 roll=1 roll=6 roll=6")  # margin 5: 2 m; no save; table 6, 6
    land = [p for p in of_type(events, Placed) if p.fighter == "a"][-1]
    assert land.to == (4, 1, 0) and "falls 10 m" in land.note and "3,1 is taken by c" in land.note
    assert enc.state.fighter("c").pos == (3, 1, 0)
