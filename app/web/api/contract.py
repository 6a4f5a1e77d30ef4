"""The contract's handlers: this API as OpenAPI 3.1 and its live stream as AsyncAPI 3, served with the
prefix the app is mounted under.

The documents are generated from the route table (app/web/contract.py), and the route table lists these
handlers, so they don't import the generator: the server that builds the app gives it (`app.state.contract`,
set by app/web/server.py's `create_app`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from starlette.responses import JSONResponse, Response
from tabletrail.web.wire import Call

Documents = Mapping[str, Callable[[str], dict[str, Any]]]  # "openapi" / "asyncapi": a prefix to its document


def _served(call: Call, kind: str) -> Response:
    documents: Documents = call.request.app.state.contract
    return JSONResponse(documents[kind](call.request.scope.get("root_path", "")))


def openapi_json(call: Call) -> Response:
    return _served(call, "openapi")


def asyncapi_json(call: Call) -> Response:
    return _served(call, "asyncapi")
