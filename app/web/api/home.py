"""The GM's home page of a served folder: its encounters listed, opened, copied, exported, archived;
the rulesets' catalogue for the builder; and the home's own route table.

Every route but the two pages is the GM's, told by the folder's own link (app/web/home.py):
a player's or a watcher's link is a link to one encounter and opens none of them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from starlette.responses import FileResponse, JSONResponse, Response
from tabletrail import bundle
from tabletrail.core.engine.registry import RULESETS
from tabletrail.events.errors import InputError
from tabletrail.events.limits import MAX_FIGHTERS, MAX_MAP_CELLS, MAX_MAP_SIDE
from tabletrail.events.plugins import terrain_tags
from tabletrail.events.scenario_spec import SIZES, WALL_BLOCKS
from tabletrail.service.scenario_toml import raw_of, toml_text
from tabletrail.text.render import document_title
from tabletrail.web.api import builder as b
from tabletrail.web.api.board import STATIC
from tabletrail.web.api.gm import stat_rows
from tabletrail.web.endpoints import ANYONE, HTML, JSON, Endpoint, Param
from tabletrail.web.invites import GM, Denied
from tabletrail.web.wire import Call, error, notice


def folder_of(call: Call) -> Any:
    return b.folder_of(call)


def _page(call: Call, file: str) -> Response:
    try:
        folder_of(call).invites.check(call.request.path_params["token"])
    except Denied as exc:
        title = "This link does not open the GM's page" if exc.status == 401 else "This link no longer works"
        return notice(exc.status, title, exc.reason)
    return FileResponse(
        STATIC / file, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    )


def home_page(call: Call) -> Response:
    """The GM's home page, for the folder's own link only."""
    return _page(call, "home.html")


def builder_page(call: Call) -> Response:
    """The encounter builder, for the folder's own link only."""
    return _page(call, "builder.html")


def listing(call: Call) -> Response:
    """The folder's encounters (title, ruleset, round, who is to act), its drafts and scenario files."""
    home = folder_of(call)
    encounters = [home.summary(name) for name in home.names()]
    return JSONResponse(
        {
            "folder": home.shown,
            "encounters": encounters,
            "drafts": b.draft_rows(home),
            "scenarios": list(b.scenario_files(home)),
        }
    )


def _log(call: Call) -> tuple[Any, str, Response | None]:
    home = folder_of(call)
    name = call.request.path_params["encounter"]
    try:
        home.log(name)
    except LookupError as exc:
        return home, name, error(404, "not found", str(exc))
    return home, name, None


def open_encounter(call: Call) -> Response:
    """A GM link to the encounter's table, made for this page (kept hashed with the encounter's links)."""
    home, name, missing = _log(call)
    if missing is not None:
        return missing
    try:
        _, token = home.invites_of(name).make(GM, label="opened from the GM's home page")
    except InputError as exc:
        return error(500, "log unreadable", str(exc))
    return JSONResponse({"url": f"{str(call.request.base_url).rstrip('/')}/e/{name}/join/{token}"})


def export(call: Call) -> Response:
    """The encounter as its scenario file (TOML), its log (JSON Lines, byte for byte), or the replay
    bundle (one offline HTML page, the GM's share: everything)."""

    home, name, missing = _log(call)
    if missing is not None:
        return missing
    kind = call.request.query_params.get("as", "")
    table = home.app_for(name).state.table
    stem = Path(name).stem
    if kind == "toml":
        scenario = table.live().state.scenario
        text = toml_text(raw_of(scenario), f"The scenario of {name}, exported from the GM's home page.")
        body, media, file = text.encode(), "application/toml", f"{stem}.toml"
    elif kind == "jsonl":
        with table.lock:
            body = b"".join(line + b"\n" for line in table.store.read())
        media, file = "application/jsonl", f"{stem}.jsonl"
    elif kind == "bundle":

        def picture(spec: Any) -> bytes | None:
            path = table.picture_file(spec)
            return path.read_bytes() if path is not None else None

        body = bundle.build(table.store, role=GM, find_picture=picture)
        media, file = "text/html; charset=utf-8", f"{stem}.html"
    else:
        return error(400, "bad request", f"as: {kind!r}: expected toml, jsonl or bundle")
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", file)
    return Response(
        body,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="{safe}"', "Cache-Control": "no-store"},
    )


def copy_encounter(call: Call) -> Response:
    """A new draft holding the encounter's scenario as it began: to change and start again."""

    home, name, missing = _log(call)
    if missing is not None:
        return missing
    scenario = home.app_for(name).state.table.live().state.scenario
    raw = raw_of(scenario)
    raw["encounter"]["name"] = f"{scenario.name} (copy)"
    draft = home.drafts.new_name(raw["encounter"]["name"])
    home.drafts.adopt_picture(draft, raw)
    kept, problem = home.drafts.save(draft, raw)
    return b._answer(kept, problem) if kept else b.refused(problem or b.Problem("", "not kept"))


def archive(call: Call) -> Response:
    """Move the encounter (its log and the files beside it) into FOLDER/archive/: off the list, kept."""
    home, name, missing = _log(call)
    if missing is not None:
        return missing
    moved = home.archive(name)
    return JSONResponse({"archived": name, "to": str(moved)})


def catalogue(call: Call) -> Response:
    """What the builder offers, read off the rulesets' own catalogues and the scenario reader's
    vocabularies: rules, settings with their defaults, stats with unit and range, terrains, sizes."""

    rulesets = []
    for rs in RULESETS.values():
        rulesets.append(
            {
                "id": rs.id,
                "title": rs.title,
                "document_title": document_title(rs),
                "unit": rs.unit,
                "rules": [
                    {"id": rs.rule(r.name), "enforce": r.enforce, "default": r.default} for r in rs.rules
                ],
                "settings": [
                    {
                        "name": s.name,
                        "default": s.default,
                        "choices": list(s.choices),
                        "doc": s.doc,
                        "rule": s.rule,
                    }
                    for s in rs.all_settings()
                ],
                "stats": stat_rows(rs),
            }
        )
    return JSONResponse(
        {
            "rulesets": rulesets,
            # the shared terrains and every installed ruleset's (events/plugins.py)
            "terrains": [{"terrain": t, "tags": list(tags)} for t, tags in terrain_tags().items()],
            "sizes": list(SIZES),
            "wall_blocks": list(WALL_BLOCKS),
            "limits": {"map_side": MAX_MAP_SIDE, "map_cells": MAX_MAP_CELLS, "fighters": MAX_FIGHTERS},
        }
    )


TOKEN = Param("token", str, "the GM's home link's token", "path", True)
ENCOUNTER = Param("encounter", str, "the log's file name in the folder (NAME.db, NAME.jsonl)", "path", True)
DRAFT = Param("draft", str, "the draft's name", "path", True)
E = dict[str, Any]
FILE = "application/octet-stream"

HOME_ROUTES: tuple[Endpoint, ...] = (
    Endpoint("GET", "/home/{token}", home_page, ANYONE, "the GM's home page of a served folder",
             params=(TOKEN,), answers={200: HTML, 401: HTML, 403: HTML}, media=HTML, tag="home"),
    Endpoint("GET", "/build/{token}", builder_page, ANYONE, "the encounter builder",
             params=(TOKEN,), answers={200: HTML, 401: HTML, 403: HTML}, media=HTML, tag="home"),
    Endpoint("GET", "/api/home", listing, GM, "the folder's encounters, drafts and scenario files",
             answers={200: E}, tag="home"),
    Endpoint("GET", "/api/home/rulesets", catalogue, GM,
             "the rulesets' catalogues and the scenario's vocabularies", answers={200: E}, tag="home"),
    Endpoint("POST", "/api/home/encounters/{encounter}/open", open_encounter, GM,
             "a GM link to the encounter", params=(ENCOUNTER,), answers={200: E, 404: E}, tag="home"),
    Endpoint("GET", "/api/home/encounters/{encounter}/export", export, GM,
             "the encounter as its scenario (TOML), its log (JSON Lines) or its replay bundle (HTML)",
             params=(ENCOUNTER, Param("as", str, "toml, jsonl or bundle", required=True)),
             answers={200: FILE, 400: E, 404: E}, media=FILE, tag="home"),
    Endpoint("POST", "/api/home/encounters/{encounter}/copy", copy_encounter, GM,
             "a new draft holding the encounter's scenario", params=(ENCOUNTER,), answers={200: E, 404: E},
             tag="home"),
    Endpoint("POST", "/api/home/encounters/{encounter}/archive", archive, GM,
             "move the encounter into the folder's archive/", params=(ENCOUNTER,), answers={200: E, 404: E},
             tag="home"),
    Endpoint("GET", "/api/home/drafts", b.drafts, GM, "the folder's drafts", answers={200: E}, tag="builder"),
    Endpoint("POST", "/api/home/drafts", b.new_draft, GM, "a new draft: a blank grid or a scenario file",
             body=b.NewDraft, answers={200: E, 422: E}, tag="builder"),
    Endpoint("GET", "/api/home/drafts/{draft}", b.get_draft, GM, "a draft as kept", params=(DRAFT,),
             answers={200: E, 404: E}, tag="builder"),
    Endpoint("PUT", "/api/home/drafts/{draft}", b.put_draft, GM,
             "the whole draft after a change: kept if the scenario reader accepts it", params=(DRAFT,),
             body=b.DraftBody, answers={200: E, 404: E, 422: E}, tag="builder"),
    Endpoint("POST", "/api/home/drafts/{draft}/check", b.check_draft, GM,
             "what the scenario reader says of a draft, keeping nothing", params=(DRAFT,), body=b.DraftBody,
             answers={200: E, 404: E, 422: E}, tag="builder"),
    Endpoint("DELETE", "/api/home/drafts/{draft}", b.delete_draft, GM, "throw a draft away", params=(DRAFT,),
             answers={200: E, 404: E}, tag="builder"),
    Endpoint("POST", "/api/home/drafts/{draft}/grid", b.grid, GM, "the draft's map cut or grown to W x H",
             params=(DRAFT,), body=b.GridBody, answers={200: E, 404: E, 422: E}, tag="builder"),
    Endpoint("POST", "/api/home/drafts/{draft}/map", b.upload_map, GM,
             "a Universal VTT file (the body) as the draft's map",
             params=(DRAFT, Param("file", str, "the file's name, for the report")),
             answers={200: E, 404: E, 422: E}, tag="builder"),
    Endpoint("GET", "/api/home/drafts/{draft}/picture", b.draft_picture, GM, "the draft's battle-map picture",
             params=(DRAFT,), answers={200: "image/*", 404: E}, media="image/*", tag="builder",
             query_token=True),
    Endpoint("POST", "/api/home/drafts/{draft}/start", b.start, GM,
             "start the draft as `tabletrail new` would; answers the table's links", params=(DRAFT,),
             answers={200: E, 404: E, 422: E}, tag="builder"),
)  # fmt: skip

__all__ = ["HOME_ROUTES", "JSON"]
