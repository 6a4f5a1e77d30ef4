"""What the table view shows of a ruleset's marks comes from the ruleset's hooks, not its imports.

`Ruleset.awaited`, `.heading` and `.turn_words` (core/engine/presentation.py) say the reactions awaited,
where a body is carried and a turn in words; the web layer draws them for any ruleset, a
plug-in's included, and imports no ruleset's marks (tests/project/test_architecture.py).
"""

from __future__ import annotations

import pytest
from tabletrail.core.engine.presentation import Answer, Awaited
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.fold.evolve import evolve
from tabletrail.events import types as ev
from tabletrail.testing import encounter, grid
from tabletrail.web import actions, views

AP_SQUARES = f"""
[encounter]
name = "hold"
ruleset = "ap-squares"
initiative = ["ari", "bo"]
{grid(["#######", "#.....#", "#.....#", "#######"])}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]
ap = 10
[[fighters]]
id = "bo"
side = "red"
at = [3, 1]
ap = 10
"""


def test_a_drift_is_drawn_as_the_rulesets_heading():
    enc = encounter(AP_SQUARES)
    state = evolve(enc.state, ev.Marked(fighter="bo", key="trajectory", value={"dir": "e", "speed": 1}))
    bo = state.fighter("bo")
    assert views.fighter(state, bo)["heading"] == {
        "dx": 1,
        "dy": 0,
        "speed": 1,
        "why": "drifts e at 1 a turn",
    }
    assert views.fighter(state, state.fighter("ari"))["heading"] is None


def test_a_reaction_a_ruleset_awaits_shows_with_its_answers(monkeypatch: pytest.MonkeyPatch):
    """Whatever a ruleset's hook says is awaited is shown: the view knows no ruleset's marks."""
    enc = encounter(AP_SQUARES)
    rs = get_ruleset("ap-squares")
    said = Awaited(
        "test", "ari", "ari may stand still", (Answer("Stand still", "end-turn ari", actor="ari"),)
    )
    monkeypatch.setattr(type(rs), "awaited", lambda self, state: [said])
    (blue,) = actions.awaiting(enc, "blue")
    assert (blue["kind"], blue["fighter"], blue["prompt"], blue["mine"]) == (
        "test",
        "ari",
        "ari may stand still",
        True,
    )
    assert [c["label"] for c in blue["choices"]] == ["Stand still"] and blue["choices"][0]["ok"]
    (red,) = actions.awaiting(enc, "red")
    assert red["mine"] is False and red["choices"] == []


def test_a_reaction_of_no_fighter_is_the_gms_alone(monkeypatch: pytest.MonkeyPatch):
    enc = encounter(AP_SQUARES)
    rs = get_ruleset("ap-squares")
    monkeypatch.setattr(type(rs), "awaited", lambda self, state: [Awaited("gm", "", "the GM decides", ())])
    assert actions.awaiting(enc, "blue") == []
    (gm,) = actions.awaiting(enc, "gm")
    assert gm["fighter"] is None and gm["side"] == "gm" and gm["prompt"] == "the GM decides"


def test_a_rulesets_words_end_a_fighters_card(monkeypatch: pytest.MonkeyPatch):
    enc = encounter(AP_SQUARES)
    rs = get_ruleset("ap-squares")
    monkeypatch.setattr(type(rs), "card_words", lambda self, state, f: [f"{f.id} is braced"])
    card = views.card(enc.state, enc.state.fighter("bo"))
    assert card["states"][-1] == "bo is braced"


def test_a_turn_is_said_by_the_ruleset_else_by_the_turn_machine():
    enc = encounter(AP_SQUARES)
    rs = get_ruleset("ap-squares")
    done = evolve(
        enc.state,
        ev.StateChanged(fighter="bo", machine="turn", trigger="skip", source="waiting", dest="done"),
    )
    assert rs.turn_words(done.fighter("bo")) == "done this pass"
    assert rs.turn_words(done.fighter("ari")) == ""
