"""JSON Lines hardening (issue 8): a crash's torn tail is found, named, opened around, and repaired.

"A torn last line after a crash is detected when the log is opened; the message
names the byte offset; the committed prefix still opens read-only; `tabletrail
repair LOG` truncates only the torn tail, after keeping a backup."
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support_store import END_TURN, clock, fresh, play, timeline_of
from tabletrail.cli import main
from tabletrail.events.errors import InputError
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.tail import TornTail
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter


@pytest.fixture
def log(tmp_path: Path) -> Path:
    enc = fresh(JsonlStore(tmp_path / "fight.jsonl"))
    play(enc, 40, seed=6)
    return tmp_path / "fight.jsonl"


def cut_after(path: Path, keep: int) -> bytes:
    """Leave only the first `keep` bytes, as a crash in the middle of a write would."""
    data = path.read_bytes()
    path.write_bytes(data[:keep])
    return data


def last_batch_start(path: Path) -> int:
    """The byte where the log's last batch begins."""
    enc = Encounter.open(JsonlStore(path))
    head = next(r for r in enc.records if r.batch == enc.records[-1].batch)
    return sum(len(line) + 1 for line in path.read_bytes().split(b"\n")[: head.seq - 1])


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_torn_last_line_is_named_with_its_byte_offset(log: Path):
    data = log.read_bytes()
    whole = data.rstrip(b"\n").rfind(b"\n") + 1  # where the last line begins
    cut_after(log, len(data) - 7)
    with pytest.raises(TornTail) as caught:
        Encounter.open(JsonlStore(log))
    torn = caught.value
    assert (torn.offset, torn.size) == (whole, len(data) - 7)
    message = str(torn)
    assert f"{log}: the last line is torn" in message
    assert f"the {len(data) - 7 - whole} bytes from byte {whole} have no newline" in message
    assert f"the {len(data[:whole].splitlines())} whole lines before byte {whole}" in message
    assert f"tabletrail repair {log}" in message


def test_the_committed_prefix_opens_read_only(log: Path):
    whole = last_batch_start(log)  # the crash tore the first line of the last batch
    data = cut_after(log, whole + 30)
    prefix = log.with_name("prefix.jsonl")
    prefix.write_bytes(data[:whole])
    told: list[str] = []
    enc = Encounter.open(JsonlStore(log, warn=told.append), committed=True, clock=clock)
    assert told == [enc.read_only] and f"the 30 bytes from byte {whole} have no newline" in told[0]
    assert view(enc.state) == view(Encounter.open(JsonlStore(prefix)).state)
    torn = log.read_bytes()
    with pytest.raises(InputError) as caught:
        enc.execute(END_TURN, "end-turn")
    assert "torn" in str(caught.value) and "nothing was appended" in str(caught.value)
    assert log.read_bytes() == torn


def test_a_batch_cut_between_lines_is_found_too(log: Path):
    """A crash can also cut exactly at a newline: the batch's first record says how long it is."""
    lines = log.read_bytes().splitlines(keepends=True)
    enc = Encounter.open(JsonlStore(log))
    last = enc.records[-1].batch
    head = next(r for r in enc.records if r.batch == last)
    assert head.size >= 2, "the fixture ends with a batch of several records"
    log.write_bytes(b"".join(lines[:-1]))
    with pytest.raises(InputError) as caught:
        Encounter.open(JsonlStore(log))
    message = str(caught.value)
    assert message.startswith(f"{log}:{head.seq}: the last batch (batch {last}) holds {head.size - 1} of the")
    opened = Encounter.open(JsonlStore(log), committed=True)
    assert len(opened.records) == head.seq - 1 and opened.read_only
    assert timeline_of(opened) == timeline_of(Encounter.open(JsonlStore(log), upto=head.seq - 1))


def test_repair_cuts_only_the_torn_tail_and_keeps_a_backup(log: Path, capsys: pytest.CaptureFixture[str]):
    whole = last_batch_start(log)
    data = cut_after(log, whole + 11)
    torn = data[: whole + 11]
    enc_before = Encounter.open(JsonlStore(log), committed=True)
    code, out, _ = run(capsys, "repair", log)
    assert code == 0
    assert f"cut {len(torn) - whole} bytes from byte {whole}" in out and "fight.jsonl.bak" in out
    assert log.with_name("fight.jsonl.bak").read_bytes() == torn, "the backup is the file as it was"
    assert log.read_bytes() == data[:whole], "only the torn tail went"
    assert timeline_of(Encounter.open(JsonlStore(log))) == timeline_of(enc_before)


def test_repair_cuts_a_partial_batch_with_its_torn_line(log: Path, capsys: pytest.CaptureFixture[str]):
    enc = Encounter.open(JsonlStore(log))
    head = next(r for r in enc.records if r.batch == enc.records[-1].batch)
    lines = log.read_bytes().splitlines(keepends=True)
    keep = b"".join(lines[: head.seq - 1])
    log.write_bytes(b"".join(lines[:-1]) + lines[-1][:9])
    code, out, _ = run(capsys, "repair", log)
    assert code == 0 and f"batch {head.batch} with {head.size - 1} of its {head.size} records" in out
    assert log.read_bytes() == keep
    assert len(Encounter.open(JsonlStore(log)).records) == head.seq - 1


def test_repair_leaves_a_whole_log_alone(log: Path, capsys: pytest.CaptureFixture[str]):
    data = log.read_bytes()
    code, out, _ = run(capsys, "repair", log)
    assert code == 0 and "nothing to repair" in out
    assert log.read_bytes() == data and not log.with_name("fight.jsonl.bak").exists()


def test_repair_dry_run_shows_the_committed_board_and_changes_nothing(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    data = log.read_bytes()
    cut_after(log, len(data) - 5)
    torn = log.read_bytes()
    code, out, _ = run(capsys, "repair", log, "--dry-run")
    assert code == 0 and "would cut" in out and "open read-only" in out and "round" in out
    assert log.read_bytes() == torn and not log.with_name("fight.jsonl.bak").exists()


def test_a_second_repair_keeps_both_backups(log: Path, capsys: pytest.CaptureFixture[str]):
    for _ in (1, 2):
        data = log.read_bytes()
        cut_after(log, len(data) - 4)
        assert run(capsys, "repair", log)[0] == 0
    assert log.with_name("fight.jsonl.bak").exists() and log.with_name("fight.jsonl.bak.2").exists()


def test_the_cli_cuts_a_torn_tail_before_it_acts(log: Path, capsys: pytest.CaptureFixture[str]):
    """Issue 13 (5): the tail is unacknowledged by construction: the next opener cuts it, once."""
    data = log.read_bytes()
    cut_after(log, len(data) - 2)
    for n, argv in enumerate((["do", log, "end-turn"], ["undo", log], ["show", log])):
        code, _, err = run(capsys, *argv)
        assert code == 0, err
        assert ("torn line" in err and "byte" in err and err.count("\n") == 1) if n == 0 else err == ""
    assert len(list(log.parent.glob("fight.jsonl.torn-*"))) == 1


def test_a_writer_never_appends_after_a_torn_tail(log: Path):
    enc = Encounter.open(JsonlStore(log), clock=clock)
    with log.open("ab") as fh:
        fh.write(b'{"seq":')  # another process died mid-write
    torn = log.read_bytes()
    with pytest.raises(InputError) as caught:
        enc.execute(END_TURN, "end-turn")
    assert "torn" in str(caught.value) and "repair" in str(caught.value)
    assert log.read_bytes() == torn


def test_a_log_whose_newlines_became_crlf_still_opens_and_repairs(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    truth = timeline_of(Encounter.open(JsonlStore(log)))
    data = log.read_bytes()
    whole = last_batch_start(log)
    cut = whole + data[:whole].count(b"\n")  # each line before it grew a \r
    crlf = data.replace(b"\n", b"\r\n")
    log.write_bytes(crlf)
    assert timeline_of(Encounter.open(JsonlStore(log))) == truth
    log.write_bytes(crlf[: cut + 15])  # torn inside the first line of the last batch
    code, out, _ = run(capsys, "repair", log)
    assert code == 0 and f"from byte {cut}" in out
    assert log.read_bytes() == crlf[:cut]
