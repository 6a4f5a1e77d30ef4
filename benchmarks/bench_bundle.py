"""The replay bundle of a long encounter: its size, the time to make it, and the time to "chain intact".

The log is bench_log.py's, generated honestly (every line from executing a command on a
speed-meters encounter): 10,000 events by default. The bundle is built in this process
(wall and CPU time), its size printed with its parts (the lines, the boards and words, the
page's own code); then headless Chromium opens it from file:// with every request aborted,
`--runs` times, and the page's own clock gives the time from the start of navigation to
"chain intact" (`window.TT_INTACT_MS`, set when the verdict is written) and to the page
ready to scrub (every board rebuilt, the event list drawn), and the CPU time of the page's
main thread by then (Chromium's ThreadTime metric: what a busy machine's wall time hides;
"intact" is read just after the verdict is written, so it is a ceiling). Targets (issue 31): under 5 MB
without a picture; open to intact under 1 s.

Run: .venv/bin/python benchmarks/bench_bundle.py [--events 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tabletrail import bundle
from tabletrail.events.log import MemoryStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_log import fresh, play  # noqa: E402 - the same honest generator

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def parts(page: bytes) -> dict[str, int]:
    """The bytes of each payload of the page, and the rest (markup, styles, scripts)."""
    out = {name.decode(): len(body) for name, body in bundle.DATA.findall(page)}
    out["page code, styles, head"] = len(page) - sum(out.values())
    return out


def open_times(path: Path, runs: int) -> list[dict[str, float]]:
    """Each run: the page's clock at "chain intact" and at ready, and its main thread's CPU time then."""
    from playwright.sync_api import sync_playwright

    times = []
    asked: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(runs):
            context = browser.new_context()
            context.route(
                "**/*",
                lambda route: (
                    route.continue_()
                    if route.request.url.startswith("file://") and route.request.resource_type == "document"
                    else (asked.append(route.request.url), route.abort())
                ),
            )
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")

            def cpu(cdp: object = cdp) -> float:  # the renderer's main thread, CPU seconds (load-independent)
                return next(
                    m["value"]
                    for m in cdp.send("Performance.getMetrics")["metrics"]
                    if m["name"] == "ThreadTime"
                )

            start = cpu()
            page.goto(path.as_uri())
            page.wait_for_selector('#integrity:not([data-state="checking"])', timeout=120_000)
            at_intact = cpu()
            page.wait_for_selector("body[data-ready]", timeout=120_000)
            at_ready = cpu()
            state = page.locator("#integrity").get_attribute("data-state")
            if state != "intact":
                raise SystemExit(f"the page says {state}: {page.locator('#integrity').text_content()}")
            intact, ready = page.evaluate("[window.TT_INTACT_MS, performance.now()]")
            times.append(
                {"intact": intact, "ready": ready, "intact_cpu": 1000 * (at_intact - start),
                 "ready_cpu": 1000 * (at_ready - start)}
            )  # fmt: skip
            context.close()
        browser.close()
    if asked:
        raise SystemExit(f"the page asked for {asked}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000, help="length of the generated log")
    parser.add_argument("--runs", type=int, default=5, help="times Chromium opens the bundle")
    args = parser.parse_args()

    t0 = time.perf_counter()
    enc = play(fresh(), args.events)
    lines = list(enc.store.lines)
    print(f"generated   {len(lines):>9,} events by executing commands in {time.perf_counter() - t0:.1f} s")
    raw = sum(len(line) + 1 for line in lines)
    print(f"log         {raw / 1e6:>9.2f} MB as JSON Lines")

    store = MemoryStore(lines)
    w0, c0 = time.perf_counter(), time.process_time()
    page = bundle.build(store)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    print(f"bundle      {len(page) / 1e6:>9.2f} MB (target: < 5 MB), made in {wall:.1f} s, {cpu:.1f} s CPU")
    for name, size in parts(page).items():
        print(f"  {name:<24} {size / 1e6:>7.2f} MB")

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fight.html"
        path.write_bytes(page)
        times = open_times(path, args.runs)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())

    def med(key: str) -> float:
        return statistics.median(t[key] for t in times)

    walls = ", ".join(f"{t['intact']:.0f}" for t in times)
    print(
        f"open        to 'chain intact' {med('intact'):.0f} ms wall, "
        f"{med('intact_cpu'):.0f} ms CPU (target: < 1000 ms)"
    )
    print(
        f"            to ready {med('ready'):.0f} ms wall, {med('ready_cpu'):.0f} ms CPU "
        "(CPU: the page's main thread)"
    )
    print(f"            each run, wall to intact: {walls} ms (median of {args.runs})")
    print(f"load        {load} (1, 5, 15 min) on {os.cpu_count()} cores: the page's clock is wall time")


if __name__ == "__main__":
    main()
