"""The table view end to end, in real headless Chromium (Debian's chromium, driven by Playwright).

The server runs on a free port in a thread and is stopped at the end; every
wait is bounded. What the pages show is checked against the engine and the log
file, never against numbers written into the test.
"""

from __future__ import annotations

import socket
import threading
import tomllib
from pathlib import Path

import pytest
import uvicorn
from support_web import STATES, append_facts, invite, new_log
from tabletrail.core.board.units import fmt
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search.reach import reach, reachable
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.types import CheckRolled, Marked, Placed
from tabletrail.service.encounter import Encounter
from tabletrail.text.render import Words
from tabletrail.web.server import create_app

from tests.e2e.chromium import ARGS, CHROMIUM  # noqa: F401  (other modules import them from here)
from tests.rulesets.test_presentation import AP_SQUARES

WAIT_MS = 10_000  # the longest any single step may take before the test fails

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect


class Running:
    """The table view of one log, served from a thread on a free port of 127.0.0.1."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.app = create_app(log)
        self.gm = self.link("gm")
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def link(self, role: str) -> str:
        """A new invitation link for `role`, as `tabletrail invite` prints it."""
        return f"{self.url}/join/{invite(self.log, role)[1]}"

    def __enter__(self) -> Running:
        self.thread.start()
        ready = threading.Event()
        for _ in range(200):
            if self.server.started:
                ready.set()
                break
            ready.wait(0.05)
        assert ready.is_set(), "the server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self.app.state.table.closing.set()  # as `tabletrail serve` does on Ctrl+C
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.fixture
def pages(browser):  # noqa: ANN001, ANN201 - two screens at the same table
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    context.set_default_timeout(WAIT_MS)
    players = context.new_page()
    gm = context.new_page()  # opened last: the tab in front, where the clicks happen
    yield gm, players
    context.close()


def board_of(log: Path):  # noqa: ANN201
    return Encounter.open(JsonlStore(log)).state


def token(page, fid: str):  # noqa: ANN001, ANN201
    return page.locator(f'#fighters [data-fid="{fid}"]')


def test_select_move_undo_redo_scrub_refuse_and_a_second_screen_follows(tmp_path: Path, pages):
    log = new_log(tmp_path)
    gm, players = pages
    with Running(log) as server:
        players.goto(server.gm)
        gm.goto(server.gm)
        gm.bring_to_front()  # a background tab paints lazily and would slow every click
        expect(token(gm, "ari")).to_have_attribute("data-x", "1")
        expect(token(players, "ari")).to_have_attribute("data-x", "1")
        start_version = len(log.read_bytes().splitlines())

        # Select: the shaded cells are the engine's reachable area, cost for cost.
        token(gm, "ari").click()
        expected = reachable(board_of(log), "ari")
        shaded = gm.locator("#reach rect.reach")
        expect(shaded).to_have_count(len(expected))
        cells = shaded.evaluate_all("els => els.map(e => [+e.dataset.x, +e.dataset.y, +e.dataset.cost])")
        assert {(x, y): cost for x, y, cost in cells} == expected

        # Move: click a destination, read the preview, confirm.
        gm.locator('#reach rect.reach[data-x="4"][data-y="1"]').click()
        expect(gm.locator("#preview-text")).to_have_text("Ari: Move to 4,1")  # in words
        expect(gm.locator("#preview table.steps tr")).to_have_count(1 + 3)  # header + 3 steps
        expect(gm.locator("#preview .why-more")).to_contain_text("speed-meters/movement")  # under "why?"
        assert len(log.read_bytes().splitlines()) == start_version  # a preview appends nothing
        gm.locator("#confirm").click()
        expect(token(gm, "ari")).to_have_attribute("data-x", "4")
        assert board_of(log).fighter("ari").pos[:2] == (4, 1)
        moved_version = len(log.read_bytes().splitlines())

        # The second screen follows without a reload.
        expect(token(players, "ari")).to_have_attribute("data-x", "4")
        expect(players.locator("#events li").last).to_contain_text("Ari moved")

        # Undo with the button, redo with the keyboard.
        gm.locator("#undo").click()
        expect(token(gm, "ari")).to_have_attribute("data-x", "1")
        expect(token(players, "ari")).to_have_attribute("data-x", "1")
        assert board_of(log).fighter("ari").pos[:2] == (1, 1)
        gm.locator("#board").click(position={"x": 5, "y": 5})  # focus the page, not a form field
        gm.keyboard.press("Control+y")
        expect(token(gm, "ari")).to_have_attribute("data-x", "4")
        expect(token(players, "ari")).to_have_attribute("data-x", "4")
        assert board_of(log).fighter("ari").pos[:2] == (4, 1)

        # Scrub the timeline back to before the move: a read-only view of the past.
        gm.locator("#scrubber").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", start_version
        )
        expect(gm.locator("#banner")).to_be_visible()
        expect(gm.locator("#banner")).to_contain_text(f"after event {start_version}")
        expect(token(gm, "ari")).to_have_attribute("data-x", "1")
        expect(gm.locator("#undo")).to_be_disabled()
        expect(gm.locator("#events li.future").first).to_be_visible()
        # The event list shows the point the board stands at, not the end of the log.
        now = gm.locator(f'#events li[data-seq="{start_version}"]')
        assert now.evaluate(
            "li => { const l = li.parentElement; return li.offsetTop >= l.scrollTop && "
            "li.offsetTop + li.offsetHeight <= l.scrollTop + l.clientHeight; }"
        )
        expect(token(players, "ari")).to_have_attribute("data-x", "4")  # the other screen stays live
        gm.locator("#to-live").click()
        expect(gm.locator("#banner")).to_be_hidden()
        expect(token(gm, "ari")).to_have_attribute("data-x", "4")

        # A refused command shows its rule and reason, and appends nothing.
        before = log.read_bytes()
        gm.locator("#command").fill("move ari 2,1")
        gm.locator("#command-form button").click()
        expect(gm.locator("#message")).to_contain_text("speed-meters/occupancy")
        expect(gm.locator("#message")).to_contain_text("occupied by bo")
        expect(gm.locator("#confirm")).to_be_disabled()
        assert log.read_bytes() == before

        # The explain panel of the move names its rule in words.
        gm.locator("#events li", has_text="Ari moved").first.click()
        expect(gm.locator("#explain")).to_contain_text("speed-meters/movement")
        expect(gm.locator("#explain")).to_contain_text("Speed meters")
        assert moved_version < len(log.read_bytes().splitlines())  # undo and redo were appended


def test_a_table_roll_is_asked_for_entered_and_logged(tmp_path: Path, pages):
    log = new_log(tmp_path, checks="table")
    gm, players = pages
    with Running(log) as server:
        players.goto(server.gm)
        gm.goto(server.gm)
        gm.bring_to_front()  # a background tab paints lazily and would slow every click
        expect(token(gm, "ari")).to_be_visible()

        # A GM ruling from the command box: crossing 2,2 takes a test.
        gm.locator("#command").fill('require-test 2,2 target=4 why="oil on the floor"')
        gm.locator("#command-form button").click()
        expect(gm.locator("#consequences")).to_contain_text("tabletrail/gm-ruling")
        gm.locator("#confirm").click()
        expect(gm.locator("#rulings .test")).to_have_count(1)
        expect(players.locator("#rulings .test")).to_have_count(1)

        # Moving there needs the number rolled at the table.
        token(gm, "ari").click()
        expect(gm.locator("#reach rect.reach.event")).to_have_count(1)
        gm.locator('#reach rect.reach[data-x="2"][data-y="2"]').click()
        expect(gm.locator("#roll-panel")).to_be_visible()
        expect(gm.locator("#route .path.pending")).to_have_count(1)  # not drawn as refused: it waits
        expect(gm.locator("#route .path.refused")).to_have_count(0)
        expect(gm.locator("#roll-reason")).to_contain_text("tabletrail/checks")
        gm.locator("#roll-input").fill("5")
        gm.locator("#roll-form button").click()
        expect(gm.locator("#preview-text")).to_have_text("Ari: Move to 2,2")  # the roll: the check
        expect(gm.locator("#consequences")).to_contain_text("rolled 5")
        gm.locator("#confirm").click()
        expect(token(gm, "ari")).to_have_attribute("data-x", "2")
        expect(token(players, "ari")).to_have_attribute("data-x", "2")

    checks = [r.event for r in Encounter.open(JsonlStore(log)).records if isinstance(r.event, CheckRolled)]
    assert [(c.source, c.number, c.passed) for c in checks] == [("table", 5, True)]


def test_the_board_draws_prone_links_drift_flight_and_damage(tmp_path: Path, pages):
    log = new_log(tmp_path)
    append_facts(log, STATES)
    gm, _ = pages
    with Running(log) as server:
        gm.goto(server.gm)
        expect(token(gm, "bo")).to_have_class("fighter prone")
        expect(token(gm, "bo")).to_have_attribute("data-states", "prone")
        expect(gm.locator('#links [data-link="engaged:ari:cy"]')).to_have_class("link engaged")
        expect(gm.locator('#links [data-link="grab:bo:cy"]')).to_have_class("link grab")
        # A drift's arrow is ap-squares' own presentation (its heading hook): never drawn on this
        # speed-meters board, even with ap-squares' mark written into it (see the test below).
        expect(gm.locator('#links [data-trajectory="cy"]')).to_have_count(0)
        expect(token(gm, "cy").locator(".damage-label")).to_have_text("3")
        expect(token(gm, "cy")).to_have_attribute("data-states", "drifting")
        expect(token(gm, "ari")).to_have_class("fighter active airborne")
        expect(token(gm, "ari").locator(".badge")).to_have_text("flying ↑1.5")


def test_an_ap_squares_drift_is_drawn_as_its_heading(tmp_path: Path, pages):
    """ap-squares says where a drifting body is carried (Ruleset.heading); the board draws the arrow."""
    log = tmp_path / "drift.jsonl"
    scenario = parse_scenario(tomllib.loads(AP_SQUARES), source="drift test scenario")
    Encounter.create(JsonlStore(log, durable=False), scenario)
    append_facts(log, [Marked(fighter="bo", key="trajectory", value={"dir": "e", "speed": 1})])
    gm, _ = pages
    with Running(log) as server:
        gm.goto(server.gm)
        expect(gm.locator('#links [data-trajectory="bo"]')).to_have_count(1)
        expect(gm.locator('[data-trajectory="bo"] title')).to_have_text("bo drifts e at 1 a turn")
        expect(gm.locator('#links [data-trajectory="ari"]')).to_have_count(0)


def box(locator) -> dict:  # noqa: ANN001 - where an element is drawn, in CSS pixels
    b = locator.bounding_box()
    assert b is not None, locator
    return b


def test_fighters_sharing_a_cell_are_drawn_side_by_side(tmp_path: Path, pages):
    log = new_log(tmp_path)
    append_facts(log, [Placed(fighter="bo", to=(1, 1, 0), how="shoved in by the GM")])  # ari's cell
    gm, _ = pages
    with Running(log) as server:
        gm.goto(server.gm)
        a, b = box(token(gm, "ari").locator(".token")), box(token(gm, "bo").locator(".token"))
        apart = a["x"] + a["width"] <= b["x"] + 0.5 or b["x"] + b["width"] <= a["x"] + 0.5
        assert apart, (a, b)
        cell = box(gm.locator('#terrain rect[data-cell="1,1"]'))
        for t in (a, b):  # both still inside their cell
            assert cell["x"] - 0.5 <= t["x"] and t["x"] + t["width"] <= cell["x"] + cell["width"] + 0.5


def test_the_fighter_panel_speaks_in_words_and_follows_each_move(tmp_path: Path, pages):
    log = new_log(tmp_path)
    gm, _ = pages
    with Running(log) as server:
        gm.goto(server.gm)
        token(gm, "ari").click()
        budget = reach(board_of(log), "ari").budget
        expect(gm.locator("#reach-summary")).to_contain_text(f"{fmt(budget)} m left to spend")
        for button in gm.locator("#quick button").all():  # every quick command says what it does
            assert button.get_attribute("title").startswith(f"Preview “{button.inner_text()}")
        gm.locator('#reach rect.reach[data-x="3"][data-y="1"]').click()
        gm.locator("#confirm").click()
        expect(token(gm, "ari")).to_have_attribute("data-x", "3")
        state = board_of(log)
        ari = state.fighter("ari")
        rs = get_ruleset(state.ruleset)
        words = ", ".join(Words(rs).amount(k, v) for k, v in sorted(ari.spent.items()) if v)
        expect(gm.locator("#fighter-info")).to_contain_text(f"spent {words}")  # said once, on the card
        after = reach(state, "ari")  # the summary names the new area, not the one before the move
        expect(gm.locator("#reach-summary")).to_contain_text(
            f"{len(after.costs)} cells, {fmt(after.budget)} m"
        )
        expect(gm.locator("#reach rect.reach")).to_have_count(len(after.costs))


def test_a_fighter_that_cant_move_now_says_why_and_a_refused_route_is_drawn(tmp_path: Path, pages):
    log = new_log(tmp_path)
    gm, _ = pages
    with Running(log) as server:
        gm.goto(server.gm)
        token(gm, "cy").click()  # ari's turn, not cy's
        expected = reachable(board_of(log), "cy")
        expect(gm.locator("#reach rect.reach.blocked")).to_have_count(len(expected))
        expect(gm.locator("#reach-summary")).to_contain_text("can't move now")
        expect(gm.locator("#reach-summary")).to_contain_text("tabletrail/turn-order")
        before = log.read_bytes()
        x, y = next(iter(expected))
        gm.locator(f'#reach rect.reach[data-x="{x}"][data-y="{y}"]').click()
        expect(gm.locator("#message")).to_contain_text("tabletrail/turn-order")
        expect(gm.locator("#route .path.refused")).to_have_count(1)
        expect(gm.locator("#confirm")).to_be_disabled()
        assert log.read_bytes() == before


def test_on_a_1280_by_800_laptop_the_board_stays_put_and_nothing_overflows(tmp_path: Path, browser):
    log = new_log(tmp_path)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(WAIT_MS)
    gm = context.new_page()
    try:
        with Running(log) as server:
            gm.goto(server.gm)
            token(gm, "ari").click()
            expect(gm.locator("#reach rect.reach").first).to_be_visible()
            board = box(gm.locator("#board"))
            gm.locator('#reach rect.reach[data-x="4"][data-y="1"]').click()
            expect(gm.locator("#preview-text")).to_have_text("Ari: Move to 4,1")  # in words
            confirm = box(gm.locator("#confirm"))  # reachable without scrolling anything
            assert confirm["y"] >= 0 and confirm["y"] + confirm["height"] <= 800
            gm.locator("#command").fill("move ari 2,1")  # a refusal: a message appears
            gm.locator("#command-form button").click()
            expect(gm.locator("#message")).to_contain_text("speed-meters/occupancy")
            assert box(gm.locator("#board")) == board  # nothing moved under the pointer
            sizes = gm.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
                " document.documentElement.scrollHeight, window.innerHeight]"
            )
            assert sizes[0] <= sizes[1] and sizes[2] <= sizes[3], sizes  # no page scroll either way
            cell = box(gm.locator('#terrain rect[data-cell="1,1"]'))
            for badge in gm.locator("#fighters .badge").all():
                assert box(badge)["width"] <= cell["width"] + 0.5  # a state's words stay on its cell
    finally:
        context.close()


def test_the_live_badge_does_not_blink_when_the_stream_is_renewed(tmp_path: Path, pages, monkeypatch):
    from tabletrail.web.api import stream as api_stream

    monkeypatch.setattr(api_stream, "STREAM_SECONDS", 0.5)  # streams end often; the browser reconnects
    log = new_log(tmp_path)
    gm, players = pages
    with Running(log) as server:
        players.goto(server.gm)
        expect(players.locator("#live")).to_have_text("following live")
        players.evaluate(
            "() => { window.badges = []; new MutationObserver(() => window.badges.push("
            "document.getElementById('live').textContent)).observe(document.getElementById('live'),"
            " {childList: true, characterData: true, subtree: true}); }"
        )
        players.wait_for_timeout(2500)  # several renewals
        assert "reconnecting…" not in players.evaluate("() => window.badges")
        expect(players.locator("#live")).to_have_text("following live")
        gm.goto(server.gm)  # and it still follows
        token(gm, "ari").click()
        gm.locator('#reach rect.reach[data-x="3"][data-y="1"]').click()
        gm.locator("#confirm").click()
        expect(token(players, "ari")).to_have_attribute("data-x", "3")
