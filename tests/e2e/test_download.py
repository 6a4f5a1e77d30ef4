"""The table view's "Download this encounter" (issue 31, item 5), in real Chromium: the GM's button
saves the whole bundle, a player's saves its side's share, and each file verifies with `tabletrail verify`."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect
from support_web import new_log
from tabletrail.cli import main

from tests.e2e.test_table_view import WAIT_MS, Running


@pytest.mark.parametrize(
    "role, label, share",
    [("gm", "Download this encounter", ""), ("blue", "Download what my side may see", "blue")],
)
def test_the_page_downloads_the_bundle_its_link_may_see(
    tmp_path: Path,
    browser,
    role: str,
    label: str,
    share: str,
    capsys: pytest.CaptureFixture[str],  # noqa: ANN001, F811
):
    log = new_log(tmp_path)
    context = browser.new_context(viewport={"width": 1300, "height": 900}, accept_downloads=True)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    try:
        with Running(log) as server:
            page.goto(server.gm if role == "gm" else server.link(role))
            button = page.locator("#download-bundle")
            if not button.is_visible():
                page.locator("#drawer-toggle").click()
            expect(button).to_have_text(label)  # set once the page has read its link (me.gm)
            with page.expect_download() as got:
                button.click()
            saved = tmp_path / got.value.suggested_filename
            got.value.save_as(saved)
    finally:
        context.close()
    assert saved.suffix == ".html" and (share in saved.name)
    text = saved.read_text(encoding="utf-8")
    assert "tt-lines" in text
    capsys.readouterr()
    assert main(["verify", str(saved)]) == 0, capsys.readouterr().out
