"""A GM new to tabletrail opens the table on a tablet held upright: the whole map shows, nothing cut off."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_web_e2e import ARGS, CHROMIUM, Running, box, token
from test_web_support import new_log

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect

UPRIGHT_TABLET = (820, 1180)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def test_an_upright_tablet_shows_every_fighter_and_the_panel_under_the_board(tmp_path: Path, browser):
    log = new_log(tmp_path)
    with Running(log) as server:
        context = browser.new_context(
            viewport={"width": UPRIGHT_TABLET[0], "height": UPRIGHT_TABLET[1]}, has_touch=True, is_mobile=True
        )
        try:
            page = context.new_page()
            page.goto(server.gm)
            expect(token(page, "ari")).to_be_visible()
            board = box(page.locator("#board-box"))
            assert board["width"] > UPRIGHT_TABLET[0] * 0.9  # the full width, not a strip beside the panel
            terrain = box(page.locator("#terrain"))
            assert (
                terrain["x"] >= board["x"] - 1
                and terrain["x"] + terrain["width"] <= board["x"] + board["width"] + 1
            )
            for fid in ("ari", "bo", "cy"):
                t = box(token(page, fid).locator(".token"))
                assert board["x"] <= t["x"] and t["x"] + t["width"] <= board["x"] + board["width"], fid
            panel = box(page.locator("#panel"))
            assert panel["y"] >= board["y"] + board["height"] - 1  # under the board, not over it
            token(page, "ari").tap()
            page.locator("#reach rect.reach").first.tap()
            expect(page.locator("#confirm")).to_be_in_viewport()  # the preview comes first in the panel
            page.screenshot(path=str(tmp_path / "upright-tablet.png"))
        finally:
            context.close()
