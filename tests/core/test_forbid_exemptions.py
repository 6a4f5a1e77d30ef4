"""A forbid ruling with exemptions (issue 12, item 8).

round-meters/difficult: "The GM may … rule that it cannot be crossed without suitable
equipment or abilities." A forbid names who may cross anyway: fighter ids or tags.
"""

from __future__ import annotations

from support import do, encounter, grid, of_type, refuse
from tabletrail.core.engine.cell_rulings import FORBID
from tabletrail.core.search.reach import reachable
from tabletrail.events.types import BoardMarked, RulingMade
from tabletrail.projections.audit import cell_rulings
from tabletrail.service.syntax import parse

RULE = "round-meters/difficult"
ROWS = ["#########", "#.......#", "#.......#", "#########"]


def arena() -> str:
    """ari carries climbing gear (a tag), bo does not, cyn is named by the ruling below."""
    return f"""
[encounter]
name = "cliff path"
ruleset = "round-meters"
seed = 3
initiative = ["ari", "bo", "cyn"]
{grid(ROWS)}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]
movement = 6
ap = 3
tags = ["climbing-gear"]
[[fighters]]
id = "bo"
side = "blue"
at = [1, 2]
movement = 6
ap = 3
[[fighters]]
id = "cyn"
side = "red"
at = [7, 2]
movement = 6
ap = 3
"""


def ruled():
    enc = encounter(arena())
    do(enc, f"forbid 3,1 3,2 rule={RULE} except=climbing-gear,cyn why='a sheer rock face'")
    return enc


def test_except_names_who_may_cross_and_is_kept_in_the_ruling():
    enc = encounter(arena())
    events = do(enc, f"forbid 3,1 3,2 rule={RULE} except=climbing-gear,cyn why='a sheer rock face'")
    (mark,) = of_type(events, BoardMarked)
    assert mark.value == [
        [3, 1, RULE, "a sheer rock face", ["climbing-gear", "cyn"]],
        [3, 2, RULE, "a sheer rock face", ["climbing-gear", "cyn"]],
    ]
    assert of_type(events, RulingMade)[0].detail["except"] == ["climbing-gear", "cyn"]
    assert "except climbing-gear, cyn" in mark.note
    assert cell_rulings(enc.state)[0]["except"] == ["climbing-gear", "cyn"]
    assert parse("forbid 3,1 except=a,b why=x").exempt == ("a", "b")


def test_a_fighter_with_the_equipment_tag_crosses():
    enc = ruled()
    do(enc, "move ari 5,1")
    assert enc.state.fighter("ari").pos[:2] == (5, 1)


def test_a_fighter_without_it_is_refused_citing_the_ruling():
    enc = ruled()
    do(enc, "end-turn")
    r = refuse(enc, "move bo 5,2", RULE)
    assert "3,2" in r.reason and "sheer rock face" in r.reason


def test_a_fighter_named_by_id_crosses():
    enc = ruled()
    do(enc, "end-turn")
    do(enc, "end-turn")
    do(enc, "move cyn 2,2")  # straight through the ruled cell 3,2
    assert enc.state.fighter("cyn").pos[:2] == (2, 2)


def test_the_reachable_area_follows_the_exemption():
    enc = ruled()
    assert (3, 1) in reachable(enc.state, "ari")
    assert (3, 2) not in reachable(enc.state, "bo") and (3, 1) not in reachable(enc.state, "bo")


def test_a_forbid_without_except_keeps_the_old_four_item_entries():
    enc = encounter(arena())
    do(enc, "forbid 3,1 why=x")
    assert enc.state.marks[FORBID] == [[3, 1, "tabletrail/gm-ruling", "x"]]
    refuse(enc, "move ari 5,1", "tabletrail/gm-ruling")


def test_an_empty_exemption_is_refused():
    enc = encounter(arena())
    refuse(enc, "forbid 3,1 except=' ' why=x", "tabletrail/gm-ruling")


def test_an_invasion_and_a_dive_honour_the_exemption_under_ap_squares():
    from support_ap_squares import game

    enc = game("ari blue 1,1 ap=10 tags=climbing-gear", "bo red 3,1 ap=10")
    do(enc, "forbid 3,1 2,2 except=climbing-gear why='loose scree'")
    do(enc, "area-effect 1,1 damage=4")
    do(enc, "reflexive-leap ari to=2,2 roll=18 by=blue")  # the dive may land on the exempt square
    assert enc.state.fighter("ari").pos[:2] == (2, 2)


def test_a_log_written_before_forbid_took_except_still_verifies(capsys, tmp_path):
    """events/upcast.py: "a new field with a default needs no new version"; the golden log's forbid
    line has no `exempt` key, and verify must still find it as the engine writes it.

    One rule was corrected since the golden log was written, before its forbid line: a speed-meters
    `adjust` now keeps the GM's meters for the next Movement (a `given` mark its batch did not
    record). verify names that line and the correction (core/board/corrections.py) and checks the rest;
    with the mark put in, as today's engine writes that batch, the rest verifies, forbid included.
    """
    import json
    from pathlib import Path

    from support import rechain
    from tabletrail.cli import main

    golden = Path(__file__).resolve().parents[1] / "golden" / "golden.jsonl"
    lines = golden.read_bytes().splitlines()
    assert b'"cmd":"forbid"' in golden.read_bytes() and b"exempt" not in golden.read_bytes()
    assert main(["verify", str(golden)]) == 1
    out = capsys.readouterr().out
    assert "FAILED at line/seq 41 (corrected): batch 12 ('adjust cyn 1" in out
    assert "decided under 0.1; speed-meters `adjust` has given meters to the next Movement since 0.2" in out
    assert "cyn's next Movement has 1 m more movement" in out

    head = json.loads(lines[37])  # the adjust batch's first line: it announces 3 records, now 4
    assert head["event"]["command"]["cmd"] == "adjust"
    head["size"] = 4
    given = {"type": "marked", "fighter": "cyn", "key": "given", "value": {"movement": 100}}
    mark = {**head, "event": {**given, "rules": ["tabletrail/gm-ruling"], "note": ""}}
    mark.pop("size")
    today = [*lines[:37], json.dumps(head).encode(), *lines[38:40], json.dumps(mark).encode(), *lines[40:]]
    copy = tmp_path / "golden.jsonl"
    copy.write_bytes(b"".join(line + b"\n" for line in rechain(today)))
    assert main(["verify", str(copy)]) == 0, capsys.readouterr().out
