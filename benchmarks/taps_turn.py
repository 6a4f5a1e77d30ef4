"""How many taps is a whole turn on a phone? Counted, not timed to a target.

The turn is the browser test's (tests/e2e/test_phone_turn.py): a player opens its link on a
phone (390x844, touch) or an upright tablet (820x1180, touch) and, by taps only, walks to a
door, opens it, goes through, drops prone and ends the turn, under each of the four rulesets
(round-meters has no posture verb, and under initiative-yards dropping prone takes a whole move
action's movement, which the walk spent: there the turn has no posture step, and the table says so).
Each tap is Playwright's `tap()` on what a person would tap; the test's own checks
run between them (they take no taps). Printed per ruleset and screen: the taps, the commands
they made (records of type `command` appended), taps per command, and the turn's wall time
(a shared machine's: compare the rows of one run, never against a number). Screenshots of each
step go to TABLETRAIL_SHOTS (default /tmp/phoneui-shots/).

Needs Debian's chromium at /usr/bin/chromium and the test and web extras.

Run: .venv/bin/python benchmarks/taps_turn.py [--ruleset speed-meters ap-squares] [--screen phone tablet]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))  # the browser tests, imported as tests.e2e.*

from playwright.sync_api import sync_playwright  # noqa: E402
from support_web import records  # noqa: E402

from tests.e2e.test_phone_turn import NO_POSTURE, PHONE, SHOTS, TABLET, gate_log, play_a_turn, touch_page  # noqa: E402
from tests.e2e.test_table_view import ARGS, CHROMIUM, Running  # noqa: E402

SCREENS = {"phone": PHONE, "tablet": TABLET}


def commands(log: Path) -> int:
    """The commands a log holds: one `command` record per command that ran."""
    return sum(1 for line in records(log) if json.loads(line).get("event", {}).get("type") == "command")


def main() -> None:
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--ruleset", nargs="+", default=["speed-meters", "ap-squares", "initiative-yards", "round-meters"]
    )
    ap.add_argument("--screen", nargs="+", choices=sorted(SCREENS), default=["phone", "tablet"])
    args = ap.parse_args()
    head = f"{'ruleset':<16} {'screen':<16} {'taps':>4} {'commands':>8} {'taps/command':>12} {'wall s':>7}"
    print(head + "  steps")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            for ruleset in args.ruleset:
                for screen in args.screen:
                    size = SCREENS[screen]
                    with tempfile.TemporaryDirectory() as folder:
                        log = gate_log(Path(folder), ruleset)
                        shots = SHOTS / f"bench-{ruleset}-{screen}"
                        shots.mkdir(parents=True, exist_ok=True)
                        with Running(log) as server:
                            context, page = touch_page(browser, server.link("blue"), size)
                            try:
                                before = commands(log)
                                start = time.perf_counter()
                                taps = play_a_turn(page, log, shots, posture=ruleset not in NO_POSTURE)
                                wall = time.perf_counter() - start
                                made = commands(log) - before
                            finally:
                                context.close()
                    label = f"{screen} {size[0]}x{size[1]}"
                    steps = "walk+door+through+" + ("end" if ruleset in NO_POSTURE else "posture+end")
                    row = f"{ruleset:<16} {label:<16} {taps:>4} {made:>8} {taps / made:>12.1f} {wall:>7.1f}"
                    print(f"{row}  {steps}")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
