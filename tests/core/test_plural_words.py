"""Counts in notes and refusals agree with their nouns: `3 actions`, `1 action`, never `action(s)`.

A note is written once into the log and read at the table for as long as the log lives,
so it is checked where it is made: in the events `do` appends.
"""

from __future__ import annotations

from pathlib import Path

from tabletrail.cli import main
from tabletrail.core.board.units import plural

ROOT = Path(__file__).resolve().parents[2]
SKIRMISH = ROOT / "scenarios" / "speed-meters-skirmish.toml"


def test_plural_agrees_with_its_count():
    assert [plural(n, "action") for n in (0, 1, 2)] == ["0 actions", "1 action", "2 actions"]
    assert plural(1.5, "meter") == "1.5 meters" and plural(2, "AP", "AP") == "2 AP"


def test_speed_meters_movement_actions_left_are_counted_in_words(tmp_path: Path, capsys):
    log = tmp_path / "fight.jsonl"
    assert main(["new", str(SKIRMISH), "--log", str(log)]) == 0
    for cell in ("2,2", "3,2", "4,2"):  # three Movement actions of the four a turn has
        assert main(["do", str(log), "move", "ari", cell]) == 0
    out = capsys.readouterr().out
    for left in ("3 actions left after it", "2 actions left after it", "1 action left after it"):
        assert left in out, left
    assert "(s)" not in out and log.read_text().count("(s)") == 0


def test_unused_table_rolls_are_counted_in_words(tmp_path: Path, capsys):
    log = tmp_path / "fight.jsonl"
    assert main(["new", str(SKIRMISH), "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["do", str(log), "move", "ari", "2,2", "roll=3"]) != 0
    err = capsys.readouterr().err
    assert "1 table roll given but only 0 checks happened" in err and "(s)" not in err


def test_state_changes_read_as_what_happened_not_as_machine_states(tmp_path: Path, capsys):
    """`log` said "ari's turn: acting -> done (finish)"; the table reads what happened to whom."""
    log = tmp_path / "fight.jsonl"
    assert main(["new", str(SKIRMISH), "--log", str(log)]) == 0
    assert main(["do", str(log), "drop-prone", "ari"]) == 0
    assert main(["do", str(log), "end-turn"]) == 0
    capsys.readouterr()
    assert main(["log", str(log)]) == 0
    out = capsys.readouterr().out
    for said in ("ari is acting", "ari drops prone", "ari has had its turn", "bo is acting"):
        assert said in out, said
    assert "->" not in out and "(finish)" not in out


def test_every_mark_in_the_shipped_replays_reads_in_words(capsys):
    """A mark without its own sentence read as its key: `ari: slip_checked yes`."""
    from tabletrail.core.engine.registry import get as get_ruleset
    from tabletrail.events.stores.jsonl import JsonlStore
    from tabletrail.events.types import Marked
    from tabletrail.service.encounter import Encounter
    from tabletrail.text.render import Words

    for replay in sorted((ROOT / "replays").glob("*.jsonl")):
        enc = Encounter.open(JsonlStore(replay))
        w = Words(get_ruleset(enc.state.ruleset))
        for r in enc.records:
            if isinstance(r.event, Marked):
                said = w.event(r.event)
                where = f"{replay.name}:{r.seq}: {said}"
                assert "_" not in said and f"{r.event.fighter}: " not in said, where


def test_a_posture_change_says_which_action_it_spends(tmp_path: Path, capsys):
    log = tmp_path / "fight.jsonl"
    assert main(["new", str(SKIRMISH), "--log", str(log)]) == 0
    assert main(["do", str(log), "drop-prone", "ari"]) == 0
    assert "a drop-prone action (3 actions left after it)" in capsys.readouterr().out
