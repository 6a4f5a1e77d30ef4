"""CLI verbs of the web group, registered into the main parser by tabletrail.cli."""

from __future__ import annotations

import argparse
import ipaddress
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tabletrail.events.errors import InputError
from tabletrail.events.stores.pg_names import is_url
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.text.render import json_doc
from tabletrail.web.address import lan_address, listening
from tabletrail.web.invites import GM, WATCHER, Invites, encounter_key, keep_for, qr_text, role_for

AddVerb = Callable[[str, Any, str], argparse.ArgumentParser]

DEFAULT_PORT = 8000
# `serve URL` (a PostgreSQL database) runs a worker per core this process may use, at most this many. On 2
# cores, 2 workers held 500 tables (load_tables.py --fetch) at the p99 of 4 (or better) on 0.86 cores and
# 608 MB, where 4 took 1.04-1.13 cores and 940 MB (issue 40): a worker more than the cores only adds its
# memory and its share of switching. Each worker keeps up to 13 connections (its pool and its listener),
# so 4 stay well inside PostgreSQL's default max_connections (100); --workers N says otherwise.
MOST_DEFAULT_WORKERS = 4


def default_workers() -> int:
    """Workers for a PostgreSQL database when --workers is not given: the cores this process may run on
    (its CPU affinity, as a container or taskset limits it), at least 1, at most MOST_DEFAULT_WORKERS."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this system (macOS): every core it has
        cores = os.cpu_count() or 1
    return max(1, min(cores, MOST_DEFAULT_WORKERS))


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve one encounter's table view: on this machine only unless --host says otherwise."""

    if not 1 <= args.port <= 65535:
        raise InputError(f"--port: {args.port} is not a port number (1 to 65535)")
    if args.workers is None:  # one for a file or folder; for a database, one a core (default_workers)
        args.workers = default_workers() if is_url(args.log) else 1
    if not 1 <= args.workers <= 64:
        raise InputError(f"--workers: {args.workers} is not a number of workers (1 to 64)")
    if args.workers > 1 and not is_url(args.log):
        raise InputError(
            f"{args.log}: --workers needs a PostgreSQL database (postgresql://HOST/DB): "
            "one file is served by one process"
        )
    if args.host != "localhost":
        try:
            ipaddress.ip_address(args.host)
        except ValueError:
            raise InputError(
                f"--host: {args.host!r} is not an address to listen on (e.g. 127.0.0.1, 0.0.0.0 for every "
                "network, or this machine's LAN address)"
            ) from None
    try:
        from tabletrail.web.server import serve
    except ImportError as exc:  # a broken install
        raise InputError(f"serve: the table view's packages are missing: reinstall ({exc})") from None
    if Path(args.log).is_dir():  # a folder of encounters: the GM's home page and builder, every log of it
        from tabletrail.web.home import serve_folder

        serve_folder(args.log, args.port, args.host, tuple(args.allow_host))
        return 0
    if is_url(args.log):
        from tabletrail.web.hosted import serve_hosted

        if args.allow_origin:
            raise InputError(
                "--allow-origin: a hosted table (a PostgreSQL database) takes no other origins yet; serve "
                "the encounter's log file for a Foundry VTT table"
            )

        serve_hosted(args.log, args.port, args.workers, args.host, tuple(args.allow_host))
        return 0
    serve(args.log, args.port, args.host, tuple(args.allow_host), origins(args.allow_origin))
    return 0


def origins(given: list[str]) -> tuple[str, ...]:
    """`--allow-origin` values as browsers send an Origin: scheme://host[:port], nothing after it."""

    out = []
    for url in given:
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path.strip("/") or parts.query:
            raise InputError(
                f"--allow-origin: {url!r} is not an origin; give scheme://host[:port], e.g. "
                "https://foundry.example.com or http://localhost:30000"
            )
        out.append(f"{parts.scheme}://{parts.netloc.lower()}")
    return tuple(dict.fromkeys(out))


def cmd_invite(args: argparse.Namespace) -> int:
    """Make, list or revoke the invitation links of one encounter (kept hashed with its log)."""

    store = store_for(args.log)
    try:
        state = Encounter.open(store).state
        invites = Invites(keep_for(args.log, store), encounter_key(store))
        if args.revoke:
            done = invites.revoke(args.revoke)
            print(json_doc("invite", done.public()) if args.json else f"revoked {done.id} ({done.role})")
            return 0
        if args.list:
            rows = [i.public() for i in invites.all()]
            if args.json:
                print(json_doc("invites", {"invites": rows}))
            for r in [] if args.json else rows:
                made_at = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(r["made"])))  # type: ignore[arg-type]
                status = "revoked" if r["revoked"] else "expired" if _expired(r) else "open"
                print(f"{r['id']}  {r['role']:<10} {status:<8} made {made_at}  {r['label']}")
            return 0
        sides = sorted({f.side for f in state.fighters})
        if [args.gm, args.watch, args.side is not None].count(True) != 1:
            raise InputError(
                "invite: give --side SIDE (one of: " + ", ".join(sides) + "), --gm, or --watch (view only)"
            )
        role = GM if args.gm else WATCHER if args.watch else args.side
        if role in (GM, WATCHER) and args.side is not None:
            raise InputError(f"--side: {role!r} is a role, not a side (sides: {', '.join(sides)})")
        role = role_for(role, sides)
        base = args.url or listening(args.log) or _default_url(args.port)
        made, token = invites.make(role, args.hours, args.label)
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()
    url = f"{base.rstrip('/')}/join/{token}"
    if args.json:
        print(json_doc("invite", {**made.public(), "url": url}))
        return 0
    if args.qr:
        try:
            print(qr_text(url), end="")
        except ImportError as exc:
            raise InputError(f"--qr: the QR code's package is missing: reinstall ({exc})") from None
    print(url)
    what = "to watch the table (it commands nothing)" if role == WATCHER else f"for {role}"
    print(
        f"(link {made.id} {what}: a bearer secret, give it only to them; "
        f"revoke with tabletrail invite {args.log} --revoke {made.id})"
    )
    return 0


def _expired(row: dict[str, object]) -> bool:
    expires = row.get("expires")
    return isinstance(expires, float | int) and expires <= time.time()


def _default_url(port: int) -> str:

    return f"http://{lan_address() or '127.0.0.1'}:{port}"


def register(sub: Any, add: AddVerb) -> None:
    """Add this group's verbs; `add(name, fn, help)` returns the verb's parser.

    Every verb's --help shows an example: return it from `examples()`.
    """
    p = add(
        "serve",
        cmd_serve,
        "run the encounter in the browser: the board, moves with previews, undo/redo, the timeline; "
        "players join from invitation links",
    )
    p.add_argument(
        "log",
        help="the encounter's log (made by tabletrail new), a folder (the GM's home page and encounter "
        "builder, every log in it at /e/NAME/), or a PostgreSQL database URL: every encounter in it, each "
        "at /e/NAME/",
    )
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes sharing the port, a PostgreSQL database only (live updates cross them); "
        f"default: one a core this process may use, at most {MOST_DEFAULT_WORKERS} (a log file or folder: 1)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 for the local network: "
        "then put TLS in front with a reverse proxy, see the README)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the pages may be addressed to as well (e.g. the reverse proxy's name); repeatable",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="a site whose pages may call this server (CORS for it only; tokens as ever, never cookies), "
        "e.g. your Foundry VTT at https://foundry.example.com; repeatable",
    )
    q = add("invite", cmd_invite, "make, list or revoke the invitation links of an encounter")
    q.add_argument("log", help="the encounter's log")
    q.add_argument("--side", help="the side the link commands (its fighters only)")
    q.add_argument("--gm", action="store_true", help="a GM link: every fighter, rulings, settings, links")
    q.add_argument(
        "--watch",
        action="store_true",
        help="a view-only link (a TV at the table, a spectator): reads and follows live, commands nothing",
    )
    q.add_argument("--qr", action="store_true", help="draw the link as a QR code too, for a phone to scan")
    q.add_argument(
        "--hours", type=float, help="the link stops working after this many hours (at most a year)"
    )
    q.add_argument("--label", default="", help="a note for the list, e.g. the player's name")
    q.add_argument(
        "--url",
        help="where players reach the server (default: where the running server of this log listens, "
        "else http://THIS-MACHINE:PORT)",
    )
    q.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"the server's port (default {DEFAULT_PORT})"
    )
    q.add_argument("--list", action="store_true", help="list the links (never their tokens)")
    q.add_argument("--revoke", metavar="ID", help="revoke a link by its id: its next request is refused")
    q.add_argument("--json", action="store_true", help="one JSON document")


def examples() -> dict[str, str]:
    return {
        "serve": "tabletrail serve fight.jsonl --host 0.0.0.0   # then open the GM link it prints\n"
        "  tabletrail serve games/   # the GM's home page: every encounter of the folder, and the builder\n"
        "  tabletrail serve postgresql://localhost/test   # every encounter, at /e/NAME/, a worker a core",
        "invite": "tabletrail invite fight.jsonl --side blue --label Maya   # prints the link for Maya\n"
        "  tabletrail invite fight.jsonl --watch --qr   # a view-only link for the TV, as a QR code too",
    }
