"""A hosted server keeps a page's idle connection past a table's pace of moves (issue 40).

A page fetches its board and event list after every move on a connection of its own. Closed
after uvicorn's default 5 s, every fetch of a table moving every 10 s paid a new connection,
and a client sending just as the server closed it got a broken read.
"""

from __future__ import annotations

from typing import Any

import pytest
from tabletrail.web import hosted


def test_serve_hosted_keeps_idle_connections_past_a_tables_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: dict[str, Any] = {}
    monkeypatch.setattr(hosted, "encounters", lambda url: [])
    monkeypatch.setattr(hosted, "home_link", lambda url: "secret")
    monkeypatch.setattr(hosted.uvicorn, "run", lambda app, **options: ran.update(options, app=app))
    monkeypatch.setenv(hosted.DATABASE_ENV, "")  # serve_hosted sets both for its workers: restored after
    monkeypatch.setenv(hosted.HOSTS_ENV, "[]")
    hosted.serve_hosted("postgresql://nobody@127.0.0.1/none", 8000, workers=2)
    assert ran["app"] == "tabletrail.web.hosted:from_env" and ran["workers"] == 2
    assert ran["timeout_keep_alive"] == hosted.KEEP_ALIVE_SECONDS >= 60
