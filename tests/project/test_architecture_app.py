"""The app's own layers (app/, installed as `tabletrail`; docs/ARCHITECTURE.md), read from its imports.

Lowest first: the service (tabletrail.service: the Encounter, the stores a log name means, the
syntax, the drafts), the words (tabletrail.text), the web's pieces (tabletrail.web: what a screen
shows, the table held in memory, the links), the replay bundle (tabletrail.bundle), the web's
handlers (tabletrail.web.api), the apps that serve them (the route table, the contract, the
servers), and the CLI (tabletrail.cli). A module imports from its own layer or one below, never
above; the CLI imports no handler, and only its `serve` and `schemas` modules reach into the web.
No two app modules import each other, however far round: every import statement counts, at the
top, inside a function or under TYPE_CHECKING, and importing a module imports its package's
__init__ too. An import inside a function is there only for a verb's start-up or an optional
dependency, each listed in KEPT with why.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = "tabletrail"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (  # lowest first; a module's layer is its longest prefix
    ("service", ("tabletrail.service",)),
    ("text", ("tabletrail.text",)),
    ("web", ("tabletrail.web",)),
    ("bundle", ("tabletrail.bundle",)),
    ("handlers", ("tabletrail.web.api",)),
    (
        "serving",
        (
            "tabletrail.web.routes",
            "tabletrail.web.contract",
            "tabletrail.web.server",
            "tabletrail.web.home",
            "tabletrail.web.home_db",
            "tabletrail.web.hosted",
        ),
    ),
    ("cli", ("tabletrail.cli", "tabletrail.__main__")),
)
# Outside the layers: public kits for other programs, which the app itself never imports.
KITS = {
    "tabletrail.client": (),  # a stdlib client of a running table: nothing of the app
    "tabletrail.testing": ("service", "text"),  # the conformance kit runs encounters
}
CLI_INTO_WEB = ("tabletrail.cli.serve", "tabletrail.cli.schemas")  # starts the servers; prints the contract

START_UP = (
    "the program's entry: each verb loads only what it uses "
    "(tests/cli/test_lazy_imports.py, benchmarks/bench_cli.py)"
)
PSYCOPG = "the PostgreSQL store loads psycopg (the [postgres] extra, ~200 ms): only for a database's log"
# (module, what it imports inside a function) -> why it is not at the top
KEPT: dict[tuple[str, str], str] = {
    **{
        ("tabletrail.cli", name): START_UP
        for name in (
            "argparse",
            "difflib",
            "msgspec",
            "tabletrail.core.board.refusal",
            "tabletrail.core.engine.ruleset",
            "tabletrail.core.engine.registry",
            "tabletrail.core.board.units",
            "tabletrail.events",
            "tabletrail.events.commands",
            "tabletrail.events.stores.chain",
            "tabletrail.events.stores.memory",
            "tabletrail.events.stores.pg_names",
            "tabletrail.events.scenario.reader",
            "tabletrail.projections.board",
            "tabletrail.service.encounter",
            "tabletrail.service.stores",
            "tabletrail.service.syntax",
            "tabletrail.text.printable",
            "tabletrail.text.render",
            "tabletrail.cli.shell",
        )
    },
    ("tabletrail.cli.audit", "tabletrail.bundle"): "only `verify FILE.html` and `bundle` read or write a "
    "bundle (its page and the web's words); `why`, `explain` at the table don't load them",
    (
        "tabletrail.cli.serve",
        "tabletrail.web.server",
    ): "starlette and uvicorn only for `serve`, never for `invite`",
    ("tabletrail.cli.serve", "tabletrail.web.home"): "a served folder's apps only for `serve FOLDER`",
    ("tabletrail.cli.serve", "tabletrail.web.hosted"): "hosted tables (psycopg) only for `serve URL`",
    ("tabletrail.cli.schemas", "tabletrail.web.contract"): "the API's documents load the route table and "
    "every handler: only `schema openapi|asyncapi`",
    (
        "tabletrail.cli.shell",
        "tabletrail.projections",
    ): "the shell's `why` and `explain` load the audit when asked",
    ("tabletrail.cli.shell", "tabletrail.text.audit"): "the audit's words, with the audit, when asked",
    ("tabletrail.cli.store", "tabletrail.events.stores.postgres_store"): PSYCOPG,
    ("tabletrail.service.stores", "tabletrail.events.stores.postgres_store"): PSYCOPG,
    (
        "tabletrail.service.syntax",
        "difflib",
    ): "only for a mistyped verb (`do` never loads it: tests/cli/test_lazy_imports.py)",
    (
        "tabletrail.text.render",
        "json",
    ): "only for a --json answer (`do` never loads json: tests/cli/test_lazy_imports.py)",
    ("tabletrail.web.guard", "resource"): "POSIX only: the descriptor limit is read where it exists",
    (
        "tabletrail.web.invites",
        "segno",
    ): "the QR code's library only for a QR (`invite --qr`, the GM's Links panel)",
}


@dataclass(frozen=True)
class Import:
    """One import statement of an app module: where it is, what it names, and whether it runs at import."""

    module: str  # the importing module
    file: str  # its path from the tree's root
    line: int
    target: str  # the app module it loads, else the module as written (`from X import …`, `import X`: X)
    inside: bool  # in a function body


def modules(root: Path) -> dict[str, Path]:
    """Every module of app/ by its dotted name (a package by its __init__)."""
    found = {}
    for p in sorted((root / "app").rglob("*.py")):
        rel = p.relative_to(root / "app")
        package = ".".join([TOP, *rel.parent.parts])
        found[package if p.name == "__init__.py" else f"{package}.{p.stem}"] = p
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The app module an import of `name` loads (its longest known prefix); None outside the app
    (core, events, projections share the top package's name, not its folder)."""
    start = name
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name if name and (name != TOP or start == TOP) else None


def imports(root: Path) -> Iterator[Import]:
    """Every import statement of the app, each resolved to the app module it loads if it loads one."""
    known = modules(root)
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            up, inside = node, False
            while up in parents:
                up = parents[up]
                if isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
                    inside = True
                    break
            file = str(path.relative_to(root))
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(name, file, node.lineno, _resolve(alias.name, known) or alias.name, inside)
                continue
            written = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                written = ".".join([*base, *([written] if written else [])])
            for alias in node.names:
                full = f"{written}.{alias.name}"
                target = full if full in known else _resolve(written, known)
                yield Import(name, file, node.lineno, target or written, inside)


def layer_of(module: str) -> str | None:
    best, found = "", None
    for layer, prefixes in LAYERS:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
                best, found = prefix, layer
    return found


def _kit_of(module: str) -> str | None:
    return next((k for k in KITS if module == k or module.startswith(k + ".")), None)


RANK = {layer: n for n, (layer, _) in enumerate(LAYERS)}


def layer_violations(root: Path) -> list[str]:
    """Each import against the layers, as `file:line: what imports what, and the rule`."""
    known = modules(root)
    out = []
    for imp in imports(root):
        if imp.target not in known or imp.target == TOP:  # the top package holds only its version
            continue
        where = f"{imp.file}:{imp.line}: {imp.module} imports {imp.target}"
        kit, target_kit = _kit_of(imp.module), _kit_of(imp.target)
        if target_kit is not None and kit != target_kit:
            out.append(f"{where}: {target_kit} is a kit for other programs; the app never imports it")
            continue
        if kit is not None:
            allowed = KITS[kit]
            if layer_of(imp.target) not in allowed and _kit_of(imp.target) != kit:
                out.append(f"{where}: {kit} imports only {', '.join(allowed) or 'nothing of the app'}")
            continue
        mine, theirs = layer_of(imp.module), layer_of(imp.target)
        if mine is None or theirs is None:
            if imp.module != TOP:
                out.append(f"{where}: a module outside every layer (add it to LAYERS in this test)")
            continue
        if RANK[theirs] > RANK[mine]:
            out.append(f"{where}: the {mine} layer imports the {theirs} layer above it")
        elif mine == "cli" and theirs == "handlers":
            out.append(
                f"{where}: the CLI imports no web handler (it starts the server, which routes to them)"
            )
        elif mine == "cli" and imp.target.startswith("tabletrail.web") and imp.module not in CLI_INTO_WEB:
            out.append(f"{where}: only {' and '.join(CLI_INTO_WEB)} reach into the web")
    return sorted(set(out))


def graph(root: Path) -> dict[str, set[str]]:
    """module -> the app modules it imports, any statement anywhere; a submodule's packages come with it."""
    known = modules(root)
    edges: dict[str, set[str]] = {m: set() for m in known}
    for imp in imports(root):
        if imp.target not in known or imp.target == imp.module:
            continue
        edges[imp.module].add(imp.target)
        parts = imp.target.split(".")
        for n in range(2, len(parts)):
            parent = ".".join(parts[:n])
            if parent in known and parent != imp.module and not imp.module.startswith(parent + "."):
                edges[imp.module].add(parent)
    return edges


def circles(root: Path) -> list[list[str]]:
    """The app's import circles (strongly connected components of more than one module), each sorted."""
    edges = graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's, over a graph of a few hundred modules
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def circle_words(root: Path) -> list[str]:
    """Each circle with the statements that close it (file:line of every import inside it)."""
    known = modules(root)
    out = []
    for comp in circles(root):
        inside = set(comp)
        lines = sorted(
            {
                f"{i.file}:{i.line}"
                for i in imports(root)
                if i.module in inside
                and i.target in known
                and (i.target in inside or any(m.startswith(i.target + ".") for m in inside))
            }
        )
        out.append(f"{' <-> '.join(comp)} (imports at {', '.join(lines)})")
    return out


def unlisted_inner_imports(root: Path, kept: dict[tuple[str, str], str] = KEPT) -> list[str]:
    """Imports inside functions that KEPT doesn't give a reason for, and KEPT entries no import needs."""
    seen = set()
    out = []
    for imp in imports(root):
        if not imp.inside:
            continue
        key = (imp.module, imp.target)
        seen.add(key)
        if key not in kept:
            out.append(
                f"{imp.file}:{imp.line}: {imp.module} imports {imp.target} inside a function: move it to the "
                "top, or list it in KEPT with why (a verb's start-up, an optional dependency)"
            )
    out += [
        f"KEPT lists {m} importing {w} inside a function, and none does now"
        for m, w in kept
        if (m, w) not in seen
    ]
    return sorted(set(out))


# --- the checks on this tree ---------------------------------------------------------------


def test_the_app_imports_down_its_layers_only() -> None:
    assert layer_violations(ROOT) == []


def test_no_two_app_modules_import_each_other() -> None:
    assert circle_words(ROOT) == []


def test_imports_inside_functions_are_the_listed_ones() -> None:
    assert unlisted_inner_imports(ROOT) == []


def test_every_app_module_has_a_layer_or_is_a_kit() -> None:
    homeless = [m for m in modules(ROOT) if m != TOP and layer_of(m) is None and _kit_of(m) is None]
    assert homeless == []


def test_the_check_reads_every_app_module() -> None:
    names = modules(ROOT)
    for expected in (
        "tabletrail.service.encounter",
        "tabletrail.cli",
        "tabletrail.web.api.board",
        "tabletrail.bundle",
    ):
        assert expected in names
    assert len(list(imports(ROOT))) > 500


# --- each check fails on a planted violation, naming what and where ----------------------------


def _plant(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


BASE = {
    "app/__init__.py": "",
    "app/service/__init__.py": "",
    "app/service/encounter.py": "X = 1\n",
    "app/text/__init__.py": "",
    "app/web/__init__.py": "",
    "app/web/api/__init__.py": "",
    "app/web/api/board.py": "from tabletrail.service.encounter import X\n",
    "app/cli/__init__.py": "",
}


def test_a_planted_import_up_the_layers_is_named(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {**BASE, "app/service/drafts.py": "import os\n\n\ndef f():\n    from tabletrail.cli import main\n"},
    )
    assert layer_violations(tmp_path) == [
        "app/service/drafts.py:5: tabletrail.service.drafts imports tabletrail.cli: "
        "the service layer imports the cli layer above it"
    ]


def test_a_planted_cli_import_of_a_handler_is_named(tmp_path: Path) -> None:
    _plant(tmp_path, {**BASE, "app/cli/audit.py": "from tabletrail.web.api import board\n"})
    assert layer_violations(tmp_path) == [
        "app/cli/audit.py:1: tabletrail.cli.audit imports tabletrail.web.api.board: "
        "the CLI imports no web handler (it starts the server, which routes to them)"
    ]


def test_a_planted_cli_reach_into_the_web_is_named(tmp_path: Path) -> None:
    _plant(
        tmp_path, {**BASE, "app/web/table.py": "", "app/cli/maps.py": "\nfrom tabletrail.web import table\n"}
    )
    assert layer_violations(tmp_path) == [
        "app/cli/maps.py:2: tabletrail.cli.maps imports tabletrail.web.table: "
        "only tabletrail.cli.serve and tabletrail.cli.schemas reach into the web"
    ]


def test_a_planted_import_of_a_kit_is_named(tmp_path: Path) -> None:
    _plant(tmp_path, {**BASE, "app/client.py": "", "app/text/render.py": "from tabletrail import client\n"})
    assert layer_violations(tmp_path) == [
        "app/text/render.py:1: tabletrail.text.render imports tabletrail.client: "
        "tabletrail.client is a kit for other programs; the app never imports it"
    ]


def test_a_planted_circle_is_named_with_its_imports(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            **BASE,
            "app/service/history.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
            "    from tabletrail.service.lazy import Lazy\n",
            "app/service/lazy.py": "def f():\n    from tabletrail.service import history\n",
        },
    )
    assert circle_words(tmp_path) == [
        "tabletrail.service.history <-> tabletrail.service.lazy "
        "(imports at app/service/history.py:4, app/service/lazy.py:2)"
    ]


def test_a_circle_through_a_package_init_is_named(tmp_path: Path) -> None:
    """Importing tabletrail.web.api.board runs tabletrail.web.api's __init__: a circle through it counts."""
    _plant(tmp_path, {**BASE, "app/web/api/__init__.py": "from tabletrail.web import table\n",
                      "app/web/table.py": "from tabletrail.web.api.board import X\n"})  # fmt: skip
    assert circles(tmp_path) == [["tabletrail.web.api", "tabletrail.web.table"]]


def test_a_planted_unlisted_import_inside_a_function_is_named(tmp_path: Path) -> None:
    _plant(
        tmp_path, {**BASE, "app/text/render.py": "def f():\n    import json\n\n\ndef g():\n    import csv\n"}
    )
    kept = {
        ("tabletrail.text.render", "json"): "a --json answer only",
        ("tabletrail.cli", "argparse"): "gone",
    }
    assert unlisted_inner_imports(tmp_path, kept) == [
        "KEPT lists tabletrail.cli importing argparse inside a function, and none does now",
        "app/text/render.py:6: tabletrail.text.render imports csv inside a function: move it to the top, "
        "or list it in KEPT with why (a verb's start-up, an optional dependency)",
    ]
