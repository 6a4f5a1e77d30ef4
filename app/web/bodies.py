"""The request bodies of the table view's API, one msgspec type per route that takes a body.

The route table (app/web/routes.py) names each; the body is decoded to it before
the handler runs, so a malformed body is a 400 naming the field, at the route.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

# A link may last at most a year: a bound checked here, at the route, so a 1e308 is a 400 naming
# `hours` (it was a 500 after the invite was saved, expiring at infinity).
MAX_HOURS = 24 * 366


class MoveBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A move picked on the board: a destination (cheapest path) or waypoints (straight lines)."""

    fighter: str
    to: tuple[int, int] | None = None
    waypoints: tuple[tuple[int, int], ...] = ()


class CommandBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A command as typed (`text`, the CLI syntax) or picked on the board (`move`)."""

    version: int | None = None
    text: str | None = None
    move: MoveBody | None = None
    rolls: tuple[int, ...] = ()  # numbers rolled at the table for this command's checks, in order
    by: str | None = None  # optional: if given, it must be whom the link speaks for
    reveal: bool = False  # preview only: show seeded checks' numbers and what follows (the GM's choice)
    command_id: str | None = None  # the page's own key for this command: a retry appends nothing


class UndoBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Take back (or put back) the latest command, seen at `version`."""

    version: int
    by: str | None = None  # optional: if given, it must be whom the link speaks for
    why: str = ""
    command_id: str | None = None


class InviteBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A new invitation link: for a side of the encounter or the GM, valid for `hours` (or until revoked)."""

    role: Annotated[str, Meta(min_length=1, max_length=64)]  # a side of the encounter, "gm", or "watcher"
    hours: Annotated[float, Meta(gt=0, le=MAX_HOURS)] | None = None
    label: Annotated[str, Meta(max_length=200)] = ""


class Empty(msgspec.Struct, frozen=True):
    """A body that carries nothing (a revoke): any JSON object."""
