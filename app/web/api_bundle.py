"""The replay bundle's download: `GET /api/bundle`, the encounter as one offline HTML file.

The GM's link gets everything; a side's link (or a watcher's) gets that side's share, the
GM's rulings and settings and the first line, which holds the dice's seed, left out (app/bundle.py).
"""

from __future__ import annotations

import re

from starlette.responses import Response
from tabletrail import bundle
from tabletrail.events.errors import InputError
from tabletrail.events.picture import PictureSpec
from tabletrail.web.wire import Call, error

HTML = "text/html; charset=utf-8"


def download(call: Call) -> Response:
    """The bundle for whoever the link speaks for, as an attachment named after the encounter."""
    table = call.table
    raw = call.request.query_params.get("at")
    at = None
    if raw is not None:
        if not raw.isdigit():
            return error(400, "bad request", f"at: expected a sequence number, got {raw!r}")
        at = int(raw)

    def picture(spec: PictureSpec) -> bytes | None:
        path = table.picture_file(spec)
        return path.read_bytes() if path is not None else None

    try:
        page = bundle.build(table.store, role=call.user.role, at=at, find_picture=picture)
    except InputError as exc:
        return error(400, "bad request", str(exc))
    name = table.live().state.scenario.name
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "encounter"
    share = "" if call.user.role == bundle.GM else f"-{re.sub(r'[^A-Za-z0-9_-]+', '-', call.user.role)}"
    return Response(
        page,
        media_type=HTML,
        headers={
            "Content-Disposition": f'attachment; filename="{stem}{share}.html"',
            "Cache-Control": "no-store",
        },
    )
