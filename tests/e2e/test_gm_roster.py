"""The GM at the table in Debian's chromium, on a 1366x768 laptop (issue 38 item 4): a fighter added
mid-fight from the Fighters panel (its form made from the ruleset's stats, its cell picked on the
board), appearing on a player's screen live; a wrong stat refused beside its field with nothing
written; a fighter removed with a reason; a token dragged where the rules would not take it and put
there by hand as a place ruling. Screenshots of each step go to $TABLETRAIL_SHOTS (or the test's
folder), and the log verifies after it all."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support_web import new_log
from tabletrail.events.types import FighterJoined, FighterLeft, Placed, RulingMade
from tabletrail.projections.audit import verify_store
from tabletrail.service.stores import store_for

from tests.e2e.test_table_devices import centre_of, drag
from tests.e2e.test_table_view import CHROMIUM, WAIT_MS, Running

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
LAPTOP = {"width": 1366, "height": 768}


def events_of(log: Path) -> list[Any]:
    from tabletrail.service.encounter import Encounter

    return [r.event for r in Encounter.open(store_for(str(log))).records]


def test_the_gm_adds_removes_and_places_fighters_and_a_player_sees_it_live(tmp_path: Path, browser: Any):
    log = new_log(tmp_path)
    shots = Path(os.environ.get("TABLETRAIL_SHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    gm_ctx = browser.new_context(viewport=LAPTOP)
    blue_ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    for c in (gm_ctx, blue_ctx):
        c.set_default_timeout(WAIT_MS)
    try:
        with Running(log) as server:
            gm, blue = gm_ctx.new_page(), blue_ctx.new_page()
            gm.goto(server.link("gm"))
            blue.goto(server.link("blue"))
            for page in (gm, blue):
                expect(page.locator('#fighters [data-fid="cy"]')).to_be_visible()
            panel = gm.locator("#roster-panel")
            panel.scroll_into_view_if_needed()
            expect(panel.locator('[data-roster="cy"]')).to_contain_text("cy (red) at 7,3")
            # the form, made from speed-meters' stats
            gm.locator("#add-fighter summary").click()
            form = gm.locator("#join-form")
            expect(form.locator('[data-field="stats.speed"]')).to_be_visible()
            form.locator('[data-field="fighter"]').fill("gob")
            form.locator('[data-field="name"]').fill("Gob the Tall")
            form.locator('[data-field="side"]').fill("red")
            form.get_by_role("button", name="Pick on the board").click()
            x, y = centre_of(gm, '#terrain rect[data-cell="5,1"]')
            gm.mouse.click(x, y)
            expect(form.locator('[data-field="at"]')).to_have_value("5,1")
            form.locator('[data-field="why"]').fill("the door bursts open")
            # a stat out of range: refused beside its field, nothing written
            before = log.read_bytes()
            form.locator('[data-field="stats.speed"]').fill("-5")
            form.get_by_role("button", name="Add fighter").click()
            error = form.locator(".field-error")
            expect(error).to_have_text("must not be negative, got -5")
            expect(form.locator('[data-field="stats.speed"]')).to_have_attribute("aria-invalid", "true")
            gm.screenshot(path=str(shots / "gm-add-fighter-refused.png"))
            assert log.read_bytes() == before
            form.locator('[data-field="stats.speed"]').fill("5")
            form.get_by_role("button", name="Add fighter").click()
            expect(gm.locator('#fighters [data-fid="gob"]')).to_be_visible()
            expect(blue.locator('#fighters [data-fid="gob"]')).to_be_visible()  # live, on a player's phone
            expect(form.locator(".field-error")).to_have_count(0)
            gm.screenshot(path=str(shots / "gm-added-fighter.png"))
            blue.screenshot(path=str(shots / "player-sees-newcomer.png"))
            # remove cy, with a reason
            panel.locator('[data-roster="cy"] button', has_text="Remove").click()
            leave = panel.locator('[data-roster="cy"] form')
            leave.locator("input").fill("knocked out cold")
            leave.get_by_role("button", name="Remove cy").click()
            expect(gm.locator('#fighters [data-fid="cy"]')).to_have_count(0)
            expect(blue.locator('#fighters [data-fid="cy"]')).to_have_count(0)
            # drag bo (not acting) to 8,4: out of its reach now, put there by hand
            drag(gm, "bo", [(4, 2), (8, 4)])
            place = gm.locator("#place-panel")
            expect(place).to_be_visible()
            expect(place).to_contain_text("Put bo on 8,4 by hand")
            gm.locator("#place-why").fill("thrown clear by the blast")
            gm.screenshot(path=str(shots / "gm-place-by-hand.png"))
            place.get_by_role("button", name="Place").click()
            expect(place).to_be_hidden()
            expect(gm.locator("#message")).to_have_text("Done: bo put on 8,4 by hand.")
            expect(gm.locator("#preview-panel")).to_be_hidden()  # the drop's move preview is gone with it
            token = gm.locator('#fighters [data-fid="bo"]')
            expect(token).to_have_attribute("data-x", "8")
            expect(blue.locator('#fighters [data-fid="bo"]')).to_have_attribute("data-x", "8")
            gm.screenshot(path=str(shots / "gm-after-rulings.png"))
        kinds = [e.kind for e in events_of(log) if isinstance(e, RulingMade)]
        assert kinds == ["join", "leave", "place"]
        facts = events_of(log)
        assert [e.fighter for e in facts if isinstance(e, FighterJoined)] == ["gob"]
        assert [e.fighter for e in facts if isinstance(e, FighterLeft)] == ["cy"]
        assert any(isinstance(e, Placed) and e.fighter == "bo" and e.to[:2] == (8, 4) for e in facts)
        assert verify_store(store_for(str(log)))["ok"]
    finally:
        gm_ctx.close()
        blue_ctx.close()
