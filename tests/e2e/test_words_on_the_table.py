"""Words on the table stay readable, in real headless Chromium, on a phone, a tablet and a laptop.

The brawl replay (replays/speed-meters-brawl.jsonl) ends with Vex lying prone in the cell above
Tam, Vex to act. Ending Vex's turn starts round 3, and a player's "Done:" message says all that
happened (a dozen sentences): it shows whole lines, never a line half under the sheet or cut by
its box, with "more" to read the rest. On the board, a fighter's states ("prone") sit on a chip
inside its own cell, and a name plate, which pokes up into the cell above its token, is never
covered by what is drawn for the fighter standing there. Everything is measured (bounding boxes),
never timed. Screenshots go to TABLETRAIL_SHOTS (default /tmp/phoneui-shots/) for a person to
look at.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_phone_turn import PHONE, SHOTS, TABLET, overlap, readable_message, touch_page
from tests.e2e.test_table_view import WAIT_MS, Running, box, token

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect

LAPTOP = (1280, 800)
DEVICES = {"phone": PHONE, "tablet": TABLET, "laptop": LAPTOP}
BRAWL = Path(__file__).resolve().parents[2] / "replays" / "speed-meters-brawl.jsonl"


def brawl(folder: Path) -> Path:
    """A copy of the shipped replay: serving it writes to it (invitations, commands)."""
    log = folder / BRAWL.name
    shutil.copy(BRAWL, log)
    return log


def open_table(browser, url: str, device: str):  # noqa: ANN001, ANN201
    """A phone or a tablet by touch; a laptop with a mouse."""
    if device != "laptop":
        return touch_page(browser, url, DEVICES[device])
    context = browser.new_context(viewport={"width": LAPTOP[0], "height": LAPTOP[1]})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.add_init_script("window.TABLETRAIL_PAUSE_MS = 600000")
    page.goto(url)
    return context, page


def press(page, locator, device: str) -> None:  # noqa: ANN001
    if device == "laptop":
        locator.click()
    else:
        locator.tap()


def shot(page, name: str) -> None:  # noqa: ANN001
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(150)  # the fonts and the last redraw settle: a picture, nothing measured
    page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.mark.parametrize("role", ["red", "gm"], ids=["player", "gm"])
@pytest.mark.parametrize("device", list(DEVICES))
def test_the_done_message_shows_whole_lines_above_the_sheet_and_more_reads_the_rest(
    tmp_path: Path, browser, device: str, role: str
):  # noqa: ANN001
    log = brawl(tmp_path)
    with Running(log) as server:
        context, page = open_table(browser, server.link(role), device)
        try:
            expect(token(page, "vex")).to_have_class(re.compile(r"\bactive prone\b"))
            if role == "gm":  # the GM's screen selects no fighter for it
                press(page, token(page, "vex"), device)
            end = page.locator('#quick button[data-verb="end-turn"]')
            expect(end).to_be_visible()
            press(page, end, device)
            press(page, page.locator("#confirm"), device)
            message = page.locator("#message")
            expect(message).to_contain_text("Done:")
            expect(token(page, "tam")).to_have_class(re.compile(r"\bactive\b"))
            if role != "gm":  # a round's bookkeeping is not the news: the event list says it, this doesn't
                expect(message).to_contain_text("Tam's turn starts")
                expect(message).not_to_contain_text("waits for its next turn")
            shown = readable_message(page)
            shot(page, f"done-{device}-{role}")
            more = message.locator("button.more-words")
            if not shown["more"]:
                expect(more).to_have_count(0)
                readable_message(page, whole=True)  # short enough: all of it shows
                return
            # Clamped to whole lines: "more" shows them all, above the sheet; "less" folds them again.
            assert role != "gm", "the GM's Done message is one short line"
            press(page, more, device)
            expect(more).to_have_text("less")
            expect(more).to_have_attribute("aria-expanded", "true")
            readable_message(page, whole=True)
            expect(message).to_contain_text("counted afresh")
            shot(page, f"done-{device}-{role}-more")
            # "why?" stays one tap away beside the words, and opened it is read whole too
            press(page, message.locator("details.why-more > summary"), device)
            expect(message.locator("details.why-more")).to_have_attribute("open", "")
            readable_message(page, whole=True)
            shot(page, f"done-{device}-{role}-why")
            press(page, more, device)
            expect(more).to_have_text("more")
            readable_message(page)
        finally:
            context.close()


# Each fighter's group in drawing order: its cell, its name plate, its state chip, and the shapes
# drawn for it (token, ring, chip), as CSS px boxes [left, top, width, height].
DRAWN = """() => {
  const r = (e) => {
    const b = e.getBoundingClientRect();
    return { x: b.left, y: b.top, width: b.width, height: b.height };
  };
  return [...document.querySelectorAll('#fighters [data-fid]')].map((g) => {
    const cell = document.querySelector(`#terrain rect[data-cell="${g.dataset.x},${g.dataset.y}"]`);
    const plate = g.querySelector('.name-plate'), badge = g.querySelector('.badge');
    const shown = plate && plate.style.visibility !== 'hidden';  // hidden: its token is out of view
    return { fid: g.dataset.fid, cell: r(cell), plate: shown ? r(plate) : null,
             badge: badge ? r(badge) : null, shapes: [...g.querySelectorAll('.token, .ring, .badge')].map(r),
           };
  });
}"""


def inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


@pytest.mark.parametrize("device", list(DEVICES))
def test_a_state_stays_in_its_cell_and_no_fighter_covers_anothers_name(tmp_path: Path, browser, device: str):  # noqa: ANN001
    log = brawl(tmp_path)
    with Running(log) as server:
        context, page = open_table(browser, server.link("red"), device)
        try:
            # Vex lies prone right above Tam: what says so must leave "Tam" readable.
            expect(token(page, "vex")).to_have_class("fighter selected active prone")
            expect(token(page, "vex").locator(".badge")).to_have_text("prone")
            vex, tam = token(page, "vex"), token(page, "tam")
            assert int(vex.get_attribute("data-x")) == int(tam.get_attribute("data-x"))
            assert int(tam.get_attribute("data-y")) == int(vex.get_attribute("data-y")) + 1
            page.wait_for_timeout(100)  # a frame: the view settles after the sheet loaded
            drawn = page.evaluate(DRAWN)
            shot(page, f"board-{device}")
            close = around(page, ["vex", "tam"])
            page.screenshot(path=str(SHOTS / f"board-{device}-vex-and-tam.png"), clip=close)
            problems = []
            for i, f in enumerate(drawn):
                for j, other in enumerate(drawn):
                    if other is f or not other["plate"]:
                        continue
                    if f["badge"] and overlap(f["badge"], other["plate"]):
                        problems.append(f"{f['fid']}'s state covers {other['fid']}'s name")
                    # a shape of f's over other's name: drawn before it, so the name is painted over it
                    if i > j and any(overlap(s, other["plate"]) for s in f["shapes"]):
                        problems.append(f"{f['fid']} is drawn over {other['fid']}'s name")
                if f["badge"] and not inside(f["badge"], f["cell"]):
                    problems.append(f"{f['fid']}'s state leaves its cell")
                if f["badge"] and f["plate"] and overlap(f["badge"], f["plate"]):
                    problems.append(f"{f['fid']}'s state covers its own name")
            assert not problems, (problems, drawn)
            # The Ogre stands beside Tam: its plate keeps one word, and an article tells no one apart.
            ogre = token(page, "ogre")
            expect(ogre.locator(".name-plate")).to_have_text("Ogre")
            expect(ogre.locator(".token-label")).to_have_text("OG")
        finally:
            context.close()


def around(page, fids: list[str]) -> dict:  # noqa: ANN001
    """The board's part around these fighters, a cell's margin about them: a close look."""
    boxes = [box(token(page, fid).locator(".token-hit")) for fid in fids]
    x0, y0 = min(b["x"] for b in boxes), min(b["y"] for b in boxes)
    x1, y1 = max(b["x"] + b["width"] for b in boxes), max(b["y"] + b["height"] for b in boxes)
    m = boxes[0]["width"]
    return {"x": max(0, x0 - m), "y": max(0, y0 - m), "width": x1 - x0 + 2 * m, "height": y1 - y0 + 2 * m}
