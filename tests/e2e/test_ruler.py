"""The free ruler on the table page (app/web/static/ruler.js, issue 38 item 4), in Debian's chromium:
a watcher's phone and the GM's laptop tap "Ruler", then two cells, and read the distance and, from a
fighter's cell, what going there costs it now: the server's numbers (GET /api/ruler). While it is on,
a tap moves nothing. The page loads the module as index.html would (one script tag)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support_web import new_log
from tabletrail.core.board.geometry import distance
from tabletrail.core.board.units import fmt
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search.reach import reach
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for

from tests.e2e.test_table_view import CHROMIUM, WAIT_MS, Running

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def with_ruler(page: Any, url: str) -> None:
    page.goto(url)
    expect(page.locator("#fighters [data-fid]").first).to_be_visible()
    page.add_script_tag(url=url.split("/join/")[0] + "/static/ruler.js", type="module")
    expect(page.locator("#free-ruler")).to_be_visible()


@pytest.mark.parametrize(
    ("size", "touch", "role"), [((1366, 768), False, "gm"), ((390, 844), True, "watcher")]
)
def test_tap_two_cells_and_read_the_distance_and_a_fighters_cost(
    tmp_path: Path, browser: Any, size: tuple[int, int], touch: bool, role: str
):
    log = new_log(tmp_path)
    state = Encounter.open(store_for(str(log))).state
    f = state.fighters[0]
    area = reach(state, f.id)
    to = min((c for c in area.costs if c != tuple(f.pos[:2])), key=lambda c: (-area.costs[c], c))
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
    )
    context.set_default_timeout(WAIT_MS)
    try:
        page = context.new_page()
        with Running(log) as server:
            before = log.read_bytes()
            with_ruler(page, server.link(role))
            hit = (lambda loc: loc.tap()) if touch else (lambda loc: loc.click())
            hit(page.locator("#free-ruler"))
            expect(page.locator("#free-ruler-tip")).to_contain_text("tap the first cell")

            def tap_cell(
                c: tuple[int, ...],
            ) -> None:  # where a finger lands: on the token, if one stands there
                b = page.locator(f'#terrain rect.cell[data-cell="{c[0]},{c[1]}"]').bounding_box()
                x, y = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
                page.touchscreen.tap(x, y) if touch else page.mouse.click(x, y)

            tap_cell(f.pos[:2])
            tap_cell(to)
            length = fmt(distance(state.settings["diagonal"], f.pos[:2], to))
            tip = page.locator("#free-ruler-tip")
            unit = get_ruleset(state.ruleset).unit
            expect(tip).to_contain_text(f"{length} {unit} from {f.pos[0]},{f.pos[1]} to {to[0]},{to[1]}")
            expect(tip).to_contain_text(f"{f.name}: {fmt(area.costs[to])} {area.unit} now")
            shots = Path(os.environ.get("TABLETRAIL_SHOTS", tmp_path))
            shots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shots / f"ruler-{size[0]}x{size[1]}.png"))
            assert log.read_bytes() == before  # measuring moved nothing
            page.keyboard.press("Escape")
            expect(tip).to_be_hidden()
    finally:
        context.close()
