"""The audit: why did that happen, would this be allowed, was this log tampered with or mis-ruled,
and where would the table be under other settings.

Every answer is plain data (dicts, lists, numbers in centi-units) that the CLI
renders as text or prints as JSON. Nothing here knows a ruleset: it reads the
shared event vocabulary (`Moved` steps and budget, `CheckRolled`, `RulingMade`…),
the ruleset's declared rules and settings, its `move_budget` hook, and `decide`.
A new ruleset is audited with no change here.

- `explain(records, seq)`: the command behind an event, who issued it, the rule
  ids and what they enforce, the step-by-step costs against the budget, every
  check with its number and source, the settings and GM rulings in force, and
  the fighters before and after.
- `dry_run(live, command)`: the answer to "why" before anything happens, on an
  encounter as it stands (`inputs.Live`: the app's `Encounter`, or a `Replay`).
- `verify_lines(lines)`: the hash chain, the sequence numbers, then every batch
  re-decided from the state before it and compared with what the log records.
- `whatif(records, ["diagonal=euclidean"])`: the same commands under other settings.
- `refusals(store)`: the refused attempts kept in the side log.

The audit imports nothing of the app (tests/project/test_architecture.py): it takes plain
inputs (projections/audit/inputs.py), records or lines and a decision function
(`decide_on` unless a caller gives another), so it runs on any store.
"""

from tabletrail.core.engine.rulings import LENGTH_RESOURCES
from tabletrail.projections.audit.dry_run import dry_run
from tabletrail.projections.audit.explain import explain
from tabletrail.projections.audit.inputs import Decide, Live, Replay, decide_on
from tabletrail.projections.audit.parts import (
    PROSE,
    cell_rulings,
    checks,
    fighter_card,
    involved,
    moves,
    plain,
    rule_words,
    rulings_in_force,
    settings_view,
)
from tabletrail.projections.audit.refusals import clock_text, refusals
from tabletrail.projections.audit.verify import Finding, read_lines, verify_file, verify_lines, verify_store
from tabletrail.projections.audit.whatif import WhatIf, parse_sets, whatif

__all__ = [
    "Decide",
    "Finding",
    "LENGTH_RESOURCES",
    "Live",
    "PROSE",
    "Replay",
    "WhatIf",
    "cell_rulings",
    "checks",
    "clock_text",
    "decide_on",
    "dry_run",
    "explain",
    "fighter_card",
    "involved",
    "moves",
    "parse_sets",
    "plain",
    "read_lines",
    "refusals",
    "rule_words",
    "rulings_in_force",
    "settings_view",
    "verify_file",
    "verify_lines",
    "verify_store",
    "whatif",
]
