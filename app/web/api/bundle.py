"""The replay bundle's download: `GET /api/bundle`, the encounter as one offline HTML file.

The GM's link gets everything; a side's link (or a watcher's) gets that side's share, the
GM's rulings and settings and the first line, which holds the dice's seed, left out (app/bundle/__init__.py).

A bundle is made once per share (the GM's, a side's, the watchers') and version of the log,
in a thread of its own, one at a time in a worker, and every request of that share at that
version is answered from what was made: a link can't make the table's worker do the work
twice, however often it asks. A log of up to `AT_ONCE` events is made while the request
waits (a second or so); a longer one is made in the background, and until it is made a
request is answered 503 with how far it has got and what to do meanwhile.
"""

from __future__ import annotations

import re
import threading
import weakref
from dataclasses import dataclass, field

from starlette.responses import Response
from tabletrail import bundle
from tabletrail.events.errors import InputError
from tabletrail.events.picture import PictureSpec
from tabletrail.web.table import Table
from tabletrail.web.wire import Call, error, event_at

HTML = "text/html; charset=utf-8"
AT_ONCE = 2_000  # events: a bundle this long is made within the request (about a second on a busy core)
RETRY_SECONDS = 5
ONE_AT_A_TIME = threading.Lock()  # bundles are made one after another in a worker: the table's moves go first


@dataclass
class Job:
    """One bundle in the making (or made): for one share at one version of the log."""

    role: str
    version: int
    done: threading.Event = field(default_factory=threading.Event)
    made: bundle.Made | None = None
    failed: Exception | None = None
    events: int = 0  # made so far
    started: bool = False  # False while it waits for another bundle to be made


class Bundles:
    """A table's bundles: the latest job of each share, replaced when the log has moved on."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.jobs: dict[str, Job] = {}

    def job(self, table: Table, role: str, version: int) -> Job:
        """The job of `role` at `version`, started if none is made or in the making.

        While the job of an older version still runs, that one is returned: one job a share
        at a time, so a page asking at every move of a long encounter starts no pile of them.
        """
        with self.lock:
            job = self.jobs.get(role)
            if job is not None and (job.version == version or not job.done.is_set()):
                return job
            job = self.jobs[role] = Job(role, version)
        name = f"bundle {role}@{version}"
        threading.Thread(target=_make, args=(table, job), name=name, daemon=True).start()
        return job


TABLES: weakref.WeakKeyDictionary[Table, Bundles] = weakref.WeakKeyDictionary()
_TABLES_LOCK = threading.Lock()


def bundles_of(table: Table) -> Bundles:
    with _TABLES_LOCK:
        found = TABLES.get(table)
        if found is None:
            found = TABLES[table] = Bundles()
        return found


def _make(table: Table, job: Job) -> None:
    """Make the job's bundle (after any other being made in this worker), then tell who waits."""

    def picture(spec: PictureSpec) -> bytes | None:
        path = table.picture_file(spec)
        return path.read_bytes() if path is not None else None

    def progress(done: int, of: int) -> None:
        job.events = done

    try:
        with ONE_AT_A_TIME:
            job.started = True
            job.made = bundle.make(
                table.store, role=job.role, upto=job.version, find_picture=picture, progress=progress
            )
    except Exception as exc:  # told to every request of this job, as its own request would have been
        job.failed = exc
    finally:
        job.done.set()


def _not_yet(job: Job, version: int) -> Response:
    """A 503 saying how far the bundle has got, and what to do meanwhile."""
    n = f"{version:,}"
    if job.version != version:
        where = f"the bundle of an earlier version (event {job.version:,}) is still being made"
    elif not job.started:
        where = "it waits for another bundle to be made first"
    else:
        where = f"{job.events:,} of {job.version:,} events are made so far"
    return error(
        503,
        "not yet made",
        f"this encounter's log is {n} events long, so its bundle is made in the background: {where}. "
        "Ask again in a few seconds; meanwhile `tabletrail bundle LOG --from N --to M` bundles a part.",
    )


def download(call: Call) -> Response:
    """The bundle for whoever the link speaks for, as an attachment named after the encounter."""
    table = call.table
    role = call.user.role
    enc = table.live()
    version = len(enc.records)
    at = event_at(call.request.query_params.get("at"), version)  # before any work
    if isinstance(at, Response):
        return at
    bundles = bundles_of(table)
    job = bundles.job(table, role, version)
    if version <= AT_ONCE:  # a short log's bundle is made while the request waits
        while job.version != version:  # after the older one being made
            job.done.wait()
            job = bundles.job(table, role, version)
        job.done.wait()
    if not job.done.is_set() or job.version != version:
        answer = _not_yet(job, version)
        answer.headers["Retry-After"] = str(RETRY_SECONDS)
        return answer
    if job.failed is not None:
        if isinstance(job.failed, InputError):
            return error(400, "bad request", str(job.failed))
        raise job.failed
    assert job.made is not None
    try:
        page = job.made.page(at)
    except InputError as exc:
        return error(400, "bad request", str(exc))
    name = enc.state.scenario.name
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "encounter"
    share = "" if role == bundle.GM else f"-{re.sub(r'[^A-Za-z0-9_-]+', '-', role)}"
    return Response(
        page,
        media_type=HTML,
        headers={
            "Content-Disposition": f'attachment; filename="{stem}{share}.html"',
            "Cache-Control": "no-store",
        },
    )
