"""A hosted worker's pages read an encounter's board and event list one at a time (issue 40).

- many pages asking at once are all answered, each its side's board and list, and the gate
  is open again afterwards;
- the gate opens once an answer starts: a page slow to read its answer holds up no other page;
- an answer that fails before it starts opens the gate too;
- a POST or a live stream never waits at the gate.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from starlette.types import Message, Receive, Scope, Send
from support_postgres import url
from support_store import fresh
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.web.hosted import Encounters, create_hosted_app
from tabletrail.web.invites import GM, Invites, encounter_key, keep_for
from tabletrail.web.server import LOCAL_HOSTS


@pytest.fixture
def database(pg_schema: str) -> str:
    fresh(PostgresStore(url(pg_schema, "cellar"))).store.close()
    return url(pg_schema, None)


def _tokens(database: str) -> dict[str, str]:
    store = PostgresStore(f"{database}&encounter=cellar")
    invites = Invites(keep_for(store.name, store), encounter_key(store))
    return {role: invites.make(role)[1] for role in (GM, "blue", "red")}


def test_pages_asking_at_once_each_get_their_sides_answer(database: str) -> None:
    tokens = _tokens(database)
    app = create_hosted_app(database)

    async def main() -> list[tuple[str, str, int, bytes]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:

            async def ask(role: str, what: str) -> tuple[str, str, int, bytes]:
                answer = await client.get(
                    f"/e/cellar/api/{what}", headers={"Authorization": f"Bearer {tokens[role]}"}
                )
                return role, what, answer.status_code, answer.content

            asks = [ask(role, what) for _ in range(3) for role in tokens for what in ("state", "events")]
            return list(await asyncio.gather(*asks))

    answers = asyncio.run(main())
    assert {status for _, _, status, _ in answers} == {200}
    for role in tokens:  # every page of a side got the same board and the same list
        for what in ("state", "events"):
            assert len({body for r, w, _, body in answers if (r, w) == (role, what)}) == 1
    assert not app.state.tables.gates["cellar"].locked()


def _scope(what: str, method: str = "GET") -> Scope:
    return {"type": "http", "method": method, "path": f"/e/cellar/api/{what}", "path_params": {}}


async def _nothing() -> Message:
    return {"type": "http.disconnect"}


def test_the_gate_opens_once_an_answer_starts() -> None:
    tables = Encounters("postgresql://nobody@127.0.0.1/none", LOCAL_HOSTS)
    started, finish = asyncio.Event(), asyncio.Event()
    sent: list[str] = []

    async def slow_reader(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        started.set()
        await finish.wait()  # the body waits, as for a page that does not read
        await send({"type": "http.response.body", "body": b"{}"})

    async def quick(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def record(message: Message) -> None:
        sent.append(str(message["type"]))

    async def main() -> None:
        first = asyncio.create_task(tables._gated("cellar", slow_reader, _scope("events"), _nothing, record))
        await started.wait()
        await tables._gated("cellar", quick, _scope("state"), _nothing, record)
        assert not first.done()  # the second page was answered while the first still read
        finish.set()
        await first

    asyncio.run(main())
    assert sent.count("http.response.body") == 2
    assert not tables.gates["cellar"].locked()


def test_an_answer_that_fails_before_it_starts_opens_the_gate() -> None:
    tables = Encounters("postgresql://nobody@127.0.0.1/none", LOCAL_HOSTS)

    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("the handler failed")

    async def record(message: Message) -> None:
        pass

    with pytest.raises(RuntimeError):
        asyncio.run(tables._gated("cellar", broken, _scope("state"), _nothing, record))
    assert not tables.gates["cellar"].locked()


def test_a_post_or_a_stream_never_waits_at_the_gate() -> None:
    tables = Encounters("postgresql://nobody@127.0.0.1/none", LOCAL_HOSTS)
    answered: list[str] = []

    async def table(scope: Scope, receive: Receive, send: Send) -> None:
        answered.append(f"{scope['method']} {scope['path']}")

    tables.apps["cellar"] = table  # type: ignore[assignment]  # an encounter open, its app a stand-in

    async def main() -> None:
        gate = tables.gates["cellar"] = asyncio.Lock()
        await gate.acquire()  # a page's read in progress
        for what, method in (("do", "POST"), ("stream", "GET")):
            scope = {**_scope(what, method), "path_params": {"encounter": "cellar"}}
            await tables(scope, _nothing, _record_nothing)
        gate.release()

    asyncio.run(main())
    assert answered == ["POST /e/cellar/api/do", "GET /e/cellar/api/stream"]


async def _record_nothing(message: Message) -> None:
    pass
