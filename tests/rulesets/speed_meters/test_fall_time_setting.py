"""speed-meters, issue 28 (second round): a ruling the text is silent on, named as a setting.

fall-speed: "When you spend your entire turn falling at normal speed, you'll fall a total distance of
20 meters. If you reach the ground before falling 20 meters … you'll have this much of your turn
remaining: 5 meter fall: 3/4 of your total Actions remaining; 10 meter fall: 1/2 …". The text pictures
a turn spent falling from its start; how much a fall landing part-way through the faller's own turn
takes is setting fall_mid_turn.
"""

from __future__ import annotations

from support import do, encounter, of_type
from tabletrail.core.engine.registry import get
from tabletrail.events.types import Marked, Spent

from tests.rulesets.speed_meters.test_scenes import fighter, scene

ROOM = ["######", "#....#", "######"]


def fall_after_three_actions(settings: str = "") -> tuple[int, list[Spent]]:
    """8 actions; three used (three flights), then a 10 m fall: 1/2 of the turn."""
    enc = encounter(
        scene(ROOM, fighter("a", at=(1, 1), fly=40), settings="actions_per_turn = 8\n" + settings)
    )
    do(enc, "fly a 1,1,10")
    do(enc, "fly a 2,1,10")
    do(enc, "fly a 3,1,10")
    assert enc.state.fighter("a").spent["actions"] == 3
    events = do(enc, "fall a roll=6 roll=6")
    lost = [e for e in of_type(events, Spent) if e.resource == "actions"]
    return 8 - enc.state.fighter("a").spent["actions"], lost


def test_by_default_what_remains_is_the_share_of_the_total_the_text_gives():
    # "1/2 of your total Actions remaining": 4 of 8, so 1 more of the 5 left is lost
    left, lost = fall_after_three_actions()
    assert left == 4 and [e.amount for e in lost] == [1]
    assert "takes 2/4 of the turn: 4 of 8 actions remain" in lost[0].note


def test_a_table_may_take_the_falls_share_off_what_is_left():
    # fall_mid_turn = "taken": a 10 m fall takes half the turn, 4 of the 8, from the 5 left
    left, lost = fall_after_three_actions('fall_mid_turn = "taken"')
    assert left == 1 and [e.amount for e in lost] == [4]
    assert "takes 2/4 of the turn: 4 of 8 actions" in lost[0].note and "1 left" in lost[0].note


def test_taken_never_takes_more_than_is_left():
    enc = encounter(
        scene(ROOM, fighter("a", at=(1, 1), fly=40), settings='fall_mid_turn = "taken"\nactions_per_turn = 4')
    )
    for x in (1, 2, 3):
        do(enc, f"fly a {x},1,20")
    do(enc, "fall a " + " ".join(["roll=6"] * 4))  # 20 m: the whole turn, and 1 action was left
    assert enc.state.fighter("a").spent["actions"] == 4


def test_at_the_turns_start_both_readings_agree():
    # a fall before any action: "3/4 of your total Actions remaining" either way
    for setting in ("remaining", "taken"):
        enc = encounter(scene(ROOM, fighter("a", at=(1, 1), fly=40), settings=f'fall_mid_turn = "{setting}"'))
        do(enc, "fly a 1,1,5")  # 1 action of 4
        do(enc, "end-turn")  # a new turn: 4 actions, none used
        do(enc, "fall a roll=6")
        assert enc.state.fighter("a").spent["actions"] == 1, setting


def test_the_setting_is_listed_with_its_words():
    rs = get("speed-meters")
    s = {s.name: s for s in rs.settings}["fall_mid_turn"]
    assert s.default == "remaining" and s.choices == ("remaining", "taken")
    assert s.rule == "speed-meters/fall-speed" and "part-way" in s.doc
    assert "fall_mid_turn" in {r.name: r for r in rs.rules}["fall-speed"].default


# --- a fall outside the faller's own turn (setting off_turn_fall) ------------------------------------


def test_two_falls_before_the_fallers_turn_take_the_longer_ones_time_not_both():
    # "When you spend your entire turn falling … you'll fall a total distance of 20 meters": the falls
    # before a turn overlap in that turn's time; the longer one's share is what the next turn loses.
    enc = encounter(scene(ROOM, fighter("t", "red", at=(1, 1), fly=40), fighter("p", at=(4, 1))))
    do(enc, "fly t 1,1,12")
    do(enc, "end-turn")  # p's turn: t falls twice before its own turn comes again
    do(enc, "fall t roll=6 roll=6")  # 12 m: 2/4 of its next turn
    do(enc, 'place t 1,1,5 why="a gust lifts it"')
    events = do(enc, "fall t roll=6")  # 5 m: 1/4, inside the 2/4 already owed
    owed = [e for e in of_type(events, Marked) if e.key == "fall_time"]
    assert [e.value for e in owed] == [2]
    events = do(enc, "end-turn")  # t's turn: half of its 4 actions
    assert [e.amount for e in of_type(events, Spent) if e.fighter == "t" and e.resource == "actions"] == [2]
    assert "the longer" in {s.name: s for s in get("speed-meters").settings}["off_turn_fall"].doc
