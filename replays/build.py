"""Rebuild the shipped replays from their scripts.

Each `replays/NAME.script` starts with a line `# scenario: PATH` (relative to
the repository). Running this writes `NAME.jsonl` (the log) and
`NAME.board.json` (the board it must always replay to). Tests replay every
`.jsonl` and compare with its `.board.json`, so a change that alters how an old
log replays is caught.

    python replays/build.py            # every script
    python replays/build.py NAME       # one
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tabletrail.cli import play_script
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def scenario_of(script: Path) -> Path:
    first = script.read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("# scenario:"):
        raise SystemExit(f"{script}:1: expected '# scenario: PATH'")
    return ROOT / first.split(":", 1)[1].strip()


def build(script: Path) -> None:
    log = script.with_suffix(".jsonl")
    log.unlink(missing_ok=True)
    log.with_name(log.name + ".refused").unlink(missing_ok=True)  # the refusals side log
    enc = Encounter.create(JsonlStore(log, durable=False), load_scenario(scenario_of(script)))
    play_script(enc, script)
    board = json.dumps(view(enc.state), indent=1, sort_keys=True) + "\n"
    script.with_suffix(".board.json").write_text(board, encoding="utf-8")
    print(f"{log.relative_to(ROOT)}: {len(enc.records)} events")


if __name__ == "__main__":
    names = sys.argv[1:]
    scripts = [HERE / f"{n}.script" for n in names] if names else sorted(HERE.glob("*.script"))
    for s in scripts:
        build(s)
