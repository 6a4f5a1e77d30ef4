"""The GM's handlers for invitation links: list them (never a token), make one, revoke one."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from tabletrail.events.errors import InputError
from tabletrail.web.answers import InviteInfo, InviteList, MadeInvite
from tabletrail.web.bodies import InviteBody
from tabletrail.web.invites import Invite, UnknownRole, qr_svg, role_for
from tabletrail.web.wire import Call, answer, error


def _public(invite: Invite) -> dict[str, Any]:
    return {k: v for k, v in invite.public().items() if k in InviteInfo.__struct_fields__}


def info(invite: Invite) -> InviteInfo:
    """A link as the GM sees it (Invite.public: never its token or digest)."""
    return InviteInfo(**_public(invite))


def invites(call: Call) -> Response:
    """Every link of the encounter: id, role, when made, until when, revoked or not."""
    return answer(InviteList(invites=[info(i) for i in call.table.invites.all()]))


def invite(call: Call) -> Response:
    """A new link for a side, the GM or a watcher; its token (and its QR code, an SVG drawing for the
    Links panel) is in this answer and nowhere else: only the token's digest is kept."""
    body: InviteBody = call.body
    table = call.table
    sides = sorted({f.side for f in table.live().state.fighters})
    try:
        made, tok = table.invites.make(role_for(body.role, sides), body.hours, body.label)
    except UnknownRole as exc:
        return error(404, "not found", str(exc))
    except InputError as exc:
        return error(400, "bad request", str(exc))
    url = f"{table_base(call)}/join/{tok}"
    return answer(MadeInvite(**_public(made), token=tok, url=url, qr=qr_svg(url)))


def table_base(call: Call) -> str:
    """Where this table's pages live: the server's address and the path a folder or a database serves
    the table under (`/e/NAME`). Starlette's `base_url` is the server's root even inside a mount, so a
    link made from it would open no table there."""
    url = call.request.url
    return f"{url.scheme}://{url.netloc}{call.request.scope.get('root_path', '')}".rstrip("/")


def revoke(call: Call) -> Response:
    """Revoke a link at once: its next request, and its open live stream, are refused."""
    ident = call.request.path_params["ident"]
    if ident == call.user.id:
        return error(
            400, "bad request", "revoke: this is the link you are using; revoke it from another GM link"
        )
    try:
        done = call.table.invites.revoke(ident)
    except InputError as exc:
        return error(404, "not found", str(exc))
    return answer(info(done))
