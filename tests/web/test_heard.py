"""What a hosted worker's listener hears spares the database (issue 29, app/web/live.py).

- a NOTIFY's version is the encounter's newest one while the worker listens, and
  nothing heard before a loss of listening is trusted after it;
- the links a worker read are read again only after an "invites" NOTIFY, so a
  link made or revoked through one server is honoured at once by another;
- a page reconnecting to a quiet table, and its keepalives, run no query.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import psycopg
import pytest
from support_postgres import BASE
from tabletrail.web.invites import GM, HeardKeep, Invite
from tabletrail.web.live import Broker

from tests.web.test_hosted import database, gm, quiet_since, serving  # noqa: F401  (the fixture too)


def listening(schema: str = "s") -> Broker:
    broker = Broker("", schema, "tabletrail")
    broker.up = True
    return broker


def test_a_notify_gives_the_version_of_its_own_schema_only_while_listening():
    broker = listening()
    assert broker.version("cellar") is None, "nothing heard yet: the store must be asked"
    broker._heard("s\tcellar\t7")
    broker._heard("other\tcellar\t99")  # another schema's encounter of the same name
    broker._heard("s\tcellar\t5")  # an older notification arriving late never goes back
    assert broker.version("cellar") == 7 and broker.version("bridge") is None
    broker.up = False
    assert broker.version("cellar") is None, "not listening: a change could go unheard"


def test_a_version_read_before_listening_was_lost_is_not_kept():
    broker = listening()
    epoch = broker.epoch
    broker._forget()  # the connection dropped and came back while the read was under way
    broker.note("cellar", 4, epoch)
    assert broker.version("cellar") is None
    broker.note("cellar", 4, broker.epoch)
    assert broker.version("cellar") == 4
    broker._heard("s\tcellar\t6")
    broker.note("cellar", 5, broker.epoch)  # a read that began before the NOTIFY it lost to
    assert broker.version("cellar") == 6


def test_an_invites_notify_changes_the_links_mark_and_wakes_the_streams():
    broker = listening()
    before = broker.links_mark("cellar")
    broker._events["cellar"] = woken = __import__("anyio").Event()
    broker._heard("s\tcellar\tinvites")
    assert broker.links_mark("cellar") != before and woken.is_set()
    assert broker.version("cellar") is None, "a link changed, not the log"
    broker.up = False
    assert broker.links_mark("cellar") is None


class CountingKeep:
    def __init__(self) -> None:
        self.links = [Invite(id="a1", role=GM, digest="0" * 64, made=0.0)]
        self.reads = 0

    def load(self) -> list[Invite]:
        self.reads += 1
        return list(self.links)

    def save(self, invite: Invite) -> None:
        self.links.append(invite)


def test_a_heard_keep_reads_again_only_when_its_mark_moves():
    inner, mark = CountingKeep(), [(1, 0)]
    keep = HeardKeep(inner, lambda: mark[0])
    assert not keep.fresh()
    keep.load(), keep.load()
    assert inner.reads == 1 and keep.fresh()
    mark[0] = (1, 1)  # an "invites" NOTIFY
    assert not keep.fresh() and len(keep.load()) == 1 and inner.reads == 2
    keep.save(Invite(id="b2", role="blue", digest="1" * 64, made=0.0))
    assert [i.id for i in keep.load()] == ["a1", "b2"], "its own save is read back, not the old list"
    mark[0] = None  # not listening: every load asks the store
    keep.load(), keep.load()
    assert inner.reads == 5 and not keep.fresh()


def events(lines: Iterator[str], wanted: int) -> list[tuple[str, dict]]:
    """The next `wanted` named events of a live stream's lines: (kind, data)."""
    got, kind = [], ""
    for line in lines:
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            got.append((kind, json.loads(line.removeprefix("data: "))))
            if len(got) == wanted:
                return got
    return got


def test_a_link_revoked_through_one_server_ends_its_stream_on_another_at_once(database: str):  # noqa: F811
    token, link = gm(database, "cellar")
    with serving(database) as one, serving(database) as two:
        player = httpx.post(f"{one}/e/cellar/api/invites", json={"role": "blue"}, headers=link).json()
        made = httpx.get(f"{two}/e/cellar/api/state", headers={"Authorization": f"Bearer {player['token']}"})
        assert made.status_code == 200, "a link made through one server opens on the other"
        live = f"{two}/e/cellar/api/stream?last=-1&token={player['token']}"
        with httpx.stream("GET", live, timeout=30) as stream:
            lines = stream.iter_lines()
            assert events(lines, 1) == [("version", {"version": 4})]
            gone = httpx.post(f"{one}/e/cellar/api/invites/{player['id']}/revoke", headers=link)
            assert gone.status_code == 200
            began = time.monotonic()
            kind, said = events(lines, 1)[0]
            assert kind == "denied" and said["status"] == 403
            assert time.monotonic() - began < 5, "told by the NOTIFY, not at the stream's end"
        after = httpx.get(f"{two}/e/cellar/api/state", headers={"Authorization": f"Bearer {player['token']}"})
        assert after.status_code == 403


def listening_on(application: str) -> bool:
    with psycopg.connect(BASE, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s AND query LIKE 'LISTEN %%'",
            (application,),
        ).fetchone()
    return bool(row and row[0])


def test_a_page_reconnecting_to_a_quiet_table_runs_no_query(database: str):  # noqa: F811
    application = f"tt-heard-{time.time_ns()}"
    token, _ = gm(database, "cellar")
    with serving(f"{database}&application_name={application}") as one:
        live = f"{one}/e/cellar/api/stream?last=-1&token={token}"
        with httpx.stream("GET", live, timeout=30) as first:
            assert events(first.iter_lines(), 1) == [("version", {"version": 4})]
            for _ in range(100):  # the listener connects on the first stream (a guard, not a measure)
                if listening_on(application):
                    break
                time.sleep(0.1)
            with httpx.stream("GET", live, timeout=30) as warm:  # read once since listening began
                assert events(warm.iter_lines(), 1) == [("version", {"version": 4})]
            time.sleep(1.5)
            assert all(quiet_since(application))
            for _ in range(3):  # pages coming back after their streams ended
                with httpx.stream("GET", live.replace("last=-1", "last=2"), timeout=30) as again:
                    assert events(again.iter_lines(), 1) == [("version", {"version": 4})]
            idle = quiet_since(application)
            assert len(idle) == 2 and all(idle), "the link and the version came from what was heard"


@pytest.mark.parametrize("payload", ["s\tcellar", "s\tcellar\tnot-a-number", "s"])
def test_a_notify_that_is_not_ours_wakes_but_teaches_nothing(payload: str):
    broker = listening()
    broker._heard(payload)
    assert broker.version("cellar") is None
