"""The encounter builder's handlers: drafts made, changed, sized, given a Universal VTT map, and started.

Every change is the whole draft, as the scenario structure a scenario file decodes to
(never a format of the builder's own); the server keeps it only if the reader `tabletrail
new` uses accepts it (app/service/drafts.py), and otherwise answers 422 naming the field and what
is wrong, so the page shows it beside that field. Start writes the encounter as `tabletrail
new` does and answers its GM link and a link (and QR code) for each side and a watcher.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import anyio
import msgspec
from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse, Response
from tabletrail.core.engine.registry import RULESETS
from tabletrail.events.errors import InputError
from tabletrail.events.maps.uvtt import MAX_UVTT_BYTES
from tabletrail.events.picture import MEDIA_TYPES, sniff
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.service.drafts import Drafts, blank, check, resized, unfinished
from tabletrail.service.drafts import Problem as Problem  # re-exported: a handler's refusal names one
from tabletrail.service.scenario_toml import raw_of
from tabletrail.web.invites import GM, WATCHER, Invites, qr_svg
from tabletrail.web.wire import Call, error

SHIPPED = Path(__file__).resolve().parents[3] / "scenarios"  # the repository's examples, when beside it


class Folder(Protocol):
    """What the builder's handlers read of a home: a served folder's (app/web/home.py) or a database's
    (app/web/home_db.py). Named by its shape, so the handlers sit under the apps that serve them."""

    @property
    def drafts(self) -> Drafts: ...

    @property
    def folder(self) -> Path | None: ...

    def invites_of(self, name: str) -> Invites: ...

    def app_for(self, name: str) -> Starlette: ...


def scenario_files(home: Folder) -> dict[str, Path]:
    """The scenario files a draft may start from: the folder's own, then the shipped examples."""
    found: dict[str, Path] = {}
    for where in (home.folder, SHIPPED):
        if where is not None and where.is_dir():
            for p in sorted(where.glob("*.toml")):
                found.setdefault(p.name, p)
    return found


class NewDraft(msgspec.Struct, forbid_unknown_fields=True):
    """A new draft: a blank grid of W x H, or a copy of a scenario file of the folder (or shipped)."""

    name: str = ""  # a scenario opened keeps its own name when none is given
    ruleset: str = ""
    width: int = 12
    height: int = 10
    scenario: str = ""  # a scenario file the home page lists, to start from


class DraftBody(msgspec.Struct, forbid_unknown_fields=True):
    """The whole draft: the scenario structure, as a scenario file's TOML decodes."""

    scenario: dict[str, Any]


class GridBody(msgspec.Struct, forbid_unknown_fields=True):
    width: int
    height: int
    check: bool = False  # only say what the reader would: the size fields checked as they are typed


def folder_of(call: Call) -> Folder:
    return call.table  # type: ignore[return-value]  # the home's routes are called about the folder


def refused(problem: Problem, kept: dict[str, Any] | None = None) -> Response:
    """422: what the reader refuses, at its field; the draft kept is the one before this change."""
    where = f"{problem.field}: " if problem.field else ""
    return JSONResponse(
        {"error": "refused", "message": where + problem.message, **problem.data(), "draft": kept or None},
        status_code=422,
    )


def _answer(kept: dict[str, Any], problem: Problem | None) -> Response:
    if problem is not None and not unfinished(kept.get("scenario", {}), problem):
        return refused(problem, kept)
    return JSONResponse({**kept, "problem": problem.data() if problem else None})


def _draft(call: Call) -> tuple[Folder, str, Response | None]:
    home = folder_of(call)
    name = call.request.path_params["draft"]
    try:
        home.drafts.load(name)
    except LookupError as exc:
        return home, name, error(404, "not found", str(exc))
    return home, name, None


def drafts(call: Call) -> Response:
    """Every draft of the folder: its name, title, ruleset, whether it can start."""
    return JSONResponse({"drafts": draft_rows(folder_of(call))})


def draft_rows(home: Folder) -> list[dict[str, Any]]:
    rows = []
    for name in home.drafts.names():
        kept = home.drafts.load(name)
        enc = kept.get("scenario", {}).get("encounter", {})
        rows.append(
            {
                "name": name,
                "title": enc.get("name", name),
                "ruleset": enc.get("ruleset", ""),
                "ready": bool(kept.get("ready")),
                "updated": kept.get("updated", 0),
            }
        )
    return rows


def new_draft(call: Call) -> Response:
    """A new draft, kept at once: a blank grid, or a scenario file opened as it was written."""
    home = folder_of(call)
    body: NewDraft = call.body
    title = body.name.strip()  # an empty one is the reader's to refuse, at encounter.name
    if body.scenario:
        files = scenario_files(home)
        if body.scenario not in files:
            return refused(
                Problem("scenario", f"no scenario {body.scenario!r} (scenarios: {', '.join(files)})")
            )
        try:
            raw = raw_of(load_scenario(files[body.scenario]))
        except InputError as exc:
            return refused(Problem("scenario", str(exc)))
        if title:  # else the scenario keeps its own name
            raw["encounter"]["name"] = title
        title = str(raw["encounter"]["name"])
    else:
        if body.ruleset not in RULESETS:  # the reader would take any name; a builder offers the known ones
            return refused(Problem("encounter.ruleset", f"choose a ruleset ({', '.join(sorted(RULESETS))})"))
        raw = blank(title, body.ruleset, 1, 1)
        size = _size_problem(raw, body.width, body.height)
        if size is not None:
            return refused(size)
        raw = blank(title, body.ruleset, body.width, body.height)
    name = home.drafts.new_name(title)
    home.drafts.adopt_picture(name, raw)
    kept, problem = home.drafts.save(name, raw)
    return _answer(kept, problem) if kept else refused(problem or Problem("", "not kept"))


def _size_problem(raw: dict[str, Any], width: int, height: int) -> Problem | None:
    """What the reader says of a W x H map, asked before the rows are made (one row string, shared by
    every row: a 4,000 x 4,000 map asked about costs 4,000 characters, not 16 million)."""
    if width < 1 or height < 1:  # the reader takes a map of empty rows: no cell, so nothing to place
        return Problem("map.rows", f"a {width} x {height} map: a map has at least one row and one column")
    legend = raw.get("map", {}).get("legend") or {".": {"terrain": "floor"}}
    probe = {**raw, "map": {"rows": [next(iter(legend)) * width] * height, "legend": legend}}
    problem = check(probe, None)
    return problem if problem is not None and problem.field.startswith("map.rows") else None


def get_draft(call: Call) -> Response:
    home, name, missing = _draft(call)
    if missing is not None:
        return missing
    kept = home.drafts.load(name)
    problem = check(kept["scenario"], home.drafts.where)
    return JSONResponse({**kept, "problem": problem.data() if problem else None})


def put_draft(call: Call) -> Response:
    """The whole draft after one change: kept if the reader accepts it, else 422 at the field."""
    home, name, missing = _draft(call)
    if missing is not None:
        return missing
    body: DraftBody = call.body
    return _answer(*home.drafts.save(name, body.scenario))


def check_draft(call: Call) -> Response:
    """What the reader says of a scenario structure, keeping nothing: a field checked as it is typed
    before the change it belongs to is made (a new fighter's form, before its cell is tapped)."""
    home, _, missing = _draft(call)
    if missing is not None:
        return missing
    body: DraftBody = call.body
    problem = check(body.scenario, home.drafts.where)
    if problem is not None:
        return refused(problem)
    return JSONResponse({"problem": None})


def grid(call: Call) -> Response:
    """The draft's map cut or grown to W x H, asked of the reader before a row is made."""
    home, name, missing = _draft(call)
    if missing is not None:
        return missing
    body: GridBody = call.body
    raw = home.drafts.load(name)["scenario"]
    size = _size_problem(raw, body.width, body.height)
    if size is not None:
        return refused(size, home.drafts.load(name))
    if body.check:
        return JSONResponse({"problem": None})
    return _answer(*home.drafts.save(name, resized(raw, body.width, body.height)))


async def upload_map(call: Call) -> Response:
    """A Universal VTT file (the body, as the file's bytes) as the draft's map, by `import-map`'s
    importer; its report comes back with the draft."""

    home, name, missing = await anyio.to_thread.run_sync(_draft, call)
    if missing is not None:
        return missing
    request = call.request
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_UVTT_BYTES:
            return refused(Problem("map.file", f"larger than {MAX_UVTT_BYTES:,} bytes (MAX_UVTT_BYTES)"))
    source = Path(request.query_params.get("file", "map.dd2vtt")).name or "map.dd2vtt"
    kept, problem = await anyio.to_thread.run_sync(home.drafts.import_map, name, raw, source)
    return _answer(kept, problem)


def draft_picture(call: Call) -> Response:
    home, name, missing = _draft(call)
    if missing is not None:
        return missing
    path = home.drafts.picture(name)
    if path is None:
        return error(404, "not found", f"draft {name}: no battle-map picture")
    kind = sniff(path.read_bytes()[:65536])
    return FileResponse(
        path, media_type=MEDIA_TYPES.get(kind.kind if kind else "png"), headers={"Cache-Control": "no-store"}
    )


def delete_draft(call: Call) -> Response:
    home, name, missing = _draft(call)
    if missing is not None:
        return missing
    home.drafts.delete(name)
    return JSONResponse({"deleted": name})


def start(call: Call) -> Response:
    """Start the draft as `tabletrail new` would; answer the table's links, each with its QR code."""
    home, name, missing = _draft(call)
    if missing is not None:
        return missing
    try:
        began = home.drafts.start(name)
    except InputError as exc:
        kept = home.drafts.load(name)
        problem = check(kept["scenario"], home.drafts.where)
        return refused(problem or Problem("", str(exc)), kept)
    invites = home.invites_of(began)
    state = home.app_for(began).state.table.live().state
    base = f"{str(call.request.base_url).rstrip('/')}/e/{began}"
    links = []
    for role in [GM, *sorted({f.side for f in state.fighters}), WATCHER]:
        _, token = invites.make(role, label="made when the builder started it")
        url = f"{base}/join/{token}"
        links.append({"role": role, "url": url, "qr": qr_svg(url)})
    return JSONResponse({"encounter": began, "title": state.scenario.name, "links": links})
