"""`GET /api/bundle`: the table view hands out the bundle, the GM's whole and a side's share."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient  # noqa: E402
from support_bundle import ROOT
from support_web import bearer, invite  # noqa: E402
from tabletrail import bundle
from tabletrail.cli import main
from tabletrail.web.server import create_app  # noqa: E402


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """A shipped encounter with GM rulings in it, copied to a folder of its own."""
    path = tmp_path / "bridge.jsonl"
    shutil.copy(ROOT / "replays" / "initiative-yards-ruined-bridge.jsonl", path)
    return path


def fetch(log: Path, role: str, query: str = "") -> tuple[int, dict[str, str], bytes]:
    client = TestClient(
        create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, role)[1])
    )
    answer = client.get("/api/bundle" + query)
    return answer.status_code, dict(answer.headers), answer.content


def test_the_gms_download_is_the_whole_bundle_and_verifies(tmp_path: Path, log: Path, capsys) -> None:
    status, headers, page = fetch(log, "gm", "?at=12")
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert headers["content-disposition"] == 'attachment; filename="The-ruined-bridge.html"'
    out = tmp_path / "fight.html"
    out.write_bytes(page)
    found = bundle.read_bundle(out)
    assert found.lines == log.read_bytes().splitlines() and found.head["at"] == 12 and found.whole
    assert main(["verify", str(out)]) == 0
    assert "re-decided and matched the log" in capsys.readouterr().out


def test_a_sides_download_is_its_share(tmp_path: Path, log: Path) -> None:
    status, headers, page = fetch(log, "blue")
    assert status == 200 and headers["content-disposition"].endswith('-blue.html"')
    out = tmp_path / "blue.html"
    out.write_bytes(page)
    found = bundle.read_bundle(out)
    assert found.head["role"] == "blue" and 1 in {w[0] for w in found.head["withheld"]}
    assert bundle.check_chain(found)["ok"]


def test_a_bad_at_is_refused_naming_it(log: Path) -> None:
    """What is no sequence number is a 400; a sequence number past the log's end is a 404, as on
    /api/state (the contract says both)."""
    status, _, body = fetch(log, "gm", "?at=soon")
    assert status == 400 and b"at: expected a sequence number (1 or more), got 'soon'" in body
    status, _, body = fetch(log, "gm", "?at=9999")
    assert status == 404 and b"at: no event 9999 (the log has 1 to" in body
