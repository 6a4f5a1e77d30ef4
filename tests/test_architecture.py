"""The dependency direction of the source folders, read from the imports themselves (docs/ARCHITECTURE.md).

core is the rules, pure: it imports nothing from the stores (events/stores/: the log, its chain and the
database stores), the projections or the app. events (the vocabulary, the log and its stores) imports
neither the projections nor the app; the projections don't import the app; and no ruleset
package imports another (a shared mechanic goes in core, written once). The public ruleset
API (ruleset_api/, tabletrail.ruleset_api) is made of core and events and imported by the
rulesets: nothing else in core or events imports it, and it imports no store, projection
or app. Every import statement counts, at the top of a module or inside a function.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {  # folder -> the package it installs as (pyproject.toml)
    "app": "tabletrail",
    "core": "tabletrail.core",
    "events": "tabletrail.events",
    "projections": "tabletrail.projections",
    "ruleset_api": "tabletrail.ruleset_api",
}
STORES = ("tabletrail.events.stores",)  # the log's line format and chain, and every store (events/stores/)
RULESETS = "tabletrail.core.rulesets"
API = "tabletrail.ruleset_api"

# layer -> (what it must not import, why)
FORBIDDEN: dict[str, list[tuple[str, str]]] = {
    "core": [(s, "the rules don't know the stores") for s in STORES]
    + [
        ("tabletrail.projections", "the rules don't depend on a view"),
        ("app", "the rules don't know the app"),
        (API, "the engine doesn't import the API made of it (a ruleset does)"),
    ],
    "events": [
        ("tabletrail.projections", "the log doesn't depend on a view"),
        ("app", "the log doesn't know the app"),
        (API, "the vocabulary doesn't import the API made of it"),
    ],
    "ruleset_api": [(s, "the ruleset API doesn't know the stores") for s in STORES]
    + [
        ("tabletrail.projections", "the ruleset API doesn't depend on a view"),
        ("app", "the ruleset API doesn't know the app"),
    ],
    "projections": [("app", "a projection doesn't know the service that writes the log")],
    "app": [],
}


def _layer(module: str) -> str:
    """Which folder an imported tabletrail module lives in: core, events, projections, ruleset_api or app."""
    for layer in ("core", "events", "projections", "ruleset_api"):
        name = FOLDERS[layer]
        if module == name or module.startswith(name + "."):
            return layer
    return "app"


def _imports(path: Path, package: str, packages: set[str]) -> Iterator[tuple[int, str]]:
    """(line, module) for every module a file imports; relative imports are resolved against
    `package`, and `from P import m` names the module P.m when P is one of `packages`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([module] if module else [])])
            if module in packages:
                yield from ((node.lineno, f"{module}.{alias.name}") for alias in node.names)
            else:
                yield node.lineno, module


def _ruleset_of(module: str, names: set[str]) -> str | None:
    """The ruleset package a module belongs to (None outside core/rulesets/<name>/)."""
    parts = module.split(".")
    if module.startswith(RULESETS + ".") and parts[3] in names:
        return parts[3]
    return None


def _banned(folder: str, module: str) -> str | None:
    """Why `folder` must not import `module`, or None when it may."""
    for banned, why in FORBIDDEN[folder]:
        if banned == "app":
            hit = _layer(module) == "app"
        else:
            hit = module == banned or module.startswith(banned + ".")
        if hit:
            return why
    return None


def _sources(root: Path) -> Iterator[tuple[str, Path, str]]:
    """(folder, file, its package) for every source file of the four folders."""
    for folder, top in FOLDERS.items():
        for path in sorted((root / folder).rglob("*.py")):
            yield folder, path, ".".join([top, *path.relative_to(root / folder).parent.parts])


def violations(root: Path) -> list[str]:
    """Every import that runs against the direction, as `file:line: imports X: why`, by file."""
    rulesets = {p.name for p in (root / "core" / "rulesets").glob("*") if p.is_dir()}
    packages = {"tabletrail", *FOLDERS.values(), RULESETS}
    found = []
    for folder, path, package in _sources(root):
        name = package if path.name == "__init__.py" else f"{package}.{path.stem}"
        mine = _ruleset_of(name, rulesets)
        for line, module in _imports(path, package, packages):
            if module != "tabletrail" and not module.startswith("tabletrail."):
                continue
            why = _banned(folder, module)
            if mine and (module == API or module.startswith(API + ".")):
                why = None  # a ruleset imports the public API
            theirs = _ruleset_of(module, rulesets)
            if why is None and mine and theirs and theirs != mine:
                why = "a ruleset doesn't import another (a shared mechanic goes in core, once)"
            if why is not None:
                found.append(f"{path.relative_to(root).as_posix()}:{line}: imports {module}: {why}")
    return sorted(found)


def test_the_source_folders_import_one_way_only() -> None:
    found = violations(ROOT)
    assert not found, "imports against the direction:\n" + "\n".join(found)


def ruleset_reaches(root: Path) -> list[str]:
    """Every import of a ruleset's own modules from outside the rulesets, as `file:line: module`:
    the app, the projections and the engine reach a ruleset only through the registry
    (core/rulesets/__init__.py) and its hooks, so a plug-in's ruleset shows like a built-in's."""
    packages = {"tabletrail", *FOLDERS.values(), RULESETS}
    rulesets = {p.name for p in (root / "core" / "rulesets").glob("*") if p.is_dir()}
    found = []
    for _, path, package in _sources(root):
        if path.is_relative_to(root / "core" / "rulesets"):
            continue
        for line, module in _imports(path, package, packages):
            if _ruleset_of(module, rulesets):
                found.append(f"{path.relative_to(root).as_posix()}:{line}: {module}")
    return sorted(found)


def test_nothing_outside_the_rulesets_imports_a_rulesets_modules() -> None:
    found = ruleset_reaches(ROOT)
    assert not found, "a ruleset's modules imported from outside the rulesets:\n" + "\n".join(found)


def test_a_planted_reach_into_a_ruleset_is_named(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "app/web/views.py": "from tabletrail.core.rulesets.round_meters.shared import HELD\n",
            "core/rulesets/round_meters/shared.py": "HELD = 'held'\n",
            "app/cli.py": "from tabletrail.core.rulesets import get\n",
        },
    )
    assert ruleset_reaches(tmp_path) == ["app/web/views.py:1: tabletrail.core.rulesets.round_meters.shared"]


def reaches_past_the_api(root: Path) -> list[str]:
    """Every import a ruleset makes of tabletrail other than the public API (tabletrail.ruleset_api),
    its own package and its own vocabulary (events/commands/<its name>.py), as `file:line: module`:
    the built-ins are written as a plug-in is, so what they need, a plug-in can have."""
    packages = {"tabletrail", *FOLDERS.values(), RULESETS}
    rulesets = {p.name for p in (root / "core" / "rulesets").glob("*") if p.is_dir()}
    found = []
    for _, path, package in _sources(root):
        mine = _ruleset_of(package, rulesets)
        if not mine:
            continue
        own = (f"{RULESETS}.{mine}", f"tabletrail.events.commands.{mine}", API)
        for line, module in _imports(path, package, packages):
            if module.startswith("tabletrail.") and not any(
                module == o or module.startswith(o + ".") for o in own
            ):
                found.append(f"{path.relative_to(root).as_posix()}:{line}: {module}")
    return sorted(found)


def test_a_ruleset_imports_only_the_public_api() -> None:
    found = reaches_past_the_api(ROOT)
    assert not found, "a ruleset reaches past tabletrail.ruleset_api:\n" + "\n".join(found)


def test_a_planted_reach_past_the_api_is_named(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "core/rulesets/alpha/walk.py": "from tabletrail.core.walls import step_blocked\n"
            "from tabletrail.ruleset_api import walk\n"
            "from tabletrail.core.rulesets.alpha.shared import X\n"
            "from tabletrail.events.commands.alpha import Hop\n",
            "core/rulesets/alpha/shared.py": "X = 1\n",
        },
    )
    assert reaches_past_the_api(tmp_path) == ["core/rulesets/alpha/walk.py:1: tabletrail.core.walls"]


def test_the_check_reads_every_source_folder() -> None:
    """A check that read nothing would pass: it must see the modules the direction is about."""
    seen = {(folder, p.relative_to(ROOT).as_posix(), pkg) for folder, p, pkg in _sources(ROOT)}
    assert {
        ("core", "core/evolve.py", "tabletrail.core"),
        ("core", "core/rulesets/speed_meters/forces.py", "tabletrail.core.rulesets.speed_meters"),
        ("events", "events/stores/jsonl.py", "tabletrail.events.stores"),
        ("projections", "projections/audit/verify.py", "tabletrail.projections.audit"),
        ("app", "app/web/server.py", "tabletrail.web"),
    } <= seen
    assert len(seen) > 80


def _plant(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_a_planted_violation_is_named_with_file_and_line(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "core/state.py": "from tabletrail.events.types import Moved\n",
            "core/rules.py": '"""doc"""\n\ndef f():\n    from tabletrail.projections.board import view\n',
            "core/stored.py": "from tabletrail.events.stores.record import Record\n",
            "core/rulesets/alpha/walk.py": "from tabletrail.core.rulesets.beta.shared import X\n",
            "core/rulesets/beta/shared.py": "X = 1\n",
            "core/rulesets/alpha/own.py": "from tabletrail.core.rulesets.alpha.shared import X\n",
            "core/rulesets/__init__.py": "from tabletrail.core.rulesets.alpha import Alpha\n",
            "events/stores/jsonl.py": "import tabletrail.encounter\n",
            "projections/audit/dry_run.py": "from tabletrail.encounter import Encounter\n",
            "projections/board.py": "from tabletrail.core.evolve import fold\n",
            "app/cli.py": "from tabletrail.projections import audit\nfrom tabletrail import render\n",
        },
    )
    found = violations(tmp_path)
    assert found == [
        "core/rules.py:4: imports tabletrail.projections.board: the rules don't depend on a view",
        "core/rulesets/alpha/walk.py:1: imports tabletrail.core.rulesets.beta.shared: "
        "a ruleset doesn't import another (a shared mechanic goes in core, once)",
        "core/stored.py:1: imports tabletrail.events.stores.record: the rules don't know the stores",
        "events/stores/jsonl.py:1: imports tabletrail.encounter: the log doesn't know the app",
        "projections/audit/dry_run.py:1: imports tabletrail.encounter: "
        "a projection doesn't know the service that writes the log",
    ]


def test_only_a_ruleset_imports_the_ruleset_api(tmp_path: Path) -> None:
    """The API is made of the engine: the engine importing it would close a circle; a ruleset may."""
    _plant(
        tmp_path,
        {
            "core/evolve.py": "from tabletrail.ruleset_api import Ruleset\n",
            "core/rulesets/alpha/walk.py": "from tabletrail.ruleset_api import Ruleset\n",
            "events/types.py": "import tabletrail.ruleset_api\n",
            "ruleset_api/__init__.py": "from tabletrail.projections.board import view\n",
        },
    )
    assert violations(tmp_path) == [
        "core/evolve.py:1: imports tabletrail.ruleset_api.Ruleset: "
        "the engine doesn't import the API made of it (a ruleset does)",
        "events/types.py:1: imports tabletrail.ruleset_api: the vocabulary doesn't import the API made of it",
        "ruleset_api/__init__.py:1: imports tabletrail.projections.board: "
        "the ruleset API doesn't depend on a view",
    ]


def test_from_the_package_imports_are_resolved(tmp_path: Path) -> None:
    """`from tabletrail import encounter` and relative imports reach the app as surely as dotted ones."""
    _plant(
        tmp_path,
        {
            "projections/timeline.py": "from tabletrail import encounter\n",
            "projections/audit/verify.py": "from ... import history\n",
            "core/reach.py": "from ..projections import board\n",
        },
    )
    assert violations(tmp_path) == [
        "core/reach.py:1: imports tabletrail.projections.board: the rules don't depend on a view",
        "projections/audit/verify.py:1: imports tabletrail.history: "
        "a projection doesn't know the service that writes the log",
        "projections/timeline.py:1: imports tabletrail.encounter: "
        "a projection doesn't know the service that writes the log",
    ]
