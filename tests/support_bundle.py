"""Helpers for the replay bundle's tests: read a bundle's payloads, rebuild its boards, tamper with it."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

from tabletrail.bundle import read_bundle
from tabletrail.bundle.data import FIELDS, event_of, explanation

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))
LINES = re.compile(rb'(<script type="application/x-tabletrail" id="tt-lines"[^>]*>)([^<]*)(</script>)')
WORDS = re.compile(rb'<script type="application/x-tabletrail" id="tt-words"[^>]*>([^<]*)</script>')


def words_of(path: Path) -> dict[str, Any]:
    """The bundle's boards and words, as the page reads them (its `unstep`): the first board, each
    change after it, each event (read back by its fields), each explanation's codes, the table."""
    found = WORDS.search(path.read_bytes())
    assert found is not None, f"{path}: no tt-words element"
    written = json.loads(gzip.decompress(base64.b64decode(found.group(1))))
    assert written["fields"] == list(FIELDS)
    steps = written["steps"]
    return {
        "board": written["board"],
        "base": steps[0][0],
        "deltas": [s[0] for s in steps[1:]],
        "events": [event_of(s[1]) for s in steps],
        "explain": [s[2] for s in steps],
        "strings": written["strings"],
    }


def explained(words: dict[str, Any], seq: int) -> str:
    """The explanation of event `seq` as the page says it (`words_of`'s words of a whole log)."""
    return explanation(words["events"], words["explain"][seq - 1], words["strings"], seq - 1)


def texts_of(steps: list[Any], table: list[Any]) -> list[str]:
    """Each explanation of `bundle.data.carry`'s steps read back, as the page reads it (a withheld
    event's is empty)."""
    events = [event_of(event) for _, event, _ in steps]
    return [explanation(events, codes, table, k) for k, (_, _, codes) in enumerate(steps)]


def as_written(words: dict[str, Any]) -> dict[str, Any]:
    """`words_of`'s shape back to the one written in a bundle (one step an event)."""
    boards = [words["base"], *words["deltas"]]
    events = [
        [e["seq"], e["batch"]] if e.get("withheld") else [e[k] for k in FIELDS] for e in words["events"]
    ]
    steps = [list(s) for s in zip(boards, events, words["explain"], strict=True)]
    return {"board": words["board"], "fields": list(FIELDS), "steps": steps, "strings": words["strings"]}


def boards(words: dict[str, Any]) -> list[dict[str, Any]]:
    """The board after each carried event: the full first view with each change applied, as the page does."""
    current = words["base"]
    out = [current]
    for d in words["deltas"]:
        nxt = {**current, **d}
        if "fighters" in d:
            nxt["fighters"] = {
                fid: {**current["fighters"].get(fid, {}), **d["fighters"].get(fid, {})}
                for fid in {**current["fighters"], **d["fighters"]}
            }
        out.append(nxt)
        current = nxt
    return out


def with_lines(path: Path, lines: list[bytes], out: Path) -> Path:
    """A copy of the bundle carrying other lines (a tampered copy), everything else unchanged."""
    packed = base64.b64encode(gzip.compress(b"".join(line + b"\n" for line in lines), mtime=0))
    data = LINES.sub(lambda m: m.group(1) + packed + m.group(3), path.read_bytes(), count=1)
    out.write_bytes(data)
    return out


def lines_of(path: Path) -> list[bytes]:
    return read_bundle(path).lines


def one_byte(lines: list[bytes], n: int) -> list[bytes]:
    """Line n with one digit of its time changed: still a record, no longer the line written."""
    line = lines[n - 1]
    i = line.index(b'+00:00"') - 1
    digit = b"7" if line[i : i + 1] != b"7" else b"3"
    return [*lines[: n - 1], line[:i] + digit + line[i + 1 :], *lines[n:]]


def cut_last(lines: list[bytes]) -> list[bytes]:
    return lines[:-1]


def swapped(lines: list[bytes], n: int) -> list[bytes]:
    """Lines n and n+1 in each other's place."""
    return [*lines[: n - 1], lines[n], lines[n - 1], *lines[n + 1 :]]


def with_words(path: Path, words: dict[str, Any], out: Path) -> Path:
    """A copy of the bundle carrying other boards and words (a forged copy), its lines unchanged."""
    packed = base64.b64encode(gzip.compress(json.dumps(as_written(words)).encode(), mtime=0))
    data = re.sub(
        rb'(<script type="application/x-tabletrail" id="tt-words"[^>]*>)[^<]*(</script>)',
        lambda m: m.group(1) + packed + m.group(2),
        path.read_bytes(),
        count=1,
    )
    out.write_bytes(data)
    return out


HEAD = re.compile(rb'(<script type="application/json" id="tt-head">)([^<]*)(</script>)')


def with_head(path: Path, head: dict[str, Any], out: Path) -> Path:
    """A copy of the bundle with another header (its claims edited), everything else unchanged."""
    text = json.dumps(head, separators=(",", ":")).replace("<", "\\u003c").encode()
    out.write_bytes(HEAD.sub(lambda m: m.group(1) + text + m.group(3), path.read_bytes(), count=1))
    return out
