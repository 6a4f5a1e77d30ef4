"""Names people read are refused when they can't be shown or told apart (issue 36, item 1).

A side, a fighter (its id and its name) and the encounter are named by the scenario:
shown on every screen, printed in a terminal, and keyed on by the server. A control
or format character (a tab, a zero-width joiner, a right-to-left override), an odd
space, a space at either end, or a letter with a plainer twin ('ａ', '²', an 'é' spelt
'e' and an accent) is refused where the scenario is read, with the field named, and
where `invite` takes a side (a log started before this check).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import msgspec
import pytest
from support import CLOCK
from support_web import scenario_toml
from tabletrail.cli import main
from tabletrail.events.errors import InputError
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.service.encounter import Encounter
from tabletrail.web.invites import role_for

BAD = {
    "a tab": ("events\tgm", "U+0009"),
    "a newline": ("red\nblue", "U+000A"),
    "a zero-width joiner": ("red\u200dblue", "U+200D"),
    "a right-to-left override": ("\u202eder", "U+202E"),
    "a no-break space": ("red\u00a0team", "U+00A0"),
    "a space at the end": ("red ", "starts or ends with a space"),
    "a fullwidth letter": ("ｒed", "'red'"),
    "a superscript digit": ("red²", "'red2'"),
    "a decomposed accent": ("Zoe\u0301", "'Zoé'"),
}
GOOD = ["red", "Zoë", "Ærin's crew", "ロボット", "team-2 (north)"]


def with_field(value: str, field: str) -> dict:
    """The web test's scenario with one value changed: cy's side, name or id, or the encounter's name."""
    raw = tomllib.loads(scenario_toml())
    if field == "encounter.name":
        raw["encounter"]["name"] = value
    else:
        next(f for f in raw["fighters"] if f["id"] == "cy")[field] = value
    return raw


@pytest.mark.parametrize("field", ["side", "name", "id", "encounter.name"])
@pytest.mark.parametrize("why", sorted(BAD))
def test_an_unfit_name_is_refused_naming_the_field(field: str, why: str):
    value, said = BAD[why]
    if field == "id" and not value.replace("-", "").replace("_", "").isalnum():
        pytest.skip("an id is letters, digits, - and _ already: refused before the name check")
    with pytest.raises(InputError) as caught:
        parse_scenario(with_field(value, field), source="s.toml")
    message = str(caught.value)
    where = "encounter.name" if field == "encounter.name" else f"fighters[2].{field}"
    assert message.startswith(f"s.toml: {where}: ") and said in message and "\n" not in message


@pytest.mark.parametrize("value", GOOD)
def test_names_in_any_script_with_spaces_and_punctuation_are_kept(value: str):
    for field in ("side", "name", "encounter.name"):
        scenario = parse_scenario(with_field(value, field), source="s.toml")
        assert value in (
            scenario.name,
            *(f.side for f in scenario.fighters),
            *(f.name for f in scenario.fighters),
        )


def test_invite_refuses_a_side_of_an_older_log_named_with_a_control_character(tmp_path: Path, capsys):  # noqa: ANN001
    scenario = parse_scenario(tomllib.loads(scenario_toml()), source="t")
    odd = tuple(
        msgspec.structs.replace(f, side="events\tgm") if f.side == "red" else f for f in scenario.fighters
    )
    log = tmp_path / "old.jsonl"
    Encounter.create(
        JsonlStore(log, durable=False), msgspec.structs.replace(scenario, fighters=odd), clock=lambda: CLOCK
    )
    assert main(["invite", str(log), "--side", "events\tgm"]) == 2
    said = capsys.readouterr().err
    assert "side 'events\\tgm' has a control character (U+0009)" in said and "rename that side" in said
    assert main(["invite", str(log), "--side", "blue"]) == 0  # the other sides still get links


def test_role_for_names_an_unknown_side_apart_from_an_unfit_one():
    with pytest.raises(InputError, match="no side 'purple'"):
        role_for("purple", ["blue", "red"])
    with pytest.raises(InputError, match="U\\+200D"):
        role_for("red\u200dblue", ["blue", "red\u200dblue"])
    assert role_for("red", ["blue", "red"]) == "red"
