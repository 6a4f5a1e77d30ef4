"""GM rulings `join` and `leave`: a fighter brought into the fight and one taken out, under every ruleset.

Both are rulings (tabletrail/gm-ruling): only the GM, always with a reason, one batch undone whole,
re-decided by `verify`. A newcomer is read as a scenario's [[fighters]] table is and checked against
the ruleset's own stats; it takes a place in the turn order (last by default, or after a fighter).
A fighter leaving passes its turn on as end-turn would, lets go of its holds, and leaves board and order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import do, encounter, of_type, refuse
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.types import (
    FighterJoined,
    FighterLeft,
    OrderChanged,
    RulingMade,
    TurnStarted,
    Unlinked,
)
from tabletrail.projections.audit import explain, verify_lines
from tabletrail.service.syntax import parse
from tabletrail.text.render import describe

from tests.rulesets.initiative_yards.test_rules import duel, engagement
from tests.rulesets.speed_meters.test_forces import brawl

ROOT = Path(__file__).resolve().parents[2]
RULING = "tabletrail/gm-ruling"
SHIPPED = {
    "initiative-yards": "initiative-yards-cellar.toml",
    "round-meters": "round-meters-ambush.toml",
    "ap-squares": "ap-squares-derelict.toml",
    "speed-meters": "speed-meters-brawl.toml",
}


def shipped(ruleset: str):
    return encounter((ROOT / "scenarios" / SHIPPED[ruleset]).read_text())


def free_cell(enc) -> tuple[int, int]:
    """A floor cell nobody stands on, near the top left."""
    grid = enc.state.grid
    for y in range(grid.height):
        for x in range(grid.width):
            if not grid.blocked(x, y) and not enc.state.at(x, y) and grid.kind(x, y).terrain == "floor":
                return x, y
    raise AssertionError("no free floor cell")


def needed_stats(ruleset: str) -> str:
    """Every stat the ruleset needs given (5 each), as the command writes them."""
    rs = get_ruleset(ruleset)
    return ",".join(f"{s.name}:5" for s in rs.stats if s.default is None)


def join_text(enc, ruleset: str, fid: str = "gob", extra: str = "") -> str:
    x, y = free_cell(enc)
    stats = needed_stats(ruleset)
    given = f"stats={stats}" if stats else ""
    return f"join {fid} {x},{y} side=red name=Gob {given} {extra} why='the door bursts open'"


def verified(enc) -> None:
    report = verify_lines(enc.store.lines)
    assert report["ok"], report["finding"]


@pytest.mark.parametrize("ruleset", sorted(SHIPPED))
def test_a_newcomer_stands_on_its_cell_acts_last_and_gets_its_turn(ruleset: str):
    enc = shipped(ruleset)
    x, y = free_cell(enc)
    before = enc.state.turn.order
    events = do(enc, join_text(enc, ruleset))
    (ruling,) = of_type(events, RulingMade)
    assert ruling.kind == "join" and ruling.by == "gm" and ruling.why == "the door bursts open"
    (joined,) = of_type(events, FighterJoined)
    gob = enc.state.fighter("gob")
    assert gob is not None and gob.name == "Gob" and gob.side == "red" and gob.pos[:2] == (x, y)
    assert gob.pos[2] == enc.state.grid.top[y][x]  # on the ground, as a scenario's fighter stands
    assert enc.state.turn.order == (*before, "gob")
    assert enc.state.turn.active == before[enc.state.turn.index]  # whose turn it is does not change
    assert describe(joined, get_ruleset(ruleset)).startswith(f"Gob (red) joins the fight at {x},{y}")
    # it gets its turn when the order comes to it
    started = []
    for _ in range(4 * len(enc.state.turn.order)):
        started += [e.fighter for e in of_type(do(enc, "end-turn"), TurnStarted)]
        if "gob" in started:
            break
    assert "gob" in started
    verified(enc)


@pytest.mark.parametrize("ruleset", sorted(SHIPPED))
def test_undoing_a_join_takes_the_newcomer_off_the_board_and_out_of_the_order(ruleset: str):
    enc = shipped(ruleset)
    order = enc.state.turn.order
    do(enc, join_text(enc, ruleset))
    do(enc, "undo")
    assert enc.state.fighter("gob") is None and enc.state.turn.order == order
    do(enc, "redo")
    assert enc.state.fighter("gob") is not None
    verified(enc)


@pytest.mark.parametrize("ruleset", sorted(SHIPPED))
def test_the_acting_fighter_leaves_and_the_turn_passes_on(ruleset: str):
    enc = shipped(ruleset)
    active = enc.state.turn.active
    events = do(enc, f"leave {active} why='flees down the stairs'")
    assert of_type(events, RulingMade)[0].kind == "leave"
    assert [e.fighter for e in of_type(events, FighterLeft)] == [active]
    assert enc.state.fighter(active) is None and active not in enc.state.turn.order
    assert enc.state.turn.active in enc.state.turn.order and of_type(events, TurnStarted)
    assert of_type(events, OrderChanged)[-1].order == enc.state.turn.order
    # the rest play on: a whole round goes by without it
    for _ in range(len(enc.state.turn.order) + 1):
        assert active not in [e.fighter for e in of_type(do(enc, "end-turn"), TurnStarted)]
    verified(enc)


@pytest.mark.parametrize("ruleset", sorted(SHIPPED))
def test_a_fighter_not_acting_leaves_and_undo_brings_it_back_where_it_stood(ruleset: str):
    enc = shipped(ruleset)
    order, active = enc.state.turn.order, enc.state.turn.active
    other = next(f for f in order if f != active)
    where = enc.state.fighter(other).pos
    do(enc, f"leave {other} why='knocked out'")
    assert enc.state.fighter(other) is None and enc.state.turn.active == active
    assert enc.state.turn.order == tuple(f for f in order if f != other)
    do(enc, "undo")
    assert enc.state.fighter(other).pos == where and enc.state.turn.order == order
    verified(enc)


def test_a_newcomer_after_a_fighter_acts_right_after_it():
    enc = shipped("initiative-yards")  # ari, kel
    do(enc, join_text(enc, "initiative-yards", extra="after=ari"))
    assert enc.state.turn.order == ("ari", "gob", "kel")
    events = do(enc, "end-turn")
    assert of_type(events, TurnStarted)[0].fighter == "gob"


# --- refused, with the field named, and nothing appended --------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        ("join gob 0,0 side=red stats=initiative:6,height:1.8 by=blue why=x", "only the GM"),
        ("join gob 0,0 side=red stats=initiative:6,height:1.8", "must say why"),
        ("join gob 0,0 side=red stats=height:1.8 why=x", "join: stats: missing stat 'initiative'"),
        (
            "join gob 0,0 side=red stats=initiative:-6,height:1.8 why=x",
            "join: stats.initiative: must not be negative",
        ),
        (
            "join gob 0,0 side=red stats=initiative:6,height:1.8,wings:2 why=x",
            "join: stats.wings: initiative-yards has no stat",
        ),
        ("join gob 0,0 side=red stats=initiative why=x", "join: stats: write each stat as name:value"),
        (
            "join gob 0,0 side=red stats=height:1.8,initiative:lots why=x",
            "join: stats.initiative: expected a number",
        ),
        ("join gob 2,2 side=red stats=initiative:6,height:1.8 why=x", "join: at: 2,2 is taken by Ari"),
        ("join gob 40,0 side=red stats=initiative:6,height:1.8 why=x", "join: at: 40,0 is off the 10x6 map"),
        (
            "join ari 0,0 side=red stats=initiative:6,height:1.8 why=x",
            "join: fighter: 'ari' is already the id of Ari",
        ),
        ("join g@b 0,0 side=red stats=initiative:6,height:1.8 why=x", "join: fighter: use letters"),
        ("join gob 0,0 side=watcher stats=initiative:6,height:1.8 why=x", "join: side:"),
        (
            "join gob 0,0 side=red size=colossal stats=initiative:6,height:1.8 why=x",
            "join: size: unknown size",
        ),
        (
            "join gob 0,0 side=red stats=initiative:6,height:1.8 after=zed why=x",
            "join: after: 'zed' is not in the turn order",
        ),
        ("leave zed why=x", "no fighter"),
        ("leave ari", "must say why"),
    ],
)
def test_a_wrong_join_or_leave_is_refused_naming_the_field(text: str, words: str):
    enc = shipped("initiative-yards")
    result = refuse(enc, text, RULING if "no fighter" not in words else "tabletrail/fighter")
    assert words in result.reason, result.reason
    assert "\n" not in result.reason


def test_a_newcomer_is_refused_inside_a_wall():
    enc = shipped("ap-squares")
    grid = enc.state.grid
    x, y = next((x, y) for y in range(grid.height) for x in range(grid.width) if grid.blocked(x, y))
    result = refuse(enc, f"join gob {x},{y} side=red why=x", RULING)
    assert result.reason.startswith(f"join: at: {x},{y} is ")


def test_the_last_fighter_cannot_leave():
    enc = shipped("initiative-yards")
    do(enc, "leave kel why=gone")
    assert "last fighter" in refuse(enc, "leave ari why=gone", RULING).reason


# --- holds let go ------------------------------------------------------------------------------------


def test_an_engaged_fighter_leaving_frees_its_foe():
    enc = duel()
    do(enc, "move a 10,2")
    assert engagement(enc, "e") == "engaged"
    events = do(enc, "leave a why='carried off'")
    assert [(u.kind, u.a, u.b) for u in of_type(events, Unlinked)] == [("engaged", "a", "e")]
    assert engagement(enc, "e") == "free" and not enc.state.links
    verified(enc)


def test_a_grabber_leaving_lets_go_of_the_grabbed():
    enc = brawl(a_brawn=2, t_brawn=1)
    do(enc, "grab a t roll=4 roll=2")
    assert "escape" in enc.state.fighter("t").marks
    do(enc, "leave a why='teleported away'")
    t = enc.state.fighter("t")
    assert t.states["grab"] == "free" and "escape" not in t.marks and not enc.state.links
    verified(enc)


def test_a_fighter_a_reaction_waits_on_cannot_leave_until_it_is_settled():
    """ap-squares invade: the mover waits on the occupant's answer; taking the occupant away would
    leave the move waiting for ever."""
    enc = shipped("ap-squares")
    state = enc.state
    mover = state.fighter(state.turn.active)
    foe = next(f for f in state.fighters if f.side != mover.side and f.marks.get("object") is None)
    # stand the foe next to the mover by hand, then walk into its square
    x, y = mover.pos[0], mover.pos[1]
    spot = next(
        (x + dx, y + dy)
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        if state.grid.inside(x + dx, y + dy)
        and not state.grid.blocked(x + dx, y + dy)
        and not state.at(x + dx, y + dy)
    )
    do(enc, f"place {foe.id} {spot[0]},{spot[1]} why=setup")
    do(enc, f"move {mover.id} {spot[0]},{spot[1]}")
    assert any("invading" in f.marks for f in enc.state.fighters)
    # the ruleset's own gate answers first (nothing is taken until the occupant answers)
    result = refuse(enc, f"leave {foe.id} why=gone", "ap-squares/invade")
    assert f"{foe.id} must answer first" in result.reason
    do(enc, f"react-invasion {foe.id} allow by={foe.side}")
    do(enc, f"leave {foe.id} why=gone")
    verified(enc)


def test_a_fighter_a_strike_awaits_cannot_leave_until_the_strike_is_resolved():
    """initiative-yards engage-break: a Strike's mark names its target until the table resolves it;
    the target leaving first would leave the engagement unresolvable."""
    enc = duel()
    do(enc, "move a 10,2")
    do(enc, "act a strike target=e")
    reason = refuse(enc, "leave e why=gone", RULING).reason
    assert "a waits on e (striking)" in reason
    do(enc, "resolve a e outcome=miss")
    do(enc, "leave e why=gone")
    verified(enc)


def test_the_ruling_is_explained_and_parsed_from_the_tables_words():
    enc = shipped("round-meters")
    text = join_text(enc, "round-meters")
    command = parse(text)
    assert type(command).__struct_config__.tag == "join"
    do(enc, text)
    seq = next(r.seq for r in enc.records if isinstance(r.event, FighterJoined))
    out = explain(enc.records, seq)
    assert "the GM brings Gob (red) into the fight" in str(out)


# --- the command line ----------------------------------------------------------------------------------


def test_join_and_leave_from_the_command_line_one_json_document_each(tmp_path: Path, capsys):
    from tests.cli.test_syntax import new, run

    log = new(capsys, tmp_path / "f.jsonl", ROOT / "scenarios" / SHIPPED["initiative-yards"])
    before = log.read_bytes()
    code, out, err = run(
        capsys, "do", log, "join", "gob", "40,1", "side=red", "stats=initiative:5,height:1.5", "why=x"
    )
    assert code == 1 and err.strip() == "refused by tabletrail/gm-ruling: join: at: 40,1 is off the 10x6 map"
    code, out, _ = run(
        capsys, "do", log, "join", "gob", "40,1", "side=red", "stats=initiative:5", "why=x", "--json"
    )
    doc = json.loads(out)
    assert code == 1 and doc["kind"] == "refused" and doc["data"]["reason"].startswith("join: at: 40,1")
    assert log.read_bytes() == before
    words = [
        "join",
        "gob",
        "0,0",
        "side=red",
        "name=Gob",
        "stats=initiative:5,height:1.5",
        "why=reinforcements",
    ]
    code, out, _ = run(capsys, "do", log, *words, "--json")
    assert code == 0 and json.loads(out)["kind"] == "appended"
    code, out, _ = run(capsys, "do", log, "leave", "gob", "why=fled", "--json")
    assert code == 0 and json.loads(out)["kind"] == "appended"
    code, out, _ = run(capsys, "log", log)
    assert "Gob (red) joins the fight at 0,0" in out and "gob leaves the fight" in out
    code, out, _ = run(capsys, "verify", log)
    assert code == 0 and "join by gm: reinforcements" in out and "leave by gm: fled" in out
