"""Encounter drafts: a scenario being built in the browser, kept on the server until the GM starts it.

A draft is the scenario's own structure (what `tomllib` gives for a scenario file) kept as
JSON in the served folder's `.drafts/` (with its battle-map picture beside it), so it
survives a reload and a restart. Every change is checked by the reader `tabletrail new`
uses (events/scenario/reader.py, then the ruleset's checks of `Encounter.create`) before it is
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
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.errors import InputError
from tabletrail.events.maps.uvtt import convert
from tabletrail.events.picture import sniff
from tabletrail.events.scenario.reader import at_its_place, load_scenario, parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter
from tabletrail.service.scenario_toml import toml_text
from tabletrail.service.stores import store_for

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
    """Drafts of one place that serves encounters: what they share (checked saves, the Universal VTT
    map, Start). Where they are kept is the place's: files of a folder (FolderDrafts), or a table of a
    PostgreSQL database (app/web/home_db.py)."""

    keeps_pictures = True  # a battle-map picture is kept with the draft and started with it
    where: Path | None = None  # the folder a draft's [picture] file is read from

    # --- where drafts are kept: each place's own --------------------------------------------

    def names(self) -> list[str]:
        raise NotImplementedError

    def _read(self, name: str) -> bytes | None:
        raise NotImplementedError

    def _keep(self, name: str, data: bytes) -> None:
        raise NotImplementedError

    def _drop(self, name: str) -> None:
        raise NotImplementedError

    def _keep_picture(self, name: str, data: bytes, suffix: str) -> str:
        """Keep a draft's new battle-map picture; its file name, as the scenario's [picture] names it."""
        raise NotImplementedError

    def picture(self, name: str) -> Path | None:
        """The draft's battle-map picture, if it has one."""
        return None

    def adopt_picture(self, name: str, raw: dict[str, Any]) -> None:
        """A scenario file's picture, opened as a draft, kept as the draft's own (where pictures are kept)."""
        raw.pop("picture", None)

    def _begin(self, name: str, raw: dict[str, Any]) -> str:
        """Start the checked scenario as `tabletrail new` would; the new encounter's name."""
        raise NotImplementedError

    # --- what every place shares ----------------------------------------------------------

    def _checked_name(self, name: str) -> str:
        if not NAME.match(name):
            raise LookupError(f"no draft {name!r}: a draft's name is lower-case letters, digits and -")
        return name

    def exists(self, name: str) -> bool:
        return self._read(self._checked_name(name)) is not None

    def load(self, name: str) -> dict[str, Any]:
        """The draft as kept: {"name", "scenario", "report", "updated", "ready"}."""
        data = self._read(self._checked_name(name))
        if data is None:
            raise LookupError(f"no draft {name!r} (drafts: {', '.join(self.names()) or 'none'})")
        try:
            kept = msgspec.json.decode(data)
        except msgspec.DecodeError as exc:
            raise InputError(f"draft {name}: not a tabletrail draft ({exc})") from None
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
        self._checked_name(name)
        problem = check(raw, self.where)
        old = self.load(name) if self.exists(name) else {}
        if problem is not None and not unfinished(raw, problem):
            return old, problem
        kept = {
            "name": name,
            "scenario": raw,
            "report": report if report is not None else old.get("report", []),
            "updated": time.time(),
            "ready": problem is None,
        }
        self._keep(name, msgspec.json.encode(kept))
        return kept, problem

    def delete(self, name: str) -> None:
        if not self.exists(name):
            raise LookupError(f"no draft {name!r}")
        self._drop(name)

    def import_map(self, name: str, data: bytes, source: str) -> tuple[dict[str, Any], Problem | None]:
        """A Universal VTT file as the draft's map, by `import-map`'s own importer: its rows, walls, doors
        and picture replace the draft's map; the draft's encounter, settings and fighters stay."""

        old = self.load(name)["scenario"]
        rs = get_ruleset(str(old.get("encounter", {}).get("ruleset", "")))
        try:
            imported = convert(
                data,
                ruleset=rs.id,
                source=source,
                name=str(old.get("encounter", {}).get("name", name)),
                picture_stem=name,
                stats=[s.name for s in rs.stats if s.default is None],
            )
        except InputError as exc:
            return old, Problem("map.file", str(exc))
        made = tomllib.loads(imported.toml)
        raw = copy.deepcopy(old)
        raw["map"] = made["map"]
        raw.pop("picture", None)
        report = imported.report.lines()
        if imported.picture is not None and not self.keeps_pictures:
            report.append(
                "picture: not kept: a table hosted in a database reads no picture files (serve a folder)"
            )
        # A new map: checked first without its picture, so a refused map keeps nothing of it.
        kept, problem = self.save(name, raw, report=report)
        if imported.picture is None or not self.keeps_pictures or (problem and not unfinished(raw, problem)):
            return kept, problem
        suffix = picture_suffix(imported.picture)
        raw["picture"] = {**made["picture"], "file": self._keep_picture(name, imported.picture, suffix)}
        return self.save(name, raw, report=report)

    def start(self, name: str) -> str:
        """Start the draft as `tabletrail new` starts a scenario file; the draft is gone once the log is
        written. The new encounter's name (a log's file name, or a database's encounter)."""
        raw = copy.deepcopy(self.load(name)["scenario"])
        problem = check(raw, self.where)
        if problem is not None:
            where = f"{problem.field}: " if problem.field else ""
            raise InputError(f"{SOURCE} {name}: {where}{problem.message}")
        began = self._begin(name, raw)
        self.delete(name)
        return began


def picture_suffix(data: bytes) -> str:
    """The file suffix of a picture, told by its bytes (as `import-map` names the picture it writes)."""
    kind = sniff(data)
    return ".jpg" if kind is not None and kind.kind == "jpeg" else f".{kind.kind if kind else 'png'}"


def begin_from_file(scenario_path: Path, store: Any) -> None:
    """What `tabletrail new SCENARIO --log LOG` does: the scenario file read by the reader, the ruleset's
    checks run naming its lines, the log's setup batch written."""

    scenario = load_scenario(scenario_path)
    try:
        with at_its_place(scenario_path):
            Encounter.create(store, scenario, where=str(scenario_path))
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()


class FolderDrafts(Drafts):
    """The drafts of a served folder, each a JSON file in `.drafts/` (its picture beside it)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.dir = self.where = folder / DRAFTS

    def _path(self, name: str) -> Path:
        return self.dir / f"{self._checked_name(name)}.json"

    def names(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.stem for p in self.dir.glob("*.json") if NAME.match(p.stem))

    def _read(self, name: str) -> bytes | None:
        try:
            return self._path(name).read_bytes()
        except FileNotFoundError:
            return None

    def _keep(self, name: str, data: bytes) -> None:
        self._write(self._path(name), data)

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

    def _drop(self, name: str) -> None:
        for picture in self._pictures(name):
            picture.unlink()
        self._path(name).unlink()

    def _pictures(self, name: str) -> list[Path]:
        return [p for p in (self.dir / f"{name}{s}" for s in PICTURE_SUFFIXES) if p.is_file()]

    def _keep_picture(self, name: str, data: bytes, suffix: str) -> str:
        for old in self._pictures(name):
            old.unlink()
        self._write(self.dir / f"{name}{suffix}", data)
        return f"{name}{suffix}"

    def picture(self, name: str) -> Path | None:
        raw = self.load(name).get("scenario", {})
        pic = raw.get("picture") if isinstance(raw, dict) else None
        file = pic.get("file") if isinstance(pic, dict) else None
        if not isinstance(file, str):
            return None
        path = (self.dir / file).resolve()
        # only a picture kept with the drafts is served: a draft naming a file elsewhere shows none
        return path if path.is_file() and path.parent == self.dir.resolve() else None

    def adopt_picture(self, name: str, raw: dict[str, Any]) -> None:
        """A scenario file's picture, opened as a draft, copied to be the draft's own."""
        pic = raw.get("picture")
        if not isinstance(pic, dict) or not isinstance(pic.get("file"), str):
            return
        source = Path(pic["file"])
        if not source.is_file():
            return
        data = source.read_bytes()
        pic["file"] = self._keep_picture(name, data, picture_suffix(data))

    def _begin(self, name: str, raw: dict[str, Any]) -> str:
        """The scenario written beside the folder's encounters as NAME.toml (its picture as NAME.png),
        then the log NAME.db begun from that file."""

        picture = self.picture(name)
        stem = self._free_stem(slug(str(raw["encounter"]["name"])), picture.suffix if picture else "")
        if picture is not None:
            self.folder.joinpath(stem + picture.suffix).write_bytes(picture.read_bytes())
            raw["picture"]["file"] = stem + picture.suffix
        scenario_path = self.folder / f"{stem}.toml"
        scenario_path.write_text(toml_text(raw, "Built in tabletrail's encounter builder."), encoding="utf-8")
        log = self.folder / f"{stem}.db"
        begin_from_file(scenario_path, store_for(str(log)))
        return log.name

    def _free_stem(self, base: str, picture_suffix: str) -> str:
        """A stem no file of the folder uses yet (NAME.toml, NAME.db, the picture)."""
        stem, n = base, 1
        suffixes = [s for s in (".toml", ".db", ".jsonl", picture_suffix) if s]
        while any(self.folder.joinpath(stem + s).exists() for s in suffixes):
            n += 1
            stem = f"{base}-{n}"
        return stem
