"""`tabletrail serve LOG --port P [--host H]`: starts the table view, prints its GM link, stops on Ctrl+C."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient
from support_web import bearer, invite, new_log
from tabletrail.cli import main
from tabletrail.web.server import LOCAL_HOSTS, allowed_hosts, create_app


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
        assert proc.stdout is not None
        served = proc.stdout.readline()  # printed before the server starts answering
        link = proc.stdout.readline().strip()
        assert served.startswith(f"serving {log} at http://127.0.0.1:{port}/")
        assert link.startswith(f"GM link (kept across restarts): http://127.0.0.1:{port}/join/tt1.")
        token = link.rsplit("/", 1)[1]
        url = f"http://127.0.0.1:{port}"
        board = None
        for _ in range(100):  # at most ~10 s for the server to come up
            try:
                board = httpx.get(f"{url}/api/state", headers=bearer(token), timeout=1).json()
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert board is not None, "the server did not answer"
        assert board["name"] == "Web test" and board["version"] == len(log.read_bytes().splitlines())
        assert board["me"]["gm"] is True and board["exposed"] is False
        assert httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=5).status_code == 401
        with httpx.stream("GET", f"http://127.0.0.1:{port}/api/stream?token={token}", timeout=5) as live:
            proc.send_signal(signal.SIGINT)  # Ctrl+C while a page is still listening
            assert "event: version" in "".join(live.iter_text())  # the stream ends: the page can go
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "stopped serving" in out
    # The GM link serve printed outlives the run (issue 27: links survive a restart of the server).
    r = TestClient(create_app(log), base_url="http://127.0.0.1:8000").get(f"/join/{token}")
    assert r.status_code == 200


def test_a_host_that_is_no_address_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    log = new_log(tmp_path)
    assert main(["serve", str(log), "--host", "every.where"]) == 2
    assert "--host: 'every.where' is not an address to listen on" in capsys.readouterr().err


def test_listening_beyond_this_machine_answers_its_names_and_the_page_is_told(tmp_path: Path):
    hosts = allowed_hosts("0.0.0.0", ("table.example.org",))
    assert {"127.0.0.1", "localhost", socket.gethostname(), "table.example.org"} <= set(hosts)
    assert allowed_hosts("127.0.0.1") == LOCAL_HOSTS  # on loopback only: loopback names only
    log = new_log(tmp_path)
    app = create_app(log, hosts=hosts, exposed=True)
    c = TestClient(app, base_url="http://table.example.org", headers=bearer(invite(log, "gm")[1]))
    # the GM's page is told (a player's is not: tests/web/test_player_words.py, the exposure warning
    # is the GM's alone)
    assert c.get("/api/me").json() == {**c.get("/api/me").json(), "role": "gm", "exposed": True}
    assert TestClient(app, base_url="http://attacker.example").get("/api/me").status_code == 400
