"""A phone's first view (issue 38 item 6), in real headless Chromium: the derelict hold, 12 cells wide,
on a 390x844 phone, as a player, a watcher and after "Fit".

Every fighter's token is whole on screen or wholly off it (never cut by the board's edge), no two
name plates overlap, the cells are at least 44 CSS px at first (the view follows the acting fighter,
the rest a swipe away), and the watch page offers nothing to do.
Screenshots go to TABLETRAIL_SHOTS/first-view.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tabletrail.cli import main

from tests.e2e.test_phone_turn import PHONE, SHOTS, TABLET, touch_page
from tests.e2e.test_table_view import Running, token

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect

DERELICT = Path(__file__).parents[2] / "scenarios" / "ap-squares-derelict.toml"
FIGHTERS = ("ari", "bo", "cyn", "dax", "drum")

# Each token's disc and each name plate, where drawn (CSS px), and the board's box.
DRAWN = """() => {
  const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const out = { board: r(document.getElementById('board')), tokens: {}, plates: {} };
  for (const g of document.querySelectorAll('#fighters [data-fid]')) {
    out.tokens[g.dataset.fid] = r(g.querySelector('.token'));
    const p = g.querySelector('.name-plate');
    if (p) out.plates[g.dataset.fid] = r(p);
  }
  return out;
}"""


def cut(t: list[float], b: list[float]) -> bool:
    """Partly on the board and partly off it."""
    inside = t[0] >= b[0] - 0.5 and t[1] >= b[1] - 0.5 and t[2] <= b[2] + 0.5 and t[3] <= b[3] + 0.5
    outside = t[2] <= b[0] + 0.5 or t[0] >= b[2] - 0.5 or t[3] <= b[1] + 0.5 or t[1] >= b[3] - 0.5
    return not inside and not outside


def shown(t: list[float], b: list[float]) -> bool:
    return not (t[2] <= b[0] + 0.5 or t[0] >= b[2] - 0.5 or t[3] <= b[1] + 0.5 or t[1] >= b[3] - 0.5)


def problems(page) -> list[str]:  # noqa: ANN001
    page.wait_for_timeout(200)
    d = page.evaluate(DRAWN)
    b = d["board"]
    out = [f"{fid} cut by the board's edge" for fid, t in d["tokens"].items() if cut(t, b)]
    out += [
        f"{fid}'s name cut by the board's edge"
        for fid, t in d["tokens"].items()
        if shown(t, b) and fid in d["plates"] and cut(d["plates"][fid], b)
    ]
    plates = [(fid, p) for fid, p in d["plates"].items() if shown(p, b)]
    for i, (a, pa) in enumerate(plates):
        for c, pc in plates[i + 1 :]:
            if pa[0] < pc[2] - 0.5 and pc[0] < pa[2] - 0.5 and pa[1] < pc[3] - 0.5 and pc[1] < pa[3] - 0.5:
                out.append(f"the name plates of {a} and {c} overlap")
    return out


def derelict(tmp_path: Path) -> Path:
    log = tmp_path / "hold.jsonl"
    assert main(["new", str(DERELICT), "--log", str(log)]) == 0
    return log


@pytest.mark.parametrize("role", ["blue", "red", "watcher"])
def test_a_phones_first_view_cuts_no_fighter_and_no_plates_overlap(tmp_path: Path, browser, role):  # noqa: ANN001
    (SHOTS / "first-view").mkdir(parents=True, exist_ok=True)
    with Running(derelict(tmp_path)) as server:
        context, page = touch_page(browser, server.link(role), PHONE)
        try:
            expect(token(page, "ari")).to_be_attached()
            page.wait_for_timeout(300)
            page.screenshot(path=str(SHOTS / "first-view" / f"{role}-first.png"))
            assert float(page.locator("#board").get_attribute("data-cell")) >= 44
            assert problems(page) == [], role
            page.locator("#fit").tap()
            page.screenshot(path=str(SHOTS / "first-view" / f"{role}-fit.png"))
            assert problems(page) == [], role
            if role == "watcher":  # the watch page offers nothing to do, and says nothing of tapping
                token(page, "ari").tap()
                expect(page.locator("#quick button")).to_have_count(0)
                expect(page.locator("#reach-summary")).to_be_visible()
                page.screenshot(path=str(SHOTS / "first-view" / "watcher-sheet.png"))
                assert "Tap a shaded cell" not in page.locator("body").inner_text()
        finally:
            context.close()


def test_an_upright_tablet_shows_the_whole_hold_with_no_plates_overlapping(tmp_path: Path, browser):  # noqa: ANN001
    with Running(derelict(tmp_path)) as server:
        context, page = touch_page(browser, server.link("blue"), TABLET)
        try:
            expect(token(page, "ari")).to_be_attached()
            page.wait_for_timeout(300)
            page.screenshot(path=str(SHOTS / "first-view" / "tablet-first.png"))
            assert problems(page) == []
            d = page.evaluate(DRAWN)
            assert all(shown(t, d["board"]) for t in d["tokens"].values()), d
        finally:
            context.close()
