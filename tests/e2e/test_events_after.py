"""The event list on a phone stays right across a move, an undo and a redo (issue 40, item 2).

The page asks only for what changed since the version it holds (`/api/events?after=V`) and folds
it in; after each step its list is the one a page opened fresh shows, and says the log's every
line, with the undone batch marked undone and then not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.service.encounter import Encounter

from tests.e2e.test_phone_turn import PHONE, gate_log, touch_page
from tests.e2e.test_table_view import Running, token

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect
LAST = "n => Number([...document.querySelectorAll('#events li[data-seq]')].pop()?.dataset.seq) === n"


def shown(page: Any) -> list[tuple[int, str]]:
    """The list's lines as the page shows them: sequence number and status class."""
    return page.eval_on_selector_all(
        "#events li[data-seq]",
        "els => els.map(e => [Number(e.dataset.seq), "
        "['undone', 'abandoned'].find(c => e.classList.contains(c)) || ''])",
    )


def statuses(log: Path) -> list[tuple[int, str]]:
    enc = Encounter.open(JsonlStore(log))
    t = enc.timeline
    return [
        (r.seq, "abandoned" if r.batch in t.abandoned else "undone" if r.batch in t.undone else "")
        for r in enc.records
    ]


def test_the_list_stays_right_across_a_move_an_undo_and_a_redo(tmp_path: Path, browser):  # noqa: ANN001
    log = gate_log(tmp_path, "speed-meters")
    with Running(log) as server:
        context, page = touch_page(browser, server.link("blue"), PHONE)
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if "/api/events" in r.url else None)
        try:
            expect(token(page, "ari")).to_be_visible()
            page.locator('#reach rect.reach[data-x="2"][data-y="2"]').tap()
            page.locator("#confirm").tap()
            expect(token(page, "ari")).to_have_attribute("data-x", "2")
            for step in ("moved", "undo", "redo"):
                if step != "moved":
                    page.locator(f"#{step}").tap()
                    expect(token(page, "ari")).to_have_attribute("data-x", "1" if step == "undo" else "2")
                want = statuses(log)
                page.wait_for_function(LAST, arg=want[-1][0])
                held = shown(page)
                assert {seq for seq, _ in held} <= {seq for seq, _ in want}, step
                assert all(dict(want)[seq] == status for seq, status in held), step
                assert any(status == "undone" for _, status in held) == (step == "undo"), step
                fresh_ctx, fresh = touch_page(browser, server.link("blue"), PHONE)
                try:
                    expect(token(fresh, "ari")).to_be_visible()
                    fresh.wait_for_function(LAST, arg=want[-1][0])
                    assert shown(fresh) == held, step
                finally:
                    fresh_ctx.close()
            assert any("after=" in url for url in asked), asked
            assert not any(url.endswith("/api/events") for url in asked), "the whole list is never asked for"
        finally:
            context.close()
