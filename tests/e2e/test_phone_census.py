"""A census of a player's touch screen (real headless Chromium): every control a fingertip's size,
and the page's words free of internals.

On a phone (390x844) and an upright tablet (820x1180), at rest, with a preview open, with a
refusal shown and with "More" open: every visible control (buttons, fields, folds, tokens and
door targets on the board) is at least 44x44 CSS px, and the text a player reads holds no rule
id, no `by=`, no Python repr, no TLS or proxy warning (the server here says it is exposed: that
warning is the GM's) and no sentence said twice in a row.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
import uvicorn
from tabletrail.web.server import create_app

from tests.e2e.test_phone_turn import PHONE, SHOTS, TABLET, gate_log, touch_page
from tests.e2e.test_table_view import Running, token

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect

FINGER = 44  # CSS px
RULE_ID = re.compile(r"\b[a-z]+(?:-[a-z]+)*/[a-z]+(?:-[a-z]+)*\b")  # speed-meters/movement, tabletrail/doors
REPR = re.compile(r"\{'|'\}|\[\]|\{\}|\b(?:None|True|False)\b|\w+=\S")  # dict/list reprs, key=value dumps
INTERNALS = re.compile(
    r"\bTLS\b|proxy|by=|stats:|marks:|links:|turn acting|\b(?:movement|speed|left|maneuvers?) \d{3,}\b",
    re.IGNORECASE,
)  # ... and numbers in centi-units, as a marks dump writes them ("movement 200")

# Every control a person can tap, HTML or on the board, that the page shows now.
CONTROLS = """() => {
  const sel = 'button, input:not([type=hidden]), select, textarea, summary, a[href], [role=button], '
    + '#events li';
  return [...document.querySelectorAll(sel)].filter((e) => {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) return false;
    const s = getComputedStyle(e);
    if (s.visibility === 'hidden' || s.display === 'none') return false;
    return e.checkVisibility ? e.checkVisibility() : true;
  }).map((e) => {
    const r = e.getBoundingClientRect();
    const name = e.id || e.getAttribute('aria-label') || e.dataset.fid || e.dataset.door
      || e.textContent.trim().slice(0, 30);
    const px = (v) => Math.round(v * 10) / 10;
    return [e.tagName.toLowerCase() + ' ' + name, px(r.width), px(r.height)];
  });
}"""


class Exposed(Running):
    """The table served as `tabletrail serve --host 0.0.0.0` would: the page is told it is exposed."""

    def __init__(self, log: Path) -> None:
        super().__init__(log)
        self.app = create_app(log, exposed=True)
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)


def small_controls(page) -> list:  # noqa: ANN001
    return [c for c in page.evaluate(CONTROLS) if c[1] < FINGER - 0.5 or c[2] < FINGER - 0.5]


def words_problems(text: str) -> list[str]:
    """What a player's page must not say: internals, and a sentence said twice."""
    found = [f"rule id {m.group()!r}" for m in RULE_ID.finditer(text)]
    found += [f"repr {m.group()!r}" for m in REPR.finditer(text)]
    found += [f"internal {m.group()!r}" for m in INTERNALS.finditer(text)]
    for line in text.splitlines():
        parts = [p.strip(" .;") for p in re.split(r" — |; |\. ", line) if p.strip(" .;")]
        twice = {p for p in parts if parts.count(p) > 1}
        said = line.split(" — ")
        twice |= {
            p.strip() for i, p in enumerate(said) if i and p.strip() and p.strip() in " — ".join(said[:i])
        }
        found += [f"said twice: {p!r} in {line!r}" for p in twice]
    return found


def check(page, where: str) -> None:  # noqa: ANN001
    page.wait_for_timeout(200)
    page.screenshot(path=str(SHOTS / "census" / f"{where}.png"))
    assert small_controls(page) == [], where
    assert words_problems(page.locator("body").inner_text()) == [], where


@pytest.mark.parametrize("size", [PHONE, TABLET], ids=["phone", "tablet"])
def test_every_control_is_a_fingertips_size_and_the_words_hold_no_internals(tmp_path: Path, browser, size):  # noqa: ANN001
    (SHOTS / "census").mkdir(parents=True, exist_ok=True)
    name = f"{size[0]}x{size[1]}"
    log = gate_log(tmp_path, "speed-meters")
    with Exposed(log) as server:
        red_ctx, red = touch_page(browser, server.link("red"), size)
        context, page = touch_page(browser, server.link("blue"), size)
        try:
            expect(token(page, "ari")).to_have_class("fighter selected active")
            expect(page.locator("#reach rect.reach").first).to_be_attached()
            expect(page.locator("#quick button").first).to_be_visible()
            expect(page.locator("#exposed")).to_be_hidden()  # the GM's warning, not a player's
            check(page, f"{name}-at-rest")

            page.locator('#reach rect.reach[data-x="3"][data-y="2"]').tap()
            expect(page.locator("#confirm")).to_be_visible()
            check(page, f"{name}-preview")
            page.locator("#confirm").tap()
            expect(token(page, "ari")).to_have_attribute("data-x", "3")
            expect(page.locator("#message")).to_contain_text("Done:")
            check(page, f"{name}-done")

            page.locator("#drawer-toggle").tap()
            expect(page.locator("#events li").first).to_be_visible()
            page.locator("#events li").last.tap()
            expect(page.locator("#explain")).to_contain_text("asked by blue")
            check(page, f"{name}-more")

            # A move the engine refuses (through the wall, out of reach): the reason in words, no Confirm.
            page.locator("#drawer-toggle").tap()  # "More" folded away: the board has its room back
            expect(page.locator("#events")).to_be_hidden()
            page.locator('#terrain rect[data-cell="6,1"]').tap()
            expect(page.locator("#preview-panel .refusal")).to_be_visible()
            expect(page.locator("#confirm")).to_be_hidden()
            check(page, f"{name}-refused")

            # Red's screen on Ari's turn: Kel can't move now; its sheet says so in words.
            expect(token(red, "kel")).to_be_visible()
            token(red, "kel").tap()
            expect(red.locator("#reach-summary")).to_contain_text("can't move now")
            check(red, f"{name}-not-your-turn")
        finally:
            context.close()
            red_ctx.close()


DERELICT = Path(__file__).parents[2] / "scenarios" / "ap-squares-derelict.toml"


def leaks(text: str, enc) -> list[str]:  # noqa: ANN001
    """What no page, the GM's included, may hold (issue 38): a command as typed (a verb of the ruleset
    before a fighter's id, a choice list `a|b|c`), `by=`, a fighter's id where it has a name, and a
    rule id outside "why?" (closed, its contents are no page text)."""
    from tabletrail.core.engine.registry import get as get_ruleset
    from tabletrail.web.views import commands

    verbs = "|".join(re.escape(str(c["verb"])) for c in commands(get_ruleset(enc.state.ruleset)))
    named = [f for f in enc.state.fighters if f.name and f.name != f.id]
    ids = "|".join(re.escape(f.id) for f in named)
    found = [f"by= in {m.group()!r}" for m in re.finditer(r"\S*\bby=\S*", text)]
    found += [f"syntax {m.group()!r}" for m in re.finditer(rf"\b(?:{verbs}) (?:{ids})\b", text)]
    found += [f"syntax {m.group()!r}" for m in re.finditer(r"\b\w+\|\w+\|\w+\b", text)]
    found += [f"rule id {m.group()!r}" for m in RULE_ID.finditer(text)]
    without_names = text
    for f in sorted(named, key=lambda f: -len(f.name)):
        without_names = without_names.replace(f.name, "·")
    found += [f"id {m.group()!r}" for m in re.finditer(rf"(?<![\w/-])(?:{ids})(?![\w/-])", without_names)]
    return found


def test_no_page_gm_player_or_watcher_holds_syntax_ids_by_or_rule_ids(tmp_path: Path, browser):  # noqa: ANN001
    """The derelict after Bo's body-block: the GM's laptop, both sides' phones and a watcher's page,
    at rest, with the event list open and an event explained."""
    from tabletrail.cli import main
    from tabletrail.service.encounter import Encounter
    from tabletrail.service.stores import store_for

    (SHOTS / "census").mkdir(parents=True, exist_ok=True)
    log = tmp_path / "hold.jsonl"
    assert main(["new", str(DERELICT), "--log", str(log)]) == 0
    for said in ("move ari 3,1 by=blue", "move ari 4,1 by=blue", "react-invasion bo block by=red"):
        assert main(["do", str(log), *said.split()]) == 0
    enc = Encounter.open(store_for(str(log)))
    with Exposed(log) as server:
        screens = {
            "gm": browser.new_context(viewport={"width": 1366, "height": 768}),
            "blue": browser.new_context(
                viewport={"width": PHONE[0], "height": PHONE[1]}, has_touch=True, is_mobile=True
            ),
            "red": browser.new_context(
                viewport={"width": PHONE[0], "height": PHONE[1]}, has_touch=True, is_mobile=True
            ),
            "watcher": browser.new_context(
                viewport={"width": TABLET[0], "height": TABLET[1]}, has_touch=True
            ),
        }
        try:
            for role, context in screens.items():
                page = context.new_page()
                page.goto(server.gm if role == "gm" else server.link(role))
                expect(page.locator("#events li").last).to_be_attached()
                expect(token(page, "ari")).to_be_visible()
                page.wait_for_timeout(300)
                assert leaks(page.locator("body").inner_text(), enc) == [], (role, "at rest")
                if role != "gm":
                    page.locator("#drawer-toggle").click()
                last = page.locator("#events li", has_text="kept out")
                expect(last).to_be_visible()
                last.click()
                expect(page.locator("#explain")).not_to_be_empty()
                page.wait_for_timeout(200)
                page.screenshot(path=str(SHOTS / "census" / f"derelict-{role}.png"))
                assert leaks(page.locator("body").inner_text(), enc) == [], (role, "explained")
        finally:
            for context in screens.values():
                context.close()


def test_the_leaks_check_finds_what_the_issue_found(tmp_path: Path) -> None:
    from tabletrail.cli import main
    from tabletrail.service.encounter import Encounter
    from tabletrail.service.stores import store_for

    log = tmp_path / "hold.jsonl"
    assert main(["new", str(DERELICT), "--log", str(log)]) == 0
    enc = Encounter.open(store_for(str(log)))
    for line in (
        "Bo the Guard must answer first (react-invasion Bo the Guard parry|block|allow)",
        "Undone: react-invasion bo block by=red",
        "#17 unmarked · ap-squares/invade",
        "bo chose to block: ari is kept out",
    ):
        assert leaks(line, enc), line
    assert leaks("Bo the Guard: React invasion, Body-block · loose fuel drum moved", enc) == []


def test_the_words_check_finds_what_the_issue_found() -> None:
    """The census's word check is not blind: each line a player met in the issue is caught."""
    met = [
        "Refused by round-meters/passes: it is not your pass",
        "move ari 4,1 by=blue",
        "stats: movement 6, ap 3, athletics 2 · marks: — · links: —",
        "turn acting",
        "ari's turn ends — ari's turn ends",
        "Ari opens the door between 3,2 and 4,2 (closed -> open) — Ari opens the door between 3,2 and 4,2",
        "This server speaks plain HTTP: put TLS in front with a reverse proxy",
        "{'dir': 'e'}",
        "Ari: on the way at 3,2, turn 1,0, actions 1, movement 200, maneuver 0, speed 600",
    ]
    for line in met:
        assert words_problems(line), line
    assert (
        words_problems("Ari drops prone. Ari spends 1 action — a drop-prone action (1 action left after it)")
        == []
    )
