"""speed-meters, row by row against the catalogue and document 004: what each rule allows,
refuses and costs, and the rule ids its events cite.

Each test quotes the words it holds the engine to and cites its rule id.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.engine.registry import RULESETS
from tabletrail.events.types import Moved, Placed

from tests.rulesets.speed_meters.test_scenes import fighter, scene

ROUGH = ["#####", "#.~~#", "#####"]  # two spaces of rough ground, 2,1 and 3,1


def test_a_speed_1_mover_on_rough_ground_cites_the_rough_rule_that_spares_it():
    # speed-meters/rough: "A space of Rough Terrain counts as 2 meters of Movement instead of 1
    # (though if your Speed is 1, you can ignore this and move through Rough Terrain normally)."
    # The 1 m the step costs is the rough rule's own exception, so the Moved cites speed-meters/rough.
    enc = encounter(scene(ROUGH, fighter("a", at=(1, 1), speed=1)))
    moved = of_type(do(enc, "move a 2,1"), Moved)[0]
    assert [s.cost for s in moved.steps] == [100]
    assert "speed-meters/rough" in moved.rules
    assert enc.state.fighter("a").pos[:2] == (2, 1)


def test_a_speed_5_mover_pays_2_m_a_rough_space_and_cites_it():
    # speed-meters/rough: "A space of Rough Terrain counts as 2 meters of Movement instead of 1".
    enc = encounter(scene(ROUGH, fighter("a", at=(1, 1), speed=5)))
    moved = of_type(do(enc, "move a 2,1 3,1"), Moved)[0]
    assert [s.cost for s in moved.steps] == [200, 200]
    assert "speed-meters/rough" in moved.rules


FLOOR = ["#####", "#...#", "#####"]


def test_stand_up_actions_is_what_standing_up_costs_and_refuses_short_of_it():
    # setting stand_up_actions: "actions it takes to stand up from prone, and to drop prone on
    # purpose". With 2, standing up spends 2 of the turn's actions; with 1 left it is refused, and the
    # refusal says what standing up takes, not that every action is used.
    enc = encounter(scene(FLOOR, fighter("a"), settings="stand_up_actions = 2"))
    do(enc, "drop-prone a")
    assert enc.state.fighter("a").spent["actions"] == 2
    do(enc, "move a 2,1")  # a third action
    r = refuse(enc, "stand-up a", "speed-meters/movement")
    assert "standing up takes 2 actions (stand_up_actions), but a has 1 left" in r.reason
    assert enc.state.fighter("a").states["posture"] == "prone"


def test_the_climb_row_reads_as_the_catalogue_writes_it():
    # catalogue, speed-meters/climb: "roll +Brawn against difficulty 1–3 (by surface) for each
    # climbing move; failure falls; half Speed (min 1); non-climbing attackers have Advantage"
    climb = next(r for r in RULESETS["speed-meters"].rules if r.name == "climb")
    assert climb.enforce == (
        "roll +Brawn against difficulty 1–3 (by surface) for each climbing move; failure falls; "
        "half Speed (min 1); non-climbing attackers have Advantage"
    )


TOWER = ["#####", "#QQ.#", "#...#", "#####"]  # 10 m towers at 1,1 and 2,1


def _pushed_off_onto_b(setting: str) -> Placed:
    enc = encounter(
        scene(
            TOWER,
            fighter("a", at=(1, 1)),
            fighter("b", at=(1, 2)),
            settings=f'fall_onto_fighter = "{setting}"\nedge_is_hazard = false',
        )
    )
    events = do(enc, "force a slide 1,2 roll=6 roll=6")
    return [e for e in of_type(events, Placed) if e.how == "fall"][0]


def test_a_fall_onto_a_fighter_cites_the_occupancy_ruling_either_way():
    # speed-meters/occupancy, default ruling: "a fall or a glide that would come down on a fighter
    # lands in the nearest free space (setting fall_onto_fighter)"; the setting's other value
    # 'same-space': "the two share it". Either way the landing depended on the ruling, so it cites
    # speed-meters/occupancy and says which value it followed.
    beside = _pushed_off_onto_b("beside")
    assert beside.to[:2] != (1, 2) and "speed-meters/occupancy" in beside.rules
    shared = _pushed_off_onto_b("same-space")
    assert shared.to[:2] == (1, 2) and "speed-meters/occupancy" in shared.rules
    assert "fall_onto_fighter = same-space" in shared.note


SHELF = ["######", "#:...#", "######"]  # a 2.5 m shelf at 1,1


def test_landing_prone_from_a_short_fall_is_a_setting():
    # speed-meters/fall-table: "When a character falls 5 or more meters, there is a risk ...";
    # the document lands a faller prone only on the table's 6 ("Land prone with no ill effect") and
    # says nothing of a fall under 5 m. Landing prone from one is a house ruling, so a named setting
    # (short_fall_prone, default true as before); with false the faller lands on its feet.
    for prone, posture in ((True, "prone"), (False, "standing")):
        settings = f'ledge_drop = "fall"\nshort_fall_prone = {str(prone).lower()}'
        enc = encounter(scene(SHELF, fighter("a", at=(1, 1)), settings=settings))
        events = do(enc, "move a 2,1")
        a = enc.state.fighter("a")
        assert a.pos == (2, 1, 0) and a.states.get("posture", "standing") == posture
        placed = [e for e in of_type(events, Placed) if e.how == "fall"][0]
        assert "speed-meters/fall-table" in placed.rules  # the ruling it followed, cited
        assert ("lands on its feet (short_fall_prone = false)" in placed.note) is not prone
