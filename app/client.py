"""A small typed client of a running table: what a bot, a VTT bridge or `invite` talks to a server with.

Built on the standard library alone (urllib and a hand-read event stream), so a plain `pip install
tabletrail` can drive a table: join with the link the GM gave, read the board, preview and do a
command, follow the live stream. The answers are msgspec Structs of what the server's contract
(`/openapi.json`) promises; fields the server adds later are kept in `raw`.

    from tabletrail.client import Table
    table = Table.join("http://192.168.1.20:8000/join/Xy…")
    board = table.board()
    answer = table.preview("move ari 4,2")
    if answer.ok:
        table.do("move ari 4,2")
    for update in table.follow(seconds=60):
        print("the log is now at", update.version)
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec

TIMEOUT = 10.0  # seconds a request may take before the client gives up


class ClientError(Exception):
    """The server said no (or could not be reached): `status` and its message, in one line."""

    def __init__(self, status: int, message: str, body: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status}: {message}" if status else message)
        self.status = status
        self.message = message
        self.body = body or {}


class Me(msgspec.Struct, frozen=True):
    """Whom a link speaks for."""

    role: str  # a side, "gm", or "watcher" (a view-only link)
    gm: bool
    invite: str
    label: str = ""


class Answer(msgspec.Struct, frozen=True):
    """What a command came to: done (its records), or refused (the rule and the reason)."""

    ok: bool
    version: int | None = None
    records: list[dict[str, Any]] = []
    rule: str = ""
    message: str = ""
    raw: dict[str, Any] = {}


class Update(msgspec.Struct, frozen=True):
    """One message of the live stream: `version` is the log's length when it was sent."""

    event: str  # "version", or "denied" / "unavailable"
    version: int | None
    data: dict[str, Any]
    id: str = ""


class Table:
    """One encounter on a running server, as one link sees it."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/")
        self.token = token

    @classmethod
    def join(cls, link: str) -> Table:
        """The table a GM's link opens: `http://HOST:PORT[/e/NAME]/join/TOKEN`."""
        parts = urllib.parse.urlsplit(link)
        path, sep, token = parts.path.rpartition("/join/")
        if not sep or not token or parts.scheme not in ("http", "https"):
            raise ClientError(0, f"{link!r}: expected a table link, http(s)://HOST:PORT/join/TOKEN")
        return cls(urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", "")), token)

    # -- plumbing --------------------------------------------------------------------------------

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                answer: dict[str, Any] = json.loads(resp.read() or b"{}")  # the API answers an object
                return answer
        except urllib.error.HTTPError as exc:
            try:
                said = json.loads(exc.read() or b"{}")
            except ValueError:
                said = {}
            if exc.code == 422:  # refused by a rule: an answer, not a failure
                return {"ok": False, **said}
            raise ClientError(exc.code, str(said.get("message") or exc.reason), said) from None
        except urllib.error.URLError as exc:
            raise ClientError(0, f"{self.base}: can't reach the table ({exc.reason})") from None

    def _answer(self, said: dict[str, Any]) -> Answer:
        return Answer(
            ok=bool(said.get("ok")),
            version=said.get("version"),
            records=list(said.get("records", [])),
            rule=str(said.get("rule", "")),
            message=str(said.get("message", "")),
            raw=said,
        )

    # -- reading ---------------------------------------------------------------------------------

    def me(self) -> Me:
        return msgspec.convert(self._request("GET", "/api/me"), Me)

    def board(self, at: int | None = None) -> dict[str, Any]:
        """The board now (or after event `at`): fighters, turn, doors, as `/api/state` gives it."""
        return self._request("GET", "/api/state" + (f"?at={at}" if at is not None else ""))

    def version(self) -> int:
        return int(self.board()["version"])

    def events(self) -> list[dict[str, Any]]:
        return list(self._request("GET", "/api/events")["events"])

    def explain(self, seq: int) -> dict[str, Any]:
        """Why event `seq` happened: its rules, steps, checks, before and after."""
        return self._request("GET", f"/api/events/{seq}")

    # -- commanding ------------------------------------------------------------------------------

    def preview(self, text: str) -> Answer:
        """What `text` would do now; nothing is appended."""
        return self._answer(self._request("POST", "/api/preview", {"text": text}))

    def do(self, text: str, version: int | None = None, command_id: str | None = None) -> Answer:
        """Decide and append `text`, only if the log is still at `version` (the latest when None;
        409 if another command came first). The command id makes a retry after a dropped connection
        append nothing twice."""
        body: dict[str, Any] = {
            "text": text,
            "version": self.version() if version is None else version,
            "command_id": command_id or uuid.uuid4().hex,
        }
        return self._answer(self._request("POST", "/api/do", body))

    def undo(self, why: str = "") -> Answer:
        return self._answer(self._request("POST", "/api/undo", {"version": self.version(), "why": why}))

    def redo(self, why: str = "") -> Answer:
        return self._answer(self._request("POST", "/api/redo", {"version": self.version(), "why": why}))

    # -- following -------------------------------------------------------------------------------

    def follow(self, seconds: float = 60.0, last: int | None = None) -> Iterator[Update]:
        """The live stream for up to `seconds`: one Update each time the log moves.

        `last` is the version the caller has already seen: the stream starts after it, so a client
        that reconnects with the last version it saw misses nothing and sees nothing twice.
        """
        query = {"token": self.token, "seconds": f"{seconds:g}"}
        if last is not None:
            query["last"] = str(last)
        url = f"{self.base}/api/stream?{urllib.parse.urlencode(query)}"
        headers = {"Accept": "text/event-stream"}
        if last is not None:
            headers["Last-Event-ID"] = str(last)
        req = urllib.request.Request(url, headers=headers)
        try:
            resp = urllib.request.urlopen(req, timeout=max(TIMEOUT, seconds + TIMEOUT))
        except urllib.error.HTTPError as exc:
            raise ClientError(exc.code, exc.reason) from None
        except urllib.error.URLError as exc:
            raise ClientError(0, f"{self.base}: can't reach the table ({exc.reason})") from None
        with resp:
            yield from read_stream(resp)


def read_stream(lines: Any) -> Iterator[Update]:
    """Server-sent events read from a byte-line iterator: `event:`, `data:`, `id:`; comments skipped."""
    event, ident = "message", ""
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                payload = json.loads("\n".join(data))
                version = payload.get("version") if isinstance(payload, dict) else None
                yield Update(event=event, version=version, data=payload, id=ident)
            event, data = "message", []
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id":
            ident = value
