"""`GET /api/bundle` does bounded work (issue 36, item 3): a bundle is made once per share (the GM's,
a side's, the watchers') and version, and every request of that share and version is answered from
what was made; a long log's is made in the background, its requests answered at once meanwhile.

Builds are counted (bundle.make wrapped), never timed; the long log is bench_log.py's generator's."""

from __future__ import annotations

import json
import re
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support_bundle import ROOT
from tabletrail import bundle
from tabletrail.cli import main

pytest.importorskip("starlette", reason="the web extra is not installed")
from starlette.testclient import TestClient  # noqa: E402
from support_web import bearer, invite  # noqa: E402
from tabletrail.web.api import bundle as api_bundle  # noqa: E402
from tabletrail.web.server import create_app  # noqa: E402

LONG = 50_000
HEAD = re.compile(rb'<script type="application/json" id="tt-head">([^<]*)</script>')


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of at least 50,000 events, every line from executing a command."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_log import fresh, play

    enc = play(fresh(), LONG)
    path = tmp_path_factory.mktemp("long") / "long.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in enc.store.lines))
    return path


class Counted:
    """bundle.make, counted; with `gate`, each build waits for it before it starts its work."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, gate: threading.Event | None = None) -> None:
        self.builds: list[tuple[str, int]] = []
        self.gate = gate
        self.real = bundle.make
        monkeypatch.setattr(bundle, "make", self)

    def __call__(self, store, *, role, upto, **kw) -> bundle.Made:  # noqa: ANN001
        self.builds.append((role, upto))
        if self.gate is not None:
            assert self.gate.wait(60), "the test never let the build go on"
            n = upto
            head = {"name": "long", "first": 1, "last": n, "length": n, "role": role, "withheld": []}
            return bundle.Made(head, "", "")  # the made bundle stands in: what is counted is the work
        return self.real(store, role=role, upto=upto, **kw)


def all_made() -> None:
    for bundles in list(api_bundle.TABLES.values()):
        for job in list(bundles.jobs.values()):
            assert job.done.wait(60)


@pytest.fixture
def client_for() -> Iterator:
    made: list[TestClient] = []

    def make_client(log: Path, role: str) -> TestClient:
        app = create_app(log)
        client = TestClient(app, base_url="http://127.0.0.1:8000", headers=bearer(invite(log, role)[1]))
        made.append(client)
        return client

    yield make_client
    all_made()


def test_a_players_request_on_a_long_log_is_answered_at_once_and_the_bundle_made_once(
    long_log: Path, client_for, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()
    counted = Counted(monkeypatch, gate)
    blue = client_for(long_log, "blue")
    length = len(long_log.read_bytes().splitlines())
    assert length >= LONG
    first = blue.get("/api/bundle")  # the build is held at its gate: this answer can't have waited for it
    assert first.status_code == 503 and first.headers["retry-after"]
    said = first.json()["message"]
    assert f"{length:,} events long" in said and "--from N --to M" in said
    second = blue.get("/api/bundle?at=12")
    assert second.status_code == 503
    assert counted.builds == [("blue", length)]  # the second request joined the first's build
    gate.set()
    all_made()
    done = blue.get("/api/bundle?at=12")
    assert done.status_code == 200 and done.headers["content-type"].startswith("text/html")
    assert done.headers["content-disposition"].endswith('-blue.html"')
    assert json.loads(HEAD.search(done.content).group(1))["at"] == 12
    assert blue.get("/api/bundle").status_code == 200
    assert counted.builds == [("blue", length)]  # served from what was made


def test_concurrent_requests_of_a_short_log_wait_for_one_build(
    tmp_path: Path, client_for, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "bridge.jsonl"
    shutil.copy(ROOT / "replays" / "initiative-yards-ruined-bridge.jsonl", log)
    gate = threading.Event()
    counted = Counted(monkeypatch)
    real = counted.real
    counted.real = lambda *a, **kw: (gate.wait(60), real(*a, **kw))[1]
    gm = client_for(log, "gm")
    answers: list[int] = []

    def ask() -> None:
        answers.append(gm.get("/api/bundle").status_code)

    asking = [threading.Thread(target=ask) for _ in range(3)]
    for t in asking:
        t.start()
    while not counted.builds:  # the first request's build has begun, and waits at the gate
        threading.Event().wait(0.01)
    gate.set()
    for t in asking:
        t.join(60)
    assert answers == [200, 200, 200]
    version = len(log.read_bytes().splitlines())
    assert counted.builds == [("gm", version)]
    watcher = client_for(log, "watcher")
    assert watcher.get("/api/bundle").status_code == 200  # another share: its own build
    assert main(["do", str(log), "end-turn"]) == 0  # the log moves on: the next request makes it anew
    assert gm.get("/api/bundle").status_code == 200
    assert counted.builds[:2] == [("gm", version), ("watcher", version)]
    assert len(counted.builds) == 3 and counted.builds[2][0] == "gm" and counted.builds[2][1] > version
