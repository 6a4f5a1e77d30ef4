"""The one presentation layer (tabletrail.text.render.Words): every event in the ruleset's words.

For each ruleset, every event type its shipped replays hold is rendered as the CLI
prints it and as the browser's "What happens" gets it (render.explain, escaped into
HTML), and no text may show a raw centi-unit integer, a Python repr of a dict or a
list, or a count whose noun disagrees with it ("1 actions").
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from tabletrail.core.board.units import fmt
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events import types as ev
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.service.encounter import Encounter
from tabletrail.text import render

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))
RULESETS = ("initiative-yards", "round-meters", "ap-squares", "speed-meters")

REPR = re.compile(r"[{}]|\['|\[\"|': |\", |', '|\(\d+, \d+\)")
BAD_PLURAL = re.compile(r"(?<![\d.])1 (actions|squares|times|turns|batches|meters|yards|points|AP's)\b")


def events_of(ruleset: str) -> list[ev.Event]:
    out = []
    for path in REPLAYS:
        enc = Encounter.open(JsonlStore(path))
        if enc.state.ruleset == ruleset:
            out.extend(r.event for r in enc.records)
    return out


def centi_values(event: ev.Event, rs: object) -> set[int]:
    """The integers of an event held in centi-units: none may be printed as they are."""
    found: set[int] = set()
    if isinstance(event, ev.Moved):
        found |= {event.budget, sum(s.cost for s in event.steps)} | {s.cost for s in event.steps}
        found |= {s.to[2] for s in event.steps}
    if isinstance(event, ev.Placed):
        found.add(event.to[2])
    if isinstance(event, ev.Spent) and event.resource in rs.centi_resources:  # type: ignore[attr-defined]
        found.add(abs(event.amount))
    if isinstance(event, ev.Marked) and isinstance(event.value, int) and event.key in render.CENTI_KEYS:
        found.add(event.value)
    if isinstance(event, ev.Marked) and isinstance(event.value, dict):
        found |= {v for k, v in event.value.items() if k in render.CENTI_KEYS and isinstance(v, int)}
    return {v for v in found if fmt(v) != str(v)}  # 0 and the like read the same either way


def assert_plain(text: str, event: ev.Event, rs: object) -> None:
    assert not REPR.search(text), f"a repr leaks: {text!r}"
    assert not BAD_PLURAL.search(text), f"a plural is wrong: {text!r}"
    for value in centi_values(event, rs):
        assert not re.search(rf"(?<![\d.,]){value}(?![\d.,])", text), f"centi-units {value} in {text!r}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_event_type_of_a_ruleset_reads_in_its_words(ruleset: str):
    rs = get_ruleset(ruleset)
    events = events_of(ruleset)
    seen: dict[str, int] = defaultdict(int)
    for event in events:
        seen[type(event).__name__] += 1
        line = render.describe(event, rs)  # what `do`, `log` and explain print
        assert_plain(line, event, rs)
        card = render.explain(event, rs)  # what the browser's "What happens" shows, as HTML
        page = f"<li>{html.escape(card['text'])} <span class=why>{html.escape(card['why'])}</span></li>"
        assert_plain(html.unescape(page), event, rs)
        assert card["text"] == line and card["why"] == event.note
    # the vocabulary every ruleset's replays exercise
    assert {"Moved", "Spent", "CheckRolled", "StateChanged", "Marked", "Unmarked", "TurnStarted"} <= set(seen)


def test_the_checks_themselves_catch_what_they_look_for():
    """The three checks fail on the old outputs the issue quotes (so they can fail)."""
    rs = get_ruleset("speed-meters")
    moved = ev.Moved(fighter="b", steps=(ev.Step(to=(1, 1, 0), cost=150),), budget=500)
    with pytest.raises(AssertionError, match="centi-units"):
        assert_plain("b moved 1,1(150) = 150 of 500", moved, rs)
    held = ev.Marked(fighter="mara", key="action", value={"kind": "shoot", "target": "bog"})
    with pytest.raises(AssertionError, match="repr"):
        assert_plain("marked fighter=mara key=action value={'kind': 'shoot', 'target': 'bog'}", held, rs)
    with pytest.raises(AssertionError, match="plural"):
        assert_plain("spends 1 actions", held, rs)


@pytest.mark.parametrize(
    ("event", "words"),
    [
        (ev.Spent(fighter="ari", resource="actions", amount=1), "ari spends 1 action"),
        (ev.Spent(fighter="ari", resource="actions", amount=2), "ari spends 2 actions"),
        (ev.Spent(fighter="ari", resource="forced", amount=150), "ari spends 1.5 m of forced movement"),
        (ev.Spent(fighter="ari", resource="movement", amount=-200), "ari gains 2 m of Movement"),
        (
            ev.Marked(
                fighter="mara",
                key="action",
                value={"kind": "shoot", "target": "bog", "ap": 2, "round": 1, "pass": 1, "held": True},
            ),
            "mara's action this round: shoot at bog for 2 AP, a held action going off",
        ),
        (
            ev.Marked(
                fighter="ari", key="sprint-penalty", value={"sprints": 1, "penalty": -5, "meters": 200}
            ),
            "ari has sprinted 1 time: -5 to other tests, 2 m sprinted",
        ),
        (ev.Marked(fighter="dax", key="fallen", value=2000), "dax has fallen 20 m so far"),
        (ev.Refreshed(fighter="ari", resources=("movement",)), "ari's movement starts over"),
        (  # a turn's tallies are said in words, apart from what the player spends
            ev.Refreshed(fighter="ari", resources=("actions", "movement", "forced", "glide")),
            "ari's actions and movement start over; its forced movement and gliding are counted afresh",
        ),
        (ev.Refreshed(fighter="ari", resources=("grapple",)), "ari's grapple movement is counted afresh"),
        (ev.Refreshed(fighter="bo", resources=("movement", "ap")), "bo's movement and AP start over"),
        (ev.Linked(kind="grab", a="ogre", b="tam"), "ogre grabs tam"),
        (ev.Unlinked(kind="grab", a="ogre", b="tam"), "ogre lets go of tam"),
    ],
)
def test_facts_in_the_table_words(event: ev.Event, words: str):
    assert render.describe(event, get_ruleset("speed-meters")) == words


def test_an_unknown_mark_shape_still_reads_without_a_repr():
    rs = get_ruleset("round-meters")
    text = render.describe(
        ev.Marked(fighter="a", key="new-kind", value={"cells": [[1, 2], [3, 4]], "n": 1}), rs
    )
    assert text == "a: new kind cells 1,2, 3,4, n 1"


def test_json_outputs_name_their_schema_and_units():
    doc = json.loads(render.json_doc("board", {"movement": 500}, "speed-meters"))
    assert doc["schema"] == render.JSON_SCHEMA and doc["kind"] == "board"
    assert doc["units"] == {
        "length": "m",
        "scale": 100,
        "centi": ["forced", "glide", "grapple", "maneuver", "movement"],
    }
    assert doc["data"] == {"movement": 500}  # exact integers: 500 is 5 m
