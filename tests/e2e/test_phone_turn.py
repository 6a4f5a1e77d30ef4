"""A whole turn by touch on a phone and an upright tablet, in real headless Chromium.

A player opens its link and plays a turn with taps only (Playwright's `tap()`, no keyboard, no
mouse): walk to a door, open it, go through, drop prone, end the turn, under two rulesets
(speed-meters and ap-squares). At each step the test checks what the page shows against the
engine and the log, and that the sheet under the board never covers the fighter or its route.
Screenshots of each step go to TABLETRAIL_SHOTS (default /tmp/phoneui-shots/) for a person to
look at.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
from support_web import records
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.service.encounter import Encounter

from tests.e2e.test_table_view import WAIT_MS, Running, board_of, box, token

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect

PHONE, TABLET = (390, 844), (820, 1180)
SHOTS = Path(os.environ.get("TABLETRAIL_SHOTS", "/tmp/phoneui-shots"))

# A gatehouse: a wall down the middle (along the grid line x = 4) with a closed door in it
# between 3,2 and 4,2. Ari (blue) starts at 1,2; Kel (red) waits beyond the wall.
GATE = """
[encounter]
name = "The gatehouse"
ruleset = "{ruleset}"
seed = 5

[map]
rows = ["........", "........", "........", "........", "........", "........"]
walls = ["4,0-4,2", "4,3-4,6"]
doors = [{{ at = "3,2|4,2", closed = true }}]

[map.legend]
"." = "floor"

[[fighters]]
id = "ari"
name = "Ari"
side = "blue"
at = [1, 2]
{budget}

[[fighters]]
id = "kel"
name = "Kel"
side = "red"
at = [6, 4]
{budget}
"""
BUDGETS = {
    "speed-meters": "speed = 6",
    "ap-squares": "ap = 10",
    "initiative-yards": "initiative = 8\nheight = 1.8",
    "round-meters": "movement = 6\nap = 3",
}
# Rulesets where the turn has no posture step: round-meters has no drop-prone, and under
# initiative-yards dropping prone takes a whole move action's movement, spent by the walk.
NO_POSTURE = frozenset({"initiative-yards", "round-meters"})
DOOR = "3,2|4,2"


def gate_log(folder: Path, ruleset: str) -> Path:
    """The gatehouse under `ruleset`, written as `tabletrail new` writes it."""
    toml = GATE.format(ruleset=ruleset, budget=BUDGETS[ruleset])
    scenario = parse_scenario(tomllib.loads(toml), source="gatehouse")
    path = folder / f"gate-{ruleset}.jsonl"
    Encounter.create(JsonlStore(path, durable=False), scenario)
    return path


def touch_page(browser, url: str, size: tuple[int, int]):  # noqa: ANN001, ANN201
    """A touch screen: a phone (is_mobile) or an upright tablet (touch only)."""
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=True, is_mobile=size == PHONE
    )
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.add_init_script("window.TABLETRAIL_PAUSE_MS = 600000")
    page.goto(url)
    return context, page


class Taps:
    """Every tap of the turn goes through here: the count is what benchmarks/taps_turn.py prints."""

    def __init__(self, page, shots: Path) -> None:  # noqa: ANN001
        self.page = page
        self.count = 0
        self.shots = shots
        self.step = 0

    def tap(self, locator) -> None:  # noqa: ANN001
        locator.tap()
        self.count += 1

    def shot(self, name: str) -> Path:
        self.step += 1
        self.page.wait_for_timeout(150)  # the fonts and the last redraw settle
        path = self.shots / f"{self.step:02d}-{name}.png"
        self.page.screenshot(path=str(path))
        return path


def overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"] + 0.5
        or b["x"] + b["width"] <= a["x"] + 0.5
        or a["y"] + a["height"] <= b["y"] + 0.5
        or b["y"] + b["height"] <= a["y"] + 0.5
    )


def inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 1
        and inner["y"] >= outer["y"] - 1
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1
    )


def uncovered(page, fid: str) -> None:  # noqa: ANN001
    """The fighter's token and the route's end show on the board, and the sheet is not over the board."""
    page.wait_for_timeout(100)  # a frame: the layout settles after the sheet changed
    board = box(page.locator("#board-box"))
    assert inside(box(token(page, fid).locator(".token")), board), fid
    sheet = box(page.locator("#panel"))
    assert not overlap(sheet, board), (sheet, board)
    for mark in page.locator("#route .destination").all():
        assert inside(box(mark), board), "the route's end is off the board's view"


# The message under the board: its box, how far its words run, and each line of its words (not those
# of its "more" and "why?") with the part of the screen where that line can show: inside whatever
# clips it between the line and #message (the box, its first lines), on the screen, above the sheet.
MESSAGE = """() => {
  const m = document.getElementById('message'), box = m.getBoundingClientRect(), lines = [];
  const panel = document.getElementById('panel').getBoundingClientRect();
  // the sheet under the message (a phone, an upright tablet), not beside it (a laptop)
  const below = panel.left < box.right && panel.right > box.left && panel.top > box.top;
  const walk = document.createTreeWalker(m, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    if (!t.textContent.trim() || t.parentElement.closest('details, button')) continue;
    let top = 0, bottom = below ? Math.min(innerHeight, panel.top) : innerHeight;
    for (let e = t.parentElement; e; e = e.parentElement) {
      if (getComputedStyle(e).overflowY !== 'visible') {
        const b = e.getBoundingClientRect();
        top = Math.max(top, b.top); bottom = Math.min(bottom, b.bottom);
      }
      if (e === m) break;
    }
    const range = document.createRange();
    range.selectNodeContents(t);
    for (const r of range.getClientRects()) {
      if (r.height > 0) lines.push({ top: r.top, bottom: r.bottom, shows: [top, bottom] });
    }
  }
  const more = [...m.querySelectorAll('button')]
    .filter((b) => b.offsetParent && /more|less/.test(b.textContent)).map((b) => b.textContent);
  return { box: [box.top, box.bottom], panel: [panel.top, panel.bottom], lines, more,
           scroll: m.scrollHeight, client: m.clientHeight };
}"""


def readable_message(page, whole: bool = False) -> dict:  # noqa: ANN001
    """No line of the message is cut (by its box, the screen's edge or the sheet): each shows whole or
    not at all, and lines not shown have a "more" beside them; `whole`: every line shows."""
    m = page.evaluate(MESSAGE)
    across = lambda ln, edge: ln["top"] < edge - 0.5 and ln["bottom"] > edge + 0.5  # noqa: E731
    cut = [ln for ln in m["lines"] if across(ln, ln["shows"][0]) or across(ln, ln["shows"][1])]
    assert not cut, f"a line of the message is cut: {cut} ({m})"
    out = lambda ln: ln["top"] >= ln["shows"][1] - 0.5 or ln["bottom"] <= ln["shows"][0] + 0.5  # noqa: E731
    hidden = [ln for ln in m["lines"] if out(ln)]
    assert not (whole and hidden), f"lines of the message are not shown: {hidden} ({m})"
    assert not hidden or m["more"] == ["more"], f"lines are hidden with no 'more' to show them ({m})"
    assert m["scroll"] <= m["client"] + 1, f"the message box hides words below its edge ({m})"
    return m


def preview_then_confirm(t: Taps, name: str) -> None:
    """A preview is open: its Confirm shows on screen (no scrolling); tap it."""
    page = t.page
    confirm = page.locator("#confirm")
    expect(confirm).to_be_visible()
    expect(confirm).to_be_in_viewport()
    t.shot(name + "-preview")
    t.tap(confirm)
    expect(page.locator("#preview-panel")).to_be_hidden()
    expect(page.locator("#message")).to_contain_text("Done:")
    readable_message(page)
    t.shot(name + "-done")


def play_a_turn(page, log: Path, shots: Path, posture: bool = True) -> int:  # noqa: ANN001
    """Walk to the door, open it, go through, drop prone (`posture`), end the turn, by taps: the tap count."""
    t = Taps(page, shots)
    expect(token(page, "ari")).to_have_attribute("data-x", "1")
    # Ari's turn: its own fighter is selected for it, its reachable cells shaded.
    expect(token(page, "ari")).to_have_class("fighter selected active")
    expect(page.locator("#reach rect.reach").first).to_be_attached()
    t.shot("first-view")
    uncovered(page, "ari")

    # Walk: tap a shaded cell next to the door, confirm.
    t.tap(page.locator('#reach rect.reach[data-x="3"][data-y="2"]'))
    expect(page.locator("#consequences")).to_contain_text("moved")
    uncovered(page, "ari")
    preview_then_confirm(t, "walk")
    expect(token(page, "ari")).to_have_attribute("data-x", "3")

    # The door: tap its edge on the board; the sheet's preview says it opens.
    expect(page.locator("#reach rect.reach").first).to_be_attached()
    t.tap(page.locator(f'#door-targets [data-door="{DOOR}"]'))
    expect(page.locator("#consequences")).to_contain_text("opens the door")
    assert page.locator("#consequences").inner_text().count("opens the door") == 1  # said once, not twice
    preview_then_confirm(t, "door")
    expect(page.locator(f'#walls [data-door="{DOOR}"]')).to_have_attribute("data-state", "open")
    assert board_of(log).doors.get(DOOR) == "open"

    # Go through: the cell beyond the open door.
    target = page.locator('#reach rect.reach[data-x="5"][data-y="2"]')
    expect(target).to_be_attached()
    t.tap(target)
    uncovered(page, "ari")
    preview_then_confirm(t, "through")
    expect(token(page, "ari")).to_have_attribute("data-x", "5")

    # Drop prone: a button in words on the sheet.
    if posture:
        prone = page.locator('#quick button[data-verb="drop-prone"]')
        expect(prone).to_be_visible()
        t.tap(prone)
        preview_then_confirm(t, "prone")
        expect(token(page, "ari")).to_have_class("fighter selected active prone")
        assert board_of(log).fighter("ari").state("posture", "") == "prone"

    # End the turn.
    end = page.locator('#quick button[data-verb="end-turn"]')
    expect(end).to_be_visible()
    t.tap(end)
    preview_then_confirm(t, "end-turn")
    expect(token(page, "kel")).to_have_class("fighter active")
    assert board_of(log).turn.active == "kel"
    # Kel's turn: the sheet says Ari can't move now, in words; a tap on the board points at that
    # sentence and asks nothing (no preview, so no Confirm to offer).
    summary = page.locator("#reach-summary")
    expect(summary).to_contain_text("can't move now")
    expect(summary).to_contain_text("Kel")
    page.locator("#reach rect.reach.blocked").first.tap()
    expect(summary).to_have_class(re.compile("flash"))
    expect(page.locator("#preview-panel")).to_be_hidden()
    t.shot("out-of-turn")
    return t.count


@pytest.mark.parametrize("ruleset", ["speed-meters", "ap-squares"])
@pytest.mark.parametrize("size", [PHONE, TABLET], ids=["phone", "tablet"])
def test_a_player_plays_a_whole_turn_by_taps(tmp_path: Path, browser, ruleset, size):  # noqa: ANN001
    log = gate_log(tmp_path, ruleset)
    shots = SHOTS / f"turn-{ruleset}-{size[0]}x{size[1]}"
    shots.mkdir(parents=True, exist_ok=True)
    with Running(log) as server:
        context, page = touch_page(browser, server.link("blue"), size)
        try:
            before = len(records(log))
            taps = play_a_turn(page, log, shots)
            assert taps <= 10, taps  # five commands, a tap to choose and a tap to confirm each
            assert len(records(log)) > before
        finally:
            context.close()


def test_the_first_view_fits_the_width_with_the_players_fighter_and_no_empty_bands(tmp_path: Path, browser):  # noqa: ANN001
    log = gate_log(tmp_path, "speed-meters")
    with Running(log) as server:
        for size in (PHONE, TABLET):
            context, page = touch_page(browser, server.link("red"), size)  # Kel, not the acting fighter
            try:
                expect(token(page, "kel")).to_be_visible()
                page.wait_for_timeout(300)
                board = box(page.locator("#board-box"))
                assert board["width"] >= size[0] - 12, board  # the screen's width
                cell = box(page.locator('#terrain rect[data-cell="0,0"]'))
                assert cell["width"] >= 44, cell
                assert inside(box(token(page, "kel").locator(".token")), board)  # the player's own fighter
                terrain = box(page.locator("#terrain"))
                # No band of nothing above or below the map, nor beside it.
                assert (
                    terrain["y"] <= board["y"] + 1
                    and terrain["y"] + terrain["height"] >= board["y"] + board["height"] - 1
                )
                assert (
                    terrain["x"] <= board["x"] + 1
                    and terrain["x"] + terrain["width"] >= board["x"] + board["width"] - 1
                )
                # The zoom buttons sit under the board, never over its cells.
                for tool in page.locator(".board-tools button").all():
                    assert not overlap(box(tool), board)
            finally:
                context.close()


def test_another_sides_fighter_says_whose_it_is_and_undo_is_only_for_ones_own(tmp_path: Path, browser):  # noqa: ANN001
    log = gate_log(tmp_path, "speed-meters")
    with Running(log) as server:
        context, page = touch_page(browser, server.link("red"), PHONE)
        try:
            expect(token(page, "ari")).to_be_visible()
            # Dragging Ari (blue's) from red's screen: it says whose Ari is; nothing moves.
            before = records(log)
            t = box(token(page, "ari").locator(".token"))
            x, y = t["x"] + t["width"] / 2, t["y"] + t["height"] / 2
            cdp = context.new_cdp_session(page)
            touch = lambda kind, pts: cdp.send(  # noqa: E731
                "Input.dispatchTouchEvent",
                {"type": kind, "touchPoints": [{"x": px, "y": py} for px, py in pts]},
            )
            touch("touchStart", [(x, y)])
            for step in range(1, 6):
                touch("touchMove", [(x + 12 * step, y)])
            touch("touchEnd", [])
            expect(page.locator("#message")).to_contain_text("Ari is blue's fighter")
            assert records(log) == before
            # Blue moves on its own screen; red's Undo is not offered, and says whose the command was.
            blue_ctx, blue = touch_page(browser, server.link("blue"), PHONE)
            try:
                blue.locator('#reach rect.reach[data-x="2"][data-y="2"]').tap()
                blue.locator("#confirm").tap()
                expect(token(page, "ari")).to_have_attribute("data-x", "2")
                expect(blue.locator("#undo")).to_have_attribute("aria-disabled", "false")
            finally:
                blue_ctx.close()
            undo = page.locator("#undo")
            expect(undo).to_have_attribute("aria-disabled", "true")
            undo.tap(force=True)  # a person may still tap it: it says why not
            expect(page.locator("#message")).to_contain_text("was blue's")
            assert board_of(log).fighter("ari").pos[:2] == (2, 2)
        finally:
            context.close()


def touches(context, page):  # noqa: ANN001, ANN201
    """Raw touch points, as a phone's screen sends them (Chrome's DevTools protocol)."""
    cdp = context.new_cdp_session(page)

    def send(kind: str, points: list[tuple[float, float]]) -> None:
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]},
        )

    return send


# The point nearest (x, y) on the board with no fighter under it (a token's cell is its to drag).
EMPTY_POINT = """([x, y]) => {
  for (let r = 0; r < 200; r += 8) for (const [dx, dy] of [[0, 0], [r, 0], [-r, 0], [0, r], [0, -r]]) {
    const e = document.elementFromPoint(x + dx, y + dy);
    if (e && e.closest('#board') && !e.closest('[data-fid]')) return [x + dx, y + dy];
  }
  return [x, y];
}"""


def test_pinch_and_pan_by_touch_and_the_wheel_still_zoom(tmp_path: Path, browser):  # noqa: ANN001
    from support_web import big_log

    log = big_log(tmp_path / "hall")
    with Running(log) as server:
        context, page = touch_page(browser, server.link("blue"), PHONE)
        try:
            expect(token(page, "ari")).to_be_visible()
            board = box(page.locator("#board-box"))
            mx, my = board["x"] + board["width"] / 2, board["y"] + board["height"] / 2
            send = touches(context, page)
            start = float(page.locator("#board").get_attribute("data-cell"))
            send("touchStart", [(mx - 30, my), (mx + 30, my)])  # two fingers spread: zoom in
            for step in range(1, 8):
                send("touchMove", [(mx - 30 - 10 * step, my), (mx + 30 + 10 * step, my)])
            send("touchEnd", [])
            assert float(page.locator("#board").get_attribute("data-cell")) > start * 1.5
            view = page.locator("#board").get_attribute("viewBox")
            # One finger on the empty board: pan. Empty: where the view puts the fighters depends on
            # when the sheet under the board finished loading, so the point is found, not assumed.
            px, py = page.evaluate(EMPTY_POINT, [mx, my])
            send("touchStart", [(px, py)])
            for step in range(1, 8):
                send("touchMove", [(px - 12 * step, py - 6 * step)])
            send("touchEnd", [])
            assert page.locator("#board").get_attribute("viewBox") != view
        finally:
            context.close()
        laptop = browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            page = laptop.new_page()
            page.goto(server.gm)
            expect(token(page, "ari")).to_be_visible()
            start = float(page.locator("#board").get_attribute("data-cell"))
            b = box(page.locator("#board"))
            page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
            page.mouse.wheel(0, -400)
            expect(page.locator("#board")).not_to_have_attribute("data-cell", str(start))
            assert float(page.locator("#board").get_attribute("data-cell")) > start
        finally:
            laptop.close()


def test_on_a_laptop_the_ruler_text_stays_whole_and_the_zoom_buttons_off_the_cells(tmp_path: Path, browser):  # noqa: ANN001
    from tests.e2e.test_table_devices import drag

    log = gate_log(tmp_path, "speed-meters")
    with Running(log) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.set_default_timeout(WAIT_MS)
        try:
            page = context.new_page()
            page.add_init_script("window.TABLETRAIL_PAUSE_MS = 600000")
            page.goto(server.gm)
            expect(token(page, "ari")).to_be_visible()
            board = box(page.locator("#board-box"))
            for tool in page.locator(".board-tools button").all():
                assert not overlap(box(tool), board)
            token(page, "ari").click()
            expect(page.locator("#reach rect.reach").first).to_be_attached()
            for cell in [(0, 2), (0, 0), (3, 5)]:  # the left edge, the top-left corner, the bottom
                drag(page, "ari", [cell], drop=False)
                tip = page.locator("#ruler-tip")
                expect(tip).to_be_visible()
                assert inside(box(tip), board), (cell, box(tip), board)
                page.keyboard.press("Escape")
                page.mouse.up()
        finally:
            context.close()


def test_a_reaction_awaited_asks_the_reacting_side_and_tells_the_others(tmp_path: Path, browser):  # noqa: ANN001
    from support_web import ap_squares_log

    log = ap_squares_log(tmp_path)  # ari (blue) beside bo (red): a move into bo's square waits for bo
    with Running(log) as server:
        blue_ctx, blue = touch_page(browser, server.link("blue"), PHONE)
        red_ctx, red = touch_page(browser, server.link("red"), PHONE)
        try:
            tok = server.link("blue").rsplit("/", 1)[1]
            asked = blue.request.get(
                f"{server.url}/api/actions?fighter=ari", headers={"Authorization": f"Bearer {tok}"}
            )
            if asked.status == 404:
                pytest.skip("this server has no GET /api/actions yet: no reaction is announced")
            expect(token(blue, "ari")).to_have_class("fighter selected active")
            token(blue, "bo").tap()  # bo's square is shaded: a tap there is a move into it
            blue.locator("#confirm").tap()
            expect(blue.locator("#message")).to_contain_text("Done:")
            # Red's screen asks bo's answer with buttons; blue's says whom the table waits for.
            ask = red.locator('#awaiting .await.mine[data-fighter="bo"]')
            expect(ask).to_be_visible()
            expect(ask.locator("button").first).to_be_visible()
            expect(blue.locator('#awaiting [data-fighter="bo"]')).to_contain_text("waiting for bo's answer")
            expect(blue.locator("#awaiting button")).to_have_count(0)
            red.screenshot(path=str(SHOTS / "reaction-asked-red.png"))
            blue.screenshot(path=str(SHOTS / "reaction-waiting-blue.png"))
            ask.locator("button").last.tap()
            red.locator("#confirm").tap()
            expect(red.locator("#awaiting")).to_be_hidden()
            expect(blue.locator("#awaiting")).to_be_hidden()
        finally:
            blue_ctx.close()
            red_ctx.close()


def test_the_gm_makes_a_watch_link_and_sees_its_qr_code(tmp_path: Path, browser):  # noqa: ANN001
    log = gate_log(tmp_path, "speed-meters")
    with Running(log) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.set_default_timeout(WAIT_MS)
        try:
            page = context.new_page()
            page.goto(server.gm)
            expect(token(page, "ari")).to_be_visible()
            page.locator("#invite-role").select_option("watcher")
            page.locator("#invite-form button").click()
            expect(page.locator("#invite-url")).to_have_value(re.compile("/join/"))
            qr = page.locator("#invite-qr img.qr")
            expect(qr).to_be_visible()
            page.wait_for_function(  # the server's drawing loaded, and it has a size
                "() => { const i = document.querySelector('#invite-qr img.qr');"
                " return i.complete && i.naturalWidth > 0; }"
            )
            watch = context.new_page()
            watch.goto(page.locator("#invite-url").input_value())
            expect(watch.locator("#role")).to_have_text("watching")
            expect(watch.locator("#undo")).to_be_hidden()
        finally:
            context.close()
