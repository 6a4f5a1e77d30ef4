"""The replay bundle (issue 31): one HTML file carrying a log byte for byte, its boards and its words.

What the file holds and what `verify fight.html` says of it; the page itself is driven in
Chromium by tests/e2e/test_bundle_page.py.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from support_bundle import (
    REPLAYS,
    ROOT,
    boards,
    cut_last,
    explained,
    lines_of,
    one_byte,
    swapped,
    with_lines,
    words_of,
)
from tabletrail import bundle
from tabletrail.cli import main
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.projections import audit
from tabletrail.service.encounter import Encounter
from tabletrail.text.audit import explain_text

VENDOR = ROOT / "app" / "web" / "static" / "vendor"
NAMES = [p.stem for p in REPLAYS]


def make(capsys, log: Path, out: Path, *extra: str) -> Path:
    assert main(["bundle", str(log), "-o", str(out), *extra]) == 0
    capsys.readouterr()
    return out


def verified(capsys, path: Path, *extra: str) -> tuple[int, dict]:
    code = main(["verify", str(path), "--json", *extra])
    return code, json.loads(capsys.readouterr().out)["data"]


def test_the_vendored_blake2b_is_the_published_file_unedited() -> None:
    """vendor/README.md gives each file's SHA-256 as published: an edit by hand fails here."""
    listed = re.findall(r"\| `([\w.]+)` \| .*? \| `([0-9a-f]{64})` \|", (VENDOR / "README.md").read_text())
    assert {name for name, _ in listed} == set(bundle.VENDOR)
    for name, digest in listed:
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name
    assert (VENDOR / "LICENSE.blakejs").read_text().startswith("Copyright (c) 2022 Blakejs contributors")


@pytest.mark.parametrize("log", REPLAYS, ids=NAMES)
def test_a_bundle_carries_every_line_byte_for_byte_and_verify_re_decides_it(
    tmp_path: Path, capsys, log: Path
):
    out = make(capsys, log, tmp_path / "fight.html")
    written = log.read_bytes().splitlines()
    assert lines_of(out) == written
    code, data = verified(capsys, out)
    assert code == 0 and data["ok"], data["finding"]
    _, direct = verified(capsys, log)
    assert data["checked"] == direct["checked"]  # every command re-decided, as on the log itself
    assert data["tip"] == direct["tip"] == line_hash(written[-1])
    assert data["kept_tip"]  # the tip recorded in the bundle is its end


def test_the_page_may_make_no_request_of_any_kind(tmp_path: Path, capsys) -> None:
    """Its policy forbids every fetch; only its own inline scripts (by hash) run; no address is named."""
    html = make(capsys, REPLAYS[0], tmp_path / "fight.html").read_text()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html).group(1)
    assert csp.startswith("default-src &#x27;none&#x27;; script-src &#x27;sha256-")
    assert "img-src data:" in csp and "unsafe-inline&#x27;; img" in csp  # styles inline, pictures as data
    assert not re.search(r'\b(src|href)="(?!data:)', html)
    assert "<link" not in html and "@import" not in html
    assert not re.search(r"url\((?!#)", html)  # only references inside the page's own SVG


@pytest.mark.parametrize("log", REPLAYS, ids=NAMES)
def test_the_board_after_each_event_is_the_engines_fold(tmp_path: Path, capsys, log: Path) -> None:
    """The board the page draws at event N is `show LOG --at N --json`'s: positions and states."""
    words = words_of(make(capsys, log, tmp_path / "fight.html"))
    views = boards(words)
    n = len(views)
    for seq in sorted({1, 2, n // 3, n // 2, n - 1, n}):
        assert main(["show", str(log), "--at", str(seq), "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)["data"]
        drawn = views[seq - 1]["fighters"]
        assert {f["id"]: (f["pos"], f["states"]) for f in shown["fighters"]} == {
            fid: (f["pos"], f["states"]) for fid, f in drawn.items()
        }, seq
        turn = shown["turn"]
        assert views[seq - 1]["turn"]["active"] == turn["order"][turn["index"]]
        assert views[seq - 1]["turn"]["round"] == turn["round"]


@pytest.mark.parametrize("log", REPLAYS, ids=NAMES)
def test_each_events_why_is_what_explain_prints(tmp_path: Path, capsys, log: Path) -> None:
    """One pass over the log gives, for every event, the text `tabletrail explain LOG N` prints."""
    words = words_of(make(capsys, log, tmp_path / "fight.html"))
    store = JsonlStore(log)
    records = Encounter.open(store, snapshots=False).records
    for seq in range(1, len(records) + 1):
        assert explained(words, seq) == explain_text(audit.explain(records, seq, store.refused())), seq
    assert [e["seq"] for e in words["events"]] == list(range(1, len(records) + 1))


@pytest.mark.parametrize(
    "tamper, line",
    [
        (lambda ls: one_byte(ls, 40), 41),  # the next line no longer carries its hash
        (lambda ls: one_byte(ls, len(ls)), -1),  # the last line: only the tip recorded tells
        (cut_last, -2),  # cut at a line: the tip recorded tells
        (lambda ls: swapped(ls, 30), 30),
    ],
    ids=["one-byte", "one-byte-last", "last-removed", "pair-reordered"],
)
def test_verify_names_the_line_of_a_tampered_bundle(tmp_path: Path, capsys, tamper, line: int) -> None:
    log = ROOT / "replays" / "round-meters-ambush.jsonl"
    out = make(capsys, log, tmp_path / "fight.html")
    lines = lines_of(out)
    bad = with_lines(out, tamper(lines), tmp_path / "bad.html")
    code, data = verified(capsys, bad)
    assert code == 1 and not data["ok"]
    assert data["finding"]["seq"] == (line if line > 0 else len(lines) + line + 1)


def test_a_range_verifies_its_chain_from_the_tip_before_it(tmp_path: Path, capsys) -> None:
    log = ROOT / "replays" / "round-meters-ambush.jsonl"
    out = make(capsys, log, tmp_path / "part.html", "--from", "21", "--to", "65")
    written = log.read_bytes().splitlines()
    assert lines_of(out) == written[20:65]
    code, data = verified(capsys, out)
    assert code == 0 and data["ok"] and data["anchor"] == line_hash(written[19])
    assert main(["verify", str(out)]) == 0
    text = capsys.readouterr().out
    assert "from the hash of line 20 recorded with it" in text
    assert "not re-decided: re-deciding the rules needs every line from the first" in text
    bad = with_lines(out, one_byte(lines_of(out), 10), tmp_path / "bad.html")  # line 30 of the log
    code, data = verified(capsys, bad)
    assert code == 1 and data["finding"]["seq"] == 31 and data["finding"]["kind"] == "chain"


def test_a_range_starts_and_ends_at_a_batchs_edge(tmp_path: Path, capsys) -> None:
    log = ROOT / "replays" / "round-meters-ambush.jsonl"
    out = tmp_path / "part.html"
    assert main(["bundle", str(log), "-o", str(out), "--to", "60"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "error: --to 60: event 60 is inside batch 16 (events 55 to 65, one command); "
        "a range ends at a batch's edge: use 65"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--from", "30", "--to", "21"], "error: --from 30 comes after --to 21: nothing to carry"),
        (["--at", "999"], "error: --at: 999 is outside the log (events 1 to 189)"),
        (["--side", "purple"], "error: --side: 'purple' is no side of this encounter (sides: blue, red)"),
    ],
)
def test_bad_bundle_arguments_are_one_line_and_write_nothing(tmp_path: Path, capsys, extra, said) -> None:
    out = tmp_path / "fight.html"
    assert main(["bundle", str(ROOT / "replays" / "round-meters-ambush.jsonl"), "-o", str(out), *extra]) == 2
    assert capsys.readouterr().err.strip() == said
    assert not out.exists()


def test_an_existing_file_is_kept_and_a_bundle_is_html(tmp_path: Path, capsys) -> None:
    out = tmp_path / "fight.html"
    out.write_text("mine")
    log = str(REPLAYS[0])
    assert main(["bundle", log, "-o", str(out)]) == 2
    assert "the file exists; pass --force to overwrite it" in capsys.readouterr().err
    assert out.read_text() == "mine"
    assert main(["bundle", log, "-o", str(tmp_path / "fight.txt")]) == 2
    assert "a bundle is an HTML file" in capsys.readouterr().err


def test_verify_of_a_file_that_is_no_bundle_says_so(tmp_path: Path, capsys) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html><body>hello</body></html>")
    assert main(["verify", str(page)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {page}: not a tabletrail bundle (no tt-head or tt-lines element)"
    )


def test_a_players_bundle_leaves_out_the_gms_rulings_and_the_seed(tmp_path: Path, capsys) -> None:
    """Their lines are carried as hashes only, so the chain still checks; verify says what's left to do."""
    log = ROOT / "replays" / "initiative-yards-ruined-bridge.jsonl"
    out = make(capsys, log, tmp_path / "blue.html", "--side", "blue")
    found = bundle.read_bundle(out)
    written = log.read_bytes().splitlines()
    held = {w[0] for w in found.head["withheld"]}
    rulings = {n for n, line in enumerate(written, start=1) if b'"type":"ruling"' in line}
    assert 1 in held and rulings and rulings <= held
    for n, line in enumerate(found.lines, start=1):
        assert line == (b"" if n in held else written[n - 1])
    words = words_of(out)
    everything = json.dumps(words)
    assert '"seed"' not in everything and "2026" not in json.dumps(words["board"])
    for n in held:
        assert words["events"][n - 1] == {
            "seq": n,
            "batch": words["events"][n - 1]["batch"],
            "withheld": True,
        }
        assert words["explain"][n - 1] == []
    said = "\n".join(explained(words, n) for n in range(1, len(words["events"]) + 1) if n not in held)
    table = "\n".join(x for x in words["strings"] if isinstance(x, str))  # every line kept, said or not
    for text in (said, table):
        assert "GM rulings in force before it:" not in text and "the roof edge crumbles" not in text
    assert "step_off = refuse" not in said  # a setting the GM's ruling changed is the GM's
    assert "step_off = fall" in said  # as the table set it openly, before the ruling
    code, data = verified(capsys, out)
    assert code == 0 and data["ok"] and data["withheld"] == sorted(held)
    bad = with_lines(out, one_byte(found.lines, 30), tmp_path / "bad.html")
    code, data = verified(capsys, bad)
    assert code == 1 and data["finding"]["seq"] == 31


def test_a_keyed_log_bundles_and_verifies_with_the_tables_secret(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("TABLETRAIL_KEY", "the table's secret")
    log = tmp_path / "fight.jsonl"
    assert main(["new", str(ROOT / "scenarios" / "speed-meters-skirmish.toml"), "--log", str(log)]) == 0
    assert main(["do", str(log), "move", "ari", "2,2", "4,2"]) == 0
    assert main(["do", str(log), "end-turn"]) == 0
    out = make(capsys, log, tmp_path / "fight.html")
    head = bundle.read_bundle(out).head
    assert head["keyed"] and head["tip"]["hash"] == line_hash(log.read_bytes().splitlines()[-1])
    assert verified(capsys, out)[0] == 0
    assert head["tip"]["mac"] != head["tip"]["hash"]  # the tip recorded is a MAC only the secret writes
    forged = tmp_path / "forged.html"  # someone without the secret writes the plain hash as the tip
    forged.write_bytes(out.read_bytes().replace(head["tip"]["mac"].encode(), head["tip"]["hash"].encode()))
    code, data = verified(capsys, forged)
    assert code == 1 and data["finding"]["kind"] == "tip"
    part = make(capsys, log, tmp_path / "part.html", "--from", "5")
    assert verified(capsys, part)[1]["ok"]
    monkeypatch.delenv("TABLETRAIL_KEY")
    code, data = verified(capsys, out)
    assert code == 1 and data["finding"]["kind"] == "key"
    assert main(["verify", str(part)]) == 2
    assert "keyed with the table's secret: set TABLETRAIL_KEY" in capsys.readouterr().err


def test_the_same_log_bundles_to_the_same_bytes(tmp_path: Path, capsys) -> None:
    a = make(capsys, REPLAYS[0], tmp_path / "a.html")
    b = make(capsys, REPLAYS[0], tmp_path / "b.html")
    assert a.read_bytes() == b.read_bytes()


def test_the_maps_picture_is_carried_inline(tmp_path: Path, capsys) -> None:
    """An imported map's picture goes into the file itself, with the bytes the encounter began with."""
    import base64

    from tests.web.test_map_picture import imported_log

    log = imported_log(tmp_path)
    out = make(capsys, log, tmp_path / "fight.html")
    picture = words_of(out)["board"]["picture"]
    kind, data = picture["href"].split(",", 1)
    assert kind == "data:image/png;base64"
    assert base64.b64decode(data) == (tmp_path / "map.png").read_bytes()
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (tmp_path / "map.png").rename(moved / "gone.png")  # neither where it was nor beside the log
    again = make(capsys, log, tmp_path / "again.html", "--force")
    assert "picture" not in words_of(again)["board"]


def test_a_players_board_shows_no_cell_the_gm_ruled(tmp_path: Path, capsys) -> None:
    log = ROOT / "replays" / "round-meters-ambush.jsonl"
    gm = boards(words_of(make(capsys, log, tmp_path / "gm.html")))
    blue = boards(words_of(make(capsys, log, tmp_path / "blue.html", "--side", "blue")))
    assert any(b["rulings"]["test"] for b in gm)  # the GM's knee-deep mud, a test to cross
    assert not any(b["rulings"]["test"] or b["rulings"]["forbid"] for b in blue)
    assert [b["fighters"] for b in gm] == [b["fighters"] for b in blue]  # the same fighters, everywhere
