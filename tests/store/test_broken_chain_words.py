"""A line changed after it was written is named in one sentence (issue 36, item 11): the same from
`verify`, `bundle`, `show`, `log`, `verify fight.html` and the bundle's page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support_bundle import REPLAYS, ROOT, one_byte, with_lines
from tabletrail.cli import main
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.reading import read_records

SENTENCE = (
    "line 6 was changed after it was written, or a line was removed, added or moved there: "
    "line 7 no longer carries its hash"
)


@pytest.fixture
def edited(tmp_path: Path) -> Path:
    """A shipped replay whose line 6 had one digit of its time changed."""
    lines = REPLAYS[0].read_bytes().splitlines()
    log = tmp_path / "t.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in one_byte(lines, 6)))
    return log


@pytest.mark.parametrize(
    "verb", [["show"], ["log"], ["bundle", "-o", "{out}"], ["verify"], ["verify", "--json"]]
)
def test_each_verb_names_the_changed_line_in_the_pages_words(edited: Path, capsys, verb: list[str]) -> None:
    args = [a.format(out=edited.parent / "fight.html") for a in verb]
    code = main([args[0], str(edited), *args[1:]])
    out, err = capsys.readouterr()
    assert code != 0
    said = json.loads(out)["data"]["finding"]["reason"] if "--json" in args else out + err
    assert SENTENCE in said, said
    assert "hash chain broken" not in said
    assert not (edited.parent / "fight.html").exists()


def test_reading_the_records_says_the_same(edited: Path) -> None:
    with pytest.raises(Exception, match=SENTENCE):
        list(read_records(JsonlStore(edited)))


def test_verify_of_a_players_bundle_says_the_same(tmp_path: Path, capsys) -> None:
    """A side's bundle can't be re-decided (line 1 is withheld): its chain alone is checked."""
    out = tmp_path / "fight.html"
    assert main(["bundle", str(REPLAYS[0]), "-o", str(out), "--side", "blue"]) == 0
    capsys.readouterr()
    lines = REPLAYS[0].read_bytes().splitlines()
    shown = [b"" if n == 1 else line for n, line in enumerate(one_byte(lines, 6), start=1)]
    tampered = with_lines(out, shown, tmp_path / "tampered.html")
    assert main(["verify", str(tampered), "--json"]) != 0
    assert json.loads(capsys.readouterr().out)["data"]["finding"]["reason"] == SENTENCE


def test_the_page_words_it_from_the_same_sentence() -> None:
    page = (ROOT / "app" / "web" / "static" / "bundle.js").read_text()
    template = (
        "`line ${n - 1} was changed after it was written, or a line was removed, added or moved there: "
        "line ${n} no longer carries its hash`"
    )
    assert template in page
