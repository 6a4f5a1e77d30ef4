"""How many taps and clicks build an encounter in the browser? Counted, not timed to a target.

The room is the issue's (38) and the browser test's (tests/e2e/test_builder.py): from the GM's
home page, a new draft on a blank 12 x 10 grid, rough terrain over three cells, a sight-only wall,
a wall with a door in it, four fighters on two sides placed by tapping cells, then Start. Each tap,
click, drag (one stroke) and field typed into (one tap: the keys that follow are typing) goes
through the test's `Gm`, which counts it. Printed per screen (a 1366x768 laptop by mouse, an
820x1180 tablet by touch) and per phase, with the keys typed, the wall time (a shared machine's:
compare the rows of one run, never against a number) and the load average. Goal (issue 38): <= 40.
Screenshots of each step go to TABLETRAIL_SHOTS (default /tmp/builder-shots/).

Needs Debian's chromium at /usr/bin/chromium and the test and web extras.

Run: .venv/bin/python benchmarks/taps_build.py [--screen laptop tablet] [--ruleset initiative-yards]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))  # the browser tests, imported as tests.e2e.*

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.e2e.test_builder import (  # noqa: E402
    LAPTOP,
    STATS,
    TABLET,
    Gm,
    Serving,
    open_builder,
    paint_room,
    place_fighters,
    start,
)
from tests.e2e.test_table_view import ARGS, CHROMIUM  # noqa: E402

SCREENS = {"laptop": (LAPTOP, False), "tablet": (TABLET, True)}
NAME = "Cellar room"


def keys_typed(ruleset: str) -> int:
    """The characters typed: the encounter's name, the four fighters' names, the first one's stats."""
    return len(NAME) + len("AriBoCynDax") + sum(len(v) for v in STATS[ruleset].values())


def build(gm: Gm, home: str, ruleset: str) -> list[int]:
    """The room built and started; the taps of each phase (setup, map, fighters, start)."""
    counts = []
    for phase in (
        lambda: open_builder(gm, home, NAME, ruleset),
        lambda: paint_room(gm),
        lambda: place_fighters(gm, ruleset),
        lambda: start(gm),
    ):
        before = gm.taps
        phase()
        counts.append(gm.taps - before)
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--screen", nargs="+", choices=sorted(SCREENS), default=["laptop", "tablet"])
    ap.add_argument("--ruleset", default="initiative-yards", choices=sorted(STATS))
    args = ap.parse_args()
    shots_root = Path(os.environ.get("TABLETRAIL_SHOTS", "/tmp/builder-shots"))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"{'screen':<16} {'setup':>5} {'map':>4} {'fighters':>8} {'start':>5} {'taps':>5} {'keys':>5} "
        f"{'goal':>5} {'wall s':>7}"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            for screen in args.screen:
                size, touch = SCREENS[screen]
                with tempfile.TemporaryDirectory() as tmp:
                    folder = Path(tmp)
                    shots = shots_root / screen
                    shots.mkdir(parents=True, exist_ok=True)
                    context = browser.new_context(
                        viewport={"width": size[0], "height": size[1]}, has_touch=touch
                    )
                    context.set_default_timeout(10_000)
                    try:
                        with Serving(folder) as served:
                            gm = Gm(context.new_page(), shots, touch)
                            began = time.perf_counter()
                            phases = build(gm, served.home, args.ruleset)
                            wall = time.perf_counter() - began
                    finally:
                        context.close()
                label = f"{screen} {size[0]}x{size[1]}"
                verdict = "ok" if gm.taps <= 40 else "over"
                cols = " ".join(f"{n:>{w}}" for n, w in zip(phases, (5, 4, 8, 5), strict=True))
                print(
                    f"{label:<16} {cols} {gm.taps:>5} {keys_typed(args.ruleset):>5} {verdict:>5} {wall:>7.1f}"
                )
        finally:
            browser.close()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
