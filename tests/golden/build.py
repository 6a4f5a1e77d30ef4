"""Write the golden log of this version: run once, when a new golden is deliberately started.

    python tests/golden/build.py

It plays golden.script on golden.toml and writes golden.jsonl (with its refusal
side log) and golden.board.json, the board and timeline every later version of
tabletrail must replay golden.jsonl to. Existing files are never overwritten:
a golden that later versions replay is never rebuilt, only added to.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tabletrail.core.board.refusal import Rejection
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse

HERE = Path(__file__).resolve().parent
CLOCK = "2026-11-29T12:00:00+00:00"


def expected(enc: Encounter) -> dict:
    """What a replay of the golden log must give: the board and the undo/redo timeline."""
    t = enc.timeline
    return {
        "events": len(enc.records),
        "board": view(enc.state),
        "applied": list(t.applied),
        "undone": list(t.undone),
        "abandoned": sorted(t.abandoned),
    }


def build(name: str = "golden") -> None:
    log = HERE / f"{name}.jsonl"
    board = HERE / f"{name}.board.json"
    if log.exists() or board.exists():
        sys.exit(f"{log.name} already exists: a golden log is never rebuilt")
    enc = Encounter.create(JsonlStore(log), load_scenario(HERE / f"{name}.toml"), clock=lambda: CLOCK)
    for n, raw in enumerate((HERE / f"{name}.script").read_text(encoding="utf-8").splitlines(), start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        command_id = None
        if " id=" in text:
            text, command_id = (part.strip() for part in text.rsplit(" id=", 1))
        refuse = text.startswith("!")
        text = text.lstrip("!").strip()
        result = enc.execute(parse(text, f"{name}.script:{n}"), text, command_id=command_id)
        if isinstance(result, Rejection) != refuse:
            sys.exit(f"{name}.script:{n}: {text!r} gave {result}")
    board.write_text(json.dumps(expected(enc), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{log.name}: {len(enc.records)} events")


if __name__ == "__main__":
    build(*sys.argv[1:])
