"""`show` draws thin walls and doors on the map (issue 28, item 7).

A map with edges gets a column between every two cells (the east edge of the cell before
it) and a line under a row where one of its south edges has something on it; each kind has
its own mark, and the key under the map says what each mark used means. A map without
edges is drawn as before, one character a cell.
"""

from __future__ import annotations

from support import do, encounter
from tabletrail.text import render

from tests.core.test_doors import scene as door_scene
from tests.core.test_walls import scene


def drawn(text: str) -> list[str]:
    return render.board(encounter(text).state).splitlines()


def test_a_wall_a_window_an_object_and_doors_are_drawn_where_they_stand():
    text = scene(
        "speed-meters",
        walls='"3,1-3,4", { at = "0,2-2,2", blocks = "sight" }, { at = "4,3-7,3", blocks = "movement" }',
    )
    text = text.replace("[map]", '[map]\ndoors = [{ at = "3,0|3,1" }, { at = "5,0|6,0", closed = false }]')
    lines = drawn(text)
    assert lines[:9] == [
        "   0 1 2 3 4 5 6",
        " 0 . . . . . ./.",  # the open door between 5,0 and 6,0
        "        │+",  # the closed door under 3,0; the wall's top end at corner 3,1
        " 1 . . .│. . . .",  # the wall down grid line x = 3
        "   ┈┈┈┈ │",  # the object along y = 2 from x = 0 to 2: it stops sight only
        " 2 . . M│. . . .",
        "        │ ══════",  # the window along y = 3 from x = 4: it stops steps only
        " 3 . . .│. . . .",
        " 4 . . . . . . F",  # no edge under row 3: no line drawn
    ]
    key = "\n".join(lines)
    assert (
        "edges: │─ wall  ┊┈ stops sight, not steps  ║═ window: stops steps, not sight  + closed door" in key
    )
    assert "    / open door" in key and "×" not in key  # only the marks the map uses
    assert "doors: 3,0|3,1 closed  5,0|6,0 open" in key


def test_a_door_is_drawn_in_its_state_now():
    enc = encounter(door_scene("speed-meters"))
    assert " 2 . . M+. . . ." in render.board(enc.state)
    do(enc, "open m 2,2|3,2")
    assert " 2 . . M/. . . ." in render.board(enc.state)
    assert "× locked door" not in render.board(enc.state)


def test_a_map_without_edges_is_drawn_as_before():
    lines = drawn(scene("speed-meters", walls="").replace("walls = []\n", ""))
    assert lines[:6] == ["   0123456", " 0 .......", " 1 .......", " 2 ..M....", " 3 .......", " 4 ......F"]
    assert not any(line.startswith(("edges:", "doors:")) for line in lines)
