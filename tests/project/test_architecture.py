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

ROOT = Path(__file__).resolve().parents[2]
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
    (core/engine/registry.py) and its hooks, so a plug-in's ruleset shows like a built-in's."""
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
            "app/cli.py": "from tabletrail.core.engine.registry import get\n",
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
            "core/rulesets/alpha/walk.py": "from tabletrail.core.board.walls import step_blocked\n"
            "from tabletrail.ruleset_api import walk\n"
            "from tabletrail.core.rulesets.alpha.shared import X\n"
            "from tabletrail.events.commands.alpha import Hop\n",
            "core/rulesets/alpha/shared.py": "X = 1\n",
        },
    )
    assert reaches_past_the_api(tmp_path) == ["core/rulesets/alpha/walk.py:1: tabletrail.core.board.walls"]


def test_the_check_reads_every_source_folder() -> None:
    """A check that read nothing would pass: it must see the modules the direction is about."""
    seen = {(folder, p.relative_to(ROOT).as_posix(), pkg) for folder, p, pkg in _sources(ROOT)}
    assert {
        ("core", "core/decide.py", "tabletrail.core"),
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
            "core/board/state.py": "from tabletrail.events.types import Moved\n",
            "core/rules.py": '"""doc"""\n\ndef f():\n    from tabletrail.projections.board import view\n',
            "core/stored.py": "from tabletrail.events.stores.record import Record\n",
            "core/rulesets/alpha/walk.py": "from tabletrail.core.rulesets.beta.shared import X\n",
            "core/rulesets/beta/shared.py": "X = 1\n",
            "core/rulesets/alpha/own.py": "from tabletrail.core.rulesets.alpha.shared import X\n",
            "core/engine/registry.py": "from tabletrail.core.rulesets.alpha import Alpha\n",
            "events/stores/jsonl.py": "import tabletrail.encounter\n",
            "projections/audit/dry_run.py": "from tabletrail.encounter import Encounter\n",
            "projections/board.py": "from tabletrail.core.fold.evolve import fold\n",
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
            "core/fold/evolve.py": "from tabletrail.ruleset_api import Ruleset\n",
            "core/rulesets/alpha/walk.py": "from tabletrail.ruleset_api import Ruleset\n",
            "events/types.py": "import tabletrail.ruleset_api\n",
            "ruleset_api/__init__.py": "from tabletrail.projections.board import view\n",
        },
    )
    assert violations(tmp_path) == [
        "core/fold/evolve.py:1: imports tabletrail.ruleset_api.Ruleset: "
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
            "core/decide.py": "from ..projections import board\n",
        },
    )
    assert violations(tmp_path) == [
        "core/decide.py:1: imports tabletrail.projections.board: the rules don't depend on a view",
        "projections/audit/verify.py:1: imports tabletrail.history: "
        "a projection doesn't know the service that writes the log",
        "projections/timeline.py:1: imports tabletrail.encounter: "
        "a projection doesn't know the service that writes the log",
    ]


# --- core in one-way layers, no import circle, imports at the top (issue 37, item 5) -----------------

# core's layers, lowest first: a module's layer is its sub-package (core/board/walls.py: board), the
# public ruleset API (ruleset_api/) stands between the searches and the rulesets made of it, and
# core/decide.py is the top. A module may import its own layer (no circle, below) and those under it.
CORE_LAYERS = ("board", "fold", "engine", "search", "api", "rulesets", "decide")
# What the circle check covers: every module of the installed package (the app's and the events' own
# checks, test_architecture_app.py and test_architecture_events.py, add their layer orders).
CIRCLE_SCOPE = ("tabletrail",)
# Imports inside a function in core/, ruleset_api/, projections/ and events/, each kept for a reason:
# (file, module) -> why. Any other import inside a function fails, naming its file and line.
KEPT_IN_FUNCTIONS = {
    ("core/search/reach.py", "tabletrail.core.search.reach_arrays"): (
        "numpy and scipy load only when a reachable area is searched by compiled code, or a server"
        " warms them up (CLI start-up, benchmarks/bench_cli.py)"
    ),
    ("core/decide.py", "tabletrail.core.search.way"): (
        "the way round a wall is searched only once a wall stops a step: a command that no wall"
        " stops loads none of the searches (CLI start-up)"
    ),
    ("core/engine/machines.py", "transitions"): (
        "a state graph is built the first time one is asked for: a plain move asks none (CLI start-up)"
    ),
    ("core/board/sight.py", "fractions"): "only a sight check needs exact fractions (CLI start-up)",
    (
        "core/board/walls.py",
        "fractions",
    ): "only a sight line along walls needs exact fractions (CLI start-up)",
    ("events/picture.py", "hashlib"): "a picture's digest only when a scenario carries one: hashlib loads "
    "OpenSSL, which no log needs (events/digest.py hashes the chain without it; CLI start-up)",
    ("events/scenario/reader.py", "tomllib"): "only a scenario file is TOML: decoding a log never reads one",
    (
        "events/scenario/reader.py",
        "tabletrail.events.scenario.toml_places",
    ): "where a mistake sits in the file is looked up only for an error",
    ("events/stores/jsonl.py", "fcntl"): "POSIX only: a log file is locked where file locks exist",
    ("events/stores/jsonl.py", "tempfile"): "only `create` writes a temporary file (CLI start-up)",
    ("events/stores/jsonl_snapshots.py", "tempfile"): (
        "only saving a snapshot writes the sidecar through a temporary file (CLI start-up)"
    ),
    ("events/stores/jsonl.py", "shutil"): "only `repair` copies a log aside (CLI start-up)",
}
LOCAL_SCOPE = ("core", "ruleset_api", "projections", "events")


def _packages(root: Path) -> set[str]:
    """Every package of the source folders (a folder holding __init__.py), by import name."""
    return {package for _, path, package in _sources(root) if path.name == "__init__.py"} | {"tabletrail"}


def _module_of(path: Path, package: str) -> str:
    return package if path.name == "__init__.py" else f"{package}.{path.stem}"


def core_layer(module: str) -> str | None:
    """The layer of a module of core or of the ruleset API (None for any other module).

    `tabletrail.core.board.walls` is in `board`; `tabletrail.core.decide` in `decide`; a flat module
    of core in none of them is `?`, and the layer check names it.
    """
    parts = module.split(".")
    if parts[:2] == ["tabletrail", "ruleset_api"]:
        return "api"
    if parts[:2] != ["tabletrail", "core"] or len(parts) < 3:
        return None
    return parts[2] if parts[2] in CORE_LAYERS and parts[2] != "api" else "?"


def layer_violations(root: Path) -> list[str]:
    """Every import in core or the ruleset API of a higher layer, and every core module in no layer,
    as `file:line: ...`; every import statement counts (inside functions, under TYPE_CHECKING)."""
    packages = _packages(root)
    found = []
    for folder, path, package in _sources(root):
        if folder not in ("core", "ruleset_api"):
            continue
        name = _module_of(path, package)
        mine = core_layer(name)
        where = path.relative_to(root).as_posix()
        if mine == "?":
            found.append(
                f"{where}:1: in no layer: a module of core goes in core/{'/, core/'.join(CORE_LAYERS[:4])}/"
            )
            continue
        if mine is None:
            continue
        for line, module in _imports(path, package, packages):
            theirs = core_layer(module)
            if theirs in (None, "?") or CORE_LAYERS.index(theirs) <= CORE_LAYERS.index(mine):
                continue
            found.append(f"{where}:{line}: {mine} imports {theirs}, a layer above it: {module}")
    return sorted(found)


def test_core_imports_its_layers_one_way() -> None:
    found = layer_violations(ROOT)
    assert not found, "imports against core's layers:\n" + "\n".join(found)


def test_a_planted_import_up_the_layers_is_named_with_both_layers(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "core/__init__.py": "",
            "core/board/__init__.py": "",
            "core/board/walls.py": '"""doc"""\n\ndef way():\n    from tabletrail.core.search import way\n',
            "core/board/geometry.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from tabletrail.core.fold.state import EncounterState\n",
            "core/fold/__init__.py": "",
            "core/fold/evolve.py": "from tabletrail.core.board.geometry import Grid\n",  # downwards: fine
            "core/engine/__init__.py": "",
            "core/engine/ruleset.py": "from tabletrail.core.rulesets.alpha import Alpha\n"
            "from tabletrail.ruleset_api import Ruleset\n",
            "core/search/__init__.py": "",
            "core/search/way.py": "from tabletrail.core.decide import decide\n",
            "core/stray.py": "X = 1\n",
            "core/decide.py": "from tabletrail.core.search.way import way_to\n",  # the top: fine
            "ruleset_api/__init__.py": "from tabletrail.core.engine.ruleset import Ruleset\n",  # fine
        },
    )
    assert layer_violations(tmp_path) == [
        "core/board/geometry.py:3: board imports fold, a layer above it: tabletrail.core.fold.state",
        "core/board/walls.py:4: board imports search, a layer above it: tabletrail.core.search.way",
        "core/engine/ruleset.py:1: engine imports rulesets, a layer above it: tabletrail.core.rulesets.alpha",
        "core/engine/ruleset.py:2: engine imports api, a layer above it: tabletrail.ruleset_api.Ruleset",
        "core/search/way.py:1: search imports decide, a layer above it: tabletrail.core.decide",
        "core/stray.py:1: in no layer: a module of core goes in core/board/, core/fold/, core/engine/, "
        "core/search/",
    ]


def import_graph(root: Path) -> dict[str, dict[str, str]]:
    """module -> {module it imports: `file:line` of the first such import}, over every module of the
    installed package; every import statement counts, and importing a module imports its packages."""
    packages = _packages(root)
    files = {_module_of(path, package): (path, package) for _, path, package in _sources(root)}

    def known(module: str) -> str | None:
        while module and module not in files:
            module = module.rpartition(".")[0]
        return module or None

    graph: dict[str, dict[str, str]] = {}
    for name, (path, package) in files.items():
        edges = graph.setdefault(name, {})
        for line, module in _imports(path, package, packages):
            target = known(module)
            if target is None or target == name:
                continue
            parts = target.split(".")
            for i in range(2, len(parts) + 1):  # the packages on the way are imported too
                hop = ".".join(parts[:i])
                # Python runs a module's own packages before it, so only naming one of them counts
                # (a part typed by its ruleset, `from . import Ruleset`, closes a circle with it).
                implicit = i < len(parts) and name.startswith(hop + ".")
                if hop in files and hop != name and not implicit:
                    edges.setdefault(hop, f"{path.relative_to(root).as_posix()}:{line}")
    return graph


def circles(graph: dict[str, dict[str, str]], scope: tuple[str, ...]) -> list[str]:
    """Each import circle touching a module in `scope`, as one line per import around it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # Tarjan's strongly connected components, without recursion
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    out = []
    for component in sorted(found):
        if not any(m == s or m.startswith(s + ".") for m in component for s in scope):
            continue
        out.append(f"a circle of {len(component)} modules: " + ", ".join(component))
        out.extend(f"  {a} imports {b} ({graph[a][b]})" for a, b in _one_loop(graph, component))
    return out


def _one_loop(graph: dict[str, dict[str, str]], component: list[str]) -> list[tuple[str, str]]:
    """One loop of imports through a circle's first module, shortest first, as (importer, imported)."""
    members, start = set(component), component[0]
    came: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target == start:
                    loop, here = [(node, start)], node
                    while here != start:
                        loop.append((came[here], here))
                        here = came[here]
                    return list(reversed(loop))
                if target in members and target not in came:
                    came[target] = node
                    following.append(target)
        frontier = following
    return []


def test_no_import_circle() -> None:
    found = circles(import_graph(ROOT), CIRCLE_SCOPE)
    assert not found, "import circles:\n" + "\n".join(found)


def test_a_planted_circle_is_named_with_each_import(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "core/__init__.py": "",
            "core/board/__init__.py": "",
            "core/board/walls.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from tabletrail.core.board.geometry import Grid\n",
            "core/board/geometry.py": "def edges():\n    from tabletrail.core.board import walls\n",
            "core/board/units.py": "X = 1\n",
            "core/engine/__init__.py": "from tabletrail.core.engine.doors import use\n",
            "core/engine/doors.py": "from tabletrail.core.board.units import X\n",  # its package: no circle
            "app/cli.py": "from tabletrail import render\n",
            "app/render.py": "from tabletrail import cli\n",  # out of scope: the app's own check
        },
    )
    assert circles(import_graph(tmp_path), ("tabletrail.core",)) == [
        "a circle of 2 modules: tabletrail.core.board.geometry, tabletrail.core.board.walls",
        "  tabletrail.core.board.geometry imports tabletrail.core.board.walls (core/board/geometry.py:2)",
        "  tabletrail.core.board.walls imports tabletrail.core.board.geometry (core/board/walls.py:3)",
    ]
    assert circles(import_graph(tmp_path), ("tabletrail",))[:3] == [
        "a circle of 2 modules: tabletrail.cli, tabletrail.render",
        "  tabletrail.cli imports tabletrail.render (app/cli.py:1)",
        "  tabletrail.render imports tabletrail.cli (app/render.py:1)",
    ]


def test_a_part_typed_by_its_own_rulesets_package_is_a_circle(tmp_path: Path) -> None:
    """A package's modules run after it, so only naming the package closes a circle with it: a part
    that imports its ruleset class (even only for its type) from the package that lists the part."""
    _plant(
        tmp_path,
        {
            "core/__init__.py": "",
            "core/engine/registry.py": "",
            "core/rulesets/alpha/__init__.py": "from tabletrail.core.rulesets.alpha.walking import Walking\n",
            "core/rulesets/alpha/walking.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from tabletrail.core.rulesets.alpha import Alpha\n",
            "core/rulesets/alpha/marks.py": "X = 1\n",
            "core/rulesets/alpha/jumps.py": "from tabletrail.core.rulesets.alpha.marks import X\n",
        },
    )
    assert circles(import_graph(tmp_path), ("tabletrail.core",)) == [
        "a circle of 2 modules: tabletrail.core.rulesets.alpha, tabletrail.core.rulesets.alpha.walking",
        "  tabletrail.core.rulesets.alpha imports tabletrail.core.rulesets.alpha.walking "
        "(core/rulesets/alpha/__init__.py:1)",
        "  tabletrail.core.rulesets.alpha.walking imports tabletrail.core.rulesets.alpha "
        "(core/rulesets/alpha/walking.py:3)",
    ]


def imports_in_functions(root: Path, kept: dict[tuple[str, str], str]) -> list[str]:
    """Every import inside a function in core/, ruleset_api/, projections/ and events/ that `kept` does not
    list, as `file:line: imports M inside f()`: an import at the top shows a reader the dependency."""
    packages = _packages(root)
    found = []
    for folder, path, package in _sources(root):
        if folder not in LOCAL_SCOPE:
            continue
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in function.body:
                for inner in ast.walk(node):
                    if not isinstance(inner, ast.Import | ast.ImportFrom):
                        continue
                    one = ast.Module(body=[inner], type_ignores=[])
                    for line, module in _imports_of(one, package, packages):
                        if (where, module) in kept or any((where, m) in kept for m in _parents(module)):
                            continue
                        found.append(f"{where}:{line}: imports {module} inside {function.name}()")
    return sorted(set(found))


def _imports_of(tree: ast.Module, package: str, packages: set[str]) -> Iterator[tuple[int, str]]:
    """`_imports` over a parsed piece of a module."""
    for node in tree.body:
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


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def test_imports_inside_functions_are_the_listed_ones() -> None:
    found = imports_in_functions(ROOT, KEPT_IN_FUNCTIONS)
    assert not found, "imports inside functions (move them to the top, or list them with why):\n" + "\n".join(
        found
    )


def test_every_kept_import_inside_a_function_is_still_there() -> None:
    """A listed import that moved to the top, or whose file moved, leaves the list."""
    every = imports_in_functions(ROOT, {})
    gone = [
        (where, module)
        for where, module in KEPT_IN_FUNCTIONS
        if not any(f.startswith(f"{where}:") and f" imports {module}" in f for f in every)
    ]
    assert not gone, f"listed but no longer imported inside a function: {gone}"


def test_a_planted_import_inside_a_function_is_named(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "core/board/__init__.py": "",
            "core/board/sight.py": "def crossing():\n    from fractions import Fraction\n",
            "core/board/walls.py": "class Edges:\n    def blocks(self):\n        if True:\n"
            "            import math\n",
            "projections/board.py": "from msgspec import to_builtins\n\ndef view():\n"
            "    from tabletrail.core.fold import evolve\n",
            "app/cli.py": "def main():\n    import json\n",  # the app: its own check
        },
    )
    kept = {("core/board/sight.py", "fractions"): "start-up"}
    assert imports_in_functions(tmp_path, kept) == [
        "core/board/walls.py:4: imports math inside blocks()",
        "projections/board.py:4: imports tabletrail.core.fold inside view()",
    ]
