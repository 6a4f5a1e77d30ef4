"""The table's secret (TABLETRAIL_KEY) keys the hash chain: an edited log re-chained by someone
without the secret fails `verify`, and a keyed log can't be opened or appended to without it
(issue 13, item 7)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import msgspec
import pytest
from tabletrail.cli import main
from tabletrail.events.stores.chain import KEY_VARIABLE, key_check, line_hash
from tabletrail.events.stores.record import decode

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"
PLAY = ["move ari 2,2 4,2", "end-turn", "move bo 2,3 3,4", "undo why=oops", "redo"]
SECRET = "table 7 of the tuesday group"


def as_key(secret: str) -> bytes:
    """The BLAKE2b key a secret becomes (as events/log.py derives it)."""
    return hashlib.blake2b(secret.encode(), digest_size=32).digest()


def play(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", str(SCENARIO), "--log", str(path)]) == 0
    for text in PLAY:
        assert main(["do", str(path), *text.split()]) == 0, text
    capsys.readouterr()


def rechained(lines: list[bytes], key: bytes, keyed: str) -> list[bytes]:
    """The lines with every `prev` recomputed under `key` and line 1's `keyed` set: a forger's work."""
    out: list[bytes] = []
    prev = ""
    for n, line in enumerate(lines, start=1):
        raw = json.loads(line)
        raw["prev"] = prev
        if n == 1:
            raw.pop("keyed", None)
            if keyed:
                raw["keyed"] = keyed
        new = msgspec.json.encode(raw)
        out.append(new)
        prev = line_hash(new, key)
    return out


def write(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def edited_move(lines: list[bytes]) -> list[bytes]:
    """The first move's budget raised: the kind of edit a player might try before a dispute."""
    out = list(lines)
    for n, line in enumerate(out):
        if b'"type":"moved"' in line:
            out[n] = line.replace(b'"budget":', b'"budget":9', 1)
            return out
    raise AssertionError("no move in the log")


@pytest.fixture
def keyed_log(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(KEY_VARIABLE, SECRET)
    path = tmp_path / "fight.jsonl"
    play(path, capsys)
    return path


def test_a_log_started_with_the_secret_has_a_keyed_chain_that_verifies(keyed_log: Path, capsys):
    lines = keyed_log.read_bytes().splitlines()
    first = decode(lines[0], "1")
    assert first.keyed == key_check(as_key(SECRET))
    # every prev is the keyed hash of the line before, not the plain one
    for before, line in zip(lines, lines[1:], strict=False):
        prev = decode(line, "n").prev
        assert prev == line_hash(before, as_key(SECRET)) != line_hash(before)
    assert main(["verify", str(keyed_log)]) == 0
    assert ": OK:" in capsys.readouterr().out


def test_a_log_started_without_the_secret_stays_plain(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    path = tmp_path / "plain.jsonl"
    play(path, capsys)
    lines = path.read_bytes().splitlines()
    assert b'"keyed"' not in lines[0]
    assert decode(lines[1], "2").prev == line_hash(lines[0])
    assert main(["verify", str(path)]) == 0


def test_an_edit_rechained_without_the_secret_fails_verify(keyed_log: Path, capsys):
    lines = keyed_log.read_bytes().splitlines()
    forged = rechained(edited_move(lines), key=b"", keyed=decode(lines[0], "1").keyed)
    write(keyed_log, forged)
    assert main(["verify", str(keyed_log), "--json"]) == 1
    finding = json.loads(capsys.readouterr().out)["data"]["finding"]
    assert finding["kind"] == "chain" and finding["seq"] == 2


def test_an_edit_rechained_as_a_plain_log_fails_verify_while_the_secret_is_set(keyed_log: Path, capsys):
    forged = rechained(edited_move(keyed_log.read_bytes().splitlines()), key=b"", keyed="")
    write(keyed_log, forged)
    assert main(["verify", str(keyed_log)]) == 1
    out = capsys.readouterr().out
    assert "(key)" in out and "is set but this log's chain is not keyed" in out


def test_an_edit_rechained_under_another_secret_fails_verify(keyed_log: Path, capsys):
    other = as_key("the forger's own secret")
    forged = rechained(edited_move(keyed_log.read_bytes().splitlines()), key=other, keyed=key_check(other))
    write(keyed_log, forged)
    assert main(["verify", str(keyed_log)]) == 1
    assert "is not the secret this log's chain was started with" in capsys.readouterr().out


def test_without_a_secret_a_rechained_edit_keeps_its_chain(tmp_path, capsys, monkeypatch):
    """Without a secret anyone can re-chain an edit (only the kept tip or an anchor would tell)."""
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    path = tmp_path / "plain.jsonl"
    play(path, capsys)
    write(path, rechained(edited_move(path.read_bytes().splitlines()), key=b"", keyed=""))
    path.with_name(path.name + ".tip").unlink(missing_ok=True)
    main(["verify", str(path), "--json"])
    finding = json.loads(capsys.readouterr().out)["data"]["finding"]
    assert finding is None or finding["kind"] != "chain"  # the chain holds; only re-deciding may object


@pytest.mark.parametrize("secret, words", [(None, f"set {KEY_VARIABLE} to open it"), ("wrong", "is not the")])
def test_a_keyed_log_is_not_opened_or_appended_to_without_its_secret(
    keyed_log: Path, capsys, monkeypatch, secret: str | None, words: str
):
    if secret is None:
        monkeypatch.delenv(KEY_VARIABLE)
    else:
        monkeypatch.setenv(KEY_VARIABLE, secret)
    before = keyed_log.read_bytes()
    for verb in (["show", str(keyed_log)], ["do", str(keyed_log), "end-turn"]):
        assert main(verb) == 2, verb
        err = capsys.readouterr().err
        assert err.startswith("error: ") and words in err and err.count("\n") == 1, err
    assert keyed_log.read_bytes() == before


def test_a_keyed_sqlite_log_opens_from_its_snapshots_with_the_secret(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setenv(KEY_VARIABLE, SECRET)
    path = tmp_path / "fight.db"
    assert main(["new", str(SCENARIO), "--log", str(path)]) == 0
    for _ in range(12):  # enough batches for the store to keep snapshots
        assert main(["do", str(path), "end-turn"]) == 0
    capsys.readouterr()
    assert main(["show", str(path)]) == 0
    captured = capsys.readouterr()
    assert "not used" not in captured.out + captured.err
    assert main(["verify", str(path)]) == 0


def test_with_the_secret_set_a_plain_log_reads_but_takes_no_command(tmp_path: Path, capsys, monkeypatch):
    """A log re-chained without the secret (or started without it) can be shown, never played on."""
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    path = tmp_path / "plain.jsonl"
    play(path, capsys)
    before = path.read_bytes()
    monkeypatch.setenv(KEY_VARIABLE, SECRET)
    assert main(["show", str(path)]) == 0
    capsys.readouterr()
    assert main(["do", str(path), "end-turn"]) == 2
    err = capsys.readouterr().err
    assert "is set but this log's chain is not keyed" in err and "nothing was appended" in err
    assert path.read_bytes() == before
