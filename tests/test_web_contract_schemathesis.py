"""The served API keeps its own contract: schemathesis against a real server (issue 30, item 4).

The server is real (uvicorn on 127.0.0.1, a free port) on a temporary encounter;
schemathesis reads /openapi.json and sends examples drawn from the document's
schemas to every operation, as the GM and as a player, positive and negative.
No answer is a 5xx, every status and body is the document's, and an answer that
refuses or rejects a request appended nothing to the log. The auth the document
describes is enforced: without a token every guarded operation is a 401, a
player's token on a GM operation a 403. A bounded run (EXAMPLES per operation,
role and mode); benchmarks/contract_long.py runs a long one and prints its counts.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from support_contract import run, served
from test_web_support import bearer, invite, new_log

EXAMPLES = 2


@pytest.fixture
def table(tmp_path: Path):  # noqa: ANN201
    log = new_log(tmp_path)
    tokens = {"gm": invite(log, "gm")[1], "blue": invite(log, "blue")[1]}
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
