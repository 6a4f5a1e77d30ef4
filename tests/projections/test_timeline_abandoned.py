"""An `Abandoned` fact may only cut off batches on the redo stack (the fold refuses any other).

A new command after an undo records the redo stack it ends; a line naming a batch that was never
undone (one still in force, one that never was, or a number past any batch) is not something
tabletrail writes, and folding it would leave a timeline whose undo and snapshots disagree with
the log. Each verb says which line, in one sentence, and changes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import forged_replay
from tabletrail.cli import main

ROOT = Path(__file__).resolve().parents[2]
CELLAR = ROOT / "replays" / "initiative-yards-cellar.jsonl"


def forged_cellar(tmp_path: Path, batches: list[int]) -> tuple[Path, int]:
    """The cellar replay with its abandon line naming `batches`, re-chained; and that line's number."""
    return forged_replay(CELLAR, tmp_path, "abandoned", "batches", batches)


def test_the_shipped_abandon_names_the_batch_it_cut_off():
    lines = [json.loads(line) for line in CELLAR.read_bytes().splitlines()]
    undone = {line["event"]["batch"] for line in lines if line["event"]["type"] == "undone"}
    (abandon,) = [line for line in lines if line["event"]["type"] == "abandoned"]
    assert set(abandon["event"]["batches"]) <= undone


@pytest.mark.parametrize("batches", [[2], [11, 12], [99], [2**63], [2**70]])
@pytest.mark.parametrize("verb", ["show", "replay", "log"])
def test_an_abandon_of_a_batch_never_undone_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], batches: list[int], verb: str
):
    path, line = forged_cellar(tmp_path, batches)
    before = path.read_bytes()
    code = main([verb, str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == 2, out + err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert f":{line}" in err and "is not an undone batch" in err, err
    assert path.read_bytes() == before


def test_export_of_such_a_log_refuses_it_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path, line = forged_cellar(tmp_path, [2**63])
    target = tmp_path / "copy.jsonl"
    code = main(["export", str(path), str(target), "--snapshot-every", "5"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == 2, out + err
    assert f":{line}" in err and "is not an undone batch" in err, err
    assert not target.exists()
