"""How many taps is a whole turn on a phone? Counted, not timed to a target.

The turn is the browser test's (tests/test_web_e2e_phone.py): a player opens its link on a
phone (390x844, touch) or an upright tablet (820x1180, touch) and, by taps only, walks to a
door, opens it, goes through, drops prone and ends the turn, under speed-meters and
ap-squares. Each tap is Playwright's `tap()` on what a person would tap; the test's own checks
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
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402
from test_web_e2e import ARGS, CHROMIUM, Running  # noqa: E402
from test_web_e2e_phone import PHONE, SHOTS, TABLET, gate_log, play_a_turn, touch_page  # noqa: E402
from test_web_support import records  # noqa: E402

SCREENS = {"phone": PHONE, "tablet": TABLET}


def commands(log: Path) -> int:
    """The commands a log holds: one `command` record per command that ran."""
    return sum(1 for line in records(log) if json.loads(line).get("event", {}).get("type") == "command")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", nargs="+", default=["speed-meters", "ap-squares"])
    ap.add_argument("--screen", nargs="+", choices=sorted(SCREENS), default=["phone", "tablet"])
    args = ap.parse_args()
    print(f"{'ruleset':<14} {'screen':<16} {'taps':>4} {'commands':>8} {'taps/command':>12} {'wall s':>7}")
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
                                taps = play_a_turn(page, log, shots)
                                wall = time.perf_counter() - start
                                made = commands(log) - before
                            finally:
                                context.close()
                    label = f"{screen} {size[0]}x{size[1]}"
                    print(f"{ruleset:<14} {label:<16} {taps:>4} {made:>8} {taps / made:>12.1f} {wall:>7.1f}")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
