"""tabletrail.ruleset_api: one module a ruleset author imports from, documented, and light to import."""

from __future__ import annotations

import subprocess
import sys

import pytest
import tabletrail.ruleset_api as api


@pytest.mark.parametrize("name", api.__all__)
def test_every_public_name_resolves_and_a_callable_says_what_it_is(name: str):
    value = getattr(api, name)
    if callable(value):
        doc = (getattr(value, "__doc__", None) or "").strip()
        assert doc, f"tabletrail.ruleset_api.{name} has no docstring an author can work from"
        assert not doc.startswith(f"{name}("), f"{name}'s docstring is only its signature"


def test_an_unknown_name_is_one_line_naming_what_there_is():
    with pytest.raises(AttributeError, match="has no 'Rulset'.*Ruleset"):
        api.Rulset  # noqa: B018


def test_a_plugins_vocabulary_imports_none_of_the_engine():
    """The vocabulary module (commands, declaration) is imported to decode every log: it must stay light."""
    probe = (
        "import sys\n"
        "from tabletrail.ruleset_api import Cell, Command, RulesetPlugin\n"
        "print(sorted(m for m in sys.modules if m.startswith('tabletrail.core')))\n"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip() == "[]", ran.stdout + ran.stderr
