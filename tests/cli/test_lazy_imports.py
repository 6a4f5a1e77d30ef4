"""A verb imports only what it uses, and the program leaves its files whole.

No timings here (benchmarks/bench_cli.py prints those): these tests pin what makes
a command fast, so a stray top-level import is noticed. `do` on a SQLite
speed-meters encounter must not load the PostgreSQL driver, argparse, the audit,
the web server, the TOML parser or another ruleset; `tabletrail` (cli.run) exits
without the interpreter's teardown but closes its stores first, so no write-ahead
log is left beside the .db.
"""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from pathlib import Path

import msgspec
from tabletrail.cli import main
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import close_opened

ROOT = Path(__file__).resolve().parents[2]
SKIRMISH = ROOT / "scenarios" / "speed-meters-skirmish.toml"

# Loaded by none of `do`'s steps; each was once imported by every verb.
UNUSED_BY_DO = (
    "psycopg",
    "tabletrail.events.stores.postgres_store",
    "argparse",
    "tomllib",
    "json",
    "difflib",
    "fractions",
    "dataclasses",
    "tabletrail.projections.audit",
    "tabletrail.web",
    "tabletrail.cli.audit",
    "tabletrail.cli.serve",
    "tabletrail.core.rulesets.round_meters",
    "tabletrail.core.rulesets.ap_squares",
    "tabletrail.core.rulesets.initiative_yards",
    "_hashlib",  # OpenSSL: BLAKE2b comes from _blake2 (events/digest.py)
    "shutil",
    "tempfile",
    "random",
    "bz2",
    "lzma",
    "fcntl",  # a JSONL log's lock
    # imported with the first state graph a command asks (core/engine/machines.py); a move asks none
    "transitions",
    "logging",  # transitions' own import
)

PROBE = """
import sys
from tabletrail.cli import main
code = main(sys.argv[1:])
modules = sorted(sys.modules)
import json
print(json.dumps({"code": code, "modules": modules}))
"""


def started(tmp_path: Path) -> Path:
    log = tmp_path / "fight.db"
    assert main(["new", str(SKIRMISH), "--log", str(log)]) == 0
    close_opened()  # as cli.run does: no connection of this process is left on the file
    return log


def test_do_on_a_sqlite_encounter_loads_only_what_it_uses(tmp_path: Path, capsys):  # noqa: ANN001
    log = started(tmp_path)
    capsys.readouterr()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "do", str(log), "move", "ari", "2,2"],
        capture_output=True,
        text=True,
        check=True,
    )
    probe = json.loads(done.stdout.splitlines()[-1])
    assert probe["code"] == 0, done.stderr
    loaded = set(probe["modules"])
    assert "tabletrail.core.rulesets.speed_meters" in loaded  # the check can see a ruleset load
    for name in UNUSED_BY_DO:
        assert name not in loaded, f"`do` imported {name}"


def test_the_program_closes_its_store_and_passes_the_exit_code_on(tmp_path: Path, capsys):  # noqa: ANN001
    log = started(tmp_path)
    capsys.readouterr()
    ok = subprocess.run([sys.executable, "-m", "tabletrail", "do", str(log), "move", "ari", "2,2"], text=True,
                        capture_output=True)  # fmt: skip
    assert ok.returncode == 0 and "ari moved 2,2" in ok.stdout, ok.stderr
    assert not Path(f"{log}-wal").exists()  # closed: the write-ahead log is folded back into the .db
    refused = subprocess.run([sys.executable, "-m", "tabletrail", "do", str(log), "move", "ari", "11,1"],
                             text=True, capture_output=True)  # fmt: skip
    assert refused.returncode == 1 and refused.stderr.startswith("refused by speed-meters/")
    enc = Encounter.open(SqliteStore(log))
    assert enc.state.fighter("ari").pos[:2] == (2, 2)


def _structs_in(tp: object, found: set[type]) -> None:
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct) and tp not in found:
        found.add(tp)
        for field in msgspec.structs.fields(tp):
            _structs_in(field.type, found)
    for arg in typing.get_args(tp):
        _structs_in(arg, found)


def test_what_do_decodes_has_evaluated_annotations():
    """A record or snapshot field annotated by a string (postponed annotations) costs every command a compile.

    msgspec resolves a Struct's annotations when the first decoder of it is built: a
    string is compiled then (~50 us each, ~100 of them across the event union). One is
    a string on purpose: a batch header's command, whose union of every installed
    ruleset's commands is made then, after the rulesets' entry points are read.
    """
    from tabletrail.events.stores.record import Record
    from tabletrail.projections.snapshot import Snapshot

    found: set[type] = set()
    _structs_in(Record, found)
    _structs_in(Snapshot, found)
    assert len(found) > 50  # the walk sees the whole event union
    postponed = [
        f"{cls.__module__}.{cls.__qualname__}.{name}"
        for cls in found
        for name, value in vars(cls).get("__annotations__", {}).items()
        if isinstance(value, str)
    ]
    assert postponed == ["tabletrail.events.types.CommandIssued.command"]


def test_the_program_sets_the_collector_before_the_verb_imports():
    """cli.run raises the cycle collector's threshold first: importing tabletrail.cli loads no store."""
    probe = (
        "import sys, tabletrail.cli; print(sorted({'msgspec', 'tabletrail.cli.store'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
