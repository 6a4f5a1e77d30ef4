"""The replay bundle of a long encounter: the time to make it beside the time to replay the same log,
its size, and the time Chromium takes to "chain intact".

The logs are bench_log.py's, generated honestly (every line from executing a command on a
speed-meters encounter): 1,000, 10,000 and 100,000 events by default. For each, in this one
run: the replay (Encounter.open over the lines: decode, chain check, fold) and the bundle
(`bundle.build`, the same open plus the boards and words of every event), each as CPU and
wall time, and their ratio (issue 40's target: linear, a 100k-event bundle in <= 20x its
replay). Then headless Chromium opens the largest bundle from file:// with every request
aborted, `--runs` times, and the page's own clock gives the time from the start of navigation
to "chain intact" (`window.TT_INTACT_MS`, set when the verdict is written) and to the page
ready to scrub (every board rebuilt, the event list drawn), and the CPU time of the page's main
thread by then (Chromium's ThreadTime metric: what a busy machine's wall time hides; "intact"
is read just after the verdict is written, so it is a ceiling). Targets: "chain intact" in
<= 3 s for 100k events (issue 40); under 5 MB without a picture (issue 31).

Issue 40 rerun, main (dc71334) then the bundle-fast branch, back to back (load 2.6-3.4, 2 cores):
bundle/replay CPU 54.7x -> 40.5x at 10k, 50.0x -> 43.8x at 100k (14.36 s -> 13.31 s); Chromium to
"chain intact" at 100k 2392 -> 1770 ms median (the page's own BLAKE2b in place of blakejs's per line).

Issue 40 rerun, main (773a610) then the bundle-fast-2 branch, back to back in one shell (load 12-15,
2 cores; bundle.build on the same lines, CPU): 100k events 16.04 s -> 11.26 s, 41.0x -> 29.1x the replay's
CPU (0.39 s); 10k 1.35-1.51 s -> 1.11-1.19 s. The payloads, unpacked, are byte for byte main's (GM's
and a player's bundle); the page is 4.9% larger (9.41 MB at 100k): gzip level 6 in place of 9
(`--levels 6 9` measures both on the largest log: 5% of the build's CPU at 10k for 4% of the bytes).
What is cut: a fighter is drawn again only when what its view read changed (bundle.data.FighterViews),
each event worded and made plain once, an explanation's shared run of lines numbered once a batch,
a fighter's card after a batch reused as the next one's before, the settings worded once while
unchanged. What is left: the ruleset's walker is built for every budget asked
(core/), and each batch's explanation is still worded whole.

Issue 40 rerun, main's 845c995 then the bundle-fast-3 branch, alternated in one shell (load 6.1-11.6,
2 cores; CPU): 10k events 1.23-1.29 s -> 1.10-1.11 s (31.8-34.8x -> 30.7-31.3x the replay); 20k
2.49-2.62 s -> 2.31-2.38 s (34.7-40.0x -> 31.4-31.5x); 100k once, 13.97 s -> 12.32 s (37.8x ->
35.3x). The payloads, unpacked, are byte for byte main's (GM's and a player's bundle of every
shipped replay). What is cut: a batch's events are handed to its explanation as held (not
decoded from their plain form again) with the bundle's own words, so an event is worded once for
the timeline, the listing and its own explanation; the listing's lines made once a batch (marked and
not), a run's lines numbered as they are. Not done: a walker/budget memo keyed by the state's
identity and the fighter id: counted over a 10k bundle, no (state, fighter) was asked twice (the
views are drawn on a watched copy of the state, the explanation's cards are kept by state already),
so it would add a cache that never answers. The walker's cost is `Ruleset.stat` (a linear search of
the stats and a unit conversion each call) and the walker object built for `budget_unit`.

Issue 40 rerun, main's 50a31f1 (A) then the bundle branch (B), this command back to back in one
shell (load 4.2-7.3, 2 cores; the replay's CPU 0.54-0.56 s): 100k events, bundle CPU 15.44 s -> 10.58 s
(28.5x -> 18.9x the replay), then with --no-browser 15.28 s -> 8.51 s (27.3x -> 15.7x); Chromium to
"chain intact" 3079 -> 2534 ms median (the page is byte for byte A's: only the machine differs). An
earlier pair, beside the full test suite (load 6-7): 13.80 s -> 11.74 s (30.5x -> 26.1x). The pages
are byte for byte main's (every shipped replay, every role; random logs with undos and redos:
tests/bundle/test_bundle_same_bytes.py builds each both ways). What is cut: a fighter's view is kept
by the fighter's value too (bundle.data.FighterViews: its JSON, the state's other parts by identity,
and what the view read of the turn, noted by a Turn that watches its reads), so the mover walking back
to where and how it was a turn or two before is not drawn again (its walker and budgets not asked);
words kept by value where a fight repeats them (a move's lines and table, the cards, the settings,
each event's line, spent sums, clock times: bounded memos in app/text, web/cards.py); the board's
turn, links, doors and rulings views taken from the board before while their parts are the same
objects. What is left (cProfile at 100k): projections/audit/explain.py's `explain_batch` (~20%: its
fighter cards ask the ruleset's walker and budget once a new state, events made plain twice), each
event's own lines and their numbering (~20%), the fold itself, and zlib (~1.2 s at level 6).

Issue 40's bundle row, session 13: the base (ee0c665) then the bundle branch, this command with
--no-browser alternated twice in one shell (load 2.1-3.3, 2 cores; CPU, least of 3): 10k events
0.60/0.57 s -> 0.47/0.45 s (16.1x/19.1x -> 13.9x/15.0x the replay's), 100k 6.43/5.99 s -> 5.12/5.12 s
(20.2x/18.2x -> 16.3x/15.5x). The page 1.03 -> 0.63 MB at 10k, 9.41 -> 5.35 MB at 100k (words 5.29 ->
1.51 MB, lines 4.04 -> 3.75 MB); Chromium to "chain intact" at 100k 2353 -> 2034 ms median (load 6-7).
What is cut: the words are leaner. An explanation is written as codes: numbers into a table of lines
and of runs of lines kept once by value (a batch's shared lines once a batch, an event's own lines
but its head once a kind), and its head line and its batch's listing (95% of the old table's
bytes: each event's words written three times over) as two codes the page makes from the events
carried, each checked line for line against explain's words when written; events carry what the
page lists of them, as lists of their fields. Then the words are encoded a batch at a time into a
buffer handed to the gzip 64 KB at a time; a fighter's change between two views is kept by the
views; the lines are deflated Z_FILTERED (7% fewer bytes, same time). What is left (py-spy, 100k):
about 55% is in code this branch may not edit: explain_batch (fighter cards asking the ruleset's
walker for every new state, ~6-9%; `plain` of the batch's events, ~4%), explain_runs (its head lines,
listing and marked listings, which the bundle now has the page make, ~3%), Words.event, the fold,
the replay itself; the bundle's own part is the codes (~6%), boards and deltas (~6%), and the two
gzips (~8%: level 3 would save ~4% for a page a third larger, 5.35 -> ~7.2 MB at 100k).

Each replay and bundle time is the least of --repeat runs (3), the two alternating run by run, so a
busy moment on this shared machine lands on neither side of the ratio alone.

Run: .venv/bin/python benchmarks/bench_bundle.py [--events 1000 10000 100000] [--repeat 3] [--runs 3]
     [--no-browser] [--levels 6 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tabletrail import bundle
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_log import fresh, play  # noqa: E402 - the same honest generator

T = TypeVar("T")
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


def timed(fn: Callable[[], T]) -> tuple[T, float, float]:
    """What fn returns, with its wall and CPU seconds."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def paired(
    repeat: int, replay: Callable[[], object], build: Callable[[], T]
) -> tuple[tuple[float, float], tuple[T, float, float]]:
    """The least wall and CPU time of each of `repeat` runs, the replay and the bundle alternating
    so that both see the same load (one run each let a busy moment land on either side); the
    bundle's page is the last one made. What each returns is freed untimed."""
    replays, builds = [], []
    page: T | None = None
    for _ in range(repeat):
        _, wall, cpu = timed(replay)
        replays.append((wall, cpu))
        page, wall, cpu = timed(build)
        builds.append((wall, cpu))
    assert page is not None, "--repeat must be at least 1"
    return (min(w for w, _ in replays), min(c for _, c in replays)), (
        page,
        min(w for w, _ in builds),
        min(c for _, c in builds),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[1_000, 10_000, 100_000], help="log lengths")
    parser.add_argument("--runs", type=int, default=3, help="times Chromium opens the largest bundle")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (alternated); the least is kept")
    parser.add_argument("--no-browser", action="store_true", help="leave Chromium out")
    parser.add_argument(
        "--levels", type=int, nargs="*", default=[], help="gzip levels to build the largest log's bundle at"
    )
    args = parser.parse_args()

    print(f"load        {load()} (1, 5, 15 min) on {os.cpu_count()} cores, at the start")
    page = b""
    for n in args.events:
        t0 = time.perf_counter()
        lines = list(play(fresh(), n).store.lines)
        made_in = time.perf_counter() - t0
        raw = sum(len(line) + 1 for line in lines)
        print(f"\n{len(lines):,} events ({raw / 1e6:.1f} MB of JSON Lines, generated in {made_in:.1f} s)")
        (r_wall, r_cpu), (page, b_wall, b_cpu) = paired(
            args.repeat,
            lambda lines=lines: Encounter.open(MemoryStore(lines), snapshots=False),
            lambda lines=lines: bundle.build(MemoryStore(lines)),
        )
        print(f"  replay    {r_cpu:>7.2f} s CPU {r_wall:>7.2f} s wall (least of {args.repeat})")
        each = 1000 * b_cpu / len(lines)
        print(f"  bundle    {b_cpu:>7.2f} s CPU {b_wall:>7.2f} s wall, {each:.3f} ms CPU an event")
        print(f"  ratio     {b_cpu / r_cpu:>7.1f}x the replay's CPU time (target: <= 20x)")
        target = " (target at 10k events: < 5 MB, issue 31)" if n <= 10_000 else ""
        print(f"  size      {len(page) / 1e6:>7.2f} MB{target}: " + ", ".join(
            f"{name} {size / 1e6:.2f} MB" for name, size in parts(page).items()
        ))  # fmt: skip

    if args.levels and page:
        kept = bundle.LEVEL
        print(f"\ngzip level, the {len(lines):,}-event bundle (the build's CPU and the page's size):")
        for level in args.levels:
            bundle.LEVEL = level
            made, _, cpu = timed(lambda lines=lines: bundle.build(MemoryStore(lines)))
            print(f"  level {level}   {cpu:>7.2f} s CPU {len(made) / 1e6:>7.2f} MB")
        bundle.LEVEL = kept

    if not args.no_browser and page:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "fight.html"
            path.write_bytes(page)
            times = open_times(path, args.runs)

        def med(key: str) -> float:
            return statistics.median(t[key] for t in times)

        walls = ", ".join(f"{t['intact']:.0f}" for t in times)
        print(f"\nChromium, the {args.events[-1]:,}-event bundle, median of {args.runs}:")
        intact, ready = f"{med('intact'):.0f} ms wall", f"{med('ready'):.0f} ms wall"
        print(f"  to 'chain intact' {intact}, {med('intact_cpu'):.0f} ms CPU (target: <= 3000 ms)")
        print(f"  to ready {ready}, {med('ready_cpu'):.0f} ms CPU (CPU: the page's main thread)")
        print(f"  each run, wall to intact: {walls} ms")
    print(f"\nload        {load()} (1, 5, 15 min) at the end: wall times are shared with the machine")


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
