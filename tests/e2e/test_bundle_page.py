"""The replay bundle's page in real headless Chromium, opened from file:// with every request aborted.

Each shipped replay: the chain reads intact, the scrubber reaches the last event, the board drawn
at event N is `show LOG --at N --json`'s, and a deep link opens at its event with its explanation.
Tampered copies are reported with the line `verify fight.html` names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support_bundle import (
    REPLAYS,
    ROOT,
    cut_last,
    explained,
    lines_of,
    one_byte,
    swapped,
    with_head,
    with_lines,
    with_words,
    words_of,
)
from tabletrail.cli import main

from tests.e2e.chromium import CHROMIUM

WAIT_MS = 20_000

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")


@pytest.fixture
def open_file(browser):  # noqa: ANN001, ANN201
    """Open a bundle from disk with the network blocked: every request but the file itself aborted."""
    context = browser.new_context(viewport={"width": 1200, "height": 850})
    context.set_default_timeout(WAIT_MS)
    asked: list[str] = []

    def block(route) -> None:  # noqa: ANN001
        url = route.request.url
        if url.startswith("file://") and route.request.resource_type == "document":
            route.continue_()
        else:
            asked.append(url)
            route.abort()

    context.route("**/*", block)
    errors: list[str] = []

    def go(path: Path, fragment: str = ""):  # noqa: ANN202
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri() + fragment)
        page.wait_for_selector("body[data-ready]")
        return page

    yield go
    context.close()
    assert asked == [], f"the page asked for {asked}"
    assert errors == []


def bundle_of(capsys, log: Path, out: Path, *extra: str) -> Path:
    assert main(["bundle", str(log), "-o", str(out), *extra]) == 0
    capsys.readouterr()
    return out


def shown(capsys, log: Path, seq: int) -> dict[str, list]:
    """`show LOG --at N --json`'s fighters: cell, and the states the board writes (not the turn's)."""
    assert main(["show", str(log), "--at", str(seq), "--json"]) == 0
    board = json.loads(capsys.readouterr().out)["data"]
    from tabletrail.core.engine.machines import GRAPHS

    rest = {name: g.initial for name, g in GRAPHS.items()}
    return {
        f["id"]: [
            [f["pos"][0], f["pos"][1]],
            " ".join(v.replace("_", " ") for m, v in f["states"].items() if m != "turn" and rest.get(m) != v),
        ]
        for f in board["fighters"]
    }


def drawn(page) -> dict[str, list]:  # noqa: ANN001
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#fighters [data-fid]')].map((g) =>
            [g.dataset.fid, [[Number(g.dataset.x), Number(g.dataset.y)], g.dataset.states]]))"""
    )


def integrity(page) -> tuple[str, str, str | None]:  # noqa: ANN001
    box = page.locator("#integrity")
    return box.get_attribute("data-state"), box.text_content(), box.get_attribute("data-line")


@pytest.mark.parametrize("log", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_each_shipped_replay_opens_offline_intact_scrubs_and_draws_shows_board(
    tmp_path: Path, capsys, open_file, log: Path
) -> None:
    out = bundle_of(capsys, log, tmp_path / "fight.html")
    n = len(log.read_bytes().splitlines())
    page = open_file(out)
    state, text, _ = integrity(page)
    assert state == "intact", text
    assert text.startswith(f"chain intact: {n:,} lines, tip ") and text.endswith("matches the tip recorded")
    scrub = page.locator("#scrubber")
    assert scrub.get_attribute("max") == str(n)
    for seq in sorted({2, n // 2, n - 1, n}):
        scrub.fill(str(seq))  # the scrubber, as a finger drags it
        assert page.locator("#scrub-label").get_attribute("data-seq") == str(seq)
        assert drawn(page) == shown(capsys, log, seq), seq
    assert "does not agree" not in page.locator("#checked").text_content()
    assert "agrees with the event's own facts" in page.locator("#checked").text_content()
    page.keyboard.press("ArrowRight")  # at the last event: it stays there
    assert page.locator("#scrub-label").get_attribute("data-seq") == str(n)


def test_a_deep_link_opens_at_its_event_with_its_explanation(tmp_path: Path, capsys, open_file) -> None:
    log = ROOT / "replays" / "speed-meters-skirmish.jsonl"
    page = open_file(bundle_of(capsys, log, tmp_path / "fight.html"), "#12")
    assert page.locator("#scrub-label").get_attribute("data-seq") == "12"
    assert page.locator("#explain").get_attribute("data-seq") == "12"
    assert main(["explain", str(log), "12"]) == 0
    assert page.locator("#explain pre").text_content() == capsys.readouterr().out.rstrip("\n")
    assert drawn(page) == shown(capsys, log, 12)
    page.locator('#events li[data-seq="20"] .why-button').click()  # "why?" on another event
    assert page.locator("#explain").get_attribute("data-seq") == "20"
    assert page.evaluate("location.hash") == "#20"


def explanations_shown(page, seqs: list[int]) -> dict[int, str]:  # noqa: ANN001
    """Each event's explanation as the page shows it, asked for by its link (#N)."""
    out = {}
    for seq in seqs:
        page.evaluate("(n) => { location.hash = '#' + n; }", seq)
        page.wait_for_selector(f'#explain[data-seq="{seq}"] pre')
        out[seq] = page.locator("#explain pre").text_content()
    return out


@pytest.mark.parametrize(
    ("name", "extra"),
    [("speed-meters-skirmish", ()), ("initiative-yards-ruined-bridge", ("--side", "blue"))],
    ids=["gm", "player"],
)
def test_every_explanation_the_page_shows_is_explains_own(
    tmp_path: Path, capsys, open_file, name: str, extra: tuple[str, ...]
) -> None:
    """The page makes each explanation from the codes written (the table's lines and runs, the head
    lines and listings it makes from the events): it says at every event what the bundle's reader
    in Python reads, and that is what `tabletrail explain` prints (GM's bundle; a player's has the
    GM's rulings left out, tests/projections/test_bundle_runs.py)."""
    log = ROOT / "replays" / f"{name}.jsonl"
    out = bundle_of(capsys, log, tmp_path / "fight.html", *extra)
    words = words_of(out)
    told = [e["seq"] for e in words["events"] if not e.get("withheld")]
    page = open_file(out)
    shown = explanations_shown(page, told)
    assert shown == {seq: explained(words, seq) for seq in told}
    if not extra:
        for seq in told:
            assert main(["explain", str(log), str(seq)]) == 0
            assert shown[seq] == capsys.readouterr().out.rstrip("\n"), seq


@pytest.mark.parametrize(
    "tamper",
    [lambda ls: one_byte(ls, 40), lambda ls: one_byte(ls, len(ls)), cut_last, lambda ls: swapped(ls, 30)],
    ids=["one-byte", "one-byte-last", "last-removed", "pair-reordered"],
)
def test_a_tampered_copy_is_reported_with_the_line_verify_names(
    tmp_path: Path, capsys, open_file, tamper
) -> None:
    log = ROOT / "replays" / "round-meters-ambush.jsonl"
    out = bundle_of(capsys, log, tmp_path / "fight.html")
    bad = with_lines(out, tamper(lines_of(out)), tmp_path / "bad.html")
    assert main(["verify", str(bad), "--json"]) == 1
    finding = json.loads(capsys.readouterr().out)["data"]["finding"]
    state, text, line = integrity(open_file(bad))
    assert state == "broken", text
    assert line == str(finding["seq"]), (text, finding["reason"])
    assert f"line {finding['seq']}" in text or f"line {finding['seq'] - 1}" in text


def test_a_range_and_a_players_bundle_read_intact(tmp_path: Path, capsys, open_file) -> None:
    log = ROOT / "replays" / "initiative-yards-ruined-bridge.jsonl"
    part = bundle_of(capsys, log, tmp_path / "part.html", "--from", "1", "--to", "41", "--at", "20")
    page = open_file(part)
    assert integrity(page)[0] == "intact"
    assert page.locator("#scrub-label").get_attribute("data-seq") == "20"
    blue = open_file(bundle_of(capsys, log, tmp_path / "blue.html", "--side", "blue"))
    state, text, _ = integrity(blue)
    assert state == "intact" and "withheld from this side" in text
    assert blue.locator("#events li.withheld").count() >= 2
    assert "withheld from this side" in blue.locator("#checked").text_content()


def test_a_keyed_log_asks_for_the_secret_and_checks_the_chain_with_it(
    tmp_path: Path, capsys, open_file, monkeypatch
) -> None:
    monkeypatch.setenv("TABLETRAIL_KEY", "the table's secret")
    log = tmp_path / "fight.jsonl"
    assert main(["new", str(ROOT / "scenarios" / "speed-meters-skirmish.toml"), "--log", str(log)]) == 0
    assert main(["do", str(log), "move", "ari", "2,2", "4,2"]) == 0
    out = bundle_of(capsys, log, tmp_path / "fight.html")
    page = open_file(out)
    state, text, _ = integrity(page)
    assert state == "keyed" and "can only be checked with it" in text
    page.fill("#key-input", "a guess")
    page.click("#key-form button")
    assert "not the secret" in integrity(page)[1]
    page.fill("#key-input", "the table's secret")
    page.click("#key-form button")
    assert integrity(page)[0] == "intact"
    assert page.locator("#key-form").is_hidden()


def test_a_keyed_log_rechained_without_the_key_and_its_header_claim_dropped_is_not_intact(
    tmp_path: Path, capsys, open_file, monkeypatch
) -> None:
    """The page learns that the chain is keyed from line 1, as `verify fight.html` does, not from the
    header a forger can edit: a log re-chained with plain hashes still asks for the secret, and
    with it names line 2, the first line whose hash is not the keyed one (issue 36, item 4)."""
    from tabletrail.bundle import read_bundle
    from tabletrail.events.stores.chain import line_hash

    monkeypatch.setenv("TABLETRAIL_KEY", "the table's secret")
    log = tmp_path / "fight.jsonl"
    assert main(["new", str(ROOT / "scenarios" / "speed-meters-skirmish.toml"), "--log", str(log)]) == 0
    assert main(["do", str(log), "move", "ari", "2,2", "4,2"]) == 0
    out = bundle_of(capsys, log, tmp_path / "fight.html")
    made = read_bundle(out)
    lines, prev = [], ""
    for line in made.lines:  # a forger without the secret: every prev a plain hash
        record = json.loads(line)
        record["prev"] = prev
        line = json.dumps(record, separators=(",", ":")).encode()
        prev = line_hash(line)
        lines.append(line)
    assert json.loads(lines[0])["keyed"]  # line 1 still says the chain is keyed
    head = {**made.head, "keyed": "", "tip": {"seq": made.head["tip"]["seq"], "hash": line_hash(lines[-1])}}
    forged = with_head(with_lines(out, lines, tmp_path / "x.html"), head, tmp_path / "forged.html")
    monkeypatch.delenv("TABLETRAIL_KEY")
    assert main(["verify", str(forged)]) != 0  # verify reads line 1: the secret is asked for
    capsys.readouterr()
    page = open_file(forged)
    state, text, _ = integrity(page)
    assert state == "keyed" and "can only be checked with it" in text
    assert page.locator("#key-form").is_visible()
    page.fill("#key-input", "the table's secret")
    page.click("#key-form button")
    state, text, line = integrity(page)
    assert (state, line) == ("broken", "2"), text
    assert "line 1 was changed after it was written" in text


def test_the_maps_picture_is_drawn_from_the_file_itself(tmp_path: Path, capsys, open_file) -> None:
    from tests.web.test_map_picture import imported_log

    log = imported_log(tmp_path)
    page = open_file(bundle_of(capsys, log, tmp_path / "fight.html"))
    assert integrity(page)[0] == "intact"
    href = page.locator("#board image#picture").get_attribute("href")
    assert href.startswith("data:image/png;base64,")


def test_boards_not_made_from_the_lines_are_told(tmp_path: Path, capsys, open_file) -> None:
    """The page checks each recorded board against its event's own facts: a forged board is named."""
    log = ROOT / "replays" / "speed-meters-skirmish.jsonl"
    out = bundle_of(capsys, log, tmp_path / "fight.html")
    words = words_of(out)
    for d in words["deltas"]:  # every fighter a cell to the right of where the engine put it
        for f in d.get("fighters", {}).values():
            if "pos" in f:
                f["pos"] = [f["pos"][0] + 1, *f["pos"][1:]]
    page = open_file(with_words(out, words, tmp_path / "forged.html"))
    assert integrity(page)[0] == "intact"  # the lines are as written
    checked = page.locator("#checked").text_content()
    assert "does not agree with the event's own facts" in checked
