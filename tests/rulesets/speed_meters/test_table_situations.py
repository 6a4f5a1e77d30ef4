"""speed-meters, a fidelity review of situations: two or more rules of document 004 met at once.

Each test plays one situation a GM meets at a real table through the engine, quoting the
document's words (or the catalogue's default ruling where the text is silent) next to what it
asserts: what is allowed, what is refused and by which rule, what it costs, and the state after.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import CheckRolled, Marked, Moved, Placed, Spent, StateChanged, Unlinked

from tests.rulesets.speed_meters.test_scenes import fighter, scene

OPEN = ["#########", "#.......#", "#.......#", "#.......#", "#########"]


def spent(events, fid: str, resource: str = "actions") -> int:
    return sum(e.amount for e in of_type(events, Spent) if e.fighter == fid and e.resource == resource)


def steps(events, fid: str) -> list:
    return [s for m in of_type(events, Moved) if m.fighter == fid for s in m.steps]


def table(events) -> list[int]:
    return [c.number for c in of_type(events, CheckRolled) if c.check == "falling table"]


# --- walking: rough ground, allies, enemies, jumps ---------------------------------------------


def test_passing_an_ally_on_rough_ground_pays_the_rough_price_and_may_not_stop_there():
    # movement + occupancy + rough: "Can move through spaces occupied by allies, but can't end a
    # Movement in an occupied space." and "A space of Rough Terrain counts as 2 meters of Movement
    # instead of 1". An ally standing in the mud is passed through at the mud's price.
    rows = ["#######", "#.~~..#", "#######"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), speed=5), fighter("b", at=(2, 1))))
    r = refuse(enc, "move a 2,1", "speed-meters/occupancy")
    assert "would end on 2,1, occupied by b" in r.reason
    events = do(enc, "move a 4,1")  # 2 + 2 (rough, one with b in it) + 1 = 5 m: the whole Speed
    assert [s.cost for s in steps(events, "a")] == [2 * CU, 2 * CU, CU]
    assert "speed-meters/rough" in of_type(events, Moved)[0].rules
    assert enc.state.fighter("a").pos == (4, 1, 0) and enc.state.fighter("a").spent["movement"] == 5 * CU


def test_an_enemy_in_the_mud_blocks_the_way_whatever_it_costs():
    # occupancy: "Cannot move through spaces occupied by enemies": a path through the enemy is
    # refused, nothing is spent; the way round it through the mud is allowed at 2 m a rough space.
    rows = ["#######", "#.~~..#", "#.~~..#", "#######"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), speed=6), fighter("e", "red", at=(2, 1))))
    r = refuse(enc, "move a 4,1", "speed-meters/occupancy")
    assert "2,1 is held by e, an enemy of a" in r.reason
    assert enc.state.fighter("a").spent.get("actions", 0) == 0
    events = do(enc, "move a 2,2 3,1 4,1")  # 2 (rough, diagonal: every step 1, times 2) + 2 + 1
    assert sum(s.cost for s in steps(events, "a")) == 5 * CU
    assert enc.state.fighter("a").pos == (4, 1, 0)


def test_a_jump_across_a_gap_lands_on_rough_ground_at_the_rough_price():
    # jump + rough + maneuver: "You can jump 1 meter vertically or 2 meters horizontally as a part
    # of any Movement"; the landing space is mud, which "counts as 2 meters of Movement". The spaces
    # crossed in the air are the jump (maneuver meters); the landing is a step onto rough ground.
    rows = ["#######", "#.__~.#", "#######"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), speed=5)))
    events = do(enc, "move a 4,1")
    assert [(s.cost, s.mode) for s in steps(events, "a")] == [(CU, "jump"), (CU, "jump"), (2 * CU, "")]
    assert spent(events, "a", "maneuver") == 2 * CU
    a = enc.state.fighter("a")
    assert a.pos == (4, 1, 0) and a.spent["movement"] == 4 * CU


def test_a_jump_may_not_land_on_an_ally_but_passes_over_an_enemy_down_in_the_gap():
    # jump + occupancy: the landing ends the Movement, and a Movement can't end "in an occupied
    # space"; the enemy 4 m down in the cut is not in the jumper's way (its body does not reach up).
    rows = ["#######", "#._...#", "#######"]
    enc = encounter(
        scene(rows, fighter("a", at=(1, 1)), fighter("b", at=(3, 1)), fighter("e", "red", at=(2, 1)))
    )
    r = refuse(enc, "move a 3,1", "speed-meters/occupancy")
    assert "occupied by b" in r.reason
    do(enc, "move a 4,1")  # over e's head and past b, landing on the free space beyond
    assert enc.state.fighter("a").pos == (4, 1, 0)


def test_a_jump_up_and_a_jump_across_share_the_two_meters_of_maneuvers():
    # maneuver + jump + movement: "Can jump ... at any point during the movement for no more than
    # 2 meters of the movement" and "only 1 meter vertically by jumping": 1 m up and 1 m across make
    # the 2 m; 1 m up and 2 m across are 3 m of jumps, refused under maneuver.
    rows = ["#########", "#.^_^_..#", "#########"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), speed=6)))
    events = do(enc, "move a 4,1")  # up 1 m onto 2,1, across the cut at 3,1 onto 4,1
    assert spent(events, "a", "maneuver") == 2 * CU
    rows = ["#########", "#.^__^..#", "#########"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), speed=6)))
    r = refuse(enc, "move a 5,1", "speed-meters/maneuver")
    assert "at most 2 m of a Movement may be jumps" in r.reason


def test_a_speed_one_mover_takes_rough_ground_and_a_jump_at_one_meter_each():
    # rough: "(though if your Speed is 1, you can ignore this and move through Rough Terrain
    # normally)": a Speed-1 fighter's single meter takes it into the mud.
    rows = ["#####", "#.~.#", "#####"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), speed=1)))
    events = do(enc, "move a 2,1")
    assert [s.cost for s in steps(events, "a")] == [CU]
    refuse(enc, "move a 1,1 3,1", "speed-meters/movement")  # a second meter is past its Speed


# --- stop, actions and turns ------------------------------------------------------------------


def test_a_movement_that_opens_a_door_on_the_way_goes_on_without_a_new_action():
    # stop + tabletrail/doors: "May stop moving at any point … Once you stop moving, however, you can't
    # start moving again as part of the same Action." A fighter who walks up to a shut door, opens it
    # (free, as part of a move: door_cost 0) and walks on has not stopped: one Movement (issue 28).
    enc = encounter(
        """
[encounter]
name = "a door mid-move"
ruleset = "speed-meters"
[map]
rows = [".......", ".......", "......."]
legend = { "." = "floor" }
walls = ["3,0-3,1", "3,2-3,3"]
doors = [{ at = "2,1|3,1", closed = true }]
[[fighters]]
id = "a"
side = "blue"
at = [0, 1]
speed = 6
"""
    )
    refuse(enc, "move a 5,1", "tabletrail/walls")  # the shut door stops the step across its edge
    first = do(enc, "move a 2,1")
    do(enc, "open a 2,1|3,1")
    second = do(enc, "move a 5,1")
    assert spent(first, "a") == 1 and spent(second, "a") == 0
    a = enc.state.fighter("a")
    assert a.pos == (5, 1, 0) and a.spent["actions"] == 1 and a.spent["movement"] == 5 * CU
    # a diagonal through the open doorway cuts the wall's corner: refused
    enc2 = encounter(
        """
[encounter]
name = "a door mid-move"
ruleset = "speed-meters"
[map]
rows = [".......", ".......", "......."]
legend = { "." = "floor" }
walls = ["3,0-3,1", "3,2-3,3"]
doors = [{ at = "2,1|3,1", closed = false }]
[[fighters]]
id = "a"
side = "blue"
at = [2, 1]
speed = 6
"""
    )
    refuse(enc2, "move a 3,0", "tabletrail/walls")


def test_a_movement_split_around_a_shove_is_two_movements_each_with_a_fresh_speed():
    # stop + shove: moving, shoving, then moving on is three actions; each Movement has its own Speed
    # ("how many meters they may move by using an Action") and its own 2 m of maneuvers.
    enc = encounter(
        scene(OPEN, fighter("a", at=(1, 1), speed=4, brawn=2), fighter("e", "red", at=(4, 2), brawn=0))
    )
    do(enc, "move a 2,1 3,2")
    events = do(enc, "shove a e roll=6 roll=2")  # margin 6 - 2 + 2 - 0 = 6: 3 m away
    assert enc.state.fighter("e").pos == (7, 2, 0)
    assert spent(events, "a") == 1
    events = do(enc, "move a 7,1")  # a fresh 4 m
    a = enc.state.fighter("a")
    assert a.pos == (7, 1, 0) and a.spent["actions"] == 3 and a.spent["movement"] == 4 * CU
    # one action is left: one more Movement, then none
    do(enc, "move a 6,1")
    r = refuse(enc, "move a 5,1", "speed-meters/stop")
    assert "has used all 4 actions this turn" in r.reason


def test_budgets_part_spent_at_the_end_of_a_round_do_not_carry_over():
    # stop: every turn brings the turn's actions anew; a Movement left part-spent does not go on
    # into the next turn (a new Movement is a new action with a fresh Speed), nor do unused actions.
    enc = encounter(scene(OPEN, fighter("a", at=(1, 1), speed=5), fighter("b", "red", at=(7, 3))))
    do(enc, "move a 3,1")  # 2 of 5 m, 1 of 4 actions
    do(enc, "end-turn")
    do(enc, "end-turn")  # a's next turn
    a = enc.state.fighter("a")
    assert a.spent.get("actions", 0) == 0 and a.spent.get("movement", 0) == 0
    for to in ("4,1", "5,1", "6,1", "7,1"):
        do(enc, f"move a {to}")
    assert enc.state.fighter("a").spent["actions"] == 4  # four, not the five a carry-over would give
    refuse(enc, "move a 2,1", "speed-meters/stop")


def test_a_prone_fighter_stands_and_then_moves_with_what_is_left():
    # movement (setting stand_up_actions, default 1): the document lands a faller prone but says
    # nothing of rising; the house ruling makes standing an action, so a fighter that fell and
    # stands has fewer Movements left this turn.
    rows = ["######", "#:...#", "######"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1)), settings='ledge_drop = "fall"'))
    do(enc, "move a 2,1")  # steps off the 2.5 m shelf: lands prone (short_fall_prone)
    a = enc.state.fighter("a")
    assert a.states["posture"] == "prone" and a.spent["actions"] == 1
    events = do(enc, "stand-up a")
    assert spent(events, "a") == 1 and enc.state.fighter("a").states["posture"] == "standing"
    do(enc, "move a 4,1")
    assert enc.state.fighter("a").spent["actions"] == 3


# --- forced movement meeting walls, fighters, drops and hazards --------------------------------


def test_a_shove_into_a_wall_stops_at_the_wall_and_the_action_is_spent():
    # shove + occupancy: "The attacker pushes the target 1 meter for every 2 points remaining";
    # the target "Cannot move through ... solid objects": it stops against the wall, the shover's
    # action is spent all the same, and the move records how far it was meant to go and why it stopped.
    enc = encounter(scene(OPEN, fighter("a", at=(5, 2), brawn=3), fighter("e", "red", at=(6, 2))))
    events = do(enc, "shove a e roll=6 roll=1")  # margin 8: 4 m, but the wall is 1 m behind e
    assert enc.state.fighter("e").pos == (7, 2, 0) and enc.state.fighter("a").pos == (5, 2, 0)
    moved = [m for m in of_type(events, Moved) if m.fighter == "e"][0]
    assert moved.budget == 4 * CU and "8,2 is wall" in moved.stopped
    assert spent(events, "a") == 1


def test_a_shove_into_another_fighter_stops_short_of_it():
    # shove + occupancy: a forced move can't end in an occupied space, nor pass an enemy of the
    # target's: e stops in the space before its own ally.
    enc = encounter(
        scene(
            OPEN,
            fighter("a", at=(2, 2), brawn=3),
            fighter("e", "red", at=(3, 2)),
            fighter("f", "red", at=(6, 2)),
        )
    )
    events = do(enc, "shove a e roll=6 roll=1")  # 4 m meant
    assert enc.state.fighter("e").pos == (5, 2, 0)
    moved = [m for m in of_type(events, Moved) if m.fighter == "e"][0]
    assert "6,2 is occupied by f" in moved.stopped


def test_a_gm_push_along_a_path_into_a_wall_is_refused_and_nothing_moves():
    # forced: a push along a path the GM gives that runs into a wall is a mistake to fix, not a move;
    # the refusal names the wall and nothing is logged.
    enc = encounter(scene(OPEN, fighter("p", at=(5, 2)), fighter("t", "red", at=(6, 2))))
    r = refuse(enc, "force t push 8,2 source=p by=gm", "speed-meters/forced")
    assert "8,2 is wall" in r.reason
    assert enc.state.fighter("t").pos == (6, 2, 0)


def test_a_push_toward_a_known_hazard_saved_stops_prone_and_the_pusher_follows_no_farther():
    # push-pull + forced: "A pushed or pulled creature continues to move as you enter the space they
    # vacate"; "If a creature subjected to Forced Movement would be moved into a hazard or a trap
    # they're aware of, they may Save as a Reaction. Success ends the Forced Movement and the
    # pushed/pulled/slid creature falls prone just shy of the hazard." The pusher follows into the
    # spaces the target left, and no farther than the target went.
    rows = ["#########", "#.....H.#", "#########"]
    enc = encounter(scene(rows, fighter("p", at=(2, 1), brawn=4), fighter("t", "red", at=(3, 1))))
    events = do(enc, "push p t roll=6 roll=2 roll=5")  # margin 4: 4 m; 5,1 -> 6,1 is the hazard; saves
    t, p = enc.state.fighter("t"), enc.state.fighter("p")
    assert t.pos == (5, 1, 0) and t.states["posture"] == "prone"
    assert p.pos == (4, 1, 0)  # followed into 3,1 and 4,1, the spaces t vacated
    save = [c for c in of_type(events, CheckRolled) if c.check == "save"][0]
    assert save.passed and save.rules == ("speed-meters/forced",)


def test_a_push_over_an_edge_lets_the_pusher_follow_only_to_the_lip():
    # push-pull + forced + fall-table: the target driven off a 10 m block falls (after a failed Save
    # against the drop, edge_is_hazard) and rolls on the falling table; the pusher "enters each space
    # they vacate" on foot, so it stops at the lip: it does not follow the target down.
    rows = ["#######", "#QQQ..#", "#######"]
    enc = encounter(scene(rows, fighter("p", at=(1, 1), brawn=4), fighter("t", "red", at=(2, 1))))
    do(enc, "push p t roll=6 roll=3 roll=1 roll=6 roll=6")  # margin 3: 3 m; no save; table 6, 6
    t, p = enc.state.fighter("t"), enc.state.fighter("p")
    assert t.pos == (4, 1, 0) and t.states["posture"] == "prone"
    assert p.pos == (3, 1, 10 * CU)  # on the block's edge, where t was before it went over


def test_a_fighter_shoved_off_a_cliff_outside_its_turn_loses_time_from_its_next_turn():
    # shove + fall-speed: "If you reach the ground before falling 20 meters ... 10 meter fall: 1/2 of
    # your total Actions remaining"; the fall is in the shover's turn, so (off_turn_fall =
    # next-turn) it takes half of the faller's next turn.
    rows = ["#######", "#QQ...#", "#######"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), brawn=3), fighter("t", "red", at=(2, 1))))
    events = do(enc, "shove a t roll=6 roll=4 roll=1 roll=6 roll=6")  # margin 5: 2 m; no save; 6, 6
    assert enc.state.fighter("t").pos == (3, 1, 0)
    assert [m for m in of_type(events, Marked) if m.key == "fall_time"][0].value == 2
    do(enc, "end-turn")  # t's turn: it has 2 of its 4 actions
    assert 4 - enc.state.fighter("t").spent["actions"] == 2


def test_a_climber_shoved_off_its_hold_falls():
    # shove + climb + fall-table: "With a roll +Brawn, you may climb almost any surface"; shoved away
    # from the face (1 m per 2 points) to where nothing is in reach to hold, the climber falls
    # ("failure causes you to fall to the ground") and rolls: "For every 5 meters a character
    # falls, roll a d6". A flyer beside it does the shoving.
    rows = ["#########", "#.......#", "#.......#", "#C......#", "#.......#", "#########"]
    enc = encounter(
        scene(rows, fighter("c", "red", at=(2, 3), speed=12), fighter("a", at=(2, 4), fly=6, brawn=3))
    )
    do(enc, "climb c 2,3,6 roll=6")  # 6 m up the brick face of 1,3 (half of Speed 12)
    do(enc, "end-turn")
    do(enc, "fly a 2,4,6")
    events = do(enc, "shove a c roll=6 roll=2 roll=6")  # margin 7: 3 m meant; the wall at 2,0 stops it at 2,1
    c = enc.state.fighter("c")
    assert c.pos == (2, 1, 0) and c.states["mode"] == "walking" and c.states["posture"] == "prone"
    assert table(events) == [6]
    fell = [p for p in of_type(events, Placed) if p.fighter == "c"][-1]
    assert "torn from its hold" in " ".join(str(e) for e in events) and fell.how == "fall"


# --- grabs meeting falls and other movement -----------------------------------------------------

BRICK = ["#########", "#.......#", "#.......#", "#C......#", "#.......#", "#########"]  # 6 m brick at 1,3


def test_a_grabbed_climber_made_to_fall_out_of_reach_is_no_longer_held():
    # grab + fall-table: "Both grabber and grabbee are Immobilized during the grab", and the hold
    # ends when escaped, let go, or short of Action Dice. When an effect (the GM's `fall`) drops the
    # grabbed climber 6 m, out of the flying grabber's reach, there is no hold left: the grab ends
    # there (cited under grab), so neither stays Immobilized nor does the grabber commit Action Dice
    # to a creature 6 m below it at its next turn.
    enc = encounter(
        scene(BRICK, fighter("c", "red", at=(2, 3), speed=12), fighter("a", at=(2, 4), fly=6, brawn=3))
    )
    do(enc, "climb c 2,3,6 roll=6")
    do(enc, "end-turn")
    do(enc, "fly a 2,4,6")
    do(enc, "grab a c roll=6 roll=1")  # margin 8: c is held; a commits 0 Action Dice (c's Brawn 0)
    assert enc.state.links == (("grab", "a", "c"),)
    events = do(enc, "fall c by=gm roll=6")
    assert enc.state.fighter("c").pos == (2, 3, 0) and table(events) == [6]
    ended = of_type(events, Unlinked)
    assert ended and ended[0].rules == ("speed-meters/grab",) and "out of a's reach" in ended[0].note
    assert enc.state.links == ()
    c, a = enc.state.fighter("c"), enc.state.fighter("a")
    assert c.states["grab"] == "free" and a.states["grab"] == "free" and "escape" not in c.marks
    do(enc, "fly a 3,4,5")  # no longer Immobilized


def test_a_grab_within_reach_survives_a_short_drop_beside_the_grabber():
    # grab: the hold lasts while the two are within grapple_reach (1 m across and up or down):
    # a flyer 1 m up holding a fighter who drops 1 m to the floor still holds it.
    enc = encounter(
        scene(OPEN, fighter("a", at=(2, 2), fly=4, brawn=3), fighter("t", "red", at=(3, 2), fly=4))
    )
    do(enc, "end-turn")
    do(enc, "fly t 3,2,1")
    do(enc, "end-turn")
    do(enc, "fly a 2,2,1")
    do(enc, "grab a t roll=6 roll=1")
    events = do(enc, "fall t by=gm")  # 1 m: no roll, lands prone right beside a
    assert enc.state.fighter("t").pos == (3, 2, 0) and not of_type(events, CheckRolled)
    assert enc.state.links == (("grab", "a", "t"),)


def test_an_escape_then_a_movement_are_two_actions_and_the_grabber_may_move_again():
    # grab + stop: escaping is "Attacker and defender both roll +Brawn" against "the Difficulty to
    # escape ... equal to the attacker's remaining roll" (an action, house default); once free, the
    # Immobilized condition is gone and a Movement is one more action.
    enc = encounter(
        scene(OPEN, fighter("a", at=(2, 2), brawn=2), fighter("t", "red", at=(3, 2), brawn=1, teleport=3))
    )
    do(enc, "grab a t roll=4 roll=2")  # margin 3
    do(enc, "end-turn")
    r = refuse(enc, "teleport t 6,2", "speed-meters/grab")  # Immobilized: no Movement of any kind
    assert "Immobilized" in r.reason
    events = do(enc, "escape t roll=6")  # 6 + 1 against 3
    assert of_type(events, Unlinked) and spent(events, "t") == 1
    do(enc, "move t 6,2")
    t = enc.state.fighter("t")
    assert t.pos == (6, 2, 0) and t.spent["actions"] == 2 and t.states["grab"] == "free"


# --- falls: what they land in, and when --------------------------------------------------------


def test_a_fall_into_deep_water_opts_out_of_three_rolls_and_leaves_the_faller_swimming():
    # fall-table + fall-speed + swim: "If you fall into liquid, you may opt out of three rolls." A
    # 10 m fall owes 2 rolls, all opted out of; "10 meter fall: 1/2 of your total Actions remaining";
    # the faller is now in deep water, swimming.
    rows = ["#####", "#Qw.#", "#####"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), speed=4), settings='ledge_drop = "fall"'))
    events = do(enc, "move a 2,1")
    assert not table(events)
    land = [p for p in of_type(events, Placed) if p.how == "fall"][-1]
    assert "2 rolls on the falling table, 2 opted out of (liquid 3)" in land.note
    a = enc.state.fighter("a")
    assert a.pos == (2, 1, 0) and a.states["mode"] == "swimming" and a.spent["actions"] == 2


def test_a_fall_onto_soft_ground_with_a_skill_feat_opts_out_of_one_roll_each():
    # fall-table: "If you fall into soft, yielding ground (mud, sand, hay, etc.), you may opt out of
    # one roll." and "You may opt out of one falling damage roll for every 2 Bumps you get." A 15 m
    # fall owes 3 rolls; soft ground and a 2-Bump Skill Feat leave 1.
    rows = ["######", "#.S..#", "######"]  # soft ground at 2,1
    enc = encounter(scene(rows, fighter("a", at=(1, 1), fly=15)))
    do(enc, "fly a 2,1,15")
    events = do(enc, "fall a by=gm bumps=2 roll=6")
    assert table(events) == [6]
    land = [p for p in of_type(events, Placed) if p.how == "fall"][-1]
    assert (
        "3 rolls on the falling table, 2 opted out of (soft ground 1, a Skill Feat with 2 Bumps 1)"
        in land.note
    )


def test_a_failed_climb_high_up_falls_and_the_fall_takes_its_share_of_the_turn():
    # climb + fall-table + fall-speed: "failure causes you to fall to the ground"; "For every 5 meters
    # a character falls, roll a d6"; "5 meter fall: 3/4 of your total Actions remaining". The climb
    # was one action of four, so three remain, which is the 3/4 the fall leaves (no more are lost).
    enc = encounter(scene(BRICK, fighter("c", at=(2, 3), speed=12)))
    do(enc, "climb c 2,3,6 roll=6")
    do(enc, "end-turn")
    events = do(enc, "climb c 2,3,4 roll=1 roll=6")  # fails 6 m up: one roll on the table, a 6
    c = enc.state.fighter("c")
    assert c.pos == (2, 3, 0) and c.states["mode"] == "walking" and c.states["posture"] == "prone"
    assert table(events) == [6] and c.spent["actions"] == 1
    do(enc, "stand-up c")
    do(enc, "move c 5,3")
    assert enc.state.fighter("c").spent["actions"] == 3


def test_undoing_a_failed_climb_takes_back_the_fall_and_retrying_rolls_the_same():
    # climb + fall-table + undo: a climb that fails and falls is one batch (the action, the roll, the
    # fall, the table); undo takes all of it back, and the seeded dice give the same roll again:
    # undo is no way to re-roll a failed climb.
    enc = encounter(scene(BRICK, fighter("c", at=(2, 3), speed=12)))
    do(enc, "climb c 2,3,6 roll=6")
    do(enc, "end-turn")
    first = do(enc, "climb c 2,3,4")
    rolls = [(r.check, r.number) for r in of_type(first, CheckRolled)]
    assert rolls == [("climb", 1), ("falling table", 1)]  # the seed: a slip, then "1 Instant death"
    assert enc.state.fighter("c").marks.get("dead") is True
    do(enc, "undo")
    c = enc.state.fighter("c")
    assert c.pos == (2, 3, 6 * CU) and c.states["mode"] == "climbing" and c.spent.get("actions", 0) == 0
    again = do(enc, "climb c 2,3,4")
    assert [(r.check, r.number) for r in of_type(again, CheckRolled)] == rolls
    do(enc, "undo")
    do(enc, "redo")
    c = enc.state.fighter("c")
    assert c.pos == (2, 3, 0) and c.marks.get("dead") is True


# --- modes of movement meeting rough ground, hazards, water and other fighters -------------------


def test_a_hover_over_mud_and_a_hazard_pays_a_meter_a_space_and_may_not_stop_over_an_ally():
    # hover + rough + occupancy: "You float just 1 meter above the ground, avoiding land-based
    # obstacles, hazards, and Rough Terrain." A hoverer's body, 1 m up, still fills the space of a
    # fighter standing below (body_height 2), so it "can't end a Movement in an occupied space".
    rows = ["########", "#.~H~..#", "########"]
    enc = encounter(scene(rows, fighter("h", at=(1, 1), hover=4), fighter("b", at=(5, 1))))
    r = refuse(enc, "hover h 5,1", "speed-meters/occupancy")
    assert "would end on 5,1, occupied by b" in r.reason
    events = do(enc, "hover h 4,1")
    assert [s.cost for s in steps(events, "h")] == [CU, CU, CU]
    assert "speed-meters/rough" not in of_type(events, Moved)[0].rules
    h = enc.state.fighter("h")
    assert h.pos == (4, 1, CU) and h.states["mode"] == "hovering" and h.spent["actions"] == 1


def test_an_unadapted_swimmer_pays_rough_for_the_water_and_for_a_muddy_bank():
    # swim + rough: swimmers "must treat the water they're swimming in as Rough Terrain"; climbing
    # out onto a mud bank is a step onto Rough Terrain too: 2 m each, 4 m of a 4 m Swim.
    rows = ["######", "#ww~.#", "######"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), speed=4)))
    events = do(enc, "swim a 2,1 3,1")
    assert [s.cost for s in steps(events, "a")] == [2 * CU, 2 * CU]
    modes = [(e.source, e.dest) for e in of_type(events, StateChanged) if e.machine == "mode"]
    assert modes == [("walking", "swimming"), ("swimming", "walking")]
    assert enc.state.fighter("a").pos == (3, 1, 0)


def test_a_push_into_deep_water_leaves_the_target_swimming_and_the_pusher_on_the_bank():
    # push-pull + swim: the pusher "enters each space they vacate" on foot (the catalogue's ruling:
    # it stops where its own walk would), and a walker does not walk into deep water: it stops at
    # the bank while its target goes in and is swimming.
    rows = ["#######", "#..ww.#", "#######"]
    enc = encounter(scene(rows, fighter("p", at=(1, 1), brawn=2), fighter("t", "red", at=(2, 1))))
    events = do(enc, "push p t roll=6 roll=4")  # margin 4, at most Brawn 2: 2 m
    t, p = enc.state.fighter("t"), enc.state.fighter("p")
    assert t.pos == (4, 1, 0) and t.states["mode"] == "swimming"
    assert p.pos == (2, 1, 0)
    follow = [m for m in of_type(events, Moved) if m.fighter == "p"][0]
    assert "3,1 is deep water" in follow.stopped


def test_a_teleport_may_not_land_on_an_ally_and_ignores_the_mud_between():
    # teleport + occupancy + rough: "You instantly appear in any space (within range of the
    # teleport) which you have Line of Sight to." It crosses nothing, so rough ground on the way
    # costs nothing; a space an ally stands in is occupied.
    rows = ["########", "#.~~~..#", "########"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), teleport=5), fighter("b", at=(5, 1))))
    r = refuse(enc, "teleport a 5,1", "speed-meters/occupancy")
    assert "occupied by b" in r.reason
    events = do(enc, "teleport a 6,1")
    assert spent(events, "a") == 1 and enc.state.fighter("a").pos == (6, 1, 0)


def test_a_special_jump_clears_an_enemys_head_but_not_its_body():
    # special-jump + occupancy: "this special type of movement allows you to move in any direction
    # for the duration of the movement, but you must end the move by landing on a viable surface";
    # "Cannot move through spaces occupied by enemies": low over the enemy is through it, 3 m up
    # above its 2 m body is not.
    rows = ["#######", "#.....#", "#######"]
    enc = encounter(scene(rows, fighter("j", at=(1, 1), jump=8), fighter("e", "red", at=(2, 1))))
    r = refuse(enc, "special-jump j 3,1", "speed-meters/occupancy")
    assert "2,1 is held by e" in r.reason
    do(enc, "special-jump j 2,1,3 3,1,0")
    j = enc.state.fighter("j")
    assert j.pos == (3, 1, 0) and j.spent["actions"] == 1


def test_a_random_move_toward_a_known_hazard_may_be_saved_short_of_it():
    # random + forced: "roll 1d8; the creature then moves into the space or in the direction that
    # corresponds to the number rolled"; moved into "a hazard or a trap they're aware of, they may
    # Save as a Reaction. Success ends the Forced Movement and the ... creature falls prone just shy
    # of the hazard." 3 is east (clockwise numbering): the hazard is the first space east.
    rows = ["#######", "#..H..#", "#######"]
    enc = encounter(scene(rows, fighter("t", at=(2, 1))))
    events = do(enc, "random t meters=2 aware=true by=gm roll=3 roll=5")
    t = enc.state.fighter("t")
    assert t.pos == (2, 1, 0) and t.states["posture"] == "prone"
    assert [c.check for c in of_type(events, CheckRolled)] == ["random direction", "save"]


def test_a_random_move_off_a_ledge_the_fighter_does_not_know_of_is_a_fall():
    # random + fall-table: unaware of the drop, no Save: it goes over and falls 10 m, two rolls.
    rows = ["#######", "#QQ...#", "#######"]
    enc = encounter(scene(rows, fighter("t", at=(2, 1))))
    events = do(enc, "random t meters=3 aware=false by=gm roll=3 roll=6 roll=6")
    t = enc.state.fighter("t")
    assert t.pos == (3, 1, 0) and table(events) == [6, 6] and t.states["posture"] == "prone"
    assert not [c for c in of_type(events, CheckRolled) if c.check == "save"]


def test_a_glide_cut_short_by_a_wall_sinks_where_it_stopped():
    # glide + occupancy: "You automatically move horizontally as you fall, at a rate of 5 meters
    # when your turn starts"; a wall in the way ("Cannot move through ... solid objects") stops the
    # glide after 2 m; it still sinks (glide_descent 1 m) and keeps gliding.
    rows = ["#########", "#Q..#...#", "#########"]
    enc = encounter(scene(rows, fighter("g", at=(1, 1), glide=5)))
    do(enc, "glide g 3,1")
    events = do(enc, "end-turn")
    moved = of_type(events, Moved)[0]
    assert sum(s.cost for s in moved.steps) == 2 * CU and "4,1 blocks the glide" in moved.stopped
    g = enc.state.fighter("g")
    assert g.pos == (3, 1, 9 * CU) and g.states["mode"] == "gliding"


def test_undoing_the_turn_start_that_landed_a_long_fall_puts_the_faller_back_in_the_air():
    # fall-speed + fall-table + undo: "When you spend your entire turn falling at normal speed,
    # you'll fall a total distance of 20 meters"; a 30 m fall lands at the faller's next turn start
    # with 6 rolls. Undoing that end-turn takes back the landing and its rolls; redo re-applies the
    # same rolls (never rolls again).
    rows = ["#####", "#P..#", "#####"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1)), settings='ledge_drop = "fall"'))
    do(enc, "move a 2,1")
    assert enc.state.fighter("a").pos == (2, 1, 10 * CU)
    landed = do(enc, "end-turn " + " ".join(["roll=6"] * 6))
    assert table(landed) == [6] * 6 and enc.state.fighter("a").pos == (2, 1, 0)
    do(enc, "undo")
    a = enc.state.fighter("a")
    assert a.pos == (2, 1, 10 * CU) and a.states["mode"] == "falling" and a.marks["fallen"] == 20 * CU
    do(enc, "redo")
    a = enc.state.fighter("a")
    assert a.pos == (2, 1, 0) and a.states["posture"] == "prone" and a.spent["actions"] == 2


def test_a_pull_across_mud_moves_both_and_stops_the_target_short_of_a_wall_behind_the_puller():
    # push-pull: "The attacker pushes or pulls the defender 1 meter for each point remaining and
    # enters each space they vacate, up to a maximum of (Brawn) spaces"; pulled, the target "must end
    # their movement closer to the pulling force". The puller steps back through mud (the ground
    # under a grapple costs no Movement: it is the action's) until the wall, 2 m; the target follows.
    rows = ["#######", "#.~~..#", "#######"]
    enc = encounter(scene(rows, fighter("p", at=(3, 1), brawn=4), fighter("t", "red", at=(4, 1))))
    events = do(enc, "pull p t roll=6 roll=1")  # margin 5, at most Brawn 4: 4 m meant
    p, t = enc.state.fighter("p"), enc.state.fighter("t")
    assert p.pos == (1, 1, 0) and t.pos == (2, 1, 0)
    back = [m for m in of_type(events, Moved) if m.fighter == "p"][0]
    assert back.budget == 4 * CU and "0,1 is wall" in back.stopped
    assert spent(events, "p") == 1


def test_a_shove_toward_a_shut_door_stops_at_it():
    # shove + tabletrail/walls: a shut door stops a step like a wall; the shove's rolled distance
    # ends against it, the action is spent.
    enc = encounter(
        """
[encounter]
name = "a shove at a door"
ruleset = "speed-meters"
[map]
rows = [".......", ".......", "......."]
legend = { "." = "floor" }
walls = ["3,0-3,1", "3,2-3,3"]
doors = [{ at = "2,1|3,1", closed = true }]
[[fighters]]
id = "a"
side = "blue"
at = [0, 1]
speed = 6
brawn = 3
[[fighters]]
id = "e"
side = "red"
at = [1, 1]
speed = 6
"""
    )
    events = do(enc, "shove a e roll=6 roll=1")  # margin 8: 4 m meant
    assert enc.state.fighter("e").pos == (2, 1, 0)
    moved = [m for m in of_type(events, Moved) if m.fighter == "e"][0]
    assert "closed door 2,1|3,1" in moved.stopped
    r = refuse(enc, "force e push 4,1 source=a by=gm", "tabletrail/walls")
    assert "closed door" in r.reason


def test_a_grabber_made_to_fall_lets_go_of_what_it_held():
    # grab + fall-table: the other way round, a flying grabber an effect drops 6 m is out of reach of
    # the flyer it held: the grab ends, the held one is free to fly off.
    enc = encounter(
        scene(OPEN, fighter("a", at=(2, 2), fly=6, brawn=3), fighter("t", "red", at=(3, 2), fly=6))
    )
    do(enc, "end-turn")
    do(enc, "fly t 3,2,6")
    do(enc, "end-turn")
    do(enc, "fly a 2,2,6")
    do(enc, "grab a t roll=6 roll=1")
    events = do(enc, "fall a by=gm roll=6")
    assert enc.state.fighter("a").pos == (2, 2, 0) and of_type(events, Unlinked)
    do(enc, "end-turn")
    do(enc, "fly t 6,2,6")
    assert enc.state.fighter("t").pos == (6, 2, 6 * CU)
