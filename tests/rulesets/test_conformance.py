"""The four built-in rulesets pass the conformance kit every plug-in runs (tabletrail.testing).

Each is installed through its entry point and declared whole; every command of its own gives
an example that its shipped scenario takes. (Their random play is the kit's state machine too:
tests/rulesets/<ruleset>/test_stateful.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tabletrail.events import plugins
from tabletrail.testing import check_declaration, check_examples

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = {  # the scenario each ruleset's examples run on (tests/cli/test_syntax.py's)
    "initiative-yards": "initiative-yards-ruined-bridge.toml",
    "round-meters": "round-meters-ambush.toml",
    "ap-squares": "ap-squares-derelict.toml",
    "speed-meters": "speed-meters-skirmish.toml",
}


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
def test_a_built_in_is_a_plugin_of_tabletrail_declared_whole(ruleset: str):
    rs = check_declaration(ruleset)
    found = plugins.find(ruleset)
    assert found.package == plugins.HOME and found.plugin.ruleset.endswith(f":{type(rs).__name__}")


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
def test_a_built_ins_examples_run_on_its_scenario(ruleset: str):
    check_examples(ruleset, (ROOT / "scenarios" / SCENARIOS[ruleset]).read_text(encoding="utf-8"))


def test_the_kit_fails_a_ruleset_whose_example_is_refused(monkeypatch: pytest.MonkeyPatch):
    """A kit that cannot fail is no check: an example the scenario refuses is named."""
    from tabletrail.events.commands.round_meters import Sprint

    monkeypatch.setattr(Sprint, "example", "sprint nobody")
    with pytest.raises(AssertionError, match="sprint nobody"):
        check_examples("round-meters", (ROOT / "scenarios" / SCENARIOS["round-meters"]).read_text())
