"""Invitation links: who a request speaks for, told by an unguessable token, never by the request.

A link carries `tt1.<id>.<secret>`. Only a digest of the secret is kept, bound to
one encounter (the hash of the log's first line is part of what is hashed), so a
stolen invites file gives no working link and a token of another encounter never
matches. Each invite speaks for one side or for the GM. Revoking marks it at
once; every request looks the token up again, so a revoked link fails its next
request (and its open live stream) without a restart.

A link speaks for a side, for the GM (`gm`), or only watches (`watcher`: a TV at the table, a
spectator): it reads and follows live and commands nothing. Neither word may name a side.

Where invites are kept: beside a JSON Lines log (`LOG.invites`, one small JSON
document rewritten atomically), or in an `invites` table of the SQLite store's
own file, keyed by the store's encounter name like every other table there.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import math
import os
import re
import secrets
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import msgspec
from tabletrail.events.errors import InputError
from tabletrail.events.scenario.reader import unfit_name
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.db_store import DatabaseReads
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.protocol import Store
from tabletrail.events.stores.sqlite_store import SqliteStore

GM = "gm"
WATCHER = "watcher"  # a view-only link: reads and follows live, every command is refused (403)
RESERVED = (GM, WATCHER)  # roles that are not sides, so no side may be called so
MAX_HOURS = 24 * 366  # the longest a link may be made to last: a year (no link that never expires by mistake)
PREFIX = "tt1"
TOKEN = re.compile(r"^tt1\.([0-9a-f]{12})\.([A-Za-z0-9_-]{43})$")


class Invite(msgspec.Struct, frozen=True, kw_only=True):
    """One link: whom it speaks for, when made, until when, and whether it was revoked."""

    id: str
    role: str  # a side name, or "gm"
    digest: str  # sha256 over the encounter key and the secret, hex
    made: float
    expires: float | None = None
    revoked: float | None = None
    label: str = ""

    def public(self) -> dict[str, object]:
        """What a GM page may see of it (never the digest)."""
        return {
            "id": self.id,
            "role": self.role,
            "made": self.made,
            "expires": self.expires,
            "revoked": self.revoked,
            "label": self.label,
        }


class Denied(Exception):
    """A token that does not open this table: 401 (not a token of ours) or 403 (revoked, expired)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Keep(Protocol):
    """Where an encounter's invites live (a file, a table of the store)."""

    def load(self) -> list[Invite]: ...

    def save(self, invite: Invite) -> None: ...


class FileKeep:
    """Invites of a JSON Lines log, in `LOG.invites` next to it (written to a temp file, then renamed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._cache: tuple[tuple[int, int], list[Invite]] | None = None

    def load(self) -> list[Invite]:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return []
        mark = (st.st_size, st.st_mtime_ns)
        if self._cache is not None and self._cache[0] == mark:
            return self._cache[1]
        try:
            found = msgspec.json.decode(self.path.read_bytes(), type=list[Invite])
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise InputError(f"{self.path}: not a tabletrail invites file ({exc})") from None
        self._cache = (mark, found)
        return found

    def save(self, invite: Invite) -> None:
        kept = [i for i in self.load() if i.id != invite.id] + [invite]
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(msgspec.json.format(msgspec.json.encode(kept)) + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o600)  # digests only, but nobody else's business
        os.replace(tmp, self.path)
        self._cache = None


class SqliteKeep:
    """Invites in the SQLite store's own file: an `invites` table keyed by encounter."""

    TABLE = """CREATE TABLE IF NOT EXISTS invites (
        encounter TEXT NOT NULL, id TEXT NOT NULL, line BLOB NOT NULL, PRIMARY KEY (encounter, id))"""

    def __init__(self, path: Path, encounter: str) -> None:
        self.path = path
        self.encounter = encounter

    def _conn(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute(self.TABLE)
        return conn

    def load(self) -> list[Invite]:
        with contextlib.closing(self._conn()) as conn:
            rows = conn.execute(
                "SELECT line FROM invites WHERE encounter = ? ORDER BY rowid", (self.encounter,)
            ).fetchall()
        return [msgspec.json.decode(r[0], type=Invite) for r in rows]

    def save(self, invite: Invite) -> None:
        with contextlib.closing(self._conn()) as conn:
            conn.execute(
                "INSERT INTO invites (encounter, id, line) VALUES (?, ?, ?) "
                "ON CONFLICT (encounter, id) DO UPDATE SET line = excluded.line",
                (self.encounter, invite.id, msgspec.json.encode(invite)),
            )


class StoreKeep:
    """Invites kept by the store itself, for stores that offer it (`load_invites`, `save_invite`):
    a database store keeps them in a table keyed by encounter, as SqliteKeep does."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def load(self) -> list[Invite]:
        return [msgspec.json.decode(line, type=Invite) for line in self.store.load_invites()]  # type: ignore[attr-defined]

    def save(self, invite: Invite) -> None:
        self.store.save_invite(invite.id, msgspec.json.encode(invite))  # type: ignore[attr-defined]


class HeardKeep:
    """A keep read again only when `mark()` has changed since it was last read (None: every time).

    A hosted worker's listener gives the mark (app/web/live.py): it changes at every
    "invites" NOTIFY, so a link made or revoked through any worker is read again at
    once, and a page's requests and live stream check their link without a query.
    """

    def __init__(self, keep: Keep, mark: Callable[[], object | None]) -> None:
        self.keep = keep
        self.mark = mark
        self._read: tuple[object, list[Invite]] | None = None

    def fresh(self) -> bool:
        """Whether load() would answer from what was read, with no query."""
        mark = self.mark()
        return mark is not None and self._read is not None and self._read[0] == mark

    def load(self) -> list[Invite]:
        mark = self.mark()  # taken before reading: a change during the read is read again next time
        if mark is not None and self._read is not None and self._read[0] == mark:
            return self._read[1]
        links = self.keep.load()
        self._read = (mark, links) if mark is not None else None
        return links

    def save(self, invite: Invite) -> None:
        self._read = None
        self.keep.save(invite)


def keep_for(log: str | Path, store: Store) -> Keep:
    """The invites of this encounter: with its store when the store keeps them, in its SQLite file,
    else beside its JSON Lines file."""

    if hasattr(store, "load_invites") and hasattr(store, "save_invite"):
        return StoreKeep(store)
    if isinstance(store, SqliteStore):
        return SqliteKeep(store.path, store.encounter)
    if isinstance(store, JsonlStore):
        return FileKeep(Path(f"{log}.invites"))
    raise InputError(
        f"{store.name}: this kind of store does not keep invitation links yet "
        "(it needs load_invites and save_invite); serve a JSON Lines or SQLite log"
    )


def encounter_key(store: Store) -> str:
    """What binds a token to this encounter: the hash of the log's first line (its EncounterStarted)."""

    # A database store reads just that one line, not a first window of them.
    first = next(iter(store.read(0, 1) if isinstance(store, DatabaseReads) else store.read()), None)
    if first is None:
        raise InputError(f"{store.name}: an empty log has no encounter to invite anyone to")
    return line_hash(first)


def bounded_hours(hours: float | None) -> float | None:
    """How long a link lasts, checked in this one place for the CLI and the GM page alike: a positive,
    finite number of hours up to MAX_HOURS (None: until revoked)."""
    if hours is None:
        return None
    if (
        isinstance(hours, bool)
        or not isinstance(hours, int | float)
        or not math.isfinite(hours)
        or hours <= 0
    ):
        raise InputError(f"hours: {hours} is not a positive number of hours")
    if hours > MAX_HOURS:
        raise InputError(
            f"hours: {hours:g} is more than a year ({MAX_HOURS:,} hours, MAX_HOURS); "
            "leave it out for a link that lasts until it is revoked"
        )
    return float(hours)


class UnknownRole(InputError):
    """A link asked for a side the encounter does not have (the web answers 404: no such side)."""


def role_for(asked: str, sides: list[str]) -> str:
    """The role a new link speaks for: a side of the encounter, the GM or a watcher; anything else is
    refused in one line. Fighters on side gm are the GM's own (crates, hazards): only a GM link moves
    them. A side called watcher (refused by the scenario reader today) would make its players' links
    view-only, so a log started before that check gets no links until the side is renamed."""
    clash = sorted(set(sides) & {WATCHER})
    if clash:
        raise InputError(
            f"invite: this encounter has a side named {clash[0]!r}, which is a role's name "
            f"({', '.join(RESERVED)}); rename that side in the scenario before inviting anyone"
        )
    if asked in RESERVED:
        return asked
    if asked in sides:
        problem = unfit_name(asked)  # a log started before the scenario reader refused such names
        if problem is not None:
            raise InputError(
                f"invite: side {problem}; rename that side in the scenario before inviting anyone"
            )
        return asked
    raise UnknownRole(f"invite: no side {asked!r} (sides: {', '.join(sides)}; or gm, or watcher)")


def qr_svg(url: str) -> str:
    """The link as a QR code, an SVG drawing to put in a page (dark modules on a white quiet zone)."""
    import segno

    return str(segno.make(url, error="m").svg_inline(scale=4, border=4, light="#fff", dark="#000"))


def qr_text(url: str) -> str:
    """The link as a QR code drawn in a terminal's text (two rows of modules a line)."""

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


SESSION = "serve session"  # the label of the GM link `serve` makes and keeps for this log


def session_link(invites: Invites) -> tuple[Invite, str | None]:
    """The GM link `serve` prints: the one it made before, still open (its token is not kept, only its
    digest, so it is not shown again), else a new one with its token. It outlives a restart."""
    for old in reversed(invites.all()):
        if (
            old.label == SESSION
            and old.revoked is None
            and (old.expires is None or old.expires > invites.clock())
        ):
            return old, None
    return invites.make(GM, label=SESSION)


class Invites:
    """Make, check, list and revoke the links of one encounter."""

    def __init__(self, keep: Keep, key: str, clock: Callable[[], float] = time.time) -> None:
        self.keep = keep
        self.key = key
        self.clock = clock

    def _digest(self, secret: str) -> str:
        return hashlib.sha256(f"{self.key}:{secret}".encode()).hexdigest()

    def make(self, role: str, hours: float | None = None, label: str = "") -> tuple[Invite, str]:
        """A new link for `role` (a side, "gm" or "watcher"): the invite as kept, the token (shown once)."""
        hours = bounded_hours(hours)
        ident = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        now = self.clock()
        invite = Invite(
            id=ident,
            role=role,
            digest=self._digest(secret),
            made=now,
            expires=now + hours * 3600 if hours is not None else None,
            label=label,
        )
        self.keep.save(invite)
        return invite, f"{PREFIX}.{ident}.{secret}"

    def all(self) -> list[Invite]:
        return list(self.keep.load())

    def cached(self) -> bool:
        """Whether check() would need no query now (a hosted worker's links, unchanged since read)."""
        return isinstance(self.keep, HeardKeep) and self.keep.fresh()

    def revoke(self, ident: str) -> Invite:
        """Revoke a link by its id; its next request (and its live stream) is refused."""
        found = next((i for i in self.keep.load() if i.id == ident), None)
        if found is None:
            known = ", ".join(i.id for i in self.keep.load()) or "none"
            raise InputError(f"revoke: no invite {ident!r} (invites: {known})")
        if found.revoked is None:
            found = msgspec.structs.replace(found, revoked=self.clock())
            self.keep.save(found)
        return found

    def check(self, token: str | None) -> Invite:
        """The invite a token opens; Denied says why not (401 not ours, 403 revoked or expired)."""
        if not token:
            raise Denied(401, "this table needs an invitation link; ask the GM for one")
        m = TOKEN.match(token)
        if m is None:
            raise Denied(401, "the link is malformed (cut short or mistyped?); ask the GM for a new one")
        ident, secret = m.groups()
        found = next((i for i in self.keep.load() if i.id == ident), None)
        # Compare digests even when the id is unknown, so timing tells nothing about which ids exist.
        digest = found.digest if found is not None else "0" * 64
        if not hmac.compare_digest(digest, self._digest(secret)) or found is None:
            raise Denied(401, "the link is not an invitation to this encounter; ask the GM for one")
        if found.revoked is not None:
            raise Denied(403, "the GM revoked this link; ask the GM for a new one")
        if found.expires is not None and self.clock() >= found.expires:
            raise Denied(403, "this link has expired; ask the GM for a new one")
        return found
