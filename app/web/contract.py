"""The table view's open contract, generated from the route table, never written by hand.

    openapi(base="")    OpenAPI 3.1: every route of app/web/routes.py, its parameters, its body and
                        answers (msgspec's JSON Schema of app/web/bodies.py and app/web/answers.py),
                        the invitation token as a bearer token, and which role may call what
    asyncapi(base="")   AsyncAPI 3: the live stream's events, their payloads, and how to resume
    documents()         both, by name: what `tabletrail schema` prints (no server needed)

Every route that takes a token may answer 401 (not a link of this table) and 403
(revoked, expired, or not this role's); every route with a body 400 (the field
and what is wrong), 413 and 415; the rest are listed per route in the table.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

import msgspec
from tabletrail.web import answers
from tabletrail.web.endpoints import ANYONE, EVENTS, GM, HTML, JSON, PICTURE, PLAYER, ROLES, WATCHER, Endpoint
from tabletrail.web.routes import ROUTES

TITLE = "tabletrail table view"
REF = "#/components/schemas/{name}"
ROLE_WORDS = {
    ANYONE: "anyone, without a token",
    WATCHER: "any link of the encounter (a watcher's reads and follows, and commands nothing)",
    PLAYER: "a side's link or the GM's (a side commands only its own fighters, undoes only its own commands)",
    GM: "the GM's link only",
}
STATUS_WORDS = {
    200: "the answer",
    400: "a malformed request: the field or parameter and what is wrong with it",
    401: "no token, or not a link of this encounter",
    403: "a link revoked or expired, or one whose role may not ask for this",
    404: "not found (named in the message)",
    409: "a version conflict: the log moved on since the page looked (version: now, seen: the page's)",
    413: "a body over the size limit",
    415: "a body not sent as application/json",
    422: "the rules refuse the command: the rule's id and why",
}
MEDIA_SCHEMAS = {
    HTML: {"type": "string"},
    EVENTS: {  # one server-sent event: its payloads are described in /asyncapi.json
        "type": "object",
        "properties": {
            "event": {"enum": ["version", "denied", "unavailable"]},
            "data": {"type": "string", "contentMediaType": JSON},
            "id": {"type": "string"},
            "retry": {"type": "integer"},
        },
        "description": "server-sent events; see /asyncapi.json",
    },
    PICTURE: {"type": "string", "contentEncoding": "binary"},
}


def _version() -> str:

    try:
        return version("tabletrail")
    except PackageNotFoundError:
        return "0"


def _types() -> list[Any]:
    """Every msgspec type the table names (bodies and JSON answers), the errors first."""
    found: list[Any] = [answers.Error]
    for e in ROUTES:
        if e.body is not None:
            found.append(e.body)
        found += [t for t in e.answers.values() if not isinstance(t, str)]
    return list(dict.fromkeys(found))


def _answers(e: Endpoint) -> dict[int, Any]:
    """The route's answers, with what the table adds: a token's 401/403, a body's 400/413/415."""
    out: dict[int, Any] = dict(e.answers)
    if e.role != ANYONE:
        out.setdefault(401, answers.Error)
        out.setdefault(403, answers.Error)
    if e.body is not None:
        for status in (400, 413, 415):
            out.setdefault(status, answers.Error)
    if any(p.kind in (int, float) for p in e.params if p.where == "query"):
        out.setdefault(400, answers.Error)  # a number that is not one
    return dict(sorted(out.items()))


def _schema_of(kind: Any, refs: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    return refs[kind] if kind in refs else msgspec.json.schema(kind)


def openapi(base: str = "") -> dict[str, Any]:
    """The OpenAPI 3.1 document of every route in ROUTES, served at `base` (a hosted prefix, or "")."""
    types = _types()
    schemas, components = msgspec.json.schema_components(types, ref_template=REF)
    refs = dict(zip(types, schemas, strict=True))
    for kind in types:  # what a body's fields can't say alone (CommandBody: text or move, one of them)
        one_of = getattr(kind, "one_of", None)
        if one_of is not None:
            components[kind.__name__]["oneOf"] = one_of
    paths: dict[str, dict[str, Any]] = {}
    for e in ROUTES:
        op: dict[str, Any] = {
            "operationId": e.name,
            "summary": e.summary,
            "description": f"Who may call it: {ROLE_WORDS[e.role]}."
            + (
                " The token may also be sent as ?token= (a browser can't set a header here)."
                if e.query_token
                else ""
            ),
            "tags": [e.tag] if e.tag else [],
            "x-role": e.role,
            "security": _security(e),
            "responses": {},
        }
        params = [
            {
                "name": p.name,
                "in": p.where,
                "required": p.required or p.where == "path",
                "description": p.doc,
                "schema": {**msgspec.json.schema(p.kind), **p.bounds},
            }
            for p in e.params
        ]
        if params:
            op["parameters"] = params
        if e.body is not None:
            op["requestBody"] = {
                "required": True,
                "content": {JSON: {"schema": refs[e.body]}},
                "description": (e.body.__doc__ or "").strip().splitlines()[0],
            }
        for status, kind in _answers(e).items():
            media = kind if isinstance(kind, str) else JSON
            schema = MEDIA_SCHEMAS[media] if isinstance(kind, str) else _schema_of(kind, refs)
            op["responses"][str(status)] = {
                "description": STATUS_WORDS.get(status, ""),
                "content": {media: {"schema": schema}},
            }
        paths.setdefault(e.path, {})[e.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": TITLE,
            "version": _version(),
            "description": "One encounter's table view. Roles, least to most: "
            + "; ".join(f"{r}: {ROLE_WORDS[r]}" for r in ROLES)
            + ". Lengths and costs are integers in hundredths of the ruleset's unit.",
        },
        "servers": [{"url": base or "/"}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "invite": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "tt1.<id>.<secret>",
                    "description": "an invitation link's token (tabletrail invite, or the GM page's Links)",
                },
                "invite_in_address": {
                    "type": "apiKey",
                    "in": "query",
                    "name": "token",
                    "description": "the same token in the address: read only by the live stream and the "
                    "pictures, where a browser can't set a header",
                },
            },
        },
    }


def _security(e: Endpoint) -> list[dict[str, list[str]]]:
    if e.role == ANYONE:
        return []
    return [{"invite": []}, {"invite_in_address": []}] if e.query_token else [{"invite": []}]


def asyncapi(base: str = "") -> dict[str, Any]:
    """The AsyncAPI 3 document of the live stream (GET /api/stream, server-sent events)."""
    kinds = [answers.VersionEvent, answers.DeniedEvent, answers.UnavailableEvent]
    schemas, components = msgspec.json.schema_components(kinds, ref_template=REF)
    names = {"version": schemas[0], "denied": schemas[1], "unavailable": schemas[2]}
    said = {
        "version": "The log now holds `version` records. Sent at once (unless the client already has that "
        "version) and whenever it changes; the SSE `id` is the same number. Re-read /api/state on it, "
        "and /api/events?after= the version the client's event list holds (only what changed since), "
        "with `?seen=` that version (a server of several workers then never answers an older one): the "
        "version only grows, so a client that saw version N and reads again never misses nor doubles a "
        "move.",
        "denied": "The link was revoked or has expired: the stream ends, and so should the page.",
        "unavailable": "The database is restarting; the stream goes on and says the version once it is back.",
    }
    messages = {
        name: {"name": name, "title": name, "summary": said[name], "contentType": JSON, "payload": schema}
        for name, schema in names.items()
    }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": f"{TITLE}: the live stream",
            "version": _version(),
            "description": "Server-sent events at GET /api/stream. A stream ends after 90 to 120 s "
            "(`?seconds=` asks for less) and the browser reconnects by itself (`retry: 300`). To "
            "resume after a drop, reconnect with the header Last-Event-ID (an EventSource sends it "
            "by itself) or ?last=N: the version you have. The stream then says a version only when "
            "the log has moved past it. Lines starting with ':' are keep-alives (every 20 s while the "
            "table is quiet).",
        },
        "servers": {
            "table": {
                "host": "the table view's address",
                "pathname": (base or "") + "/api/stream",
                "protocol": "http",
                "description": "text/event-stream; authenticate with the invitation token as a bearer "
                "token, or ?token= (EventSource can't set a header)",
                "security": [{"$ref": "#/components/securitySchemes/invite"}],
            }
        },
        "channels": {
            "stream": {
                "address": "/api/stream",
                "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in messages},
                "parameters": {},
            }
        },
        "operations": {
            "follow": {
                "action": "receive",
                "channel": {"$ref": "#/channels/stream"},
                "summary": "follow the encounter's version live",
                "messages": [{"$ref": f"#/channels/stream/messages/{name}"} for name in messages],
            }
        },
        "components": {
            "messages": messages,
            "schemas": components,
            "securitySchemes": {
                "invite": {
                    "type": "httpApiKey",
                    "name": "token",
                    "in": "query",
                    "description": "the invitation token",
                }
            },
        },
    }


def documents() -> dict[str, dict[str, Any]]:
    """Both documents, without a server: what `tabletrail schema openapi|asyncapi` prints."""
    return {"openapi": openapi(), "asyncapi": asyncapi()}
