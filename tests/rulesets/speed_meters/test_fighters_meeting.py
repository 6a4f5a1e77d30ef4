"""speed-meters, rules fidelity pass 7: where one fighter's action meets another fighter.

Each test plays a situation in which two or more fighters meet (a grab and a third fighter, a fall
across turns and someone walking beneath it) through the real engine, quoting document 004's words
(or the catalogue's default ruling where the text is silent) next to what it asserts: allowed or
refused and by which rule, what it costs and whom, and the state of each fighter after.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import CheckRolled, Moved, Placed, Spent

from tests.rulesets.speed_meters.test_scenes import fighter, scene

ROOM = ["#########", "#.......#", "#.......#", "#.......#", "#.......#", "#########"]


def spent(events, fid: str, resource: str = "actions") -> int:
    return sum(e.amount for e in of_type(events, Spent) if e.fighter == fid and e.resource == resource)


# --- a grabber meets a third fighter ------------------------------------------------------------


def test_a_grabber_may_shove_a_third_fighter_but_not_push_or_pull_anyone():
    # grab: "Both grabber and grabbee are Immobilized during the grab." shove: "To shove a creature
    # is to move them while you remain stationary", so an Immobilized grabber may still shove; push-
    # pull: "A pushed or pulled creature continues to move as you enter the space they vacate", so a
    # push or a pull walks the grabber along, which it can't: refused under grab, at no cost, its
    # hold intact. The shove costs a its action and moves u; a and t stay where they are.
    enc = encounter(
        scene(
            ROOM,
            fighter("a", at=(4, 3), brawn=3),
            fighter("t", "red", at=(5, 3)),
            fighter("u", "red", at=(3, 3)),
        )
    )
    do(enc, "grab a t roll=6 roll=1")  # margin 8: t is held; t's Brawn 0 commits no Action Dice
    for text in ("push a u roll=6 roll=1", "pull a u roll=6 roll=1", "pull a t roll=6 roll=1"):
        r = refuse(enc, text, "speed-meters/grab")
        assert "Immobilized" in r.reason
    assert enc.state.fighter("a").spent["actions"] == 1  # the grab only
    events = do(enc, "shove a u roll=3 roll=2")  # 3 + 3 against 2: margin 4, 2 m west
    assert enc.state.fighter("u").pos == (1, 3, 0)
    assert enc.state.fighter("a").pos == (4, 3, 0) and enc.state.fighter("t").pos == (5, 3, 0)
    assert spent(events, "a") == 1 and enc.state.fighter("a").spent["actions"] == 2
    assert not [m for m in of_type(events, Moved) if m.fighter == "a"]
    assert enc.state.links == (("grab", "a", "t"),)


# --- a long fall across turns meets a fighter who walks beneath it -------------------------------

PILLAR = ["#########", "#P......#", "#.......#", "#########"]  # a 30 m pillar at 1,1


def test_a_fighter_who_walks_beneath_a_long_fall_is_not_landed_on():
    # fall-speed: "When you spend your entire turn falling at normal speed, you'll fall a total
    # distance of 20 meters. If you reach the ground before falling 20 meters ... 10 meter fall: 1/2
    # of your total Actions remaining." t steps off a 30 m pillar: 20 m this turn (all its turn), the
    # last 10 m at its next turn. Between the two b walks into the cell below t: the space is free
    # on the ground, t is still 10 m up. occupancy (default ruling, setting fall_onto_fighter): a
    # fall that would come down on a fighter lands in the nearest free space. fall-table: "For
    # every 5 meters a character falls, roll a d6": six rolls for 30 m in all; b is untouched.
    enc = encounter(
        scene(PILLAR, fighter("t", "red", at=(1, 1)), fighter("b", at=(3, 2)), settings='ledge_drop = "fall"')
    )
    do(enc, "move t 2,1")
    t = enc.state.fighter("t")
    assert t.pos == (2, 1, 10 * CU) and t.states["mode"] == "falling" and t.spent["actions"] == 4
    do(enc, "end-turn")
    do(enc, "move b 2,1")  # under t, 10 m below it: not occupied on the ground
    assert enc.state.fighter("b").pos == (2, 1, 0)
    events = do(enc, "end-turn " + " ".join(["roll=6"] * 6))  # t's turn: it lands
    t, b = enc.state.fighter("t"), enc.state.fighter("b")
    landing = [p for p in of_type(events, Placed) if p.fighter == "t" and p.how == "fall"][0]
    assert t.pos[2] == 0 and t.pos[:2] != (2, 1) and max(abs(t.pos[0] - 2), abs(t.pos[1] - 1)) == 1
    assert "speed-meters/occupancy" in landing.rules and "taken by b" in landing.note
    assert len([c for c in of_type(events, CheckRolled) if c.check == "falling table"]) == 6
    assert t.states["posture"] == "prone" and t.states["mode"] == "walking"
    assert 4 - t.spent["actions"] == 2  # the last 10 m take half of this turn
    assert b.pos == (2, 1, 0) and b.states.get("posture", "standing") == "standing"


# --- a glide's leg at turn start meets fighters in the air ---------------------------------------

CLIFF = ["############", "#Q.........#", "############"]  # a 10 m pillar at 1,1, then open ground


def _glide_past(side: str, x: int):
    """a glides east off the pillar; a flyer of `side` hangs 10 m up at x,1 before a's next turn."""
    enc = encounter(scene(CLIFF, fighter("a", glide=5), fighter("f", side, at=(x, 1), fly=12)))
    do(enc, "glide a 9,1")
    do(enc, "end-turn")
    do(enc, f"fly f {x},1,10")
    events = do(enc, "end-turn")  # a's turn starts: its glide moves it
    (leg,) = [m for m in of_type(events, Moved) if m.fighter == "a"]
    return enc, leg


def test_a_glide_passes_an_ally_in_the_air_but_not_an_enemy_and_never_ends_on_either():
    # glide: "You automatically move horizontally as you fall, at a rate of 5 meters when your turn
    # starts"; occupancy: "Can move through spaces occupied by allies, but can't end a Movement in an
    # occupied space. Cannot move through spaces occupied by enemies". The glide is the glider's own
    # movement: an ally hanging in its way is passed (the full 5 m, then it sinks), an enemy stops
    # it in the space before, and where the 5 m would end on an ally it stops short of it.
    enc, leg = _glide_past("blue", 3)
    assert enc.state.fighter("a").pos[:2] == (6, 1) and sum(s.cost for s in leg.steps) == 5 * CU
    assert "speed-meters/occupancy" in leg.rules and not leg.stopped
    assert enc.state.fighter("f").pos == (3, 1, 10 * CU)
    enc, leg = _glide_past("red", 3)
    assert enc.state.fighter("a").pos[:2] == (2, 1) and "3,1 is held by f" in leg.stopped
    enc, leg = _glide_past("blue", 6)
    assert enc.state.fighter("a").pos[:2] == (5, 1) and "6,1 is occupied by f" in leg.stopped
    assert enc.state.fighter("f").pos == (6, 1, 10 * CU)
