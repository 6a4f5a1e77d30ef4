"""The contract's handlers: this API as OpenAPI 3.1 and its live stream as AsyncAPI 3, generated from the
route table (app/web/contract.py), served with the prefix the app is mounted under."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response
from tabletrail.web.wire import Call


def openapi_json(call: Call) -> Response:
    from tabletrail.web.contract import openapi

    return JSONResponse(openapi(call.request.scope.get("root_path", "")))


def asyncapi_json(call: Call) -> Response:
    from tabletrail.web.contract import asyncapi

    return JSONResponse(asyncapi(call.request.scope.get("root_path", "")))
