"""The request bodies of the table view's API, one msgspec type per route that takes a body.

The route table (app/web/routes.py) names each; the body is decoded to it before
the handler runs, so a malformed body is a 400 naming the field, at the route.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

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


# The page's own key for a write: a retry with it appends nothing (app/web/api/commands.py, `replayed`).
CommandId = Annotated[str, Meta(pattern=r"^[A-Za-z0-9_-]{8,64}$")]


class _Command(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """What a preview and a command share: the command itself, as typed or picked, and who sends it."""

    # Exactly one of text and move: the contract says so beside the fields (app/web/contract.py).
    one_of: ClassVar[list[dict[str, Any]]] = [
        {"required": ["text"], "properties": {"text": {"type": "string"}}},
        {"required": ["move"], "properties": {"move": {"type": "object"}}},
    ]

    text: str | None = None
    move: MoveBody | None = None
    rolls: tuple[int, ...] = ()  # numbers rolled at the table for this command's checks, in order
    by: str | None = None  # optional: if given, it must be whom the link speaks for
    command_id: CommandId | None = None


class CommandBody(_Command, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A command to dry-run, as typed (`text`, the CLI syntax) or picked on the board (`move`)."""

    version: int | None = None  # given, a log moved on since is a 409
    reveal: bool = False  # show seeded checks' numbers and what follows (the GM's choice)


class DoBody(_Command, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A command to run, as typed (`text`) or picked on the board (`move`), seen at `version`."""

    version: int  # the record count the page saw: a log moved on since is a 409


class UndoBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Take back (or put back) the latest command, seen at `version`."""

    version: int
    by: str | None = None  # optional: if given, it must be whom the link speaks for
    why: str = ""
    command_id: CommandId | None = None


class InviteBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A new invitation link: for a side of the encounter or the GM, valid for `hours` (or until revoked)."""

    role: Annotated[str, Meta(min_length=1, max_length=64)]  # a side of the encounter, "gm", or "watcher"
    hours: Annotated[float, Meta(gt=0, le=MAX_HOURS)] | None = None
    label: Annotated[str, Meta(max_length=200)] = ""


class Empty(msgspec.Struct, frozen=True):
    """A body that carries nothing (a revoke): any JSON object."""
