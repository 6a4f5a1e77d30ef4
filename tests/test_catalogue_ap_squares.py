"""ap-squares, the catalogue row by row and every setting both ways.

Each test names the rule id or setting it holds the engine to and quotes the words
(document 002, CATALOGUE.md, or the setting's own description in `tabletrail rules`).
"""

from __future__ import annotations

import re

from tabletrail.core.rulesets import get

AP = "ap-squares"

# CATALOGUE.md, ap-squares (002): the rule ids of its table.
CATALOGUE = {
    "walk",
    "crawl",
    "invade",
    "reflexive-leap",
    "rotate-about",
    "zero-g-drift",
    "push-off",
    "zero-g-crawl",
    "zero-g-grab",
    "zero-g-penalties",
}


def test_every_catalogue_rule_id_is_listed():
    # CATALOGUE.md: "Rule ids are `<ruleset>/<rule>`. Events, rejections and audit output cite them."
    assert {r.name for r in get(AP).rules} == CATALOGUE


def test_every_default_ruling_names_the_setting_a_table_changes_it_by():
    # CATALOGUE.md: "each one must be a named, documented setting of its ruleset that a table can
    # change". The rules listing names it, and that setting says it carries this rule's ruling.
    rs = get(AP)
    settings = {s.name: s for s in rs.settings}
    for rule in rs.rules:
        if not rule.default:
            continue
        named = re.findall(r"\(setting (\w+)\)", rule.default)
        assert named, f"{AP}/{rule.name}: {rule.default!r} names no setting"
        for name in named:
            assert name in settings, f"{AP}/{rule.name} names {name}, not a setting of {AP}"
            assert settings[name].rule == f"{AP}/{rule.name}", (name, settings[name].rule)
