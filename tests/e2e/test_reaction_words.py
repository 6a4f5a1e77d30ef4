"""Every player knows what happened to them, on their own phone (issue 38 item 5), in real headless Chromium.

The derelict hold (ap-squares), two phones at 390x844: blue walks Ari the Boarder into Bo the Guard's
square, red body-blocks from its phone. Blue's preview says Bo will be asked to react; blue's
message line then says, in words, that Ari was kept out (not a stale "Done: Ari moved 3,1"); blue's
and a watcher's event lists hold the events that explain it. When the GM undoes a move, the "Done"
about it on the mover's phone changes. No page, the GM's included, holds `by=` or a command as typed.
Screenshots go to TABLETRAIL_SHOTS/reaction (default /tmp/phoneui-shots/reaction).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tabletrail.cli import main

from tests.e2e.test_phone_first_view import problems
from tests.e2e.test_phone_turn import PHONE, SHOTS, touch_page
from tests.e2e.test_table_view import Running, token

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect

DERELICT = Path(__file__).parents[2] / "scenarios" / "ap-squares-derelict.toml"
SYNTAX = re.compile(r"\bby=|\b(?:move|react-invasion|end-turn) (?:ari|bo|cyn|dax)\b|parry\|block")


def shot(page, name: str) -> None:  # noqa: ANN001
    (SHOTS / "reaction").mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(150)
    page.screenshot(path=str(SHOTS / "reaction" / f"{name}.png"))


def events_text(page) -> str:  # noqa: ANN001
    return " | ".join(page.locator("#events li").all_inner_texts())


def test_the_mover_reads_the_outcome_of_bos_body_block_and_every_list_explains_it(tmp_path: Path, browser):  # noqa: ANN001
    log = tmp_path / "hold.jsonl"
    assert main(["new", str(DERELICT), "--log", str(log)]) == 0
    assert main(["do", str(log), "move", "ari", "3,1", "by=blue"]) == 0
    with Running(log) as server:
        blue_ctx, blue = touch_page(browser, server.link("blue"), PHONE)
        red_ctx, red = touch_page(browser, server.link("red"), PHONE)
        watch_ctx = browser.new_context(viewport={"width": 1366, "height": 768})
        watch = watch_ctx.new_page()
        watch.goto(server.link("watcher"))
        gm_ctx = browser.new_context(viewport={"width": 1366, "height": 768})
        gm = gm_ctx.new_page()
        gm.goto(server.gm)
        try:
            expect(token(blue, "ari")).to_have_class("fighter selected active")
            expect(blue.locator('#reach rect.reach[data-x="4"][data-y="1"]')).to_be_attached()
            token(blue, "bo").tap()  # Bo's square, shaded: the tap is a move into it
            expect(blue.locator("#confirm")).to_be_visible()
            expect(blue.locator("#consequences")).to_contain_text("the move waits for Bo the Guard's answer")
            shot(blue, "01-blue-preview-asks-bo")
            blue.locator("#confirm").tap()
            expect(blue.locator("#message")).to_contain_text("Done:")

            answer = red.locator("#awaiting button", has_text="Body-block")
            expect(answer).to_be_visible()
            answer.tap()
            expect(red.locator("#confirm")).to_be_visible()
            red.locator("#confirm").tap()
            expect(red.locator("#message")).to_contain_text("kept out")

            # Blue's phone, told by the live stream: the outcome in words, not the stale "Done".
            expect(blue.locator("#message")).to_contain_text("Bo the Guard: React invasion, Body-block")
            expect(blue.locator("#message")).to_contain_text("Ari the Boarder is kept out")
            expect(blue.locator("#message")).not_to_contain_text("Done:")
            shot(blue, "02-blue-told-kept-out")

            for page, who in ((blue, "blue"), (watch, "watcher")):
                if who == "blue":
                    page.locator("#drawer-toggle").tap()
                    page.screenshot(path=str(SHOTS / "reaction" / "02b-drawer.png"))
                    assert problems(page) == []  # the board shrunk for the list: whole rows, no token cut
                expect(page.locator("#events li", has_text="kept out")).to_have_count(1)
                said = events_text(page)
                assert "the move waits for Bo the Guard's answer" in said, said
                assert "may not try to enter 4,1 again this cycle" in said, said
                shot(page, f"03-{who}-events")
            for page, who in ((blue, "blue"), (red, "red"), (watch, "watcher"), (gm, "gm")):
                expect(page.locator("#events li", has_text="kept out")).not_to_have_count(0)
                body = page.locator("body").inner_text()
                assert not SYNTAX.search(body), (who, SYNTAX.search(body).group())
        finally:
            for c in (blue_ctx, red_ctx, watch_ctx, gm_ctx):
                c.close()


def test_a_done_message_changes_when_the_gm_undoes_that_move(tmp_path: Path, browser):  # noqa: ANN001
    log = tmp_path / "hold.jsonl"
    assert main(["new", str(DERELICT), "--log", str(log)]) == 0
    with Running(log) as server:
        blue_ctx, blue = touch_page(browser, server.link("blue"), PHONE)
        try:
            expect(token(blue, "ari")).to_have_class("fighter selected active")
            blue.locator('#reach rect.reach[data-x="2"][data-y="1"]').tap()
            blue.locator("#confirm").tap()
            expect(blue.locator("#message")).to_contain_text("Done:")
            assert main(["undo", str(log)]) == 0  # the GM takes the move back (here from the CLI)
            expect(blue.locator("#message")).to_contain_text("Undone: Ari the Boarder: Move to 2,1")
            expect(blue.locator("#message")).not_to_contain_text("Done:")
            shot(blue, "04-blue-done-undone")
        finally:
            blue_ctx.close()
