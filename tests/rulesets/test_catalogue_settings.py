"""CATALOGUE.md: every default ruling "must be a named, documented setting of its ruleset that a
table can change". The rules listing names that setting, and the setting says which rule's ruling
it carries, so `explain` ties the events that depended on it to it.

ap-squares and initiative-yards write "(setting NAME)" in each default ruling; the other two
rulesets' texts name their settings in freer words, so they are not held to the form here.
"""

from __future__ import annotations

import re

import pytest
from tabletrail.core.engine.registry import get


@pytest.mark.parametrize("ruleset", ["ap-squares", "initiative-yards"])
def test_every_default_ruling_names_the_setting_a_table_changes_it_by(ruleset: str) -> None:
    rs = get(ruleset)
    settings = {s.name: s for s in rs.settings}
    for rule in rs.rules:
        if not rule.default:
            continue
        named = re.findall(r"\(setting (\w+)\)", rule.default)
        assert named, f"{ruleset}/{rule.name}: {rule.default!r} names no setting"
        for name in named:
            assert name in settings, f"{ruleset}/{rule.name} names {name}, not a setting of {ruleset}"
            assert settings[name].rule == f"{ruleset}/{rule.name}", (name, settings[name].rule)
