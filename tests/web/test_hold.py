"""A request looks at the log once (app/web/table.py's Hold): one version throughout its answer.

A POST asks for the live encounter at its version check, the command's check, the
write and the answer; a hosted table asked its database each time. A command
another program appended in between is still caught: the write carries the
version it was decided on, and the page is told the version it missed.
"""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient
from support_store import fresh
from tabletrail.events.commands import EndTurn
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.service.encounter import Encounter
from tabletrail.web.invites import GM
from tabletrail.web.server import create_app


class Counting(SqliteStore):
    """A SQLite encounter that counts how often it is asked for its version."""

    asked = 0
    before_append = None

    def version(self) -> int:
        Counting.asked += 1
        return super().version()

    def append(self, lines, *, expected=None) -> None:  # type: ignore[no-untyped-def]
        if Counting.before_append is not None:
            meddle, Counting.before_append = Counting.before_append, None
            meddle()
        super().append(lines, expected=expected)


def table(tmp_path: Path) -> tuple[TestClient, dict[str, str], Path]:
    path = tmp_path / "fight.sqlite"
    fresh(SqliteStore(path)).store.close()
    app = create_app(path, store=Counting(path))
    token = app.state.table.invites.make(GM)[1]
    return TestClient(app, base_url="http://127.0.0.1"), {"Authorization": f"Bearer {token}"}, path


def test_a_command_asks_the_store_for_its_version_once(tmp_path: Path):
    client, gm, _ = table(tmp_path)
    Counting.asked = 0
    done = client.post("/api/do", json={"version": 4, "text": "move ari 2,2"}, headers=gm)
    assert done.status_code == 200 and done.json()["version"] > 4
    assert Counting.asked == 1, "its version check, its command, its write and its answer: one look"
    Counting.asked = 0
    assert client.get("/api/state", headers=gm).json()["version"] == done.json()["version"]
    assert Counting.asked == 1, "the next request looks again"


def test_a_command_another_program_appended_meanwhile_is_a_409_with_the_version_missed(tmp_path: Path):
    client, gm, path = table(tmp_path)

    def another_screen() -> None:
        other = Encounter.open(SqliteStore(path))
        other.execute(EndTurn(), "end-turn")

    Counting.before_append = another_screen
    late = client.post("/api/do", json={"version": 4, "text": "move ari 2,2"}, headers=gm)
    theirs = len(Encounter.open(SqliteStore(path)).records)
    assert late.status_code == 409 and late.json()["version"] == theirs > 4
    assert client.get("/api/state", headers=gm).json()["version"] == theirs, "nothing of ours appended"
