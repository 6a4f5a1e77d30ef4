"""The page says each event as `do` prints it, with its reason inline (real headless Chromium).

A shove stopped by a wall is the dispute the issue starts from: the event list
and the preview's "What happens" must say how far it was to go, that the target
did not move, what stopped it, and why (the event's note) in the line itself,
not only in a tooltip. The expected sentences come from render, the layer `do`
prints through, never from numbers written here.

TABLETRAIL_SHOTS=DIR also saves screenshots of the page at 1366x768 and 1024x768
there, for a person to look at.
"""

from __future__ import annotations

import os
from pathlib import Path

from support import grid
from tabletrail.cli import main
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.types import Moved
from tabletrail.service.encounter import Encounter
from tabletrail.text.render import Words

from tests.e2e.test_table_view import WAIT_MS, Running, expect

ROWS = ["#######", "#.....#", "#.....#", "#.....#", "#######"]
HEAD = '[encounter]\nname = "Against the wall"\nruleset = "speed-meters"\nseed = 1\n'


def shoved_into_a_wall(tmp_path: Path) -> Path:
    """a at 4,2 shoves t at 5,2, whose back is to the wall at 6,2: margin 5, so 2 m, and 0 m go."""
    fighters = "".join(
        f'[[fighters]]\nid = "{fid}"\nside = "{side}"\nat = [{x}, 2]\nspeed = 5\n'
        for fid, side, x in (("a", "blue", 4), ("t", "red", 5))
    )
    scenario = tmp_path / "wall.toml"
    scenario.write_text(
        '[encounter]\nname = "Against the wall"\nruleset = "speed-meters"\nseed = 1\n'
        + grid(ROWS)
        + fighters,
        encoding="utf-8",
    )
    log = tmp_path / "wall.jsonl"
    assert main(["new", str(scenario), "--log", str(log)]) == 0
    assert main(["do", str(log), "shove", "a", "t", "roll=6", "roll=1"]) == 0
    return log


def test_the_event_list_and_what_happens_say_the_sentence_and_its_reason_inline(tmp_path: Path, browser):  # noqa: ANN001
    log = shoved_into_a_wall(tmp_path)
    enc = Encounter.open(JsonlStore(log))
    words = Words(get_ruleset(enc.state.ruleset))
    stopped = next(r for r in enc.records if isinstance(r.event, Moved))
    sentence = words.event(stopped.event)
    assert "0 m of 2 m" in sentence and "stopped: 6,2 is wall" in sentence  # what `do` printed
    shots = os.environ.get("TABLETRAIL_SHOTS")
    with Running(log) as server:
        for width in (1366, 1024):
            context = browser.new_context(viewport={"width": width, "height": 768})
            context.set_default_timeout(WAIT_MS)
            page = context.new_page()
            page.goto(server.gm)
            line = page.locator(f'#events li[data-seq="{stopped.seq}"]')
            expect(line).to_contain_text(f"{stopped.seq} · {sentence}")
            expect(line.locator(".why")).to_have_text(f" — {stopped.event.note}")  # inline, not a tooltip
            assert line.get_attribute("title") is None
            # The same shove again, previewed: "What happens" says it in the same words.
            page.locator("#command").fill("shove a t roll=6 roll=1")
            page.locator("#command-form button").click()
            consequence = page.locator("#consequences li", has_text="did not move")
            expect(consequence).to_contain_text(sentence)
            expect(consequence.locator(".why")).to_have_text(f" — {stopped.event.note}")
            if shots:
                for part in (f'#events li[data-seq="{stopped.seq}"]', "#consequences"):
                    page.locator(part).scroll_into_view_if_needed()
                    name = "events" if part.startswith("#events") else "preview"
                    page.screenshot(path=str(Path(shots) / f"{name}-{width}x768.png"))
            context.close()
