"""initiative-yards, the catalogue row by row and every setting both ways.

Each test names the rule id or setting it holds the engine to and quotes the words
(document 000, CATALOGUE.md, or the setting's own description in `tabletrail rules`).
"""

from __future__ import annotations

import re

from support import do, of_type, refuse
from tabletrail.core.engine.registry import get
from tabletrail.events.types import CheckRolled

from tests.rulesets.initiative_yards.test_rules import ICE, arena, fighter, posture

IY = "initiative-yards"


def describe(name: str) -> str:
    """A setting's description, as `tabletrail rules initiative-yards` prints it."""
    return next(s.doc for s in get(IY).settings if s.name == name)


def ice(settings: str):  # noqa: ANN201 - an Encounter
    return arena(ICE, fighter("a", "blue", (1, 1)) + fighter("e", "red", (8, 2)), settings)


def test_check_adds_initiative_false_lets_the_table_enter_a_pass_and_a_failure_as_described():
    # setting check_adds_initiative: "with no and check_target = T the table enters a pass as
    # roll=P and a failure as roll=F". Both rolls must be faces of the d20 (tabletrail/checks: "a
    # table roll is a face of its die"), or the table can't enter a failure at all.
    words = re.search(
        r"with no and check_target = (\d+) the table enters a pass as roll=(\d+) and a failure as "
        r"roll=(\d+)",
        describe("check_adds_initiative"),
    )
    assert words, describe("check_adds_initiative")
    target, good, bad = words.groups()
    enc = ice(f"check_adds_initiative = false\ncheck_target = {target}")
    passed = of_type(do(enc, f"move a 3,1 roll={good}"), CheckRolled)
    assert [(c.number, c.modifier, c.passed) for c in passed] == [(int(good), 0, True)]
    failed = of_type(do(enc, f"move a 4,1 roll={bad}"), CheckRolled)
    assert [(c.number, c.modifier, c.passed) for c in failed] == [(int(bad), 0, False)]
    assert posture(enc, "a") == "prone"  # initiative-yards/slippery: "or else immediately drop prone"
    refuse(enc, "move a 5,1", f"{IY}/crawl")  # "and lose the rest of their movement"
