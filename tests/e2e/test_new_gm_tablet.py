"""A GM new to tabletrail opens the table on a tablet held upright: the whole map shows, nothing cut off."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_web import new_log

from tests.e2e.test_table_view import Running, box, token

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect

ROOT = Path(__file__).resolve().parents[2]
UPRIGHT_TABLET = (820, 1180)


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


def test_name_plates_of_fighters_side_by_side_do_not_run_together(tmp_path: Path, browser):
    from tabletrail.cli import main

    log = tmp_path / "fight.jsonl"  # Ari the Quick at 1,1, Bo at 2,1
    assert main(["new", str(ROOT / "scenarios" / "speed-meters-skirmish.toml"), "--log", str(log)]) == 0
    with Running(log) as server:
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        try:
            page = context.new_page()
            page.goto(server.gm)
            expect(token(page, "ari")).to_be_visible()
            ari, bo = (box(token(page, fid).locator(".name-plate")) for fid in ("ari", "bo"))
            assert ari["x"] + ari["width"] <= bo["x"] + 1, (ari, bo)
            expect(token(page, "ari").locator(".name-plate")).to_have_text("Ari")
            expect(token(page, "dax").locator(".name-plate")).to_have_text(
                "Dax the Slow"
            )  # room: the whole name
        finally:
            context.close()


def test_the_turn_strip_says_spent_once(tmp_path: Path, browser):
    from tabletrail.cli import main

    log = tmp_path / "fight.jsonl"
    assert main(["new", str(ROOT / "scenarios" / "speed-meters-skirmish.toml"), "--log", str(log)]) == 0
    assert main(["do", str(log), "move", "ari", "2,2", "4,2"]) == 0  # an action and 5 m spent
    with Running(log) as server:
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        try:
            page = context.new_page()
            page.goto(server.gm)
            left = page.locator('#strip button[data-fid="ari"] .left')
            expect(left).to_contain_text("spent 1 action, 5 m")
            assert left.inner_text().count("spent") == 1
        finally:
            context.close()
