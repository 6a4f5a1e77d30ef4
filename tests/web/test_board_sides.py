"""Every side's board is made from the GM's board of the same version (issue 40, hosted capacity).

A hosted worker answers the GM and each player side of a table after every move; the fighters'
cards were most of each board, so they are made once a version (api_board.board_for) and a side's
board is the GM's with what views.board makes differ by side replaced. Whatever the log holds
(moves, turns, undos and redos at any depth, rulings whose reasons a player's board is scrubbed
of), each side's board is byte for byte the one views.board and redact.board make for it.
"""

from __future__ import annotations

import asyncio
import json
import threading

import httpx
import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabletrail.events.commands import EndTurn
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.service.encounter import Encounter
from tabletrail.web import redact, views
from tabletrail.web.api import board as api_board
from tabletrail.web.api.audit import Part, answer
from tabletrail.web.api.board import board_for

from tests.web.test_events_after import COMMANDS, WHO, new_encounter, run
from tests.web.test_heard_board import served  # noqa: F401  (the fixture: a listening hosted table view)
from tests.web.test_hosted import database  # noqa: F401  (its fixture)


class Held:
    """Stands for the table the GM's board is kept for (any object a weak reference can name)."""


def made(enc, version: int, role: str, held: Held) -> bytes:  # noqa: ANN001
    who = next(w for w in WHO if w.role == role)
    return msgspec.json.encode(redact.board(who, enc, board_for(held, enc, version, role)))  # type: ignore[arg-type]


def expected(enc, version: int, role: str) -> bytes:  # noqa: ANN001
    who = next(w for w in WHO if w.role == role)
    return msgspec.json.encode(redact.board(who, enc, views.board(enc, version, role)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(COMMANDS), max_size=14), st.permutations([w.role for w in WHO]))
def test_every_side_reads_the_board_views_makes(commands: list[str], order: list[str]) -> None:
    """After each command, in any order of sides asking, each side's board is views.board's exactly."""
    enc = new_encounter()
    held = Held()
    for text in [None, *commands]:
        if text is not None:
            run(enc, text)
        version = len(enc.records)
        for role in order:
            assert made(enc, version, role, held) == expected(enc, version, role), (text, role)


def test_a_board_is_never_one_of_another_encounter_or_version() -> None:
    """The GM's board kept for a table is taken only for the same encounter at the same version."""
    held = Held()
    first, second = new_encounter(), new_encounter()
    run(first, "move ari 3,1")
    board_for(held, first, len(first.records), "blue")  # type: ignore[arg-type]
    assert made(held=held, enc=second, version=len(second.records), role="blue") == expected(
        second, len(second.records), "blue"
    )
    run(second, "move bo 2,3")
    assert made(held=held, enc=second, version=len(second.records), role="red") == expected(
        second, len(second.records), "red"
    )


def test_a_board_makes_what_changed_in_the_list_since_the_version_folded_before(served, monkeypatch):  # noqa: ANN001, F811
    """After a move, the page that asks for the board asks next for what changed in its list since the
    version it held: made with the board (one thread for both), the same bytes as made alone."""
    served.heard(4)
    served.board("blue", seen=4)  # this worker folded version 4
    elsewhere = Encounter.open(PostgresStore(served.store.name, private=True))
    elsewhere.execute(EndTurn(), "end-turn")
    now = len(elsewhere.records)
    served.heard(now)
    made: list[str] = []
    records = views.records
    monkeypatch.setattr(views, "records", lambda enc, role, *at: made.append(role) or records(enc, role, *at))
    served.board("blue", seen=now)
    assert made == ["blue"], "what changed since 4 is made with the board"
    headers = {"Authorization": f"Bearer {served.links['blue 2']}", "Accept-Encoding": "gzip"}
    got = served.client.get(f"/api/events?after=4&seen={now}", headers=headers)
    assert got.status_code == 200 and made == ["blue"], "answered from what the board's thread made"
    enc = served.table.live()
    who = served.table.invites.check(served.links["blue 2"])
    assert got.json() == json.loads(json.dumps(answer(who, enc, Part(after=4))))
    assert got.json()["after"] == 4 and [e["seq"] for e in got.json()["events"]] == list(range(5, now + 1))


def test_pages_of_a_side_asking_together_send_one_thread(served, monkeypatch):  # noqa: ANN001, F811
    """While a thread makes a side's board, the side's other pages wait for it on the event loop: one
    thread a side and version, each page still answered with its own link."""
    served.heard(4)
    threads: list[str] = []
    release = threading.Event()
    made = api_board._state

    def slow(call, heard):  # noqa: ANN001, ANN202
        threads.append(call.user.role)
        release.wait(10)  # every page has asked by now (a guard against never, not a measurement)
        return made(call, heard)

    monkeypatch.setattr(api_board, "_state", slow)

    async def ask_together() -> list[dict]:
        transport = httpx.ASGITransport(app=served.client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:

            async def board(who: str) -> dict:
                link = {"Authorization": f"Bearer {served.links[who]}"}
                return (await client.get("/api/state?seen=4", headers=link)).json()

            async def let_go() -> None:
                while len(threads) < 1:
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.1)  # the other pages' requests reach the wait
                release.set()

            *boards, _ = await asyncio.gather(board("blue"), board("blue 2"), board("blue"), let_go())
            return boards

    boards = asyncio.run(ask_together())
    assert threads == ["blue"], "one thread made the side's board"
    assert [b["version"] for b in boards] == [4, 4, 4]
    assert boards[1]["me"]["invite"] != boards[0]["me"]["invite"] == boards[2]["me"]["invite"]
