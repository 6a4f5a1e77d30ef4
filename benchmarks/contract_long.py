"""A long contract run: schemathesis against a real table view, many examples, and the counts it ends with.

The same run as tests/web/test_contract_schemathesis.py (tests/support_contract.py:
a real uvicorn server on 127.0.0.1 on a temporary encounter, every operation of
its /openapi.json, as the GM, a player and a watcher, positive and negative examples),
with --examples per operation, role and mode instead of the test's few; then
schemathesis' own command line with every check, as each role, with as many
(tests/support_contract_cli.py). Prints the examples sent, the answers per status,
the operations with nothing to make wrong, and every failure (none is the contract
kept). Exit status 1 if any failed.

Run: .venv/bin/python benchmarks/contract_long.py [--examples 100]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support_contract import run, served  # noqa: E402
from support_contract_cli import run_cli  # noqa: E402
from support_web import invite, new_log  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--examples", type=int, default=100, help="per operation, role and mode (default 100)"
    )
    args = parser.parse_args()
    log = new_log(Path(tempfile.mkdtemp()))
    tokens = {
        "gm": invite(log, "gm")[1],
        "blue": invite(log, "blue")[1],
        "watcher": invite(log, "watcher")[1],
    }
    start = time.perf_counter()
    with served(log) as base:
        figures = run(base, tokens, log, args.examples)
        for role, token in tokens.items():  # every check schemathesis has, as each role
            ran = run_cli(base, token, log.parent, args.examples)
            if not ran.ok:
                figures.failures.append(f"schemathesis run --checks all as {role}:\n{ran.said}")
    seconds = time.perf_counter() - start
    print(
        f"examples sent: {figures.examples:,} in {seconds:.0f} s ({args.examples} per operation, role, mode)"
    )
    print("answers: " + ", ".join(f"{status}: {n:,}" for status, n in sorted(figures.statuses.items())))
    print(f"log records at the end: {len(log.read_bytes().splitlines()):,}")
    print(f"operation x role x mode with nothing to draw: {figures.unsatisfiable}")
    print(f"failures: {len(figures.failures)}")
    for failure in figures.failures:
        print(f"  {failure}")
    return 1 if figures.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
