"""Every player knows what happened to them (issue 38 item 5), what the server sends: the invasion of
the derelict hold (ap-squares), Ari the Boarder walking into Bo the Guard's square and Bo body-blocking.

The event lists of a side and of a watcher hold every event that explains the outcome ("the move
waits for bo's answer", "ari is kept out", "may not try to enter 4,1 again"), said by the note the
ruleset wrote; no list, the GM's included, shows a command as typed or `by=`; the preview of the
move says that Bo will be asked; a refusal while the table waits reads without command syntax.
And only what the map allows is a button (no Leap in a flat cellar), every verb reachable (Rotate
About in ap-squares).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from support import do
from support_web import bearer, invite
from tabletrail.cli import main
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.service.syntax import parse
from tabletrail.web import actions, views
from tabletrail.web.server import create_app

ROOT = Path(__file__).parents[2]
DERELICT = ROOT / "scenarios" / "ap-squares-derelict.toml"
CELLAR = ROOT / "scenarios" / "initiative-yards-cellar.toml"
# A command as typed: a verb of the table followed by an id, or a choice list, or by=.
SYNTAX = re.compile(r"\bby=|\b(?:move|react-invasion|end-turn|drop-prone) (?:ari|bo|cyn|dax)\b|\w+\|\w+\|\w+")


def derelict(tmp_path: Path) -> Path:
    log = tmp_path / "hold.jsonl"
    assert main(["new", str(DERELICT), "--log", str(log)]) == 0
    return log


def blocked(tmp_path: Path) -> Encounter:
    """Ari walks to 3,1 and into Bo's square at 4,1; Bo body-blocks (seeded: 9+1 vs 12, kept out)."""
    enc = Encounter.open(store_for(str(derelict(tmp_path))))
    do(enc, "move ari 3,1 by=blue")
    do(enc, "move ari 4,1 by=blue")
    do(enc, "react-invasion bo block by=red")
    return enc


def test_a_sides_and_a_watchers_list_hold_the_events_that_explain_being_kept_out(tmp_path: Path):
    enc = blocked(tmp_path)
    for role in ("blue", "watcher"):
        rows = views.records(enc, role)
        explaining = [r for r in rows if r["explains"]]
        said = " | ".join(r["text"] for r in explaining)
        assert "the move waits for bo's answer" in said, said
        assert "ari is kept out" in said, said
        assert "may not try to enter 4,1 again this cycle" in said, said
        assert all(not SYNTAX.search(r["text"] + r["note"]) for r in rows), [r["text"] for r in rows]
        kept_out = next(r for r in explaining if "kept out" in r["text"])
        assert kept_out["fighters"] == ["ari"] and kept_out["actor"] == "red"  # news for blue's screen


def test_the_gms_list_and_undo_say_commands_in_words_with_names_and_no_by(tmp_path: Path):
    enc = blocked(tmp_path)
    gm = views.records(enc, "gm")
    assert all("by=" not in r["text"] + r["note"] for r in gm), [r["note"] for r in gm]
    commands = [r["text"] for r in gm if r["type"] == "command"]
    assert commands[-1] == "Bo the Guard: React invasion, Body-block"
    assert "Ari the Boarder: Move to 4,1" in commands
    assert not any(SYNTAX.search(c) for c in commands)
    label = views.board(enc, len(enc.records), "gm")["undo"]
    assert label["words"] == "Bo the Guard: React invasion, Body-block"


def test_the_preview_of_walking_into_bos_square_says_bo_will_be_asked(tmp_path: Path):
    enc = Encounter.open(store_for(str(derelict(tmp_path))))
    do(enc, "move ari 3,1 by=blue")
    dry = views.dry_run(enc, parse("move ari 4,1 by=blue"), "move ari 4,1", reveal=False)
    asks = [e for e in dry["ok"] and dry["events"] if e["explains"]]
    assert asks and "the move waits for bo's answer" in asks[0]["note"], dry["events"]


def test_a_refusal_while_bo_must_answer_reads_without_command_syntax(tmp_path: Path):
    log = derelict(tmp_path)
    blue = TestClient(
        create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, "blue")[1])
    )
    v = blue.get("/api/state").json()["version"]
    assert blue.post("/api/do", json={"version": v, "text": "move ari 3,1"}).status_code == 200
    v = blue.get("/api/state").json()["version"]
    assert blue.post("/api/do", json={"version": v, "text": "move ari 4,1"}).status_code == 200
    v = blue.get("/api/state").json()["version"]
    refused = blue.post("/api/preview", json={"version": v, "text": "drop-prone ari"}).json()
    assert refused["ok"] is False
    assert "Bo the Guard" in refused["why"] and not SYNTAX.search(refused["why"]), refused["why"]
    done = blue.post("/api/preview", json={"version": v, "text": "end-turn"}).json()
    assert "words" in done and not SYNTAX.search(done["words"]), done


def test_a_flat_cellar_offers_no_leap_vault_or_pull_up_as_buttons(tmp_path: Path):
    log = tmp_path / "cellar.jsonl"
    assert main(["new", str(CELLAR), "--log", str(log)]) == 0
    enc = Encounter.open(store_for(str(log)))
    side = enc.state.fighter("ari").side
    offered = {a["key"]: a for a in actions.answer(enc, side, "ari")["actions"]}
    for verb in ("leap", "vault", "pull-up"):
        assert verb in offered, sorted(offered)  # still reachable, folded under "not now" with its reason
        assert offered[verb]["ok"] is False and offered[verb]["why"], offered[verb]


def test_ap_squares_offers_rotate_about_as_a_button_the_engine_takes(tmp_path: Path):
    enc = Encounter.open(store_for(str(derelict(tmp_path))))
    offered = [
        a for a in actions.answer(enc, "blue", "ari")["actions"] if a["key"].startswith("rotate-about")
    ]
    assert offered and all(a["ok"] for a in offered), offered
    a = offered[0]
    x, y = a["targets"][0]
    text = a["text"].replace("{cell}", f"{x},{y}")
    assert not isinstance(enc.preview(parse(f"{text} by=blue")), type(None))
    do(enc, f"{text} by=blue")
    assert enc.records[-1].event.rules  # it ran: a rotation was recorded
