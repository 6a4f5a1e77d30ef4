"""Issue 13, item 5: a torn JSONL tail no longer blocks every writer.

"A torn tail is by construction unacknowledged: the next writer truncates it
automatically (keeping the cut bytes in LOG.torn-<time> and saying so once),
as SQLite's WAL rolls back by itself."
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from support_store import END_TURN, clock, fresh, play
from tabletrail.cli import main
from tabletrail.events.errors import InputError
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.tail import cut_crash_tail
from tabletrail.service.encounter import Encounter


@pytest.fixture
def log(tmp_path: Path) -> Path:
    enc = fresh(JsonlStore(tmp_path / "fight.jsonl"))
    play(enc, 30, seed=3)
    return tmp_path / "fight.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def batches(path: Path) -> list[int]:
    """The byte offsets where each batch ends."""
    enc = Encounter.open(JsonlStore(path))
    data = path.read_bytes().split(b"\n")
    ends, offset = [], 0
    for n, r in enumerate(enc.records):
        offset += len(data[n]) + 1
        if n + 1 == len(enc.records) or enc.records[n + 1].batch != r.batch:
            ends.append(offset)
    return ends


def test_the_next_writer_cuts_a_torn_tail_keeps_it_and_says_so_once(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    whole = log.read_bytes()
    with log.open("ab") as fh:
        fh.write(b'{"seq":999,"batch":77,"actor":"gm","at":"x","prev":"ab')  # a writer died mid-line
    code, out, err = run(capsys, "do", log, "end-turn")
    assert code == 0, err
    assert err.count("warning:") == 1 and "cut, and kept in fight.jsonl.torn-" in err
    kept = list(log.parent.glob("fight.jsonl.torn-*"))
    assert len(kept) == 1 and kept[0].read_bytes().startswith(b'{"seq":999')
    enc = Encounter.open(JsonlStore(log))
    assert log.read_bytes().startswith(whole)  # every acknowledged byte is still there
    assert len(enc.records) > len(whole.splitlines())
    code, _, err = run(capsys, "show", log)
    assert code == 0 and "warning" not in err  # said once: the tail is gone


@pytest.mark.parametrize("verb", [["show"], ["log"], ["undo"], ["do", "end-turn"]])
def test_every_verb_opens_a_log_cut_mid_batch(log: Path, capsys: pytest.CaptureFixture[str], verb: list[str]):
    ends = batches(log)
    data = log.read_bytes()
    log.write_bytes(data[: ends[-2] + (ends[-1] - ends[-2]) // 2])  # half of the last batch
    code, _, err = run(capsys, verb[0], log, *verb[1:])
    assert code == 0, err
    assert "a crash left" in err
    assert log.read_bytes()[: ends[-2]] == data[: ends[-2]]


def test_whole_lines_of_a_short_batch_go_with_the_torn_line():
    data = Path(__file__).parents[1].joinpath("golden").joinpath("golden.jsonl").read_bytes()
    lines = data.split(b"\n")[:-1]
    enc = Encounter.open(JsonlStore(Path(__file__).parents[1].joinpath("golden") / "golden.jsonl"))
    last = enc.records[-1].batch
    head = next(r for r in enc.records if r.batch == last)
    if head.size < 2:
        pytest.skip("the golden log ends with a one-record batch")
    start = sum(len(line) + 1 for line in lines[: head.seq - 1])
    cut = data[: start + len(lines[head.seq - 1]) + 1 + 5]  # its first line whole, 5 bytes of the next
    found = cut_crash_tail(cut)
    assert found is not None and found[0] == start and "1 record of batch" in found[1]


def test_blank_lines_an_editor_left_are_not_cut_without_repair(log: Path):
    log.write_bytes(log.read_bytes() + b"\n\n")
    assert cut_crash_tail(log.read_bytes()) is None
    with pytest.raises(InputError):
        Encounter.open(JsonlStore(log, heal=True))


def test_repair_dry_run_and_verify_look_without_cutting(log: Path, capsys: pytest.CaptureFixture[str]):
    data = log.read_bytes()
    log.write_bytes(data[:-7])
    torn = log.read_bytes()
    assert run(capsys, "repair", log, "--dry-run")[0] == 0
    assert run(capsys, "verify", log)[0] == 1
    assert log.read_bytes() == torn and not list(log.parent.glob("*.torn-*"))


def test_a_read_only_log_with_a_torn_tail_still_opens_its_whole_batches(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    if os.geteuid() == 0:
        pytest.skip("root writes through file modes")
    log.write_bytes(log.read_bytes()[:-7])
    log.chmod(0o444)
    code, _, err = run(capsys, "show", log)
    assert code == 2 and "torn" in err


def test_a_writer_killed_mid_write_leaves_a_tail_the_next_writer_cuts(tmp_path: Path):
    """A real SIGKILL: a child appends acknowledged batches until killed; nothing acknowledged is lost."""
    path = tmp_path / "kill.jsonl"
    fresh(JsonlStore(path))
    acked: list[str] = []
    for round_ in range(12):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.close(r)
            try:
                enc = Encounter.open(JsonlStore(path, heal=True), clock=clock)
                for n in range(10_000):
                    cid = f"{round_}-{n}"
                    enc.execute(END_TURN, "end-turn", command_id=cid)
                    os.write(w, cid.encode() + b"\n")
            finally:
                os._exit(0)
        os.close(w)
        time.sleep(0.01 + 0.007 * round_)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        with os.fdopen(r, "rb") as fh:
            acked += fh.read().decode().split()
        enc = Encounter.open(JsonlStore(path, heal=True), clock=clock)  # opens, cutting any torn tail
        ids = {rec.command_id for rec in enc.records if rec.command_id}
        assert set(acked) <= ids
        enc.execute(END_TURN, "end-turn", command_id=f"after-{round_}")  # and is writable again
        acked.append(f"after-{round_}")
    assert acked


def test_a_batch_the_kept_tip_acknowledges_is_never_cut_as_a_crash_tail(log: Path, capsys):
    """A crash can't leave a batch short of its records *and* a tip that counts them: the tip is
    moved after the append. So a last line deleted by hand is damage to report, not a tail to heal."""
    assert run(capsys, "do", log, "end-turn")[0] == 0
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]))  # the last whole line of an acknowledged batch, gone
    damaged = log.read_bytes()
    code, _, err = run(capsys, "log", log)
    assert code == 2 and "holds" in err and "records its first line announces" in err
    assert log.read_bytes() == damaged and not list(log.parent.glob("*.torn-*"))
    code, out, _ = run(capsys, "verify", log)
    assert code == 1 and f"FAILED at line/seq {len(lines) - 1} (tip)" in out
