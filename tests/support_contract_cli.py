"""schemathesis' own command line against a served table view, every check on (no tests here).

What `schemathesis run URL/openapi.json` does as a user would run it: its coverage phase
(each parameter's boundaries, each required field left out, methods the document does not
list), then fuzzing and stateful sequences, every answer held to every check schemathesis
has. Given on the command line, `--checks all` would override the per-operation exceptions
below, so the configuration file turns every check on instead (schemathesis 4's default).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# Where a schema-valid request is still refused with a 400, and why the document can't say so:
# - preview and do take a command in the CLI syntax (`move ari 3,4`): its grammar is not JSON Schema's
#   to describe, so a string the document allows may be a command no ruleset knows (a 400 naming it).
NOT_POSITIVE = ("POST /api/preview", "POST /api/do")

CONFIG = """
[checks.positive_data_acceptance]
# 422 is the document's "the rules refuse the command"
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]
""" + "".join(
    f'\n[[operations]]\ninclude-name = "{name}"\nchecks.positive_data_acceptance.enabled = false\n'
    for name in NOT_POSITIVE
)


@dataclass
class Ran:
    ok: bool
    said: str  # the run's report, cut to its failures and summary


def run_cli(base: str, token: str, folder: Path, examples: int, seed: int = 1) -> Ran:
    """schemathesis run against `base` with `token`, `examples` per operation and phase."""
    config = folder / "schemathesis.toml"
    config.write_text(CONFIG)
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file", str(config),
        "run", f"{base}/openapi.json",
        "-H", f"Authorization: Bearer {token}",
        "--max-examples", str(examples),
        "--seed", str(seed),
        "--no-color",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=folder, check=False)
    said = done.stdout + done.stderr
    cut = said.find("=== FAILURES")
    return Ran(ok=done.returncode == 0, said=said[cut if cut >= 0 else max(0, len(said) - 3000) :])
