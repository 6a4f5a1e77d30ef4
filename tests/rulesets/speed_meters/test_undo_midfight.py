"""speed-meters (004), pass 6: a table undoes, redoes, replays and rules mid-fight, rule by rule.

For every stateful rule of document 004_1955ec219bb4ca54.txt (the turn's actions, a Movement's stop,
postures, modes, grabs and their sustained Action Dice, glides, breath, falls across turns, forced
and random movement, doors), each test checks, with round-meters' test_undo_midfight helpers:

1. undo of the batch gives back exactly the state before it, and redo exactly the state after it
   (`enc.state` compared as values, links and the dice counter included), with no rule re-run and no
   die re-rolled;
2. the log replays to the same board and `verify` passes it;
3. a command after an undo abandons the redo branch and is decided from the restored state;
4. GM rulings take effect from their batch, undo like any batch, and later decisions follow them;
5. a side undoes only its own batches; with undo_seeded = gm a seeded batch is the GM's to undo.

The catalogue's words: "Replay, redo and audit never roll again: they read the recorded numbers."
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import Abandoned, CheckRolled, Linked

from tests.rulesets.round_meters.test_undo_midfight import UNDO, replays, round_trip
from tests.rulesets.speed_meters.test_forces import brawl
from tests.rulesets.speed_meters.test_modes import CLIFF, POOL
from tests.rulesets.speed_meters.test_scenes import fighter, scene

RS = "speed-meters"


def rule(name: str) -> str:
    return f"{RS}/{name}"


def f(enc, fid: str):
    return enc.state.fighter(fid)


def actions_used(enc, fid: str) -> int:
    return f(enc, fid).used("actions")


def walk(settings: str = "", **a_stats) -> object:
    """a (blue, Speed 5) and r (red) on open ground; rough at 4,1."""
    rows = ["#########", "#...~...#", "#.......#", "#.......#", "#########"]
    return encounter(
        scene(
            rows,
            fighter("a", at=(1, 1), brawn=2, **a_stats),
            fighter("r", "red", at=(7, 3)),
            settings=settings,
        )
    )


# --- 1 and 2: every stateful rule's batch undoes to the state before it and redoes to the one after ----


def test_a_movement_and_its_stop_undo_and_redo():
    # movement: "how many meters they may move by using an Action"; stop: "Once you stop moving,
    # however, you can't start moving again as part of the same Action"; rough: "counts as 2 meters".
    enc = walk()
    round_trip(enc, "move a 3,1")
    round_trip(enc, "move a 5,1")  # a new action, through the rough space
    assert actions_used(enc, "a") == 2


def test_dropping_prone_and_standing_up_undo_and_redo():
    # stand_up_actions: "actions it takes to stand up from prone, and to drop prone on purpose".
    enc = walk()
    round_trip(enc, "drop-prone a")
    assert f(enc, "a").states["posture"] == "prone"
    round_trip(enc, "stand-up a")


def test_a_grab_its_link_and_its_sustained_action_dice_undo_and_redo():
    # grab: "the defender is grabbed and the Difficulty to escape the grab is equal to the attacker's
    # remaining roll. A grab is a Sustained Action; once successfully executed, the attacker must
    # dedicate a number of Action Dice to the grab equal to the defender's Brawn".
    enc = brawl(a_brawn=2, t_brawn=1)
    events = round_trip(enc, "grab a t roll=4 roll=2")
    assert of_type(events, Linked) and enc.state.links == (("grab", "a", "t"),)
    round_trip(enc, "end-turn")
    round_trip(enc, "escape t roll=1")  # 2 against 3: still held
    round_trip(enc, "end-turn")  # a's turn: the Action Die for t's Brawn is committed again
    round_trip(enc, "release a")
    assert enc.state.links == ()


def test_a_seeded_grab_and_escape_redo_without_drawing_again():
    enc = brawl(a_brawn=2, t_brawn=1)
    dice = enc.state.dice
    round_trip(enc, "grab a t")
    assert enc.state.dice > dice
    do(enc, "end-turn")
    round_trip(enc, "escape t")


def test_shove_push_and_pull_undo_and_redo():
    for verb in ("shove", "push", "pull"):
        enc = brawl(a_brawn=2, t_brawn=0)
        round_trip(enc, f"{verb} a t roll=6 roll=1")


def test_fly_hover_land_swim_teleport_and_special_jump_undo_and_redo():
    enc = walk(fly=6, hover=4, teleport=4, jump=4)
    round_trip(enc, "fly a 2,1,2")
    assert f(enc, "a").states["mode"] == "flying"
    round_trip(enc, "fly a 2,1,0")
    round_trip(enc, "hover a 3,1")
    round_trip(enc, "land a")
    do(enc, "end-turn")
    do(enc, "end-turn")
    round_trip(enc, "teleport a 5,2")
    round_trip(enc, "special-jump a 6,1,0")
    enc = encounter(scene(POOL, fighter("a", swim=6), settings="breath_rounds = 2"))
    round_trip(enc, "swim a 2,1,-1")  # underwater: holding its breath
    round_trip(enc, "end-turn")  # a breath spent
    round_trip(enc, "swim a 2,1,0")


def test_a_glide_and_its_turn_start_drift_undo_and_redo():
    # glide: "You automatically move horizontally as you fall, at a rate of 5 meters when your turn
    # starts."
    enc = encounter(scene(CLIFF, fighter("a", glide=5)))
    round_trip(enc, "glide a 9,1")
    round_trip(enc, "end-turn")  # the glide moves 5 m and sinks
    assert f(enc, "a").pos == (6, 1, 9 * CU)


def test_a_fall_that_spans_turns_and_its_table_undo_and_redo():
    # fall-speed: "When you spend your entire turn falling at normal speed, you'll fall a total
    # distance of 20 meters"; fall-table: "For every 5 meters a character falls, roll a d6".
    rows = ["#####", "#P..#", "#####"]
    enc = encounter(
        scene(rows, fighter("a", at=(1, 1)), fighter("b", at=(3, 1)), settings='ledge_drop = "fall"')
    )
    round_trip(enc, "move a 2,1")  # off the 30 m pillar: 20 m this turn
    round_trip(enc, "end-turn")
    round_trip(enc, "end-turn")  # a's turn starts: the last 10 m, and the seeded table rolls
    assert f(enc, "a").pos[2] == 0


def test_a_gm_fall_forced_and_random_movement_undo_and_redo():
    # forced: "Pull: A pulled creature moves towards the force"; random: "roll 1d8; the creature
    # then moves into the space or in the direction that corresponds to the number rolled".
    enc = walk(fly=6)
    do(enc, "fly a 2,2,3")
    round_trip(enc, "fall a")
    enc = walk()
    round_trip(enc, "force r pull 6,3 source=a")
    round_trip(enc, "force r slide 7,2 source=a")
    round_trip(enc, "random r")
    round_trip(enc, "random r roll=3 meters=2")


# --- 3: a command after an undo abandons the redo branch and is decided from the restored state -------


def test_a_movement_after_an_undone_one_spends_one_action_and_the_redo_is_gone():
    # movement: "how many meters they may move by using an Action to do so"; actions_per_turn 4.
    enc = walk()
    do(enc, "move a 5,1")  # 5 m, the rough space counting 2
    do(enc, "undo")
    events = do(enc, "move a 2,2")
    assert of_type(events, Abandoned) and actions_used(enc, "a") == 1
    refuse(enc, "redo", UNDO)
    replays(enc)


def test_an_undone_grab_commits_no_action_dice_at_the_grabbers_next_turn():
    # grab: "the attacker must dedicate a number of Action Dice to the grab equal to the defender's
    # Brawn" — only while the grab stands.
    enc = brawl(a_brawn=2, t_brawn=1)
    do(enc, "grab a t roll=4 roll=2")
    do(enc, "undo")
    do(enc, "end-turn")
    assert f(enc, "t").states.get("grab", "free") == "free"
    do(enc, "move t 3,3")  # t is not Immobilized: it was never grabbed
    do(enc, "end-turn")
    assert actions_used(enc, "a") == 0 and enc.state.links == ()


def test_an_undone_glide_start_leaves_nothing_to_drift_at_the_next_turn():
    # glide: the glide moves "when your turn starts" — only a glide that stands.
    enc = encounter(scene(CLIFF, fighter("a", glide=5), fighter("b", at=(10, 1))))
    do(enc, "glide a 9,1")
    do(enc, "undo")
    do(enc, "end-turn")
    do(enc, "end-turn")
    assert f(enc, "a").pos == (1, 1, 10 * CU) and f(enc, "a").states.get("mode", "walking") == "walking"


def test_a_turn_start_after_an_undone_one_lands_the_fall_again_with_the_same_draws():
    # fall-table: "For every 5 meters a character falls, roll a d6"; the seeded dice counter is put
    # back by the undo, so the same turn start draws the same numbers.
    rows = ["#####", "#P..#", "#####"]
    enc = encounter(
        scene(rows, fighter("a", at=(1, 1)), fighter("b", at=(3, 1)), settings='ledge_drop = "fall"')
    )
    do(enc, "move a 2,1")
    do(enc, "end-turn")
    first = [c.number for c in of_type(do(enc, "end-turn"), CheckRolled)]
    after = f(enc, "a")
    do(enc, "undo")
    do(enc, "undo")  # b's turn start too
    do(enc, "end-turn")
    again = [c.number for c in of_type(do(enc, "end-turn"), CheckRolled)]
    assert again == first and f(enc, "a") == after


# --- 4: the GM's rulings take effect from their batch, undo like any batch, and bind what follows ------


def test_setting_actions_per_turn_mid_turn_caps_the_next_movement_until_undone():
    # actions_per_turn: "actions a fighter has each turn"; movement: "by using an Action".
    enc = walk()
    do(enc, "move a 2,1")
    do(enc, "move a 3,1")
    round_trip(enc, 'setting actions_per_turn 2 why="slowed"')
    refuse(enc, "move a 3,2", rule("stop"))  # "you'll have to use a new Action to start moving again"
    do(enc, "undo")
    do(enc, "move a 3,2")
    assert actions_used(enc, "a") == 3


def test_setting_diagonal_mid_fight_prices_the_next_movement():
    # movement: "Can move horizontally or diagonally"; the diagonal setting: "cost of a diagonal step".
    enc = walk()
    round_trip(enc, 'setting diagonal manhattan why="a grid of streets"')
    refuse(enc, "move a 5,3", rule("movement"))  # 2 diagonals at 2 m and 2 straight: 6 m > 5
    do(enc, "undo")
    do(enc, "move a 5,3")  # every-1: 4 m


def test_setting_ledge_drop_mid_fight_lets_the_next_walk_off_a_pillar_fall():
    # jump (default ruling): "stepping off a ledge is refused or falls (setting ledge_drop)".
    rows = ["#####", "#Q..#", "#####"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1))))
    refuse(enc, "move a 2,1", rule("jump"))
    round_trip(enc, 'setting ledge_drop fall why="the roof is slick"')
    round_trip(enc, "move a 2,1")
    assert f(enc, "a").states["mode"] in ("falling", "walking")
    do(enc, "undo")
    do(enc, "undo")
    refuse(enc, "move a 2,1", rule("jump"))


def test_setting_short_fall_prone_no_lands_the_next_short_fall_on_its_feet():
    # short_fall_prone: "no lands it on its feet" (a fall under 5 m).
    rows = ["#####", "#^..#", "#####"]
    enc = encounter(scene(rows, fighter("a", at=(1, 1), fly=4), settings='ledge_drop = "fall"'))
    do(enc, "fly a 2,1,3")
    round_trip(enc, 'setting short_fall_prone no why="cat-like"')
    round_trip(enc, "fall a")
    assert f(enc, "a").states.get("posture", "standing") == "standing"
    do(enc, "undo")
    do(enc, "undo")
    do(enc, "fall a")
    assert f(enc, "a").states["posture"] == "prone"


def test_setting_stand_up_actions_prices_the_next_stand():
    # stand_up_actions: "actions it takes to stand up from prone".
    enc = walk()
    do(enc, "drop-prone a")
    round_trip(enc, 'setting stand_up_actions 2 why="heavy armour"')
    round_trip(enc, "stand-up a")
    assert actions_used(enc, "a") == 3
    do(enc, "undo")
    do(enc, "undo")
    do(enc, "stand-up a")
    assert actions_used(enc, "a") == 2


def test_setting_glide_descent_mid_glide_binds_the_next_turn_start():
    # glide (default ruling): "it sinks glide_descent m a turn (setting)".
    enc = encounter(scene(CLIFF, fighter("a", glide=5)))
    do(enc, "glide a 9,1")
    round_trip(enc, 'setting glide_descent 3 why="heavy air"')
    do(enc, "end-turn")
    assert f(enc, "a").pos == (6, 1, 7 * CU)
    do(enc, "undo")
    do(enc, "undo")
    do(enc, "end-turn")
    assert f(enc, "a").pos == (6, 1, 9 * CU)


def test_setting_breath_rounds_mid_swim_binds_the_next_dive_and_the_breath_held_runs_on():
    # swim: "while swimming underwater, you'll have to hold your breath"; breath_rounds: "turns a
    # swimmer can hold its breath underwater". The engine counts the breath a swimmer took when it
    # went under (mark breath = turns left): a setting changed while it is under binds the next dive,
    # not the breath already held (the engine's reading, kept; the catalogue does not say).
    enc = encounter(scene(POOL, fighter("a", swim=6), settings="breath_rounds = 3"))
    do(enc, "swim a 2,1,-1")
    assert f(enc, "a").marks["breath"] == 3
    round_trip(enc, 'setting breath_rounds 1 why="cold water"')
    round_trip(enc, "end-turn")
    assert f(enc, "a").marks["breath"] == 2  # the breath held on going under runs on
    do(enc, "swim a 2,1,0")  # up for air
    do(enc, "swim a 2,2,-1")  # the next dive holds the new setting's breath
    assert f(enc, "a").marks["breath"] == 1
    do(enc, "undo")
    do(enc, "undo")
    do(enc, "undo")
    do(enc, "undo")  # the setting
    do(enc, "end-turn")
    assert f(enc, "a").marks["breath"] == 2


def test_setting_checks_table_refuses_a_grab_with_no_rolls_until_undone():
    # checks: "'table' refuses until the table enters the roll".
    enc = brawl(a_brawn=2, t_brawn=1)
    round_trip(enc, 'setting checks table why="we roll at the table"')
    refuse(enc, "grab a t", "tabletrail/checks")
    do(enc, "undo")
    assert of_type(do(enc, "grab a t"), CheckRolled)[0].source == "seeded"


def test_setting_random_numbering_mid_fight_turns_the_same_roll_another_way():
    # random: "assign numbers 1 through 8 to each space adacent to a creature and roll 1d8";
    # random_numbering: "'clockwise' 1 N … 'reading' 1 NW, 2 N".
    enc = walk()
    do(enc, "random r roll=1")  # clockwise 1: north
    north = f(enc, "r").pos
    do(enc, "undo")
    round_trip(enc, 'setting random_numbering reading why="our table numbers like a page"')
    do(enc, "random r roll=1")  # reading 1: north-west
    assert f(enc, "r").pos != north and f(enc, "r").pos[:2] == (6, 2)


def test_setting_grapple_reach_mid_fight_lets_the_next_grab_reach():
    # grab (default ruling): "grappling needs the target within grapple_reach (setting)".
    enc = brawl(a_brawn=2, t_brawn=1, t_at=(4, 2))
    refuse(enc, "grab a t roll=4 roll=2", rule("grab"))
    round_trip(enc, 'setting grapple_reach 2 why="a whip"')
    round_trip(enc, "grab a t roll=4 roll=2")
    do(enc, "undo")
    do(enc, "undo")
    refuse(enc, "grab a t roll=4 roll=2", rule("grab"))


def test_meters_the_gm_gives_between_movements_go_to_the_next_movement_and_undo_like_any_batch():
    # adjust: "Give (positive amount) or take (negative) a fighter's remaining movement"; stop: every
    # Movement "is a new action with a fresh Speed" — between two Movements nothing is in progress, so
    # the meters the GM gives (or takes) are the next Movement's. The engine accepted the ruling, and
    # `explain` listed it in force, but the next Movement's fresh Speed wiped it: it changed nothing.
    enc = walk()
    round_trip(enc, 'adjust a 1 why="a tailwind"')
    round_trip(enc, "move a 6,1")  # 6 m with the rough space: Speed 5 and the 1 given
    assert f(enc, "a").pos[:2] == (6, 1) and "given" not in f(enc, "a").marks
    do(enc, "undo")
    do(enc, "undo")
    refuse(enc, "move a 6,1", rule("movement"))  # Speed 5 alone
    do(enc, "move a 2,1")
    round_trip(enc, 'adjust a -2 why="the wind turns"')
    refuse(enc, "move a 6,1", rule("movement"))  # 5 m, but this Movement has 3
    do(enc, "move a 4,1")  # 3 m: 3,1 and the rough 4,1
    do(enc, "move a 4,3 1,3")  # 5 m: the Movement after it has its whole Speed again
    replays(enc)


def test_meters_the_gm_gives_go_to_the_next_flight_too():
    # fly: "Fly (5) indicates that for every Movement spent flying, the character can fly 5 meters";
    # the GM's meters are the next Movement's, whatever its mode.
    enc = walk(fly=2)
    refuse(enc, "fly a 4,1,1", rule("fly"))  # 3 m, Fly 2
    round_trip(enc, 'adjust a 1 why="an updraft"')
    round_trip(enc, "fly a 4,1,1")


def test_actions_the_gm_takes_bind_this_turn():
    # adjust: "or another budget" — the turn's actions.
    enc = walk()
    round_trip(enc, 'adjust a -3 resource=actions why="stunned"')
    do(enc, "move a 2,1")
    refuse(enc, "move a 3,1", rule("stop"))


def test_forbid_lift_require_test_place_and_override_undo_like_any_batch():
    enc = walk()
    round_trip(enc, "forbid 3,1 why='a pit opens'")
    assert "a pit opens" in refuse(enc, "move a 5,1", "tabletrail/gm-ruling").reason
    round_trip(enc, "lift 3,1 why='bridged'")
    round_trip(enc, "require-test 2,1 target=4 why='loose boards'")
    events = round_trip(enc, "move a 3,1")
    assert of_type(events, CheckRolled)[0].source == "seeded"
    round_trip(enc, "place r 6,2 why='knocked back'")
    round_trip(enc, f"override a 7,1 {rule('movement')} cost=2 why='a ladder'")


# --- 5: a side undoes only its own batches; undo_seeded = gm keeps seeded rolls for the GM -----------


def sides(undo_seeded: str = "anyone") -> object:
    """a (blue, Brawn 2) beside t (red, Brawn 1) on open ground; t falls from 30 m at its turn start."""
    rows = ["#########", "#.......#", "#.......#", "#.......#", "#########"]
    return encounter(
        scene(
            rows,
            fighter("a", at=(2, 2), brawn=2),
            fighter("t", "red", at=(3, 2), brawn=1, fly=30),
            settings=f'undo_seeded = "{undo_seeded}"',
        )
    )


def test_a_side_undoes_its_own_grab_but_not_the_other_sides_escape_nor_the_gms_ruling():
    # tabletrail/undo: "players undo only their own side's batches, the GM any".
    enc = sides()
    round_trip(enc, "grab a t roll=4 by=blue", by="blue")  # t's roll is red's: drawn by the seeded dice
    do(enc, "end-turn by=blue")
    do(enc, "escape t roll=1 by=red")
    assert "entered by red" in refuse(enc, "undo by=blue", UNDO).reason
    round_trip(enc, "escape t roll=3 by=red", by="red")
    do(enc, 'setting grapple_reach 2 why="long arms"')
    refuse(enc, "undo by=red", UNDO)


def test_with_undo_seeded_gm_a_grab_whose_defender_roll_was_seeded_is_the_gms_to_undo():
    # tabletrail/undo: "undo_seeded = gm keeps batches with seeded rolls for the GM"; a grab's rolls
    # are "the attacker's +Brawn, then defender's", and a side enters only its own fighters' rolls, so
    # the defender's is drawn: the batch is the GM's to undo, with every roll in it.
    enc = sides("gm")
    events = do(enc, "grab a t roll=4 by=blue")
    assert [c.source for c in of_type(events, CheckRolled)] == ["table", "seeded"]
    assert "seeded" in refuse(enc, "undo by=blue", UNDO).reason
    do(enc, "undo")
    assert enc.state.links == () and actions_used(enc, "a") == 0
    refuse(enc, "redo by=blue", UNDO)
    do(enc, "redo")
    assert enc.state.links == (("grab", "a", "t"),)


def test_with_undo_seeded_gm_a_players_end_turn_that_lands_a_seeded_fall_is_the_gms_to_undo():
    # fall-table: the landing at the faller's turn start rolls a d6 per 5 m, in the batch of the
    # end-turn that started that turn; with undo_seeded = gm the player who ended the turn may not
    # undo it (no re-roll by undo), while a table roll of the same landing would be theirs.
    enc = sides("gm")
    do(enc, "end-turn by=blue")
    do(enc, "fly t 3,2,25 by=red")
    do(enc, "fall t")  # the GM makes t fall: 20 m this turn ("fall-speed")
    do(enc, "end-turn by=red")  # a's turn
    do(enc, "move a 2,1 by=blue")
    events = do(enc, "end-turn by=blue")  # t's turn starts: it lands, the table rolls
    assert enc.state.fighter("t").pos[2] == 0
    (table,) = of_type(events, CheckRolled)
    assert (table.check, table.source) == ("falling table", "seeded")  # this seed: a 1, instant death
    assert "seeded" in refuse(enc, "undo by=blue", UNDO).reason
    do(enc, "undo")
    assert enc.state.fighter("t").pos[2] == 5 * CU
    replays(enc)


# --- falls and doors under rulings set mid-fight ----------------------------------------------------


def test_an_off_turn_fall_its_lost_time_and_a_mid_fight_off_turn_fall_none_undo_and_redo():
    # fall-speed: "If you reach the ground before falling 20 meters ... you'll have this much of your
    # turn remaining: 5 meter fall: 3/4 ... 10 meter fall: 1/2"; default ruling: "a fall outside the
    # faller's turn costs its next turn (setting off_turn_fall)".
    rows = ["#######", "#.Q...#", "#######"]
    enc = encounter(scene(rows, fighter("p", at=(1, 1)), fighter("t", "red", at=(2, 1))))
    round_trip(enc, "force t push 3,1 source=p aware=no roll=6 roll=6")  # off the 10 m pillar
    assert f(enc, "t").marks["fall_time"] == 2
    round_trip(enc, "end-turn")  # t's turn starts without half its actions
    assert actions_used(enc, "t") == 2
    do(enc, "undo")
    do(enc, "undo")
    round_trip(enc, 'setting off_turn_fall none why="it was a short stumble"')
    do(enc, "force t push 3,1 source=p aware=no roll=6 roll=6")
    assert "fall_time" not in f(enc, "t").marks
    do(enc, "end-turn")
    assert actions_used(enc, "t") == 0


def test_a_mid_fight_fall_rounding_up_takes_the_next_mark_of_time():
    # fall_rounding: "a fall between the 5 m marks takes the time of the mark 'down' (7 m as 5 m) or
    # 'up' (7 m as 10 m)"; "5 meter fall: 3/4 ... 10 meter fall: 1/2 of your total Actions remaining".
    rows = ["#######", "#.C...#", "#######"]  # a 6 m block
    enc = encounter(scene(rows, fighter("p", at=(1, 1)), fighter("t", "red", at=(2, 1))))
    round_trip(enc, 'setting fall_rounding up why="hard landings"')
    round_trip(enc, "force t push 3,1 source=p aware=no roll=6")  # 6 m down: as 10 m, half the turn
    assert f(enc, "t").marks["fall_time"] == 2
    do(enc, "undo")
    do(enc, "undo")
    do(enc, "force t push 3,1 source=p aware=no roll=6")  # as 5 m: a quarter
    assert f(enc, "t").marks["fall_time"] == 1


def test_a_door_opened_under_a_door_cost_set_mid_fight_and_a_gm_lock_undo_and_redo():
    # tabletrail/doors: "a fighter on or beside a door's two cells opens a closed door or closes an
    # open one, for the ruleset's door_cost; a locked door stays shut until the GM unlocks it".
    from tests.core.test_doors import DOOR
    from tests.core.test_doors import scene as door_scene

    enc = encounter(door_scene("speed-meters"))
    round_trip(enc, 'setting door_cost 1 why="rusted hinges"')
    round_trip(enc, f"open m {DOOR}")
    assert actions_used(enc, "m") == 1 and enc.state.doors == {DOOR: "open"}
    round_trip(enc, f"close m {DOOR}")
    round_trip(enc, f"lock m {DOOR}")
    refuse(enc, f"open m {DOOR}", "tabletrail/doors")
    do(enc, "undo")
    do(enc, f"open m {DOOR}")
    assert actions_used(enc, "m") == 3


def test_maneuver_meters_the_gm_gives_go_to_the_next_movement():
    # maneuver: "for no more than 2 meters of the movement"; adjust gives "another budget" too.
    rows = ["#########", "#.__.^..#", "#########"]  # two spaces of air, then a step up: 3 m of jumps
    enc = encounter(scene(rows, fighter("a", at=(1, 1), speed=6)))
    refuse(enc, "move a 5,1", rule("maneuver"))
    round_trip(enc, 'adjust a 1 resource=maneuver why="a springboard"')
    round_trip(enc, "move a 5,1")
    assert f(enc, "a").pos == (5, 1, CU)
