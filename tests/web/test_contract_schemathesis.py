"""The served API keeps its own contract: schemathesis against a real server (issue 30, item 4).

The server is real (uvicorn on 127.0.0.1, a free port) on a temporary encounter;
schemathesis reads /openapi.json and sends examples drawn from the document's
schemas to every operation, as the GM, a player and a watcher, positive and negative.
No answer is a 5xx, every status and body is the document's, and an answer that
refuses or rejects a request appended nothing to the log. The auth the document
describes is enforced: without a token every guarded operation is a 401, a
player's token on a GM operation a 403. A bounded run (EXAMPLES per operation,
role and mode); benchmarks/contract_long.py runs a long one and prints its counts.

schemathesis' own command line then runs as each role with every check it has (issue 36,
item 5: `--checks all` found values the document allowed and the server refused, a bound
the server did not keep, and a 405 whose Allow left out a method): a few examples per
operation here, so drift between the document and the server fails a test.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from support_contract import run, served
from support_contract_cli import run_cli
from support_web import bearer, invite, new_log

EXAMPLES = 2


@pytest.fixture
def table(tmp_path: Path):  # noqa: ANN201
    log = new_log(tmp_path)
    tokens = {
        "gm": invite(log, "gm")[1],
        "blue": invite(log, "blue")[1],
        "watcher": invite(log, "watcher")[1],
    }
    with served(log) as base:
        yield base, tokens, log


def test_every_operation_keeps_the_contract_as_the_gm_and_as_a_player(table):  # noqa: ANN001
    base, tokens, log = table
    figures = run(base, tokens, log, EXAMPLES)
    assert figures.examples > 100, figures
    assert figures.failures == [], "\n".join(figures.failures[:20])
    assert not [s for s in figures.statuses if s >= 500], figures.statuses


def test_auth_is_enforced_as_the_document_says(table):  # noqa: ANN001
    base, tokens, _ = table
    doc = httpx.get(f"{base}/openapi.json").json()
    checked = 0
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            if "{" in path:
                path = path.replace("{seq}", "1").replace("{ident}", "x").replace("{fighter}", "ari")
                path = path.replace("{token}", "t")
            url = f"{base}{path}"
            body = {} if method == "post" else None
            bare = httpx.request(method, url, json=body)
            if not op["security"]:  # the pages anyone may open (one says a link is needed: a 401 page)
                assert bare.status_code < 500 and str(bare.status_code) in op["responses"], (method, path)
                continue
            assert bare.status_code == 401 and "401" in op["responses"], (method, path, bare.status_code)
            as_player = httpx.request(method, url, json=body, headers=bearer(tokens["blue"]))
            if op["x-role"] == "gm":
                assert as_player.status_code == 403 and "403" in op["responses"], (method, path)
            checked += 1
    assert checked >= 15


@pytest.mark.parametrize("role", ["gm", "blue", "watcher"])
def test_every_check_schemathesis_has_passes_as_each_role(table, role: str, tmp_path: Path):  # noqa: ANN001
    base, tokens, _ = table
    ran = run_cli(base, tokens[role], tmp_path, examples=2)
    assert ran.ok, ran.said


def test_a_method_a_path_does_not_declare_is_a_405_naming_every_one_it_does(table):  # noqa: ANN001
    base, tokens, _ = table
    answer = httpx.request("OPTIONS", f"{base}/api/invites", headers=bearer(tokens["gm"]))
    assert answer.status_code == 405
    assert {"GET", "POST"} <= {m.strip() for m in answer.headers["allow"].split(",")}
    made = httpx.post(f"{base}/api/invites", json={"role": "blue"}, headers=bearer(tokens["gm"]))
    assert (
        made.status_code == 200
        and httpx.get(f"{base}/api/invites", headers=bearer(tokens["gm"])).status_code == 200
    )


def test_what_schemathesis_found_is_said_alike_by_the_document_and_the_server(table):  # noqa: ANN001
    """Each value the issue names: the document refuses it and so does the server, or both take it."""
    base, tokens, log = table
    doc = httpx.get(f"{base}/openapi.json").json()
    gm = bearer(tokens["gm"])
    bodies = doc["components"]["schemas"]
    assert "version" in bodies["DoBody"]["required"] and bodies["DoBody"]["properties"]["version"] == {
        "type": "integer"
    }
    assert (
        httpx.post(f"{base}/api/do", json={"version": None, "text": "end-turn"}, headers=gm).status_code
        == 400
    )
    assert [set(b["required"]) for b in bodies["CommandBody"]["oneOf"]] == [{"text"}, {"move"}]
    assert httpx.post(f"{base}/api/preview", json={"text": None, "move": None}, headers=gm).status_code == 400
    pattern = bodies["UndoBody"]["properties"]["command_id"]["anyOf"][0]["pattern"]
    assert pattern == "^[A-Za-z0-9_-]{8,64}$"
    assert (
        httpx.post(f"{base}/api/undo", json={"version": 4, "command_id": ""}, headers=gm).status_code == 400
    )
    for path in ("/api/state", "/api/bundle"):
        [at] = [p for p in doc["paths"][path]["get"]["parameters"] if p["name"] == "at"]
        assert at["schema"]["minimum"] == 1
        assert httpx.get(f"{base}{path}?at=0", headers=gm).status_code == 400
    [seconds] = [p for p in doc["paths"]["/api/stream"]["get"]["parameters"] if p["name"] == "seconds"]
    assert "maximum" not in seconds["schema"], (
        "a longer stream is ended at STREAM_SECONDS, as the document says"
    )
    assert httpx.get(f"{base}/api/stream?seconds=31", headers=gm).status_code == 200
