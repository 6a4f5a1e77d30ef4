"""The installed rulesets: packages that declare an entry point in the group `tabletrail.rulesets`.

A ruleset is a plug-in. Its package declares, in its own pyproject.toml,

    [project.entry-points."tabletrail.rulesets"]
    squares-example = "tabletrail_squares_example.vocabulary:PLUGIN"

where the entry point's name is the ruleset's id and its value a `RulesetPlugin`: a light
declaration of what the log, the scenario reader and the syntax must know before any rule runs
(its commands, defined in the module that holds the declaration; its terrains and tags; its rules
version; where its `Ruleset` class lives, imported only when a command of that ruleset is decided).
tabletrail's own four rulesets are declared the same way, in tabletrail's pyproject.toml.

The entry points are read the first time anything asks (a log decoded, a scenario read, a ruleset
looked up), never at import. They are read from the files the packaging standard puts them in
(`*.dist-info/entry_points.txt` on sys.path: what `importlib.metadata.entry_points` reads too, and
`tests/rulesets/test_plugins.py` holds the two to the same answer): importing importlib.metadata
costs ~30 ms of CPU, a third of a whole `tabletrail do` (benchmarks/bench_cli.py).

A plug-in that is broken (its module fails to import, its value is not a `RulesetPlugin`, its id
or a terrain clashes with another's) is left out, and `problems()` says why in one line each; asking
for its ruleset gives that line as an InputError, never a traceback.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import msgspec
from tabletrail.events.command_base import Command, defined
from tabletrail.events.errors import InputError
from tabletrail.events.terrain import KNOWN_TAGS, TERRAIN_TAGS

GROUP = "tabletrail.rulesets"
HOME = "tabletrail"  # the package of the built-in rulesets; a log that names none was decided by it


class MissingRuleset(InputError):
    """A log's ruleset is not installed here: nothing is wrong with the log, it can't be read here."""


class RulesetPlugin(msgspec.Struct, frozen=True):
    """What a ruleset declares to tabletrail, read before any of its rules is imported.

    id: the ruleset's id, the entry point's name ("squares-example"); a scenario's `ruleset`.
    ruleset: where its `Ruleset` subclass lives, "module:Class", imported on first use.
    rules_version: the version of its rules, recorded in every log it starts: raise it when a
        command would be decided otherwise than before, so `verify` can tell an older decision
        from an edit.
    terrains: terrain names it adds to a scenario's legend, each with the tags it stands for
        ({"bog": ("difficult", "water")}); the shared ones (floor, wall, rough…) need no entry.
    tags: tag names it adds (tags its rules read that no shared terrain carries).
    title: a line for `tabletrail rules` before the ruleset is loaded.

    Its commands are the `Command` subclasses defined in (or imported by) the module that holds it:
    importing that module is what makes them decodable from a log and parsable from the syntax.
    """

    id: str
    ruleset: str
    rules_version: str = "1"
    terrains: dict[str, tuple[str, ...]] = {}
    tags: tuple[str, ...] = ()
    title: str = ""


# The records below are plain classes, not Structs: each Struct class made costs every CLI call that
# reads a log ~0.3 ms (benchmarks/bench_cli.py), and these are never encoded.


class Installed:
    """A plug-in as found: its declaration and the package that installed it."""

    __slots__ = ("package", "plugin", "version")

    def __init__(self, plugin: RulesetPlugin, package: str, version: str) -> None:
        self.plugin = plugin
        self.package = package  # the distribution's name, as pip knows it ("tabletrail-squares-example")
        self.version = version  # the distribution's version


class EntryPoint:
    """One line of a group in an entry_points.txt: `name = module:attr`, and whose it is."""

    __slots__ = ("name", "package", "value", "version")

    def __init__(self, name: str, value: str, package: str, version: str) -> None:
        self.name, self.value, self.package, self.version = name, value, package, version

    def __repr__(self) -> str:
        return f"EntryPoint({self.name} = {self.value}, from {self.package} {self.version})"


def _display(name: str) -> str:
    """A distribution's name as written in its folder (underscores) and as pip names it (hyphens)."""
    return name.replace("_", "-").lower()


def read_entry_points(group: str = GROUP, path: list[str] | None = None) -> list[EntryPoint]:
    """Every entry point of `group` in the distributions on `path` (sys.path), first found first.

    A distribution is a `NAME-VERSION.dist-info` folder; the first of a name on the path wins, as
    the import system's does.
    """
    found: list[EntryPoint] = []
    seen: set[str] = set()
    for folder in sys.path if path is None else path:
        try:
            names = os.listdir(folder or ".")
        except OSError:  # not a folder (a zip file), or gone
            continue
        for dist in names:
            name, _, version = dist.removesuffix(".dist-info").partition("-")
            if not dist.endswith(".dist-info") or not version or "-" in version:
                continue
            package = _display(name)
            if package in seen:
                continue
            seen.add(package)
            where = os.path.join(folder or ".", dist, "entry_points.txt")
            if not os.access(where, os.R_OK):  # most packages declare none: no exception each
                continue
            with open(where, "rb") as f:
                data = f.read()
            if f"[{group}]".encode() in data:  # most declare only console scripts: no parsing then
                text = data.decode("utf-8")
                found.extend(EntryPoint(n, v, package, version) for n, v in _group(text, group))
    return found


def _group(text: str, group: str) -> list[tuple[str, str]]:
    """The `name = value` lines of one [group] of an entry_points.txt (the INI-like format)."""
    out: list[tuple[str, str]] = []
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if stripped.startswith("["):
            inside = stripped == f"[{group}]"
            continue
        name, equals, value = stripped.partition("=")
        if inside and equals and name.strip() and value.strip():
            out.append((name.strip(), value.strip()))
    return out


def _verbs(module: str | None = None) -> dict[str, str]:
    """Every command verb defined so far, or those `module` defines, with the module defining it."""
    if module is None:
        return {tag: cls.__module__ for tag, cls in defined()}
    space = vars(sys.modules[module]).values()  # a module's own names: no walk of every command
    mine = (c for c in space if isinstance(c, type) and issubclass(c, Command) and c.__module__ == module)
    return {c.__struct_config__.tag: module for c in mine if isinstance(c.__struct_config__.tag, str)}


def _load(entry: EntryPoint) -> RulesetPlugin:
    """The declaration an entry point names; an InputError in one line when it can't be had."""
    where = f"ruleset plug-in {entry.name!r} (package {entry.package} {entry.version}, {entry.value})"
    module, _, attr = entry.value.partition(":")
    try:
        value: Any = importlib.import_module(module.strip())
        for part in attr.strip().split(".") if attr.strip() else ():
            value = getattr(value, part)
    except Exception as exc:  # any failure of a third party's import is that plug-in's, said in one line
        raise InputError(f"{where}: cannot be loaded: {type(exc).__name__}: {exc}") from None
    if not isinstance(value, RulesetPlugin):
        raise InputError(f"{where}: is a {type(value).__name__}, not a tabletrail RulesetPlugin")
    if value.id != entry.name:
        raise InputError(f"{where}: declares the id {value.id!r}; the entry point's name must be the id")
    return value


class _Found:
    """What discovery found: the plug-ins loaded, the problems, the merged terrains and tags."""

    __slots__ = ("plugins", "problems", "shut_out", "tags", "terrains")

    def __init__(
        self,
        plugins: dict[str, Installed],
        problems: list[str],
        terrains: dict[str, tuple[str, ...]],
        tags: frozenset[str],
        shut_out: frozenset[str],  # modules of plug-ins left out: their commands are no verbs of this table
    ) -> None:
        self.plugins, self.problems, self.terrains, self.tags, self.shut_out = (
            plugins,
            problems,
            terrains,
            tags,
            shut_out,
        )


_found: _Found | None = None


def _discover() -> _Found:
    global _found
    if _found is None:
        _found = _gather(read_entry_points())
    return _found


def _gather(entries: list[EntryPoint]) -> _Found:
    """Load every declaration; keep tabletrail's own first (in its declared order), then by id."""
    entries = sorted(entries, key=lambda e: (e.package != HOME, "" if e.package == HOME else e.name))
    plugins: dict[str, Installed] = {}
    problems: list[str] = []
    terrains = dict(TERRAIN_TAGS)
    tags = set(KNOWN_TAGS)
    verbs = _verbs()  # the engine's own, then each plug-in's as it loads: a verb means one command
    shut_out: set[str] = set()
    for entry in entries:
        if entry.name in plugins:
            other = plugins[entry.name]
            problems.append(
                f"ruleset plug-in {entry.name!r} of package {entry.package} is left out: package "
                f"{other.package} declares that id too"
            )
            continue
        try:
            plugin = _load(entry)
        except InputError as exc:
            problems.append(str(exc))
            continue
        module = entry.value.partition(":")[0].strip()
        own = _verbs(module)
        taken = sorted(v for v in own if verbs.get(v, module) != module)
        clash = [t for t, kinds in plugin.terrains.items() if terrains.get(t, kinds) != tuple(kinds)]
        if taken:
            shut_out.add(module)
            problems.append(
                f"ruleset plug-in {entry.name!r} of package {entry.package} is left out: its command "
                f"{taken[0]!r} is a verb of {verbs[taken[0]]} already (a plug-in's verbs must be new)"
            )
            continue
        verbs.update(own)
        if clash:
            shut_out.add(module)
            problems.append(
                f"ruleset plug-in {entry.name!r} of package {entry.package} is left out: terrain "
                f"{clash[0]!r} is declared already with other tags ({', '.join(terrains[clash[0]])})"
            )
            continue
        plugins[entry.name] = Installed(plugin=plugin, package=entry.package, version=entry.version)
        tags.update(plugin.tags)
        for name, kinds in plugin.terrains.items():
            terrains[name] = tuple(kinds)
            tags.update(kinds)
    return _Found(
        plugins=plugins,
        problems=problems,
        terrains=terrains,
        tags=frozenset(tags),
        shut_out=frozenset(shut_out),
    )


def installed() -> dict[str, Installed]:
    """Every ruleset plug-in that loaded, by id (its commands now importable and decodable)."""
    return _discover().plugins


def shut_out() -> frozenset[str]:
    """The modules of plug-ins left out: the commands they define are not this table's."""
    return _discover().shut_out


def built_in() -> list[str]:
    """The ids of tabletrail's own rulesets (other installed plug-ins left out), in declared order."""
    return [i for i, found in installed().items() if found.package == HOME]


def problems() -> list[str]:
    """One line for each plug-in that was left out, saying which and why."""
    return list(_discover().problems)


def terrain_tags() -> dict[str, tuple[str, ...]]:
    """Every terrain a scenario may name, the shared ones and every loaded plug-in's, with its tags."""
    return _discover().terrains


def known_tags() -> frozenset[str]:
    """Every tag a legend entry may carry: the shared ones and every loaded plug-in's."""
    return _discover().tags


def find(ruleset_id: str) -> Installed:
    """The plug-in of one ruleset; an InputError in one line when it is not installed or broken."""
    found = _discover()
    if ruleset_id in found.plugins:
        return found.plugins[ruleset_id]
    why = next((p for p in found.problems if p.startswith(f"ruleset plug-in {ruleset_id!r}")), "")
    if why:
        raise InputError(why)
    raise InputError(f"unknown ruleset {ruleset_id!r} (known: {', '.join(sorted(found.plugins))})")


def needed(ruleset_id: str, package: str, rules_version: str, where: str) -> Installed:
    """The plug-in a log was decided by, as its first line names it (package "": tabletrail's own).

    When another package's ruleset is missing, the one line says which package and rules version
    to install (MissingRuleset: the log may be sound, it can't be read here). A log that names
    tabletrail's own package, or none, and a ruleset tabletrail doesn't have is a wrong log: a
    plain InputError, which `verify` reports as the fault it is.
    """
    try:
        return find(ruleset_id)
    except InputError as exc:
        if package in ("", HOME) and str(exc).startswith("unknown ruleset"):
            raise InputError(f"{where}: {exc}") from None
        broken = "" if str(exc).startswith("unknown ruleset") else f" ({exc})"
        version = f" (rules {rules_version})" if rules_version else ""
        raise MissingRuleset(
            f"{where}: this log was decided by the ruleset {ruleset_id!r} of the package {package}{version}, "
            f"which is not installed here{broken}: install {package} to read it"
        ) from None


def leave_out(ruleset_id: str, why: str) -> None:
    """A plug-in whose rules would not load: no longer listed, and `problems()` gives `why`."""
    found = _discover()
    if found.plugins.pop(ruleset_id, None) is not None:
        found.problems.append(why)


def reset(entries: list[EntryPoint] | None = None) -> None:
    """Forget what was found (tests), or take these entry points instead of reading sys.path."""
    global _found
    _found = None if entries is None else _gather(entries)
