"""CLI verbs of the maps group (`import-map`), registered into the main parser by tabletrail.cli."""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.errors import InputError
from tabletrail.events.maps.foundry_scene import MAX_SCENE_BYTES, convert_scene, is_scene
from tabletrail.events.maps.uvtt import DEFAULT_TOLERANCE, MAX_TOLERANCE, OBJECTS, OPEN_PORTALS, convert, read
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.text import render

AddVerb = Callable[[str, Any, str], argparse.ArgumentParser]


def cmd_import_map(args: argparse.Namespace) -> int:
    """Convert a Universal VTT file (a scenario and its picture) or a Foundry scene export (a scenario with a
    fighter for each token) into a scenario; the format is told by the file's content. Nothing is written
    on any error."""

    source = Path(args.file)
    out = Path(args.output)
    rs = get_ruleset(args.ruleset)
    if source.is_dir():
        raise InputError(f"{source}: is a folder, not a Universal VTT file or a Foundry scene")
    if out.suffix != ".toml":
        raise InputError(f"-o {out}: the scenario is a TOML file: name it NAME.toml")
    if out.is_dir() or not out.parent.is_dir():
        raise InputError(
            f"-o {out}: no folder {out.parent} to write it in"
            if not out.parent.is_dir()
            else f"-o {out}: is a folder"
        )
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    if b'"resolution"' not in data:  # a UVTT file always has one; a Foundry scene never does
        scene = _foundry_scene(data, str(source))
        if scene is not None:
            return _import_scene(args, scene, rs.id, [s.name for s in rs.stats if s.default is None])
    imported = convert(
        data,
        ruleset=rs.id,
        source=str(source),
        name=source.stem,
        picture_stem=out.stem,
        tolerance=args.tolerance,
        stats=[s.name for s in rs.stats if s.default is None],
        open_portals=args.open_portals,
        objects=args.objects,
    )
    raw = tomllib.loads(imported.toml)
    raw.pop("picture", None)  # its file is not written yet; the rest must load as written
    parse_scenario(raw, source=str(out))
    picture_path = out.with_name(_picture_name(imported.toml)) if imported.picture is not None else None
    for path in (out, picture_path):
        if path is not None and path.exists() and not args.force:
            raise InputError(f"{path}: already exists; pick another -o name, or --force to replace it")
    _write_both(out, imported.toml.encode("utf-8"), picture_path, imported.picture)
    report = imported.report
    if args.json:
        doc = {"scenario": str(out), "picture": str(picture_path) if picture_path else None, **report.data()}
        print(render.json_doc("import-map", doc, rs.id))
        return 0
    beside = f", picture {picture_path.name} beside it" if picture_path else ""
    print(f"imported {source} into {out} ({rs.id}){beside}")
    for line in report.lines():
        print(f"  {line}")
    print(f'next: place your fighters in {out} (one example, "scout", is there), then: tabletrail new {out}')
    return 0


def _foundry_scene(data: bytes, source: str) -> dict[str, Any] | None:
    """The Foundry scene a file holds (the JSON of a scene's "Export Data"), or None: another format."""

    try:
        raw = read(data, source, "a Foundry scene", MAX_SCENE_BYTES, "MAX_SCENE_BYTES")
    except InputError:  # not JSON, or not an object: the UVTT reader says what is wrong, in its words
        return None
    return raw if is_scene(raw) else None


def _import_scene(args: argparse.Namespace, raw: dict[str, Any], ruleset: str, stats: list[str]) -> int:
    """A Foundry scene into a scenario: walls and doors on cell edges, a fighter for each token."""

    source, out = Path(args.file), Path(args.output)
    if args.open_portals != "door" or args.objects != "sight":
        raise InputError(
            f"{source}: a Foundry scene has no portals or objects: drop --open-portals and --objects"
        )
    done = convert_scene(raw, ruleset=ruleset, source=str(source), stats=stats, tolerance=args.tolerance)
    parse_scenario(tomllib.loads(done.toml), source=str(out))
    if out.exists() and not args.force:
        raise InputError(f"{out}: already exists; pick another -o name, or --force to replace it")
    _write_both(out, done.toml.encode("utf-8"), None, None)
    fighters = [
        {"token": p.token, "fighter": p.fighter, "at": list(p.at), "side": p.side} for p in done.fighters
    ]
    if args.json:
        doc = {"scenario": str(out), "picture": None, "format": "foundry-scene", **done.report.data()}
        doc["fighters"] = fighters  # each token's fighter (the report's count is their number)
        print(render.json_doc("import-map", doc, ruleset))
        return 0
    print(f"imported the Foundry scene {source} into {out} ({ruleset})")
    for line in done.report.lines():
        print(f"  {line}")
    print(f"next: check the fighters' stats in {out}, then: tabletrail new {out}")
    return 0


def _picture_name(toml: str) -> str:
    """The picture's file name as the scenario names it."""
    return str(tomllib.loads(toml)["picture"]["file"])


def _write_both(out: Path, text: bytes, picture_path: Path | None, picture: bytes | None) -> None:
    """Write the picture, then the scenario, each to a temporary file renamed into place: a crash
    or a full disk leaves either nothing or the old files, never half a file."""
    temps: list[Path] = []
    try:
        for path, body in ((picture_path, picture), (out, text)):
            if path is None or body is None:
                continue
            fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            temps.append(Path(name))
            with os.fdopen(fd, "wb") as fh:
                fh.write(body)
                fh.flush()
                os.fsync(fh.fileno())
        targets = [p for p in (picture_path, out) if p is not None]
        for temp, path in zip(temps, targets, strict=True):
            os.replace(temp, path)
    finally:
        for temp in temps:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()


def register(sub: Any, add: AddVerb) -> None:
    """Add this group's verbs; `add(name, fn, help)` returns the verb's parser."""

    p = add(
        "import-map",
        cmd_import_map,
        "turn a Universal VTT battle map (.dd2vtt, .df2vtt, .uvtt from Dungeondraft, DungeonFog, Arkenforge, "
        "Dungeon Alchemist) or a Foundry VTT scene export (its Export Data JSON) into a scenario: walls and "
        "doors on cell edges, the picture beside it (UVTT), a fighter for each token (Foundry)",
    )
    p.add_argument(
        "file",
        help="the Universal VTT file (JSON with resolution, line_of_sight, portals, image), or a Foundry "
        "scene export (JSON with width, height, grid, walls, tokens; square grids only)",
    )
    p.add_argument("--ruleset", required=True, help="the scenario's ruleset, e.g. speed-meters")
    p.add_argument(
        "-o", "--output", required=True, help="the scenario to write, NAME.toml (the picture is NAME.png)"
    )
    p.add_argument(
        "--tolerance",
        type=float,
        default=DEFAULT_TOLERANCE,
        help=f"cells a wall may stray from a straight line or a grid line and still count as on it "
        f"(default {DEFAULT_TOLERANCE:g}, 0 to {MAX_TOLERANCE:g}; larger smooths cave walls more)",
    )
    p.add_argument(
        "--open-portals",
        choices=OPEN_PORTALS,
        default="door",
        help="what a portal the file does not mark closed becomes: an open door (default), or a window: "
        "a wall that stops movement, not sight (Dungeondraft leaves a portal that lets light through "
        "unclosed: often a window)",
    )
    p.add_argument(
        "--objects",
        choices=OBJECTS,
        default="sight",
        help="what objects_line_of_sight (furniture, plants, pillars: things that block light) become: "
        "walls that stop sight only (default: their outlines would close whole cell edges to walking), "
        "walls that stop movement and sight, or nothing (ignore)",
    )
    p.add_argument("--force", action="store_true", help="replace the scenario and picture if they exist")
    p.add_argument("--json", action="store_true", help="one JSON document: the files written and the report")


def examples() -> dict[str, str]:
    return {
        "import-map": "tabletrail import-map scenarios/cave.dd2vtt --ruleset speed-meters -o cave.toml\n"
        "  tabletrail import-map fvtt-Scene-crypt.json --ruleset speed-meters -o crypt.toml  # Foundry"
    }
