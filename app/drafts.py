"""Encounter drafts: a scenario being built in the browser, kept on the server until the GM starts it.

A draft is the scenario's own structure (what `tomllib` gives for a scenario file) kept as
JSON in the served folder's `.drafts/` (with its battle-map picture beside it), so it
survives a reload and a restart. Every change is checked by the reader `tabletrail new`
uses (events/scenario.py, then the ruleset's checks of `Encounter.create`) before it is
kept: a draft the reader would refuse is never saved. Only a draft without fighters yet
is kept unfinished. Start writes the scenario file and the log exactly as `tabletrail new`
does, beside the folder's other encounters.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
import secrets
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
from tabletrail.events.errors import InputError
from tabletrail.events.picture import sniff

SOURCE = "draft"  # how the reader names the draft in its errors: "draft: fighters[2].at: 3,4 is wall"
DRAFTS = ".drafts"
NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")
NO_FIGHTERS = "fighters"  # the one field a draft may leave unfinished: fighters are placed last
PICTURE_SUFFIXES = (".png", ".jpg", ".webp")


@dataclass(frozen=True)
class Problem:
    """What the reader refuses in a draft: the field's path ("fighters[2].at") and the words why."""

    field: str
    message: str

    def data(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


def problem_of(exc: InputError, source: str = SOURCE) -> Problem:
    """The reader's one-line error, cut into the field it names and what it says."""
    text = str(exc)
    text = text.removeprefix(f"{source}: ")
    head, sep, rest = text.partition(": ")
    path = re.match(r"[A-Za-z_][\w.\[\]'\"-]*", head) if sep else None
    if path is None:
        return Problem("", text)
    extra = head[path.end() :].strip()
    stat = re.match(r"missing stat '(\w+)'", rest)  # the ruleset names the fighter; the field is its stat
    field = f"{path.group(0)}.{stat.group(1)}" if stat else path.group(0)
    return Problem(field, f"{extra}: {rest}" if extra else rest)


def check(raw: dict[str, Any], folder: Path | None) -> Problem | None:
    """The first thing `tabletrail new` would refuse in this scenario structure, or None.

    The scenario reader first, then the ruleset's own checks of a new encounter (stats,
    settings, fighters on open ground, one to a space), run on a log kept in memory.
    """
    from tabletrail.encounter import Encounter
    from tabletrail.events.log import MemoryStore
    from tabletrail.events.scenario import parse_scenario

    try:
        scenario = parse_scenario(raw, source=SOURCE, folder=folder)
        Encounter.create(MemoryStore(), scenario, where=SOURCE)
    except InputError as exc:
        return problem_of(exc)
    return None


def unfinished(raw: dict[str, Any], problem: Problem | None) -> bool:
    """Whether the only thing missing is the fighters: such a draft is kept, but can't start yet."""
    return problem is not None and problem.field == NO_FIGHTERS and not raw.get("fighters")


def slug(text: str) -> str:
    """A draft's or a log's file name made from the encounter's name."""
    made = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40].strip("-")
    return made or "encounter"


def blank(name: str, ruleset: str, width: int, height: int) -> dict[str, Any]:
    """A map of plain floor, W x H, with no fighters yet."""
    return {
        "encounter": {"name": name, "ruleset": ruleset, "seed": 1},
        "map": {"rows": ["." * width for _ in range(height)], "legend": {".": {"terrain": "floor"}}},
        "fighters": [],
    }


def resized(raw: dict[str, Any], width: int, height: int) -> dict[str, Any]:
    """The draft with its map cut or grown to W x H (new cells are the first legend entry)."""
    out = copy.deepcopy(raw)
    map_ = out.setdefault("map", {})
    rows = [r for r in map_.get("rows", []) if isinstance(r, str)]
    legend = map_.get("legend") or {".": {"terrain": "floor"}}
    map_["legend"] = legend
    fill = next(iter(legend))
    map_["rows"] = [(rows[y] if y < len(rows) else "")[:width].ljust(width, fill) for y in range(height)]
    return out


class Drafts:
    """The drafts of one served folder, each a JSON file in `.drafts/` (its picture beside it)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.dir = folder / DRAFTS

    def _path(self, name: str) -> Path:
        if not NAME.match(name):
            raise LookupError(f"no draft {name!r}: a draft's name is lower-case letters, digits and -")
        return self.dir / f"{name}.json"

    def names(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.stem for p in self.dir.glob("*.json") if NAME.match(p.stem))

    def exists(self, name: str) -> bool:
        return self._path(name).is_file()

    def load(self, name: str) -> dict[str, Any]:
        """The draft as kept: {"name", "scenario", "report", "updated", "ready", "problem"}."""
        path = self._path(name)
        try:
            kept = msgspec.json.decode(path.read_bytes())
        except FileNotFoundError:
            raise LookupError(f"no draft {name!r} (drafts: {', '.join(self.names()) or 'none'})") from None
        except msgspec.DecodeError as exc:
            raise InputError(f"{path}: not a tabletrail draft ({exc})") from None
        return kept if isinstance(kept, dict) else {}

    def new_name(self, title: str) -> str:
        """A free name for a draft of this title."""
        base = slug(title)
        name = base
        while self.exists(name):
            name = f"{base}-{secrets.token_hex(2)}"
        return name

    def save(
        self, name: str, raw: dict[str, Any], report: list[str] | None = None
    ) -> tuple[dict[str, Any], Problem | None]:
        """Keep the draft if the reader accepts it (or only its fighters are missing); else keep the old
        one and say what the reader refused. Answers the draft as kept and the problem, if any."""
        problem = check(raw, self.dir)
        if problem is not None and not unfinished(raw, problem):
            return self.load(name) if self.exists(name) else {}, problem
        old = self.load(name) if self.exists(name) else {}
        kept = {
            "name": name,
            "scenario": raw,
            "report": report if report is not None else old.get("report", []),
            "updated": time.time(),
            "ready": problem is None,
        }
        self._write(self._path(name), msgspec.json.encode(kept))
        return kept, problem

    def _write(self, path: Path, data: bytes) -> None:
        """Written whole or not at all (a temporary file renamed into place)."""
        self.dir.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=self.dir)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    def delete(self, name: str) -> None:
        path = self._path(name)
        if not path.is_file():
            raise LookupError(f"no draft {name!r}")
        for picture in self._pictures(name):
            picture.unlink()
        path.unlink()

    def _pictures(self, name: str) -> list[Path]:
        return [p for p in (self.dir / f"{name}{s}" for s in PICTURE_SUFFIXES) if p.is_file()]

    def picture(self, name: str) -> Path | None:
        """The draft's battle-map picture, if its scenario names one kept with the drafts."""
        raw = self.load(name).get("scenario", {})
        pic = raw.get("picture") if isinstance(raw, dict) else None
        file = pic.get("file") if isinstance(pic, dict) else None
        if not isinstance(file, str):
            return None
        path = (self.dir / file).resolve()
        return path if path.is_file() else None

    def import_map(self, name: str, data: bytes, source: str) -> tuple[dict[str, Any], Problem | None]:
        """A Universal VTT file as the draft's map, by `import-map`'s own importer: its rows, walls, doors
        and picture replace the draft's map; the draft's encounter, settings and fighters stay."""
        from tabletrail.core.rulesets import get as get_ruleset
        from tabletrail.events.uvtt import convert

        old = self.load(name)["scenario"]
        ruleset = str(old.get("encounter", {}).get("ruleset", ""))
        rs = get_ruleset(ruleset)
        try:
            imported = convert(
                data,
                ruleset=rs.id,
                source=source,
                name=str(old.get("encounter", {}).get("name", name)),
                picture_stem=f"{name}.new",
                stats=[s.name for s in rs.stats if s.default is None],
            )
        except InputError as exc:
            return old, Problem("map.file", str(exc))
        made = tomllib.loads(imported.toml)
        raw = copy.deepcopy(old)
        raw["map"] = made["map"]
        raw.pop("picture", None)
        picture_name = ""
        if imported.picture is not None:
            kind = sniff(imported.picture)
            suffix = (
                ".jpg" if kind is not None and kind.kind == "jpeg" else f".{kind.kind if kind else 'png'}"
            )
            picture_name = f"{name}.new{suffix}"
            self._write(self.dir / picture_name, imported.picture)
            raw["picture"] = {**made["picture"], "file": picture_name}
        kept, problem = self.save(name, raw, report=imported.report.lines())
        if picture_name:
            if problem is not None and not unfinished(raw, problem):
                (self.dir / picture_name).unlink()
            else:  # the new picture takes the place of the old one
                for old_picture in self._pictures(name):
                    old_picture.unlink()
                final = picture_name.replace(".new", "")
                os.replace(self.dir / picture_name, self.dir / final)
                raw["picture"]["file"] = final
                kept, problem = self.save(name, raw, report=imported.report.lines())
        return kept, problem

    def start(self, name: str) -> Path:
        """Start the draft as `tabletrail new` starts a scenario file: the scenario written beside the
        folder's encounters as NAME.toml (its picture as NAME.png), read back by the same reader, and
        the log NAME.db begun from it. The draft is gone once the log is written."""
        from tabletrail.cli_store import store_for
        from tabletrail.encounter import Encounter
        from tabletrail.events.scenario import at_its_place, load_scenario
        from tabletrail.scenario_toml import toml_text

        raw = copy.deepcopy(self.load(name)["scenario"])
        problem = check(raw, self.dir)
        if problem is not None:
            where = f"{problem.field}: " if problem.field else ""
            raise InputError(f"{SOURCE} {name}: {where}{problem.message}")
        picture = self.picture(name)
        stem = self._free_stem(slug(str(raw["encounter"]["name"])), picture.suffix if picture else "")
        if picture is not None:
            self.folder.joinpath(stem + picture.suffix).write_bytes(picture.read_bytes())
            raw["picture"]["file"] = stem + picture.suffix
        scenario_path = self.folder / f"{stem}.toml"
        scenario_path.write_text(toml_text(raw, "Built in tabletrail's encounter builder."), encoding="utf-8")
        log = self.folder / f"{stem}.db"
        scenario = load_scenario(scenario_path)  # what `tabletrail new SCENARIO --log LOG` does
        store = store_for(str(log))
        try:
            with at_its_place(scenario_path):
                Encounter.create(store, scenario, where=str(scenario_path))
        finally:
            close = getattr(store, "close", None)
            if close is not None:
                close()
        self.delete(name)
        return log

    def _free_stem(self, base: str, picture_suffix: str) -> str:
        """A stem no file of the folder uses yet (NAME.toml, NAME.db, the picture)."""
        stem, n = base, 1
        while any(
            self.folder.joinpath(stem + s).exists() for s in (".toml", ".db", ".jsonl", picture_suffix) if s
        ):
            n += 1
            stem = f"{base}-{n}"
        return stem
