"""The event list in parts (issue 40, item 2): a page that holds version V asks `/api/events?after=V` and
is sent only what changed since (its new lines, and the batches an undo, a redo or an abandon changed
the status of); a page opened fresh reads the list a page at a time, newest first.

Whatever a page folds from the parts is the whole list, line for line, as each side reads it (a
player's lines redacted and scrubbed of a ruling's why exactly as the whole list's are), after any
mix of moves, undos, redos and rulings.
"""

from __future__ import annotations

import gzip
import json
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse, verbs_for
from tabletrail.web import redact, views
from tabletrail.web.api.audit import WHOLE, Part, answer
from tabletrail.web.invites import GM, Invite

from tests.web.test_board_made_once import table  # noqa: F401  (the fixture: a JSONL table, links for gm, blue, blue 2, red)

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "speed-meters-skirmish.toml"
WHO = [Invite(id=role, role=role, digest="", made=0.0) for role in (GM, "blue", "red", "watcher")]

# What the table does: moves (some refused), turns, undo and redo at any depth, and rulings whose
# reasons a player's lines are scrubbed of ("moved" and "ends" are words of older lines, so a ruling
# giving one rewrites lines a page already holds).
COMMANDS = [
    "move ari 3,1",
    "move ari 4,4",
    "move bo 2,3",
    "move bo 5,5",
    "move cyn 9,5",
    "move cyn 7,2",
    "move dax 9,1",
    "end-turn",
    "undo",
    "undo",
    "undo",
    "redo",
    "redo",
    'forbid 6,6 why="collapsed floor"',
    'require-test 3,1 target=3 why="moved"',
    'forbid 10,4 why="ends"',
    'setting checks table why="we roll at the table now"',
]


def new_encounter() -> Encounter:
    text = SCENARIO.read_text(encoding="utf-8")
    return Encounter.create(MemoryStore(), parse_scenario(tomllib.loads(text), source=str(SCENARIO)))


def run(enc: Encounter, text: str) -> bool:
    """Execute one command as the GM's page would; whether the rules took it."""
    return not isinstance(enc.execute(parse(text, verbs=verbs_for(enc.state.ruleset)), text), Rejection)


def whole(who: Invite, enc: Encounter) -> list[dict[str, Any]]:
    """The whole list as it was always made: every record's line, then the side's redaction."""
    return redact.records(who, enc, views.records(enc, who.role))


def sent(who: Invite, enc: Encounter, part: Part) -> dict[str, Any]:
    """An answer as the page reads it (through JSON, as sent)."""
    return json.loads(json.dumps(answer(who, enc, part)))


def paged(who: Invite, enc: Encounter, first: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    """The list a page opened fresh builds: the newest page, then older ones until none is older."""
    held, page = first["events"], first
    while page["older"] is not None:
        page = sent(who, enc, Part(before=page["older"], limit=limit))
        held = page["events"] + held
    return held


def fold(
    who: Invite, enc: Encounter, held: list[dict[str, Any]], got: dict[str, Any]
) -> list[dict[str, Any]]:
    """What explain.js does with an answer: changes folded onto the list held, or a page in its place."""
    if "after" not in got:
        return paged(who, enc, got, 200)
    status = {s["batch"]: s["status"] for s in got["statuses"]}
    kept = [{**e, "status": status.get(e["batch"], e["status"])} for e in held if e["seq"] <= got["after"]]
    return kept + got["events"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(COMMANDS), min_size=1, max_size=24), st.integers(1, 5))
def test_the_changes_since_a_version_folded_onto_its_list_are_the_whole_list_for_every_side(
    texts: list[str], limit: int
) -> None:
    enc = new_encounter()
    held = {w.role: whole(w, enc) for w in WHO}
    version = len(enc.records)
    for text in texts:
        run(enc, text)
        for w in WHO:
            expected = whole(w, enc)
            got = sent(w, enc, Part(after=version))
            assert got["version"] == len(enc.records)
            held[w.role] = fold(w, enc, held[w.role], got)
            assert held[w.role] == expected, (w.role, text)
            newest = sent(w, enc, Part(limit=limit))
            assert "after" not in newest and len(newest["events"]) <= limit
            assert paged(w, enc, newest, limit) == expected, (w.role, "paged", limit)
        version = len(enc.records)


def test_a_move_is_sent_as_its_own_lines_and_an_undo_and_redo_as_the_status_they_changed():
    enc = new_encounter()
    gm = WHO[0]
    for text in ["move ari 3,1", "end-turn", "move bo 2,3", "end-turn"]:
        assert run(enc, text), text
    before = len(enc.records)
    assert run(enc, "move cyn 9,5")
    got = sent(gm, enc, Part(after=before))
    assert [e["seq"] for e in got["events"]] == list(range(before + 1, len(enc.records) + 1))
    assert got["statuses"] == []
    undone = enc.timeline.applied[-1]
    before = len(enc.records)
    assert run(enc, "undo")
    got = sent(gm, enc, Part(after=before))
    assert got["statuses"] == [{"batch": undone, "status": "undone"}]
    assert all(e["seq"] > before for e in got["events"])
    before = len(enc.records)
    assert run(enc, "redo")
    assert sent(gm, enc, Part(after=before))["statuses"] == [{"batch": undone, "status": ""}]
    assert run(enc, "undo")
    before = len(enc.records)
    assert run(enc, "move cyn 9,6")  # a new command cuts the undone batch off
    assert {"batch": undone, "status": "abandoned"} in sent(gm, enc, Part(after=before))["statuses"]
    assert sent(gm, enc, Part(after=len(enc.records))) == {
        "version": len(enc.records),
        "after": len(enc.records),
        "events": [],
        "statuses": [],
    }


def test_a_page_of_another_log_or_a_new_reason_to_scrub_gets_the_newest_page_in_place_of_its_list():
    enc = new_encounter()
    assert run(enc, "move ari 3,1")
    blue, gm = WHO[1], WHO[0]
    ahead = sent(blue, enc, Part(after=len(enc.records) + 5))
    assert "after" not in ahead and ahead["older"] is None and ahead["events"] == whole(blue, enc)
    before = len(enc.records)
    assert any("moved" in e["text"] for e in whole(blue, enc))
    assert run(enc, 'forbid 6,6 why="moved"')  # said in an older line: a player's reads otherwise now
    assert "after" not in sent(blue, enc, Part(after=before))
    assert sent(gm, enc, Part(after=before))["after"] == before  # the GM's lines are never scrubbed
    before = len(enc.records)
    assert run(enc, 'forbid 7,6 why="moved"')  # the same reason again: nothing older changes
    assert sent(blue, enc, Part(after=before))["after"] == before


def events(client: Any, token: str, query: str) -> Any:
    return client.get("/api/events" + query, headers={"Authorization": f"Bearer {token}"})


def test_the_route_answers_the_parts_and_refuses_a_bad_query_in_one_line(table):  # noqa: F811
    client, links = table
    version = client.get("/api/state", headers={"Authorization": f"Bearer {links['gm']}"}).json()["version"]
    moved = client.post(
        "/api/do",
        json={"version": version, "text": "move ari 2,2"},
        headers={"Authorization": f"Bearer {links['gm']}"},
    )
    assert moved.status_code == 200, moved.text
    full = events(client, links["blue"], "").json()
    since = events(client, links["blue"], f"?after={version}").json()
    assert since["after"] == version and since["events"] == [e for e in full["events"] if e["seq"] > version]
    newest = events(client, links["blue"], "?limit=2").json()
    assert newest["events"] == full["events"][-len(newest["events"]) :]
    assert newest["older"] == full["version"] - 1
    bounded = events(client, links["blue"], f"?after={version}&before=2&limit=50").json()  # before: not read
    assert bounded["events"] == since["events"] and bounded["after"] == version
    away = events(client, links["blue"], "?after=1&limit=2").json()  # more new records than the limit
    assert "after" not in away and away["events"] == newest["events"]
    for query, names in [
        ("?after=x", "after"),
        ("?after=-1", "after"),
        ("?before=0", "before"),
        ("?limit=0", "limit"),
        ("?limit=1001", "limit"),
        ("?after=3&limit=0", "limit"),
    ]:
        bad = events(client, links["blue"], query)
        assert bad.status_code == 400, query
        assert names in bad.json()["message"] and "\n" not in bad.json()["message"], query


def test_one_move_is_a_small_answer_however_long_the_log(table):  # noqa: F811
    client, links = table
    headers = {"Authorization": f"Bearer {links['gm']}", "Accept-Encoding": "gzip"}
    places = {"ari": ["3,1", "1,1"], "bo": ["2,3", "2,1"], "cyn": ["9,5", "10,6"], "dax": ["9,1", "10,1"]}
    sizes: dict[str, list[int]] = {}
    for n in range(48):
        board = client.get("/api/state", headers=headers).json()
        active = next(f["id"] for f in board["fighters"] if f["active"])
        text = f"move {active} {places[active][n // 8 % 2]}" if n % 2 == 0 else "end-turn"
        done = client.post("/api/do", json={"version": board["version"], "text": text}, headers=headers)
        assert done.status_code == 200, (text, done.text)
        with client.stream("GET", f"/api/events?after={board['version']}", headers=headers) as got:
            body = b"".join(got.iter_raw())
        sizes.setdefault(text, []).append(len(gzip.decompress(body)))
    moves = {text: sent for text, sent in sizes.items() if text.startswith("move")}
    assert all(max(sent) < 2048 and max(sent) - min(sent) <= 16 for sent in moves.values()), moves


def test_the_lines_of_a_range_are_those_of_the_whole_list_from_any_record():
    enc = new_encounter()
    for text in [
        "move ari 3,1",
        "end-turn",
        "move bo 2,3",
        "end-turn",
        "undo",
        "redo",
        'forbid 6,6 why="moved"',
    ]:
        assert run(enc, text), text
    for w in WHO:
        every = views.records(enc, w.role)
        for start in range(len(enc.records) + 1):
            for stop in (start + 1, start + 3, None):
                expected = [e for e in every if start < e["seq"] <= (stop or len(enc.records))]
                assert views.records(enc, w.role, start, stop) == expected, (w.role, start, stop)
    assert Part() == WHOLE


def test_a_line_said_twice_in_a_row_is_said_once_in_a_range_as_in_the_whole_list(monkeypatch):
    """A player's list leaves out a line that says what the one before it in its batch said; a range
    that starts after such a line leaves it out too (the line before the range is looked at)."""
    enc = new_encounter()
    for text in ["move ari 3,1", "end-turn", "move bo 2,3", "end-turn"]:
        assert run(enc, text), text
    record = views.record

    def alike(enc, r, w=None, role=GM):  # noqa: ANN001, ANN202
        line = record(enc, r, w, role)
        return {**line, "text": f"batch {r.batch} said"} if r.seq % 3 else line

    monkeypatch.setattr(views, "record", alike)
    for w in WHO[1:]:
        every = views.records(enc, w.role)
        assert len(every) < len(enc.records)  # some lines were said twice in a row
        for start in range(len(enc.records) + 1):
            expected = [e for e in every if e["seq"] > start]
            assert views.records(enc, w.role, start) == expected, (w.role, start)
