"""CLI verbs of the store group: repair, import, export, encounters.

Which store a LOG argument means is app/service/stores.py's (the web and the builder open logs by name too).

    tabletrail repair LOG              cut a torn or partial last batch (LOG is copied to LOG.bak first);
                                       on SQLite: check the file and rebuild the snapshots
    tabletrail import LOG.jsonl DB.db  copy a log and its refusals into a new store of any kind
    tabletrail export DB.db LOG.jsonl  (both verbs take any two): a JSON Lines target gets the very
                                       bytes the log would hold had it been a JSONL log from the start
    tabletrail encounters URL          the encounters of a PostgreSQL database
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tabletrail.core.board.units import plural
from tabletrail.events.errors import InputError
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.pg_names import is_url, masked
from tabletrail.events.stores.protocol import Store, keeps_snapshots
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.snapshot import FORMAT
from tabletrail.service.encounter import Encounter, fold_with_snapshots
from tabletrail.service.stores import DB_ENV, store_for
from tabletrail.service.stores import (
    LOG_HELP as LOG_HELP,  # the verbs' help names a LOG as the stores read it
)
from tabletrail.service.stores import default_log as default_log
from tabletrail.text import render
from tabletrail.text.render import json_doc

if TYPE_CHECKING:
    import argparse

    from tabletrail.events.stores.postgres_store import PostgresStore

AddVerb = Callable[[str, Any, str], "argparse.ArgumentParser"]  # argparse is loaded only to build parsers


# --- repair -------------------------------------------------------------------------------


def cmd_repair(args: argparse.Namespace) -> int:

    store = store_for(args.log, heal=False)
    if not isinstance(store, JsonlStore):  # SQLite or PostgreSQL
        try:
            return _repair_database(store, args.dry_run)
        finally:
            store.close()
    assert isinstance(store, JsonlStore)
    found = store.damage()
    if args.dry_run:
        if found is None:
            print(f"nothing to repair: {store.path} ends with a whole batch")
        else:
            end, size, what = found
            print(f"would cut {size - end} bytes from byte {end} of {store.path}: {what} (a backup is kept)")
            enc = Encounter.open(JsonlStore(store.path), committed=True)
            print(f"the {len(enc.records)} events before it open read-only:")
            print(render.board(enc.state))
            print(render.fighters(enc.state))
        return 0
    print(store.repair())
    if found is not None:
        try:
            enc = Encounter.open(JsonlStore(store.path))
        except InputError as exc:
            raise InputError(f"the torn tail is cut, but the log still does not open: {exc}") from None
        print(f"{store.path}: {len(enc.records)} events replay")
    return 0


def _repair_database(store: SqliteStore | PostgresStore, dry_run: bool) -> int:
    """A database commits whole batches, so nothing is torn: check it and rebuild the caches."""

    result = store.check()
    if result != "ok":
        raise InputError(
            f"{store.name}: the database's integrity check failed ({result}); restore a backup, "
            "or `tabletrail export` what still reads"
        )
    every = store.snapshot_every
    enc, snapshots = fold_with_snapshots(store, every)
    if dry_run:
        print(f"{store.name}: integrity ok; {len(enc.records)} events replay; nothing is torn in a database")
        return 0
    dropped = store.drop_snapshots()
    store.save_snapshots(FORMAT, snapshots)
    print(
        f"{store.name}: integrity ok; {len(enc.records)} events replay; "
        f"{plural(dropped, 'snapshot')} dropped, {len(snapshots)} rebuilt (one every {every} events)"
    )
    return 0


# --- import and export ----------------------------------------------------------------------


def transfer(source: Store, target: Store) -> tuple[int, int]:
    """Copy a whole log, checked by a full fold, into a new store; (events, snapshots it keeps).

    The lines are copied as bytes, never re-encoded, so the copy is lossless both
    ways; the refusal side log goes along. A target with snapshots gets them built
    from the same fold.
    """

    every = getattr(target, "snapshot_every", 0)
    enc, snapshots = fold_with_snapshots(source, every)
    lines = list(source.read())
    if len(lines) != len(enc.records):
        raise InputError(f"{source.name}: the log changed while it was being copied; nothing was written")
    refused_lines = getattr(source, "refused_lines", None)
    refused = refused_lines() if refused_lines is not None else []
    target.create(lines, refused=refused)  # type: ignore[attr-defined]
    if not keeps_snapshots(target):
        return len(lines), 0
    if snapshots:
        target.save_snapshots(FORMAT, snapshots)
    return len(lines), len(target.snapshots(FORMAT))  # what it keeps: a JSON Lines log only the newest


def _copy(args: argparse.Namespace) -> int:
    if args.snapshot_every is not None and args.snapshot_every < 1:
        raise InputError(
            f"--snapshot-every: expected a whole number of events from 1, got {args.snapshot_every}"
        )
    source, target = Path(args.source), Path(args.target)
    if target.exists() and source.exists() and target.resolve() == source.resolve():
        raise InputError(f"{target}: the copy must go to another file than {source}")
    # a copy never changes its source: a torn tail there is refused, not cut
    source_store = store_for(args.source, heal=False)
    # the copy keeps the source's snapshot interval unless told another (each store kind keeps its own)
    every = (
        args.snapshot_every
        if args.snapshot_every is not None
        else getattr(source_store, "snapshot_every", None)
    )
    target_store = store_for(args.target, every)
    if source_store.name == target_store.name:
        raise InputError(f"{target_store.name}: the copy must go to another log than {source_store.name}")
    try:
        events, snapshots = transfer(source_store, target_store)
    finally:
        for store in (source_store, target_store):
            if isinstance(store, SqliteStore):
                store.close()  # the last connection out folds the WAL back: the .db file is whole
    extra = f", {plural(snapshots, 'snapshot')}" if snapshots else ""
    print(f"copied {events} events from {source_store.name} to {target_store.name}{extra}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    return _copy(args)


def cmd_export(args: argparse.Namespace) -> int:
    return _copy(args)


# --- the encounters of a database --------------------------------------------------------------


def cmd_encounters(args: argparse.Namespace) -> int:
    """List a PostgreSQL database's encounters: name, events, when it was started."""
    url = args.database or os.environ.get(DB_ENV)
    if not url:
        raise InputError(f"encounters: name the database: tabletrail encounters URL (or set {DB_ENV})")
    if not is_url(url):
        raise InputError(f"{url}: not a PostgreSQL URL (postgresql://HOST/DATABASE)")
    from tabletrail.events.stores.postgres_store import encounters

    found = encounters(url)
    if args.json:
        rows = [{"encounter": name, "events": n, "created": at} for name, n, at in found]

        print(json_doc("encounters", {"database": masked(url), "encounters": rows}))
        return 0
    if not found:
        print(f"{masked(url)}: no encounters yet (tabletrail new SCENARIO --log URL?encounter=NAME)")
    for name, n, at in found:
        print(f"{name}  {n} events  started {at}")
    return 0


def register(sub: Any, add: AddVerb) -> None:
    """Add this group's verbs; `add(name, fn, help)` returns the verb's parser."""
    p = add(
        "repair",
        cmd_repair,
        "cut what a crash left after the last whole batch of a JSONL log (the file is copied to LOG.bak "
        "first); on a SQLite store, check the file and rebuild its snapshots",
    )
    p.add_argument("log", help=LOG_HELP)
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="say what would be cut and show the board of the whole batches before it; change nothing",
    )
    p = add("encounters", cmd_encounters, "list the encounters of a PostgreSQL database")
    p.add_argument("database", nargs="?", help=f"postgresql://HOST/DATABASE (default: ${DB_ENV})")
    p.add_argument("--json", action="store_true", help="one JSON document")
    for name, fn, help_ in (
        (
            "import",
            cmd_import,
            "copy a log (and its refusals) into a new store of any kind (SQLite, PostgreSQL, JSONL), "
            "with snapshots",
        ),
        (
            "export",
            cmd_export,
            "write an encounter out as a new log of any kind, its lines byte for byte (JSONL: the very file)",
        ),
    ):
        p = add(name, fn, help_ + "; the whole log is checked first, and the target must not exist yet")
        p.add_argument("source", help="the log to copy from")
        p.add_argument(
            "target", help="the new log (.db/.sqlite: SQLite; postgresql://…?encounter=NAME; else JSON Lines)"
        )
        p.add_argument(
            "--snapshot-every",
            type=int,
            help="a snapshot of the board every N events (default: the source's interval, 1000 unless it "
            "keeps another); the target keeps the interval for the commands that follow, a JSON Lines "
            "target with the newest 3 snapshots beside it (LOG.snapshots)",
        )


def examples() -> dict[str, str]:
    return {
        "repair": "tabletrail repair fight.jsonl --dry-run   (then without --dry-run to cut)",
        "import": "tabletrail import fight.jsonl fight.db --snapshot-every 500",
        "export": "tabletrail export fight.db fight-copy.jsonl",
        "encounters": "tabletrail encounters postgresql://localhost/test",
    }
