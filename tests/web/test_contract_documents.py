"""The open contract (issue 30, items 1 and 3): /openapi.json and /asyncapi.json, generated from the route
table, the same without a server, and a live stream that resumes where a client left it."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from starlette.testclient import TestClient
from support_web import bearer, invite, new_log
from tabletrail.web import answers, bodies
from tabletrail.web.contract import asyncapi, documents, openapi
from tabletrail.web.routes import ROUTES
from tabletrail.web.server import create_app


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return new_log(tmp_path)


def test_every_route_of_the_table_is_in_the_document_with_its_role_and_answers():
    doc = openapi()
    assert doc["openapi"] == "3.1.0"
    listed = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    assert listed == {(e.method, e.path) for e in ROUTES}
    do = doc["paths"]["/api/do"]["post"]
    assert do["x-role"] == "player" and do["security"] == [{"invite": []}]
    assert set(do["responses"]) == {"200", "400", "401", "403", "404", "409", "413", "415", "422"}
    assert do["responses"]["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Refused"
    }
    assert doc["paths"]["/api/invites"]["post"]["x-role"] == "gm"
    assert doc["paths"]["/api/stream"]["get"]["security"] == [{"invite": []}, {"invite_in_address": []}]
    assert doc["components"]["securitySchemes"]["invite"] == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "tt1.<id>.<secret>",
        "description": "an invitation link's token (tabletrail invite, or the GM page's Links)",
    }


def test_the_schemas_are_msgspecs_own():
    doc = openapi()
    _, components = msgspec.json.schema_components(
        [answers.Board, bodies.InviteBody], ref_template="#/components/schemas/{name}"
    )
    for name in ("Board", "InviteBody", "FighterView"):
        assert doc["components"]["schemas"][name] == components[name]
    hours = doc["components"]["schemas"]["InviteBody"]["properties"]["hours"]
    assert {"type": "number", "exclusiveMinimum": 0, "maximum": bodies.MAX_HOURS} in hours["anyOf"]


def test_the_served_documents_are_the_ones_made_without_a_server(log: Path):
    client = TestClient(create_app(log), base_url="http://127.0.0.1")
    assert client.get("/openapi.json").json() == json.loads(json.dumps(documents()["openapi"]))
    assert client.get("/asyncapi.json").json() == json.loads(json.dumps(asyncapi()))


def test_the_answers_the_page_reads_conform_to_their_types(log: Path):
    """The board, the event list, the reach and a write, as sent, decode as the types the document names."""
    client = TestClient(create_app(log), base_url="http://127.0.0.1", headers=bearer(invite(log, "gm")[1]))
    done = client.post("/api/do", json={"version": 4, "text": "move ari 2,2"})
    msgspec.json.decode(done.content, type=answers.Written)
    msgspec.json.decode(client.get("/api/state").content, type=answers.Board)
    msgspec.json.decode(client.get("/api/events").content, type=answers.EventList)
    msgspec.json.decode(client.get("/api/events/5").content, type=answers.Explanation)
    msgspec.json.decode(client.get("/api/reach?fighter=ari").content, type=answers.ReachArea)
    msgspec.json.decode(
        client.post("/api/preview", json={"text": "move ari 3,2"}).content, type=answers.DryRun
    )
    refused = client.post("/api/do", json={"version": done.json()["version"], "text": "move ari 9,4"})
    assert refused.status_code == 422
    msgspec.json.decode(refused.content, type=answers.Refused)


def sse(text: str) -> list[dict[str, str]]:
    """The events of a stream's text, each as its fields (comments and the retry line left out)."""
    out = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and line[0] != ":")
        if "event" in fields:
            out.append(fields)
    return out


def test_the_stream_says_each_version_with_its_id_and_every_payload_is_the_documents(log: Path):
    client = TestClient(create_app(log), base_url="http://127.0.0.1", headers=bearer(invite(log, "blue")[1]))
    events = sse(client.get("/api/stream?seconds=0").text)
    assert events == [{"event": "version", "id": "4", "data": '{"version": 4}'}]
    doc = asyncapi()
    assert doc["components"]["messages"]["version"]["payload"] == {
        "$ref": "#/components/schemas/VersionEvent"
    }
    assert doc["components"]["schemas"]["VersionEvent"]["required"] == ["version"]
    assert msgspec.json.decode(events[0]["data"], type=answers.VersionEvent).version == 4


def test_a_client_resuming_with_last_event_id_misses_no_move_and_gets_none_twice(log: Path):
    gm = TestClient(create_app(log), base_url="http://127.0.0.1", headers=bearer(invite(log, "gm")[1]))
    assert sse(gm.get("/api/stream?seconds=0", headers={"Last-Event-ID": "4"}).text) == [], "it has 4"
    moved = gm.post("/api/do", json={"version": 4, "text": "move ari 2,2"}).json()["version"]
    again = sse(gm.get("/api/stream?seconds=0", headers={"Last-Event-ID": "4"}).text)
    assert again == [{"event": "version", "id": str(moved), "data": json.dumps({"version": moved})}]
    assert sse(gm.get("/api/stream?seconds=0", headers={"Last-Event-ID": "junk"}).text)[0]["id"] == str(moved)
    assert sse(gm.get("/api/stream?seconds=0&last=4", headers={"Last-Event-ID": str(moved)}).text), (
        "?last wins"
    )
