"""`rules` and the readers, second round (issue 28, item 7).

`rules` names each rule document by its title and number, not by its file name. `show`, `log`
and `replay` of a log whose last line was edited by hand (opening checks every other line
against the next one's hash; only the tip kept beside the log vouches for the last) say so in
one line on stderr, as `verify` would, and still print what they read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tabletrail.cli import main
from tabletrail.core.engine.registry import RULESETS
from tabletrail.events import plugins

from tests.cli.test_shell import new


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_names_each_document_by_its_title_not_its_file(capsys):
    _, out, _ = run(capsys, "rules")
    for rs in map(RULESETS.__getitem__, plugins.built_in()):
        assert rs.document not in out  # "004_1955ec219bb4ca54.txt" means nothing to a reader
    assert (
        'speed-meters: Speed per Movement action, 1 m spaces (rule document 004, "Movement"; cells of 1 m)'
        in out
    )
    assert (
        'ap-squares: Action points per cycle, 1 m squares (rule document 002, "Movement in Ground Combat"'
        in out
    )
    _, out, _ = run(capsys, "rules", "initiative-yards", "--json")
    (data,) = json.loads(out)["data"]
    assert data["document_title"] == 'document 000, "Move"' and data["document"].startswith("000_")


def edited_last_line(tmp_path: Path, capsys) -> Path:
    log = new(tmp_path, "f.jsonl")
    assert main(["do", str(log), "move", "ari", "2,2", "3,2"]) == 0
    capsys.readouterr()
    lines = log.read_bytes().splitlines(keepends=True)
    assert b"[[3,2,0],200," in lines[-1]
    lines[-1] = lines[-1].replace(b"[[3,2,0],200,", b"[[3,2,0],150,")  # a cheaper step, by hand
    log.write_bytes(b"".join(lines))
    return log


@pytest.mark.parametrize("verb", [["show"], ["log"], ["replay"], ["show", "--json"], ["replay", "--json"]])
def test_a_reader_of_a_log_edited_by_hand_says_so_in_one_line(tmp_path, capsys, verb):
    log = edited_last_line(tmp_path, capsys)
    code, out, err = run(capsys, verb[0], log, *verb[1:])
    assert code == 0 and out
    assert err == (
        f"warning: {log}: the hash chain is broken at its end: its last line (line 7) is not the one the tip "
        f"kept beside it vouches for: it was edited; `tabletrail verify {log}` says more\n"
    )
    if "--json" in verb:
        json.loads(out)  # stdout stays one document
    _, verified, _ = run(capsys, "verify", log)
    assert "FAILED" in verified  # the same log verify refuses


def test_a_log_cut_at_a_batch_end_is_said_too(tmp_path, capsys):
    log = new(tmp_path, "f.jsonl")
    assert main(["do", str(log), "move", "ari", "2,2"]) == 0
    capsys.readouterr()
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:4]))  # the move's batch gone, the tip still counting it
    _, _, err = run(capsys, "show", log)
    assert "it holds 4 lines where the tip kept beside it says 7: it was cut" in err and err.count("\n") == 1


def test_a_whole_log_reads_without_a_word_on_stderr(tmp_path, capsys):
    log = new(tmp_path, "f.jsonl")
    assert main(["do", str(log), "move", "ari", "2,2"]) == 0
    capsys.readouterr()
    for verb in ("show", "log", "replay"):
        code, out, err = run(capsys, verb, log)
        assert code == 0 and out and err == ""
    _, _, err = run(capsys, "show", log, "--at", "3")  # a view of the past: the tip is not its end
    assert err == ""
