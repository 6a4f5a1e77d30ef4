"""Words, not internals, on a player's screen: what the server sends a side's link reads as sentences.

No rule id, `by=`, Python repr, admin warning or sentence said twice reaches a player's state or
event list; the GM's screen keeps everything (the rule ids stay one tap away in `rules`).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from support import do, encounter
from support_web import bearer, invite, new_log
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.web import actions, views
from tabletrail.web.server import create_app

from tests.rulesets.round_meters.test_rules import arena

RULE_ID = re.compile(r"\b(?:tabletrail|speed-meters|round-meters|ap-squares|initiative-yards)/[a-z-]+")
REPR = re.compile(r"[{}\[\]]|\bNone\b|\bTrue\b|\bFalse\b|'[a-z_]+':")


def sentences(value: Any, keys: tuple[str, ...] = ("text", "note", "label", "why", "prompt")) -> list[str]:
    """Every sentence a page shows from an answer: the words under these keys and every card line."""
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k in keys and isinstance(v, str):
                out.append(v)
            elif k == "card" and isinstance(v, dict):
                out += [line for lines in v.values() for line in lines]
            else:
                out += sentences(v, keys)
    elif isinstance(value, list):
        for v in value:
            out += sentences(v, keys)
    return out


def plain_words(said: list[str]) -> None:
    assert said, "nothing to read"
    for s in said:
        assert "by=" not in s, s
        assert not RULE_ID.search(s), s
        assert not REPR.search(s.replace("{cell}", "").replace("{door}", "").replace("{fighter}", "")), s
        assert "TLS" not in s and "bearer" not in s, s


def rounds() -> Encounter:
    enc = encounter(arena())
    do(enc, "move ari 2,1 by=blue")
    do(enc, "end-turn by=blue")  # round-meters says the turn's end twice: the machine's and the turn's note
    return enc


def test_a_players_event_list_names_no_by_and_says_each_sentence_once():
    enc = rounds()
    gm = views.records(enc, "gm")
    blue = views.records(enc, "blue")
    assert not any("by=" in e["text"] for e in gm)  # the GM's list too says commands in words (issue 38)
    assert "ari: Move to 2,1" in [e["text"] for e in gm if e["type"] == "command"]  # ari has no other name
    plain_words([e["text"] for e in blue])
    for e in blue:
        assert not e["note"] or e["note"].rstrip(".") not in e["text"], e
    lines = [(e["batch"], e["text"]) for e in blue]
    assert all(a != b for a, b in zip(lines, lines[1:], strict=False))  # no sentence twice in a row
    ended = [e for e in gm if e["type"] == "turn-ended"]
    assert ended and ended[0]["note"] == ended[0]["text"]  # what the player's list leaves out
    assert next(e for e in blue if e["seq"] == ended[0]["seq"])["note"] == ""


def test_a_players_board_has_cards_in_words_and_no_marks_stats_or_by():
    enc = rounds()
    board = views.board(enc, len(enc.records), "blue")
    for f in board["fighters"]:
        assert f["marks"] == {} and f["stats"] == {}
    plain_words(sentences({"fighters": board["fighters"], "undo": board["undo"]}))
    assert board["undo"] == {**board["undo"], "text": "end-turn", "by": "blue", "mine": True}
    assert views.board(enc, len(enc.records), "red")["undo"]["mine"] is False
    assert views.board(enc, len(enc.records), "gm")["undo"]["text"] == "end-turn by=blue"
    assert views.board(enc, len(enc.records), "gm")["fighters"][0]["stats"]  # the GM's keeps them


def test_a_players_buttons_and_their_refusals_read_as_sentences(tmp_path: Path):
    enc = Encounter.open(store_for(str(new_log(tmp_path))))
    for role, fid in (("blue", "ari"), ("red", "cy")):
        plain_words(sentences(actions.answer(enc, role, fid)))


def test_a_held_action_is_awaited_in_words_on_every_screen():
    enc = encounter(arena())
    do(enc, 'hold ari shoot "enemy-enters 4,1 5,1" by=blue')
    for role in ("gm", "blue", "red", "watcher"):
        held = actions.awaiting(enc, role)
        assert [h["kind"] for h in held] == ["held"]
        assert held[0]["prompt"] == "ari holds shoot until: enemy-enters 4,1 5,1"
        assert held[0]["choices"] == []  # the engine fires it when its trigger happens: nothing to answer
    plain_words([actions.awaiting(enc, "blue")[0]["prompt"].replace("4,1 5,1", "")])


def test_the_exposure_warning_is_the_gms_alone(tmp_path: Path):
    log = new_log(tmp_path)
    app = create_app(log, exposed=True)
    for role, shown in (("gm", True), ("blue", False), ("watcher", False)):
        c = TestClient(app, base_url="http://127.0.0.1:8000", headers=bearer(invite(log, role)[1]))
        assert c.get("/api/me").json()["exposed"] is shown, role
        assert c.get("/api/state").json()["exposed"] is shown, role
