"""The contract run shared by tests/web/test_contract_schemathesis.py and benchmarks/contract_long.py.

A real server (uvicorn on 127.0.0.1, a free port, the configuration `tabletrail
serve` uses) on a temporary encounter; schemathesis reads its /openapi.json and
sends, for every operation and each token (the GM's, a player's), examples drawn
from the document's own schemas, positive and negative. Each answer is checked:
no 5xx, the status and the body are the document's, and a request answered with
an error appended nothing to the log. (No tests here.)
"""

from __future__ import annotations

import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from tabletrail.web.api import stream as api_stream
from tabletrail.web.guard import config
from tabletrail.web.server import create_app

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@contextmanager
def served(log: Path) -> Iterator[str]:
    """The table view of `log` on a free port of 127.0.0.1; its base URL while it runs."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    app = create_app(log)
    server = uvicorn.Server(config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    kept = api_stream.STREAM_SECONDS
    api_stream.STREAM_SECONDS = 0.2  # a stream the run asks for ends at once
    thread.start()
    try:
        for _ in range(200):  # a guard against a server that never starts, not a measurement
            if server.started:
                break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        api_stream.STREAM_SECONDS = kept
        app.state.table.closing.set()
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@dataclass
class Figures:
    """What a run did: examples sent, answers per status, and every failure (operation, role, what)."""

    examples: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    unsatisfiable: int = 0  # operation x role x mode with no example to draw (no negatives of nothing)


def lines(log: Path) -> int:
    return len(log.read_bytes().splitlines())


def run(
    base: str,
    tokens: dict[str, str],
    log: Path,
    examples: int,
    modes: tuple[GenerationMode, ...] = (
        GenerationMode.POSITIVE,
        GenerationMode.NEGATIVE,
    ),
) -> Figures:
    """Every operation of the served document, `examples` examples per operation, role and mode."""
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    figures = Figures()
    scripted(schema, base, tokens["gm"], log, figures)
    for result in schema.get_all_operations():
        op = result.ok()
        for role, token in tokens.items():
            headers = {"Authorization": f"Bearer {token}"}
            for mode in modes:
                _one(op, mode, base, headers, log, examples, f"{op.label} as {role} ({mode.value})", figures)
    return figures


def _one(op, mode, base, headers, log, examples, label, figures) -> None:  # noqa: ANN001 - schemathesis' own
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    @given(case=op.as_strategy(generation_mode=mode))
    def check(case) -> None:  # noqa: ANN001
        before = lines(log)
        response = case.call(base_url=base, headers=headers, timeout=30)
        figures.examples += 1
        figures.statuses[response.status_code] += 1
        try:
            case.validate_response(response, checks=CHECKS)
        except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - each failure is kept, named; the run goes on
            found = exc.exceptions if isinstance(exc, BaseExceptionGroup) else (exc,)
            for one in found:
                said = " ".join(str(one).split())[:300]
                figures.failures.append(f"{label}: {type(one).__name__}: {said} [{case.as_curl_command()}]")
        if response.status_code >= 400 and lines(log) != before:
            figures.failures.append(f"{label}: answered {response.status_code} but appended to the log")

    try:
        check()
    except Unsatisfiable:  # nothing to make wrong (an operation without parameters or body): no negatives
        figures.unsatisfiable += 1


# Writes the rules accept, refuse or find stale, in order: drawn examples seldom name a legal command at
# the log's exact version, so these make sure each write's 200, 409 and 422 answers meet the document too.
SCRIPT = [
    ("POST", "/api/preview", {"text": "move ari 2,2"}, 200),
    ("POST", "/api/do", {"version": 4, "text": "move ari 2,2"}, 200),
    ("POST", "/api/do", {"version": 4, "text": "move ari 3,2"}, 409),
    ("POST", "/api/do", {"version": None, "text": "move ari 9,4"}, 422),
    ("POST", "/api/undo", {"version": None}, 200),
    ("POST", "/api/redo", {"version": None}, 200),
    ("POST", "/api/undo", {"version": None, "command_id": "retry-key-1"}, 200),
    ("POST", "/api/undo", {"version": None, "command_id": "retry-key-1"}, 200),
    ("GET", "/api/events/5", None, 200),
]


def scripted(schema: schemathesis.BaseSchema, base: str, token: str, log: Path, figures: Figures) -> None:
    """The SCRIPT's requests as the GM, each answer checked as a drawn example's is."""
    headers = {"Authorization": f"Bearer {token}"}
    for method, path, body, status in SCRIPT:
        op = schema.find_operation_by_path(
            method, "/api/events/{seq}" if path.startswith("/api/events/") else path
        )
        if body is not None and body.get("version", 0) is None:  # the log's version now
            body = {**body, "version": len(log.read_bytes().splitlines())}
        given: dict[str, Any] = {"body": body, "media_type": "application/json"} if body is not None else {}
        if "{seq}" in op.path:
            given["path_parameters"] = {"seq": 5}
        case = op.Case(**given)
        before = lines(log)
        response = case.call(base_url=base, headers=headers, timeout=30)
        figures.examples += 1
        figures.statuses[response.status_code] += 1
        label = f"scripted {method} {path} {body}"
        if response.status_code != status:
            figures.failures.append(
                f"{label}: answered {response.status_code}, not {status}: {response.text[:200]}"
            )
        try:
            case.validate_response(response, checks=CHECKS)
        except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001
            figures.failures.append(f"{label}: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
        if response.status_code >= 400 and lines(log) != before:
            figures.failures.append(f"{label}: answered {response.status_code} but appended to the log")
