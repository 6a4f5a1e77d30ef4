"""A cell's height stays readable with fighters on and around it, in real headless Chromium.

On a map with elevation (a dock, a tower, a pit) the height of a raised cell, written at its
top-left corner, is what the falling and climbing rules read: a player must see it for the cell a
fighter stands in and for the cells around. A fighter's name plate pokes up out of its cell (over
the top strip where that cell's number and, for a wide name, its neighbours' numbers sit), its
token and its turn's ring fill most of the cell, its state sits on a chip: none of them may hide a
height number, and no number may hide a name, a state or a token's initials in turn. Measured
(bounding boxes; a token's disc and ring as the circles they are), on a phone, a tablet and a
laptop, as a player and as the GM, on the shipped brawl replay (everyone on a 2.5 m dock) and on a
map of heights built here (one, two and four characters, a minus sign, fighters side by side, one
above another, two in one cell, a prone one, a wounded one). Screenshots go to TABLETRAIL_SHOTS
(default /tmp/phoneui-shots/) for a person to look at.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from support_web import append_facts
from tabletrail.events import types as ev
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.service.encounter import Encounter

from tests.e2e.test_phone_turn import SHOTS
from tests.e2e.test_table_view import Running, token
from tests.e2e.test_words_on_the_table import DEVICES, brawl, open_table, press

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
expect = sync_api.expect

# A terraced yard: every lettered cell is raised (a: 1 m, b: 2.5 m, c: 12.5 m), d is a pit
# (-0.5 m), _ a cut 4 m deep. Ari's long name stands alone in its row between two raised cells;
# Sel, on the plain floor under Ari, has a long name beside a raised cell; Kel and Bo stand side
# by side under Vex (prone, acting first: a ring and a chip); the Ogre (an article) on the 12.5 m
# tower; Pip, wounded, in the pit; Mo and Jin share a cell.
TERRACES = """
[encounter]
name = "The terraces"
ruleset = "speed-meters"
seed = 7
initiative = ["vex", "ari", "sel", "kel", "bo", "ogre", "pip", "mo", "jin"]

[map]
rows = ["abcbabca", "cbabcab_", "ba.bcbba", "ccabdab.", "ab..ba.."]

[map.legend]
"." = "floor"
"a" = { terrain = "floor", ground = 1 }
"b" = { terrain = "floor", ground = 2.5 }
"c" = { terrain = "floor", ground = 12.5 }
"d" = { terrain = "floor", ground = -0.5 }
"_" = { terrain = "gap", ground = -4 }

[[fighters]]
id = "vex"
name = "Vex"
side = "red"
at = [6, 1]
speed = 4

[[fighters]]
id = "ari"
name = "Ari the Quick"
side = "blue"
at = [2, 1]
speed = 6

[[fighters]]
id = "sel"
name = "Sel the Bright"
side = "blue"
at = [2, 2]
speed = 6

[[fighters]]
id = "kel"
name = "Kel the Spear"
side = "red"
at = [5, 2]
speed = 6

[[fighters]]
id = "bo"
name = "Bo"
side = "blue"
at = [6, 2]
speed = 6

[[fighters]]
id = "ogre"
name = "The Ogre"
side = "red"
at = [1, 3]
speed = 4

[[fighters]]
id = "pip"
name = "Pip"
side = "blue"
at = [4, 3]
speed = 4

[[fighters]]
id = "mo"
name = "Mo"
side = "blue"
at = [4, 4]
speed = 5

[[fighters]]
id = "jin"
name = "Jin"
side = "red"
at = [5, 3]
speed = 5
"""


def terraces(folder: Path) -> Path:
    """The terraces, written as `tabletrail new` writes them, then Vex knocked down, Pip wounded and
    Jin put in Mo's cell (placed, as the GM may: a cell two share)."""
    scenario = parse_scenario(tomllib.loads(TERRACES), source="terraces")
    path = folder / "terraces.jsonl"
    Encounter.create(JsonlStore(path, durable=False), scenario)
    append_facts(
        path,
        [
            ev.StateChanged(
                fighter="vex", machine="posture", trigger="knock_down", source="standing", dest="prone"
            ),
            ev.Damaged(fighter="pip", amount=3),
            ev.Placed(fighter="jin", to=(4, 4, 250), how="pushed"),
        ],
    )
    return path


SCENES = {"brawl": (brawl, "vex", "red"), "terraces": (terraces, "vex", "red")}

# Every height number in view, and every shape drawn for a fighter, as CSS px boxes; whether the
# shape is painted after (over) the number; a round shape's centre and radius (its stroke's outer
# edge), so a number in the corner a disc leaves free is not counted as under it.
DRAWN = """() => {
  const r = (e) => {
    const b = e.getBoundingClientRect();
    return { x: b.left, y: b.top, width: b.width, height: b.height };
  };
  const board = document.getElementById('board').getBoundingClientRect();
  const shown = (b) => b.x < board.right && b.x + b.width > board.left
    && b.y < board.bottom && b.y + b.height > board.top;
  const scale = document.getElementById('board').getScreenCTM().a;  // CSS px per board unit
  const numbers = [...document.querySelectorAll('#board text[data-height]')]
    .filter((t) => getComputedStyle(t).display !== 'none' && getComputedStyle(t).visibility !== 'hidden')
    .map((t) => ({ node: t, cell: t.dataset.height, text: t.textContent, box: r(t) }))
    .filter((n) => shown(n.box));
  const shapes = [];
  for (const g of document.querySelectorAll('#fighters [data-fid]')) {
    const drawn = '.token, .ring, .name-plate, .badge, .token-label, .token-image, .damage';
    for (const s of g.querySelectorAll(drawn)) {
      if (getComputedStyle(s).visibility === 'hidden') continue;
      const kind = [...s.classList].find((c) => c !== 'fighter');
      const round = s.tagName === 'circle' || s.tagName === 'ellipse';
      const css = getComputedStyle(s);
      const stroke = round && css.stroke !== 'none' ? parseFloat(css.strokeWidth) * scale / 2 : 0;
      const b = r(s);
      shapes.push({ node: s, fid: g.dataset.fid, kind, box: b, text: s.textContent,
        round: round ? { cx: b.x + b.width / 2, cy: b.y + b.height / 2,
                         rx: b.width / 2 + stroke, ry: b.height / 2 + stroke } : null });
    }
  }
  const out = [];
  for (const n of numbers) {
    for (const s of shapes) {
      // painted after the number: over it
      const over = Boolean(n.node.compareDocumentPosition(s.node) & Node.DOCUMENT_POSITION_FOLLOWING);
      out.push({ cell: n.cell, number: n.text, nbox: n.box, fid: s.fid, kind: s.kind, text: s.text, over,
                 sbox: s.box, round: s.round });
    }
  }
  return { pairs: out, numbers: numbers.map((n) => [n.cell, n.text]), scale };
}"""

TOL = 0.5  # CSS px: boxes that only touch do not overlap


def meets(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"] + TOL
        or b["x"] + b["width"] <= a["x"] + TOL
        or a["y"] + a["height"] <= b["y"] + TOL
        or b["y"] + b["height"] <= a["y"] + TOL
    )


def meets_round(box: dict, round_: dict) -> bool:
    """Whether a disc (an ellipse: a prone body) reaches into a box: its nearest point is inside it."""
    nx = min(max(round_["cx"], box["x"]), box["x"] + box["width"])
    ny = min(max(round_["cy"], box["y"]), box["y"] + box["height"])
    dx, dy = (nx - round_["cx"]) / round_["rx"], (ny - round_["cy"]) / round_["ry"]
    inner = TOL / min(round_["rx"], round_["ry"])
    return dx * dx + dy * dy < (1 - inner) ** 2


def shared(a: dict, b: dict) -> str:
    """How much two boxes share, in CSS px: what a failure says."""
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return f"{w:.0f}x{h:.0f} of its {a['width']:.0f}x{a['height']:.0f} px"


READ = {"name-plate", "badge", "token-label"}  # words: nothing may lie over them, nor they over a number


def hidden_numbers(drawn: dict) -> list[str]:
    """Each height number a fighter's shape covers, and each name, state or initials a number covers."""
    problems = []
    for p in drawn["pairs"]:
        touch = meets_round(p["nbox"], p["round"]) if p["round"] else meets(p["nbox"], p["sbox"])
        if not touch:
            continue
        what = f"{p['fid']}'s {p['kind']}" + (f" {p['text']!r}" if p["kind"] in READ else "")
        where = f"the height {p['number']} of {p['cell']} ({shared(p['nbox'], p['sbox'])})"
        if p["over"]:
            problems.append(f"{what} covers {where}")
        elif p["kind"] in READ:
            problems.append(f"{where} covers {what}")
    return problems


def shot(page, name: str) -> None:  # noqa: ANN001
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(150)  # the fonts and the last redraw settle: a picture, nothing measured
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.locator("#board-box").screenshot(path=str(SHOTS / f"{name}-board.png"))


@pytest.mark.parametrize("role", ["player", "gm"])
@pytest.mark.parametrize("device", list(DEVICES))
@pytest.mark.parametrize("scene", list(SCENES))
def test_no_fighter_hides_a_height_and_no_height_hides_a_name(
    tmp_path: Path, browser, scene: str, device: str, role: str
):  # noqa: ANN001
    make, acting, side = SCENES[scene]
    log = make(tmp_path)
    with Running(log) as server:
        context, page = open_table(browser, server.link(side if role == "player" else "gm"), device)
        try:
            expect(token(page, acting)).to_have_class(re.compile(r"\bactive prone\b"))
            if role == "gm":  # the GM's screen selects no fighter of its own: it looks at the one acting
                press(page, token(page, acting), device)
            expect(token(page, acting)).to_have_class(re.compile(r"\bselected\b"))
            page.wait_for_timeout(100)  # a frame: the view settles after the sheet loaded
            drawn = page.evaluate(DRAWN)
            shot(page, f"heights-{scene}-{device}-{role}")
            # raised cells with fighters on them are in view
            assert len(drawn["numbers"]) >= 6, drawn["numbers"]
            on = {p["cell"] for p in drawn["pairs"] if p["kind"] == "token" and meets(p["nbox"], p["sbox"])}
            assert on, "no fighter stands on or beside a raised cell in view"
            problems = hidden_numbers(drawn)
            assert not problems, "\n".join(problems)
        finally:
            context.close()


def flat(folder: Path) -> Path:
    """The terraces' fighters on a level yard: no height numbers, names only."""
    text = TERRACES.replace(
        'rows = ["abcbabca", "cbabcab_", "ba.bcbba", "ccabdab.", "ab..ba.."]',
        'rows = ["' + '", "'.join(["." * 8] * 5) + '"]',
    )
    assert text != TERRACES
    scenario = parse_scenario(tomllib.loads(text), source="flat")
    path = folder / "flat.jsonl"
    Encounter.create(JsonlStore(path, durable=False), scenario)
    return path


# Each name plate's words, and for a plate given a textLength (squeezed to its room), that length
# against the words' own length at the page's size of names (a copy without it, measured): a
# textLength longer than the words spreads them out.
PLATES = """() => [...document.querySelectorAll('#fighters .name-plate')].map((t) => {
  const fid = t.parentNode.dataset.fid;
  if (!t.hasAttribute('textLength')) return { fid, text: t.textContent, forced: null, natural: null };
  const copy = t.cloneNode(true);
  copy.removeAttribute('textLength');
  copy.removeAttribute('lengthAdjust');
  t.parentNode.append(copy);
  const natural = copy.getComputedTextLength();
  copy.remove();
  return { fid, text: t.textContent, forced: parseFloat(t.getAttribute('textLength')), natural };
})"""


def plates(page) -> dict[str, dict]:  # noqa: ANN001
    return {p["fid"]: p for p in page.evaluate(PLATES)}


def test_on_a_laptop_a_long_name_is_never_spread_out(tmp_path: Path, browser):  # noqa: ANN001
    """Names are 16 px on a laptop's big cells: a long one fits whole and keeps its own letter spacing."""
    with Running(flat(tmp_path)) as server:
        context, page = open_table(browser, server.link("gm"), "laptop")
        try:
            expect(token(page, "vex")).to_be_visible()
            page.wait_for_timeout(100)
            shown = plates(page)
            assert shown["sel"]["text"] == "Sel the Bright"
            spread = [
                p for p in shown.values() if p["forced"] is not None and p["forced"] > p["natural"] + 0.01
            ]
            assert not spread, spread
        finally:
            context.close()


@pytest.mark.parametrize("device", ["phone", "laptop"])
def test_a_zoom_lays_the_names_out_again_and_keeps_the_heights_readable(tmp_path: Path, browser, device: str):  # noqa: ANN001
    """The names keep a readable size at any zoom, so the room beside a height number changes with it:
    at each zoom the plates are laid out again, never over a number, whole where they now fit."""
    with Running(terraces(tmp_path)) as server:
        context, page = open_table(browser, server.link("gm"), device)
        try:
            expect(token(page, "vex")).to_be_visible()
            page.wait_for_timeout(100)
            seen = []  # (--plate, Sel's plate) after each press
            for step in ("zoom-in", "zoom-in", "zoom-out", "zoom-out", "zoom-out"):
                press(page, page.locator(f"#{step}"), device)
                page.wait_for_timeout(100)
                size = page.locator("#board").evaluate("(b) => b.style.getPropertyValue('--plate')")
                problems = hidden_numbers(page.evaluate(DRAWN))
                assert not problems, f"after {step} (--plate {size}):\n" + "\n".join(problems)
                seen.append((float(size.removesuffix("px")), plates(page)["sel"]["text"]))
            shot(page, f"heights-zoomed-{device}")
            # the smallest names (the closest zoom) have room for the whole name beside the numbers
            assert min(seen)[1] == "Sel the Bright", seen
            if device == "phone":  # at its first size only the first word fits: the zoom laid it out again
                assert ("Sel" in {text for _, text in seen}) and max(seen)[0] == 0.3, seen
        finally:
            context.close()
