"""The table across devices, in real headless Chromium: three screens from invitation links,
drag to move with the engine's ruler, a board that fits a laptop, a tablet and a phone.

What the pages show is checked against the engine and the log, never against numbers written
into the test. Screenshots of each layout are saved under the test's own folder (tmp_path).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support_web import big_log, invite, new_log, records

from tests.e2e.test_table_view import WAIT_MS, Running, board_of, box, token

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect
from tabletrail.core.board.units import CU, fmt  # noqa: E402
from tabletrail.core.search.reach import reach  # noqa: E402

LAPTOP, TABLET, PHONE = (1440, 900), (1024, 768), (390, 844)


class Screens:
    """Browser contexts of their own (no shared storage), one per device at the table."""

    def __init__(self, browser) -> None:  # noqa: ANN001
        self.browser = browser
        self.contexts: list[object] = []

    def open(  # noqa: ANN201
        self, url: str, size: tuple[int, int] = TABLET, touch: bool = False, pause_ms: int = 600_000
    ):
        context = self.browser.new_context(
            viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
        )
        context.set_default_timeout(WAIT_MS)
        self.contexts.append(context)
        page = context.new_page()
        # A loaded machine can stall the pointer long enough to look like a pause (a waypoint):
        # only the test that makes waypoints asks for them.
        page.add_init_script(f"window.TABLETRAIL_PAUSE_MS = {pause_ms}")
        page.goto(url)
        return page

    def close(self) -> None:
        for c in self.contexts:
            c.close()


@pytest.fixture
def screens(browser) -> Iterator[Screens]:  # noqa: ANN001
    s = Screens(browser)
    yield s
    s.close()


def centre_of(page, selector: str) -> tuple[float, float]:  # noqa: ANN001
    b = box(page.locator(selector).first)
    return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2


def drag(page, fid: str, cells: list[tuple[int, int]], drop: bool = True) -> None:  # noqa: ANN001
    """Press on a token and move the mouse through the middle of each cell, then let go."""
    x, y = centre_of(page, f'#fighters [data-fid="{fid}"] .token')
    page.mouse.move(x, y)
    page.mouse.down()
    for cx, cy in cells:
        tx, ty = centre_of(page, f'#terrain rect[data-cell="{cx},{cy}"]')
        page.mouse.move(tx, ty, steps=4)
    if drop:
        page.mouse.up()


def post(page, path: str, body: dict, link: str):  # noqa: ANN001, ANN201
    """A request crafted by hand from that screen's browser, with that screen's token."""
    tok = link.rsplit("/", 1)[1]
    return page.request.post(
        link.split("/join/")[0] + path, data=body, headers={"Authorization": f"Bearer {tok}"}
    )


def test_three_screens_from_invite_links_each_speak_only_for_their_side(tmp_path: Path, screens):
    log = new_log(tmp_path)
    with Running(log) as server:
        links = {role: server.link(role) for role in ("gm", "blue", "red")}
        gm = screens.open(links["gm"], LAPTOP)
        red = screens.open(links["red"], TABLET)
        blue = screens.open(links["blue"], TABLET)
        for page in (gm, blue, red):
            expect(token(page, "ari")).to_have_attribute("data-x", "1")

        # Only the GM's screen has rulings, links and revealing seeded rolls; no screen picks who it is.
        expect(gm.locator("#rulings-panel")).to_be_visible()
        expect(gm.locator("#links-panel")).to_be_visible()
        for page in (blue, red):
            expect(page.locator("#rulings-panel")).to_be_hidden()
            expect(page.locator("#links-panel")).to_be_hidden()
            expect(page.locator("#reveal")).to_be_hidden()
        for page in (gm, blue, red):
            expect(page.locator("#by")).to_have_count(0)
        expect(blue.locator("#role")).to_have_text("blue")
        expect(gm.locator("#role")).to_have_text("GM")

        # Blue drags Ari three cells and confirms; both other screens follow (live, not on a reload).
        drag(blue, "ari", [(2, 2), (3, 2), (4, 1)])
        expect(blue.locator("#preview-text")).to_have_text("Ari: Move to 4,1")  # in words: no syntax, no by=
        expect(blue.locator("#preview")).not_to_contain_text("by=")
        blue.locator("#confirm").click()
        expect(token(blue, "ari")).to_have_attribute("data-x", "4")
        expect(token(gm, "ari")).to_have_attribute("data-x", "4")
        expect(token(red, "ari")).to_have_attribute("data-x", "4")
        assert board_of(log).fighter("ari").pos[:2] == (4, 1)

        # Red moves Cy on its turn (the GM passes the turns on).
        for _ in range(2):
            v = board_of_version(log)
            assert post(gm, "/api/do", {"version": v, "text": "end-turn"}, links["gm"]).status == 200
        expect(token(red, "cy")).to_have_class("fighter selected active")  # its turn: selected for red
        token(red, "cy").click()
        red.locator('#reach rect.reach[data-x="7"][data-y="4"]').click()
        expect(red.locator("#preview-text")).to_have_text("cy: Move to 7,4")
        red.locator("#confirm").click()
        expect(token(blue, "cy")).to_have_attribute("data-y", "4")

        # Blue's crafted requests: move red's fighter, undo red's move. 403, and nothing appended.
        before = records(log)
        v = board_of_version(log)
        crafted = [
            ("/api/do", {"version": v, "move": {"fighter": "cy", "to": [7, 3]}}),
            ("/api/do", {"version": v, "text": "move cy 7,3 by=red"}),
            ("/api/undo", {"version": v}),
            ("/api/undo", {"version": v, "by": "red"}),
        ]
        for path, body in crafted:
            r = post(blue, path, body, links["blue"])
            assert r.status == 403, (path, body, r.text())
        assert records(log) == before
        # And from the page itself: Blue's undo is not offered for red's command, and says whose it is.
        expect(blue.locator("#undo")).to_have_attribute("aria-disabled", "true")
        blue.locator("#undo").click(force=True)  # a person may still tap it: it says why not
        expect(blue.locator("#message")).to_contain_text("was red's")
        assert records(log) == before

        # The GM revokes red's link: red's page closes its stream and says so; its next request is 403.
        gm.reload()
        red_row = gm.locator("#invite-list li", has=gm.locator(".chip", has_text="red"))
        red_row.locator("button").click()
        expect(red.locator("#shut")).to_be_visible()
        expect(red.locator("#shut-reason")).to_contain_text("revoked")
        bearer = {"Authorization": f"Bearer {tail(links['red'])}"}
        r = red.request.get(f"{server.url}/api/state", headers=bearer)
        assert r.status == 403
        expect(blue.locator("#shut")).to_be_hidden()  # the others play on


def board_of_version(log: Path) -> int:
    return len(records(log))


def tail(link: str) -> str:
    return link.rsplit("/", 1)[1]


def test_a_drag_makes_exactly_the_command_a_click_makes_and_the_ruler_shows_the_engines_cost(
    tmp_path: Path, screens
):
    log = new_log(tmp_path)
    with Running(log) as server:
        page = screens.open(server.gm, LAPTOP)
        # Click: select Ari, click 4,1, read the preview.
        token(page, "ari").click()
        page.locator('#reach rect.reach[data-x="4"][data-y="1"]').click()
        expect(page.locator("#preview-text")).to_have_text("Ari: Move to 4,1")
        clicked = page.locator("#preview").inner_html()
        page.locator("#cancel").click()

        # Drag along three cells: while held, the ruler shows the engine's cost to the cell under it.
        area = reach(board_of(log), "ari")
        drag(page, "ari", [(2, 2), (3, 2), (4, 1)], drop=False)
        tip = page.locator("#ruler-tip")
        expect(tip).to_be_visible()
        expect(tip).to_have_text(f"{fmt(area.costs[(4, 1)])} m of {fmt(area.budget)}")
        expect(tip).to_have_attribute("data-band", "in")
        points = page.locator("#ruler").get_attribute("points").split()
        assert len(points) == 1 + len(area.path((4, 1)))  # the engine's cheapest route, cell by cell
        page.mouse.up()
        expect(page.locator("#preview-text")).to_have_text("Ari: Move to 4,1")
        assert page.locator("#preview").inner_html() == clicked  # same route, same cost, same words
        before = records(log)
        page.locator("#confirm").click()
        expect(token(page, "ari")).to_have_attribute("data-x", "4")
        assert len(records(log)) > len(before)


def test_a_drag_onto_an_unreachable_cell_or_off_the_board_says_why_and_appends_nothing(
    tmp_path: Path, screens
):
    log = new_log(tmp_path)
    with Running(log) as server:
        page = screens.open(server.gm, LAPTOP)
        before = records(log)
        state = board_of(log)
        assert (8, 4) not in reach(state, "ari").costs  # too far for Speed 4 in one Movement
        wide = reach(state, "ari", extra=4 * CU)  # a second Movement action would get there
        drag(page, "ari", [(4, 2), (8, 4)], drop=False)
        expect(page.locator("#ruler-tip")).to_have_text(
            f"{fmt(wide.costs[(8, 4)])} m: past this move's 4, needs a second Movement action"
        )
        expect(page.locator("#ruler-tip")).to_have_attribute("data-band", "further")
        page.mouse.move(*centre_of(page, '#terrain rect[data-cell="6,3"]'), steps=4)  # a wall
        expect(page.locator("#ruler-tip")).to_have_text("out of reach")
        expect(page.locator("#ruler-tip")).to_have_attribute("data-band", "out")
        page.mouse.move(*centre_of(page, '#terrain rect[data-cell="8,4"]'), steps=4)
        page.mouse.up()
        expect(page.locator("#message")).to_contain_text("Refused by")
        expect(page.locator("#message")).to_contain_text("speed-meters/")
        expect(page.locator("#confirm")).to_be_disabled()
        assert records(log) == before
        # Off the board: the map is smaller than the screen, so let go beside it.
        x, y = centre_of(page, '#fighters [data-fid="ari"] .token')
        board = box(page.locator("#board"))
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(board["x"] + 3, board["y"] + board["height"] - 3, steps=6)
        page.mouse.up()
        expect(page.locator("#message")).to_contain_text("off the board")
        assert records(log) == before


@pytest.mark.parametrize(
    ("size", "role"), [(LAPTOP, "gm"), (TABLET, "blue"), (PHONE, "red")], ids=["laptop", "tablet", "phone"]
)
def test_a_40_by_30_map_reads_on_laptop_tablet_and_phone(tmp_path: Path, screens, size, role):
    log = big_log(tmp_path / "hall")
    with Running(log) as server:
        page = screens.open(server.link(role), size, touch=size == PHONE)
        expect(token(page, "cy")).to_have_count(1)
        page.wait_for_timeout(300)  # the fonts settle before the picture is taken
        shots = tmp_path / "screenshots"
        shots.mkdir(exist_ok=True)
        page.screenshot(path=str(shots / f"{size[0]}x{size[1]}-{role}.png"))
        assert (shots / f"{size[0]}x{size[1]}-{role}.png").stat().st_size > 10_000

        # Cells big enough to read and tap at the default zoom; the page itself never scrolls.
        cell = box(page.locator('#terrain rect[data-cell="20,15"]'))
        assert cell["width"] >= 44 and cell["height"] >= 44, cell
        sizes = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
            " document.documentElement.scrollHeight, window.innerHeight]"
        )
        assert sizes[0] <= sizes[1] and sizes[2] <= sizes[3], sizes

        # Names, the scenario's side colours, the token picture; the strip lists everyone with budgets.
        state = board_of(log)
        expect(page.locator('#fighters [data-fid="cy"] .name-plate')).to_have_text("Cyrene the Grey")
        expect(page.locator('#fighters [data-fid="cy"] .token')).to_have_attribute("fill", "#b3261e")
        expect(page.locator('#fighters [data-fid="bo"] .token')).to_have_attribute("fill", "#1f5fbf")
        expect(page.locator('#fighters [data-fid="ari"] image')).to_have_count(1)
        strip = page.locator("#strip button")
        expect(strip).to_have_count(len(state.fighters))
        from tabletrail.core.engine.registry import get as get_ruleset

        rs = get_ruleset(state.ruleset)
        ari = state.fighter("ari")
        expect(page.locator('#strip button[data-fid="ari"]')).to_contain_text(
            f"Ari Vance{fmt(rs.move_budget(state, ari))} m to move"
        )
        # Blue's own acting fighter is selected for it when its turn comes.
        mine = " selected mine" if role == "blue" else ""
        expect(page.locator('#strip button[data-fid="ari"]')).to_have_class("active" + mine)


def test_zoom_fit_centre_and_the_phone_drawer(tmp_path: Path, screens):
    log = big_log(tmp_path / "hall")
    with Running(log) as server:
        page = screens.open(server.gm, TABLET)
        expect(token(page, "ari")).to_be_visible()
        start = float(page.locator("#board").get_attribute("data-cell"))
        page.locator("#zoom-in").click()
        assert float(page.locator("#board").get_attribute("data-cell")) > start
        page.locator("#fit").click()
        board = box(page.locator("#board"))
        whole = box(page.locator("#terrain"))
        assert whole["width"] <= board["width"] + 1 and whole["height"] <= board["height"] + 1
        page.locator('#strip button[data-fid="cy"]').click()  # select from the strip
        expect(token(page, "cy")).to_have_class("fighter selected")
        page.locator("#zoom-in").click()
        page.locator("#zoom-in").click()
        page.locator("#centre-on").click()
        t, b = box(token(page, "cy").locator(".token")), box(page.locator("#board"))
        assert abs(t["x"] + t["width"] / 2 - (b["x"] + b["width"] / 2)) < 60

        # On a phone the sheet sits under the board, never over it; "More" adds the events there.
        phone = screens.open(server.link("blue"), PHONE, touch=True)
        expect(token(phone, "ari")).to_be_visible()
        expect(phone.locator("#fighter-panel")).to_be_in_viewport()
        expect(phone.locator("#events")).to_be_hidden()
        phone.locator("#drawer-toggle").tap()
        expect(phone.locator("#events")).to_be_visible()
        phone.locator("#drawer-toggle").tap()
        expect(phone.locator("#events")).to_be_hidden()
        token(phone, "ari").tap()
        phone.locator('#reach rect.reach[data-x="7"][data-y="5"]').tap()
        expect(phone.locator("#confirm")).to_be_in_viewport()  # the preview comes first in the sheet
        board, panel = box(phone.locator("#board-box")), box(phone.locator("#panel"))
        assert panel["y"] >= board["y"] + board["height"] - 1, (board, panel)


def test_a_malformed_revoked_or_expired_link_shows_a_page_saying_so(tmp_path: Path, screens):
    log = new_log(tmp_path)
    with Running(log) as server:
        page = screens.open(f"{server.url}/join/not-a-real-link")
        expect(page.locator("h1")).to_have_text("This link does not open the table")
        expect(page.locator("#notice")).to_contain_text("malformed")
        expired = invite(log, "blue", hours=1e-9)[1]
        page.goto(f"{server.url}/join/{expired}")
        expect(page.locator("#notice")).to_contain_text("expired")
        page.goto(server.url)
        expect(page.locator("#notice")).to_contain_text("link the GM gives you")
        expect(page.locator("#board")).to_have_count(0)


def test_quick_buttons_show_only_what_the_rules_allow_now(tmp_path: Path, screens):
    log = new_log(tmp_path)
    with Running(log) as server:
        page = screens.open(server.link("blue"), LAPTOP)
        requests: list[str] = []
        asks = ("/api/options", "/api/actions")
        page.on("request", lambda r: requests.append(r.url) if any(a in r.url for a in asks) else None)
        token(page, "ari").click()
        expect(page.locator("#quick button").first).to_be_visible()
        from tabletrail.events.stores.jsonl import JsonlStore
        from tabletrail.service.encounter import Encounter
        from tabletrail.service.syntax import parse
        from tabletrail.web.views import needs_roll

        enc = Encounter.open(JsonlStore(log))
        # Each button's command (its place filled with the first one offered), as the engine judges it.
        said = (
            "es => es.map(e => e.dataset.target"
            " ? e.dataset.text.replace(/\\{\\w+\\}/, e.dataset.target) : e.dataset.text)"
        )
        shown = page.locator("#quick button").evaluate_all(said)
        hidden = page.locator("#quick details.more li").evaluate_all(said)
        assert shown and hidden
        for text in shown:
            if "{" in text:
                continue  # its place is asked for on the board, then previewed: nothing to judge here
            result = enc.preview(parse(f"{text} by=blue"))
            assert not hasattr(result, "rule") or needs_roll(result), (text, result)
        for text in hidden:
            if "{" in text:
                continue  # refused wherever it is tried: no place to fill
            assert hasattr(enc.preview(parse(f"{text} by=blue")), "rule"), text
        assert len(requests) == 1  # one batched request, not one per verb


def test_a_key_during_a_drag_makes_a_waypoint_and_the_route_follows_the_engines_dry_run(
    tmp_path: Path, screens
):
    log = new_log(tmp_path)
    with Running(log) as server:
        page = screens.open(server.gm, LAPTOP)
        token(page, "ari").click()
        expect(page.locator("#reach rect.reach").first).to_be_visible()
        drag(page, "ari", [(1, 3)], drop=False)
        page.keyboard.press("w")  # a waypoint here; from now on straight lines, priced by a dry run
        expect(page.locator("#route .waypoint")).to_have_count(2)  # the cheapest route's cells
        drag_on(page, [(2, 4)])
        expect(page.locator("#ruler-tip")).to_contain_text("(waypoints)")
        page.mouse.up()
        expect(page.locator("#preview-text")).to_have_text("Ari: Move to 2,4 by way of 1,3")
        shifted = page.locator("#preview").inner_html()
        page.locator("#cancel").click()
        # Shift+click the same waypoints: the same command, the same preview.
        page.locator('#reach rect.reach[data-x="1"][data-y="3"]').click(modifiers=["Shift"])
        page.locator('#reach rect.reach[data-x="2"][data-y="4"]').click(modifiers=["Shift"])
        expect(page.locator("#preview-text")).to_have_text("Ari: Move to 2,4 by way of 1,3")
        assert page.locator("#preview").inner_html() == shifted


def drag_on(page, cells: list[tuple[int, int]]) -> None:  # noqa: ANN001
    for cx, cy in cells:
        tx, ty = centre_of(page, f'#terrain rect[data-cell="{cx},{cy}"]')
        page.mouse.move(tx, ty, steps=4)
