"""numpy and scipy are imported when a server starts, not when the first player taps (issue 29)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tabletrail.core.search import reach


class Called(Exception):
    """Raised by the stand-in warm-up: the serve path reached it before serving anything."""


def test_warm_up_imports_the_compiled_search_and_importing_reach_does_not():
    code = (
        "import sys; from tabletrail.core.search.reach import warm_up; "
        "before = 'scipy.sparse.csgraph' in sys.modules; warm_up(); "
        "print(before, 'scipy.sparse.csgraph' in sys.modules, 'numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True"]


def stand_in() -> None:
    raise Called


def test_serve_warms_up_before_it_opens_the_log(monkeypatch: pytest.MonkeyPatch):
    from tabletrail.web import server

    monkeypatch.setattr(reach, "warm_up", stand_in)
    with pytest.raises(Called):
        server.serve("no-such-log.jsonl", port=0)


def test_each_hosted_worker_warms_up_before_it_builds_its_app(monkeypatch: pytest.MonkeyPatch):
    from tabletrail.web import hosted

    monkeypatch.setattr(reach, "warm_up", stand_in)
    monkeypatch.setenv(hosted.DATABASE_ENV, "postgresql://nowhere/none")
    with pytest.raises(Called):
        hosted.from_env()
