"""speed-meters, row by row against the catalogue and document 004: what each rule allows,
refuses and costs, and the rule ids its events cite.

Each test quotes the words it holds the engine to and cites its rule id.
"""

from __future__ import annotations

from support import do, encounter, of_type
from tabletrail.events.types import Moved
from test_speed_meters_scenes import fighter, scene

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
