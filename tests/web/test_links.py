"""Links that keep working: `invite` while a server runs prints a link that reaches it, the links
`serve` and `invite` give outlive a restart, a watch link reads and follows but commands nothing,
and a link's QR code decodes back to the link with a real decoder.

The servers here are real `tabletrail serve` processes on a free port.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from support_web import bearer, invite, new_log, records
from tabletrail.cli import main
from tabletrail.web.address import listening, record_path
from tabletrail.web.invites import qr_svg
from tabletrail.web.server import create_app

BASE = "http://127.0.0.1:8000"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(log: Path, port: int) -> Iterator[tuple[str, list[str]]]:
    """A real server of the log on the port: its address and the lines it printed before answering."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabletrail", "serve", str(log), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        assert proc.stdout is not None
        said = [proc.stdout.readline().strip() for _ in range(2)]
        for _ in range(150):  # at most ~15 s for the server to come up
            try:
                httpx.get(f"{url}/", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url, said
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def link_of(line: str) -> str:
    found = re.search(r"http://\S+/join/(tt1\.\S+)", line)
    assert found, line
    return found.group(1)


def me(url: str, token: str) -> httpx.Response:
    return httpx.get(f"{url}/api/me", headers=bearer(token), timeout=5)


def test_invite_while_serving_prints_a_link_that_reaches_the_running_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = new_log(tmp_path, name="web.db")
    port = free_port()  # not the default 8000: the link can only know it from the running server
    with serving(log, port) as (url, _):
        assert listening(log) == url
        assert main(["invite", str(log), "--side", "blue"]) == 0
        printed = capsys.readouterr().out.splitlines()[0]
        assert printed.startswith(f"{url}/join/tt1.")
        assert me(url, link_of(printed)).json()["role"] == "blue"
    assert listening(log) is None and not record_path(log).exists()  # the record goes with the server
    assert main(["invite", str(log), "--side", "blue", "--url", "http://table.example.org"]) == 0
    assert capsys.readouterr().out.startswith("http://table.example.org/join/tt1.")  # --url overrides


def test_a_record_left_by_a_killed_server_is_not_believed(tmp_path: Path):
    log = new_log(tmp_path)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    record_path(log).write_text(json.dumps({"url": "http://10.9.9.9:1", "pid": int(dead.stdout)}))
    assert listening(log) is None


def test_the_links_serve_and_invite_give_survive_a_restart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = new_log(tmp_path)
    port = free_port()
    with serving(log, port) as (url, said):
        gm = link_of(said[1])
        assert main(["invite", str(log), "--side", "blue"]) == 0
        blue = link_of(capsys.readouterr().out)
        assert me(url, gm).json()["gm"] is True and me(url, blue).status_code == 200
    with serving(log, port) as (again, said):
        assert again == url
        assert "tt1." not in said[1]  # only its digest is kept: the link is not printed twice
        assert "still open" in said[1]
        assert me(url, gm).json()["gm"] is True  # the GM's open page goes on working
        assert me(url, blue).json()["role"] == "blue"


def test_a_watch_link_reads_and_follows_and_every_command_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = new_log(tmp_path)
    assert main(["invite", str(log), "--watch", "--label", "TV"]) == 0
    out = capsys.readouterr().out
    assert "to watch the table" in out
    c = TestClient(create_app(log), base_url=BASE, headers=bearer(link_of(out)))
    assert c.get("/api/me").json() == {**c.get("/api/me").json(), "role": "watcher", "gm": False}
    board = c.get("/api/state")
    assert board.status_code == 200 and board.json()["fighters"]
    assert c.get("/api/events").status_code == 200
    assert c.get("/api/reach?fighter=ari").status_code == 200
    assert "event: version" in c.get("/api/stream?seconds=0&token=" + link_of(out)).text
    version = board.json()["version"]
    before = records(log)
    for path, body in (
        ("/api/do", {"version": version, "text": "move ari 2,2"}),
        ("/api/preview", {"version": version, "text": "move ari 2,2"}),
        ("/api/undo", {"version": version}),
        ("/api/redo", {"version": version}),
        ("/api/invites", {"role": "gm"}),
    ):
        r = c.post(path, json=body)
        assert r.status_code == 403, (path, r.json())
    assert records(log) == before


def rasterise(svg: str) -> numpy.ndarray:
    """The QR code's modules as pixels, read back from the SVG path segno draws (M/m moves, h runs)."""
    size = int(re.search(r'<path fill="#fff" d="M0 0h(\d+)v', svg).group(1))  # type: ignore[union-attr]
    path = re.search(r'class="qrline"[^>]* d="([^"]+)"', svg).group(1)  # type: ignore[union-attr]
    dark = numpy.zeros((size, size), dtype=bool)
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", path):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            run = int(a)
            dark[int(y), int(x) : int(x) + run] = True
            x += run
    pixels = numpy.where(dark, 0, 255).astype(numpy.uint8)
    return numpy.kron(pixels, numpy.ones((6, 6), dtype=numpy.uint8))


def test_a_new_links_qr_code_decodes_back_to_the_link(tmp_path: Path):
    import zxingcpp

    log = new_log(tmp_path)
    gm = TestClient(create_app(log), base_url=BASE, headers=bearer(invite(log, "gm")[1]))
    made = gm.post("/api/invites", json={"role": "blue", "label": "Maya"}).json()
    assert made["qr"].startswith("<svg")
    found = zxingcpp.read_barcodes(rasterise(made["qr"]))
    assert [r.text for r in found] == [made["url"]]
    assert zxingcpp.read_barcodes(rasterise(qr_svg("http://x.test/join/nothing")))[0].text != made["url"]


def test_invite_qr_draws_the_code_in_the_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    log = new_log(tmp_path)
    assert main(["invite", str(log), "--side", "blue", "--qr", "--url", "http://t.test"]) == 0
    out = capsys.readouterr().out.splitlines()
    url = next(line for line in out if line.startswith("http://t.test/join/"))
    drawing = out[: out.index(url)]
    assert len(drawing) > 10 and all(set(line.strip()) <= set("█▀▄ ") for line in drawing if line.strip())


@pytest.mark.parametrize("hours", [1e308, 10**9, 0, -1])
def test_an_absurd_number_of_hours_is_refused_and_nothing_is_saved(tmp_path: Path, hours: float):
    log = new_log(tmp_path)
    gm = TestClient(create_app(log), base_url=BASE, headers=bearer(invite(log, "gm")[1]))
    kept = gm.get("/api/invites").json()
    r = gm.post("/api/invites", json={"role": "blue", "hours": hours})
    assert r.status_code == 400 and "hours" in r.json()["message"]
    assert gm.get("/api/invites").json() == kept


@pytest.mark.parametrize("hours", ["inf", "nan", "1e308", "9000"])
def test_invite_refuses_hours_that_would_never_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hours: str
):
    log = new_log(tmp_path)
    assert main(["invite", str(log), "--side", "blue", "--hours", hours]) == 2
    assert "hours" in capsys.readouterr().err
    assert main(["invite", str(log), "--list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["data"]["invites"] == []


def test_a_side_named_like_a_role_is_refused_when_the_scenario_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = tmp_path / "gm-side.jsonl"
    toml = tmp_path / "gm-side.toml"
    text = (Path(__file__).parents[2] / "scenarios" / "initiative-yards-cellar.toml").read_text()
    toml.write_text(text.replace('side = "red"', 'side = "watcher"'))
    assert main(["new", str(toml), "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert "side: 'watcher' is the name of a view-only link's role" in err and "Traceback" not in err
    assert not log.exists()


def test_the_gms_own_fighters_get_no_side_link_and_side_gm_is_no_gm_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = tmp_path / "crate.jsonl"
    toml = tmp_path / "crate.toml"
    text = (Path(__file__).parents[2] / "scenarios" / "initiative-yards-cellar.toml").read_text()
    toml.write_text(text.replace('side = "red"', 'side = "gm"'))  # the GM's own fighters (a crate, a hazard)
    assert main(["new", str(toml), "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["invite", str(log), "--side", "gm"]) == 2
    assert "is a role, not a side" in capsys.readouterr().err
    assert main(["invite", str(log), "--side", "blue", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["data"]["role"] == "blue"
