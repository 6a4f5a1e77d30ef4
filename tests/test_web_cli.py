"""`tabletrail serve LOG --port P`: starts the table view on 127.0.0.1 and stops on Ctrl+C."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from tabletrail.cli import main
from test_web_support import new_log


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serving_a_missing_log_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["serve", str(tmp_path / "nope.jsonl"), "--port", str(free_port())]) == 2
    assert "nope.jsonl: no such log file" in capsys.readouterr().err


def test_a_port_out_of_range_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    log = new_log(tmp_path)
    assert main(["serve", str(log), "--port", "70000"]) == 2
    assert "--port: 70000 is not a port number" in capsys.readouterr().err


def test_the_help_shows_an_example(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "example: tabletrail serve" in capsys.readouterr().out


def test_serve_answers_on_localhost_and_stops_on_ctrl_c(tmp_path: Path):
    log = new_log(tmp_path)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabletrail", "serve", str(log), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        board = None
        for _ in range(100):  # at most ~10 s for the server to come up
            try:
                board = httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=1).json()
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert board is not None, "the server did not answer"
        assert board["name"] == "Web test" and board["version"] == len(log.read_bytes().splitlines())
        with httpx.stream("GET", f"http://127.0.0.1:{port}/api/stream", timeout=5) as live:
            proc.send_signal(signal.SIGINT)  # Ctrl+C while a page is still listening
            assert "event: version" in "".join(live.iter_text())  # the stream ends: the page can go
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert f"serving {log} at http://127.0.0.1:{port}/" in out
