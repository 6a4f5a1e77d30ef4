"""CLI verbs of the web group, registered into the main parser by tabletrail.cli."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

AddVerb = Callable[[str, Any, str], argparse.ArgumentParser]

DEFAULT_PORT = 8000


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve one encounter's table view on this machine only (127.0.0.1)."""
    from tabletrail.events.errors import InputError

    if not 1 <= args.port <= 65535:
        raise InputError(f"--port: {args.port} is not a port number (1 to 65535)")
    try:
        from tabletrail.web.server import serve
    except ImportError as exc:  # the web extra is not installed
        raise InputError(f"serve needs the web extra: pip install 'tabletrail[web]' ({exc})") from None
    serve(args.log, args.port)
    return 0


def register(sub: Any, add: AddVerb) -> None:
    """Add this group's verbs; `add(name, fn, help)` returns the verb's parser.

    Every verb's --help shows an example: return it from `examples()`.
    """
    p = add(
        "serve",
        cmd_serve,
        "run the encounter in the browser: the board, moves with previews, undo/redo, the timeline; "
        "other tabs follow live",
    )
    p.add_argument("log", help="the encounter's log (made by tabletrail new)")
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT})"
    )


def examples() -> dict[str, str]:
    return {"serve": "tabletrail serve fight.jsonl --port 8000   # then open http://127.0.0.1:8000/"}
