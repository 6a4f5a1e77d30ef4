"""`serve URL` runs a worker per core the process may use (at most 4) unless --workers says otherwise;
a log file or a folder is served by one process, as before (issue 40: on 2 cores, 2 workers held 500
tables at the p99 of 4 on less CPU and memory)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support_web import new_log
from tabletrail.cli import main
from tabletrail.cli import serve as serve_cli
from tabletrail.cli.serve import MOST_DEFAULT_WORKERS, default_workers

URL = "postgresql://postgres@127.0.0.1/test"


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 2), (3, 3), (16, MOST_DEFAULT_WORKERS)])
def test_the_default_is_a_worker_a_usable_core_at_most_four(
    monkeypatch: pytest.MonkeyPatch, cores: int, workers: int
):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)  # the machine's cores; the process may use fewer
    assert default_workers() == workers


def test_without_affinity_the_machines_cores_count(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert default_workers() == 2
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert default_workers() == 1


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """What cmd_serve would have started, instead of starting it: (which server, its arguments)."""
    calls: list[tuple[str, Any]] = []
    import tabletrail.web.hosted as hosted
    import tabletrail.web.server as server

    monkeypatch.setattr(hosted, "serve_hosted", lambda *a, **k: calls.append(("hosted", a)))
    monkeypatch.setattr(server, "serve", lambda *a, **k: calls.append(("one log", a)))
    monkeypatch.setattr(serve_cli, "default_workers", lambda: 3)
    return calls


def test_a_database_gets_the_default_and_an_explicit_count_wins(served: list[tuple[str, Any]]):
    assert main(["serve", URL, "--port", "8123"]) == 0
    assert main(["serve", URL, "--port", "8123", "--workers", "1"]) == 0
    assert main(["serve", URL, "--port", "8123", "--workers", "6"]) == 0
    assert [(kind, args[2]) for kind, args in served] == [("hosted", 3), ("hosted", 1), ("hosted", 6)]


def test_a_log_file_stays_one_process(
    served: list[tuple[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = new_log(tmp_path)
    assert main(["serve", str(log), "--port", "8123"]) == 0
    assert [kind for kind, _ in served] == ["one log"]
    assert main(["serve", str(log), "--port", "8123", "--workers", "2"]) == 2
    assert "--workers needs a PostgreSQL database" in capsys.readouterr().err


def test_the_help_says_what_the_default_is(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert f"default: one a core this process may use, at most {MOST_DEFAULT_WORKERS}" in said
    assert "(a log file or folder: 1)" in said
