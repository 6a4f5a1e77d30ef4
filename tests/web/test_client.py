"""tabletrail.client against a real `tabletrail serve` process (issue 30, item 6).

What a bot or a VTT bridge would do: join with the link the GM gives, read the board, preview and
do a command, follow the live stream, undo; and the server's refusals reach it as answers or as
one-line errors, never as a traceback.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tabletrail.cli import main
from tabletrail.client import ClientError, Table, read_stream

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str, str]]:
    """A log served by a real `tabletrail serve` child: (log, base url, the GM link it printed)."""
    log = tmp_path / "fight.jsonl"
    assert main(["new", str(SCENARIO), "--log", str(log)]) == 0
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", "tabletrail", "serve", str(log), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert child.stdout is not None
        gm = ""
        for line in child.stdout:  # the server prints its GM link once it is about to listen
            found = re.search(r"(http://\S+/join/\S+)", line)
            if "GM link" in line and found:
                gm = found.group(1)
                break
        assert gm, "serve printed no GM link"
        table = Table.join(gm)
        for _ in range(100):  # until it answers
            try:
                table.me()
                break
            except ClientError:
                threading.Event().wait(0.05)
        yield log, f"http://127.0.0.1:{port}", gm
    finally:
        child.terminate()
        child.wait(timeout=10)


def player_link(log: Path, base: str, side: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "tabletrail", "invite", str(log), "--side", side, "--url", base],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.splitlines()[0]


def test_a_bot_joins_reads_previews_does_follows_and_undoes(served: tuple[Path, str, str]):
    log, base, gm_link = served
    blue = Table.join(player_link(log, base, "blue"))
    assert blue.me().role == "blue" and not blue.me().gm

    board = blue.board()
    ari = next(f for f in board["fighters"] if f["id"] == "ari")
    assert ari["pos"][:2] == [1, 1]
    version = board["version"]

    look = blue.preview("move ari 3,1")
    assert look.ok, look.raw
    assert len(log.read_bytes().splitlines()) == version, "a preview appends nothing"

    done = blue.do("move ari 3,1", version=version)
    assert done.ok and done.version is not None and done.version > version
    assert len(log.read_bytes().splitlines()) == done.version
    assert next(f for f in blue.board()["fighters"] if f["id"] == "ari")["pos"][:2] == [3, 1]

    # The stream, resumed from the version the bot saw before its move, tells it of that move once.
    updates = [u for u in blue.follow(seconds=0.5, last=version) if u.event == "version"]
    assert [u.version for u in updates] == [done.version]

    gm = Table.join(gm_link)
    assert gm.me().gm
    undone = gm.undo(why="the bot's test")
    assert undone.ok
    assert next(f for f in gm.board()["fighters"] if f["id"] == "ari")["pos"][:2] == [1, 1]
    assert gm.explain(done.version)["seq"] == done.version


def test_refusals_reach_the_client_as_answers_and_mistakes_as_one_line_errors(served: tuple[Path, str, str]):
    log, base, _ = served
    red = Table.join(player_link(log, base, "red"))
    before = log.read_bytes()

    with pytest.raises(ClientError) as not_yours:  # blue's fighter: not red's to move
        red.do("move ari 3,1")
    assert not_yours.value.status == 403 and "blue" in not_yours.value.message

    too_far = Table.join(player_link(log, base, "blue")).do("move ari 10,6")  # refused by a rule: an answer
    assert not too_far.ok and too_far.rule and too_far.message, too_far.raw
    assert log.read_bytes() == before, "a refusal appends nothing"

    with pytest.raises(ClientError) as bad:
        Table(base, "tt1.not-a-token").board()
    assert bad.value.status == 401

    with pytest.raises(ClientError) as gone:
        Table("http://127.0.0.1:9", "x").board()  # nothing listens there
    assert gone.value.status == 0 and "can't reach" in str(gone.value)


def test_join_refuses_what_is_not_a_table_link():
    for link in ("http://example.invalid/", "ftp://host/join/abc", "not a link"):
        with pytest.raises(ClientError, match="expected a table link"):
            Table.join(link)
    table = Table.join("http://10.0.0.5:8000/e/cellar/join/tt1.abc")
    assert (table.base, table.token) == ("http://10.0.0.5:8000/e/cellar", "tt1.abc")


def test_the_stream_reader_reads_events_data_and_ids_and_skips_comments():
    raw = [
        b"retry: 300\n",
        b"\n",
        b": still here\n",
        b"\n",
        b"id: 7\n",
        b"event: version\n",
        b'data: {"version": 7}\n',
        b"\n",
        b"event: denied\n",
        b'data: {"status": 401, "message": "revoked"}\n',
        b"\n",
    ]
    got = list(read_stream(raw))
    assert [(u.event, u.version, u.id) for u in got] == [("version", 7, "7"), ("denied", None, "7")]
    assert got[1].data["message"] == "revoked"
