"""The layout inside `events/` (docs/ARCHITECTURE.md), read from the imports themselves.

`events/` holds four jobs, each importing only what sits under it:

- the vocabulary, at the top of `events/`: the events (`types`), the commands, the scenario as a
  log carries it (`scenario_spec`), the plug-in registry, terrains, limits, errors, upcasters;
- the stores, `events/stores/`: the line format, the hash chain, MemoryStore, JsonlStore, the databases;
- the scenario reader, `events/scenario/`: TOML files read and checked, the JSON Schema;
- the map importers, `events/maps/`: other tools' battle maps made scenarios.

The vocabulary imports none of the other three; a store imports the vocabulary and other stores; the
scenario reader imports neither a store nor a map importer; a map importer may import the scenario
reader, never a store. And no two modules of `events/` import each other, however indirectly.
Every import statement counts: at the top of a module, inside a function, under TYPE_CHECKING.
Each rule is also run on a planted violation, so a broken check can't pass silently.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "tabletrail.events"
STORES, READER, MAPS = f"{PACKAGE}.stores", f"{PACKAGE}.scenario", f"{PACKAGE}.maps"
VOCABULARY = "vocabulary"

# job -> the jobs it must not import, and why
FORBIDDEN: dict[str, list[tuple[str, str]]] = {
    VOCABULARY: [
        (STORES, "the vocabulary knows no store"),
        (READER, "the vocabulary knows no scenario reader (the scenario a log carries is scenario_spec)"),
        (MAPS, "the vocabulary knows no map importer"),
    ],
    STORES: [
        (READER, "a store keeps lines; reading scenario files is not its job"),
        (MAPS, "a store knows no map importer"),
    ],
    READER: [
        (STORES, "the scenario reader knows no store"),
        (MAPS, "the scenario reader knows no map importer (a map importer uses the reader)"),
    ],
    MAPS: [(STORES, "a map importer makes a scenario; it writes no log")],
}


def modules(folder: Path) -> dict[str, Path]:
    """Every module under `folder` (the events folder) by its import name."""
    out = {}
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join((PACKAGE, *parts))] = path
    return out


def job(module: str) -> str:
    for name in (STORES, READER, MAPS):
        if module == name or module.startswith(name + "."):
            return name
    return VOCABULARY


def imports(path: Path, module: str, known: set[str]) -> Iterator[tuple[int, str]]:
    """(line, module of tabletrail.events) for every import in a file; `from P import m` names P.m when
    that is a module, relative imports resolved against the file's own package."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *([base] if base else [])])
            found = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for name in found:
            while name and name not in known and name.startswith(PACKAGE + "."):
                name = name.rsplit(".", 1)[0]  # a name in a module: the module
            if name in known:
                yield node.lineno, name


def graph(folder: Path) -> dict[str, list[tuple[int, str]]]:
    """module -> (line, module) of each events module it imports (itself left out)."""
    found = modules(folder)
    known = set(found)
    return {m: sorted({(line, t) for line, t in imports(p, m, known) if t != m}) for m, p in found.items()}


def wrong_way(folder: Path) -> list[str]:
    """Every import that runs against the layout, as `events/x.py:line: ...`."""
    found = modules(folder)
    problems = []
    for module, targets in graph(folder).items():
        for line, target in targets:
            for banned, why in FORBIDDEN[job(module)]:
                if job(target) == banned:
                    where = found[module].relative_to(folder.parent)
                    problems.append(f"{where}:{line}: {module} imports {target}: {why}")
    return problems


def circles(folder: Path) -> list[str]:
    """Each set of modules importing each other (a strongly connected component of two or more, or a
    module importing itself), named with the file:line of each import inside it."""
    edges = graph(folder)
    found = modules(folder)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[str] = []

    def visit(v: str) -> None:  # Tarjan's algorithm; the events package is small enough to recurse
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for _, w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                links = [
                    f"{found[m].relative_to(folder.parent)}:{line} imports {t}"
                    for m in sorted(component)
                    for line, t in edges[m]
                    if t in component
                ]
                out.append(" <-> ".join(sorted(component)) + " (" + "; ".join(links) + ")")

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_circle_among_the_events_modules() -> None:
    found = circles(ROOT / "events")
    assert not found, "modules of events/ that import each other:\n" + "\n".join(found)


def test_each_job_of_events_imports_only_what_sits_under_it() -> None:
    found = wrong_way(ROOT / "events")
    assert not found, "imports against the layout of events/:\n" + "\n".join(found)


def test_the_layout_is_there() -> None:
    """The checks above read a real layout: every job has modules, and the vocabulary is at the top."""
    jobs = {job(m) for m in modules(ROOT / "events")}
    assert jobs == {VOCABULARY, STORES, READER, MAPS}
    assert {f"{PACKAGE}.types", f"{PACKAGE}.commands", f"{PACKAGE}.scenario_spec"} <= set(
        modules(ROOT / "events")
    )


# --- the checks, each on a planted violation --------------------------------------------------------


def plant(tmp_path: Path, files: dict[str, str]) -> Path:
    """An events folder holding these files (sub-packages get their __init__.py); returns it."""
    folder = tmp_path / "events"
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(folder).parents:
            (folder / parent / "__init__.py").touch()
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def test_a_planted_circle_is_named_with_its_imports(tmp_path: Path) -> None:
    folder = plant(
        tmp_path,
        {
            "types.py": "from tabletrail.events.commands import Move\n",
            "commands/__init__.py": "class Move: ...\nfrom tabletrail.events.commands import rulings\n",
            "commands/rulings.py": "def f():\n    from tabletrail.events.types import Moved\n",
        },
    )
    found = circles(folder)
    assert len(found) == 1, found
    assert found[0].startswith("tabletrail.events.commands <-> tabletrail.events.commands.rulings"), found
    assert "events/commands/rulings.py:2 imports tabletrail.events.types" in found[0], found
    assert "events/types.py:1 imports tabletrail.events.commands" in found[0], found


def test_a_circle_through_a_relative_import_counts(tmp_path: Path) -> None:
    folder = plant(tmp_path, {"stores/a.py": "from . import b\n", "stores/b.py": "from .a import x\n"})
    assert circles(folder) == [
        "tabletrail.events.stores.a <-> tabletrail.events.stores.b "
        "(events/stores/a.py:1 imports tabletrail.events.stores.b; "
        "events/stores/b.py:1 imports tabletrail.events.stores.a)"
    ]


def test_a_vocabulary_module_importing_a_store_is_named(tmp_path: Path) -> None:
    folder = plant(
        tmp_path,
        {
            "types.py": "import msgspec\n\n\ndef f():\n"
            "    from tabletrail.events.stores.record import Record\n",
            "stores/record.py": "from tabletrail.events.types import Moved\n",
        },
    )
    assert wrong_way(folder) == [
        "events/types.py:5: tabletrail.events.types imports tabletrail.events.stores.record: "
        "the vocabulary knows no store"
    ]


def test_the_vocabulary_importing_the_reader_or_a_map_importer_is_named(tmp_path: Path) -> None:
    folder = plant(
        tmp_path,
        {
            "types.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from tabletrail.events.scenario.reader import load_scenario\n",
            "commands/__init__.py": "from tabletrail.events.maps import uvtt\n",
            "scenario/reader.py": "",
            "maps/uvtt.py": "",
        },
    )
    found = wrong_way(folder)
    assert any(
        p.startswith("events/types.py:3: tabletrail.events.types imports tabletrail.events.scenario.reader")
        for p in found
    ), found
    assert any(
        p.startswith(
            "events/commands/__init__.py:1: tabletrail.events.commands imports tabletrail.events.maps.uvtt"
        )
        for p in found
    ), found


def test_a_store_importing_the_reader_is_named(tmp_path: Path) -> None:
    folder = plant(
        tmp_path,
        {"stores/jsonl.py": "from ..scenario.reader import load_scenario\n", "scenario/reader.py": ""},
    )
    assert wrong_way(folder) == [
        "events/stores/jsonl.py:1: tabletrail.events.stores.jsonl imports tabletrail.events.scenario.reader: "
        "a store keeps lines; reading scenario files is not its job"
    ]


def test_the_reader_importing_a_map_importer_is_named_but_a_map_importer_may_use_the_reader(
    tmp_path: Path,
) -> None:
    folder = plant(
        tmp_path,
        {
            "scenario/reader.py": "from tabletrail.events.maps.uvtt import read_map\n",
            "maps/uvtt.py": "from tabletrail.events.scenario.reader import parse_scenario\n"
            "from tabletrail.events.types import Moved\n",
            "types.py": "",
        },
    )
    assert wrong_way(folder) == [
        "events/scenario/reader.py:1: tabletrail.events.scenario.reader imports tabletrail.events.maps.uvtt: "
        "the scenario reader knows no map importer (a map importer uses the reader)"
    ]


def test_a_map_importer_writing_a_log_is_named(tmp_path: Path) -> None:
    folder = plant(
        tmp_path,
        {"maps/foundry_scene.py": "from tabletrail.events.stores import jsonl\n", "stores/jsonl.py": ""},
    )
    assert wrong_way(folder) == [
        "events/maps/foundry_scene.py:1: tabletrail.events.maps.foundry_scene imports "
        "tabletrail.events.stores.jsonl: a map importer makes a scenario; it writes no log"
    ]
