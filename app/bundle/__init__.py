"""A replay bundle: one HTML file that carries an encounter's log, replays it and checks its chain.

`tabletrail bundle LOG -o fight.html` writes it; any browser opens it from disk with no
network at all (a Content-Security-Policy forbids every request; scripts, styles and the
map's picture are inline). The file holds, in `<script>` elements the browser never runs:

- `tt-head` (JSON): the format, the encounter's name and ruleset, the range of lines
  carried (`first`..`last`), the hash of the line before the range (`anchor`, "" from
  line 1), the tip recorded when the bundle was made (`tip`: the last line's number and
  its plain hash, as `verify` prints it; `store_tip`: what the store kept beside its
  log), the chain's key check for a keyed log (`keyed`), who it was made for (`role`)
  and the lines withheld from that role (`withheld`: line number, its chain hash, why).
- `tt-lines`: the lines exactly as written, joined by newlines, gzip then base64 (a
  withheld line is left empty): the bytes `verify` hashes, read back byte for byte.
- `tt-words`: gzip then base64 of a JSON document: the static board (map, walls, sides)
  as `board`; `steps`, one a carried event: the board after it (the first a full view,
  then what changed: the engine's fold, app/bundle/data.py), the event as `log` says it
  (a list of its `fields`), and its `explain` text as codes: numbers into `strings`, a
  table of lines and runs of lines kept once, or a line the page makes from the events (the
  event's head line, its batch's listing: data.py `explanation` reads them as the page does).
  It is written in log order as the fold goes, streamed into its gzip.

The page (app/web/static/bundle.js) recomputes the chain with the vendored BLAKE2b
(app/web/static/vendor/) and draws the recorded boards; re-deciding every command under
the rules is `tabletrail verify fight.html`'s job (`read_bundle` gives it the lines).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import re
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
from tabletrail.bundle.data import FIELDS, Lines, carry_batches, static_board
from tabletrail.core.engine.ruleset import ENGINE_HANDLERS
from tabletrail.events.errors import InputError
from tabletrail.events.picture import PictureSpec
from tabletrail.events.stores.chain import chain_broken, key_check, line_hash, tip_hash
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.protocol import Store
from tabletrail.events.stores.record import Record, decode
from tabletrail.events.types import CommandIssued, EncounterStarted, Redone, Undone
from tabletrail.service.encounter import Encounter
from tabletrail.text.audit import explain_runs, explain_texts

FORMAT = 1
GM = "gm"
WATCHER = "watcher"  # a view-only link: a player's share
STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
VENDOR = ("util.js", "blake2b.js")  # app/web/static/vendor/, as published (vendor/README.md)
DRAWER = "board.js"  # the table view's board drawing, an ES module with no imports
MARK = re.compile(r"<!--tt:(\w+)-->")
DATA = re.compile(rb'<script type="application/x-tabletrail" id="tt-(\w+)"[^>]*>([^<]*)</script>')
LEVEL = 6  # gzip level of both payloads: 9 made a 10k-event bundle 4% smaller for 5% more CPU
CHUNK = 64 * 1024  # bytes of tt-words encoded before they go to the gzip (one step a call cost 20% more)
MAX_BUNDLE_BYTES = 256 * 1024 * 1024  # a bundle `verify` reads: far beyond any encounter's


@dataclass(frozen=True)
class Withheld:
    """A line a player's bundle leaves out: its number, its hash in the chain, and why, in words."""

    seq: int
    chain: str  # the hash the next line carries (keyed when the log's chain is)
    plain: str  # its plain hash, as a tip is written
    why: str


def withheld_from_players(records: Sequence[Record]) -> dict[int, str]:
    """The lines a player may not read, each with why: the GM's rulings and settings, and line 1.

    Line 1 holds the scenario with the seed of the encounter's dice, from which every
    seeded roll to come follows: a player's bundle carries the map and fighters without
    it. A ruling's batch goes whole (its command's words, its facts), and so does an undo
    or redo of one. The rules of the server's per-role redaction (a player's screen),
    applied to lines: those are kept as their hashes, so the chain still checks.
    """

    ruled: dict[int, str] = {}
    for r in records:
        e = r.event
        if isinstance(e, CommandIssued) and type(e.command) in ENGINE_HANDLERS:
            ruled[r.batch] = "a GM's ruling or setting"
        elif isinstance(e, Undone | Redone) and e.batch in ruled:
            ruled[r.batch] = "an undo or redo of a GM's ruling or setting"
    out = {r.seq: ruled[r.batch] for r in records if r.batch in ruled}
    out[1] = "the scenario as logged, which holds the seed of the dice"
    return out


def _check_at(at: int | None, length: int, lo: int, hi: int) -> None:
    """The event a page opens at: in the log, and in the range carried."""
    if at is None:
        return
    if not 1 <= at <= length:
        raise InputError(f"--at: {at} is outside the log (events 1 to {length})")
    if not lo <= at <= hi:
        raise InputError(f"--at: {at} is outside the range carried ({lo} to {hi})")


def _range(records: Sequence[Record], at: int | None, first: int | None, last: int | None) -> tuple[int, int]:
    n = len(records)
    for flag, value in (("--at", at), ("--from", first), ("--to", last)):
        if value is not None and not 1 <= value <= n:
            raise InputError(f"{flag}: {value} is outside the log (events 1 to {n})")
    lo, hi = first or 1, last or n
    if lo > hi:
        raise InputError(f"--from {lo} comes after --to {hi}: nothing to carry")
    _check_at(at, n, lo, hi)
    # A range holds whole batches (one command each), so the lines carried can be re-decided.
    for flag, seq, edge in (("--from", lo, "starts"), ("--to", hi, "ends")):
        batch = records[seq - 1].batch
        seqs = [r.seq for r in records if r.batch == batch]
        if seq != (seqs[0] if edge == "starts" else seqs[-1]):
            raise InputError(
                f"{flag} {seq}: event {seq} is inside batch {batch} (events {seqs[0]} to {seqs[-1]}, one "
                f"command); a range {edge} at a batch's edge: use {seqs[0] if edge == 'starts' else seqs[-1]}"
            )
    return lo, hi


def picture_bytes(spec: PictureSpec, log: str | Path | None) -> bytes | None:
    """The battle map's picture with the bytes the log pinned: where it was, or by name beside the log."""
    places = [Path(spec.file)]
    if log is not None:
        places.append(Path(log).parent / spec.name)
    for path in places:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == spec.sha256:
            return data
    return None


@dataclass(frozen=True)
class Made:
    """A bundle made and packed, before the page around it: a server keeps it for every request
    of a side at one version, whatever event each asks the page to open at (`page`)."""

    head: dict[str, Any]  # tt-head, its "at" the last event carried
    lines: str  # tt-lines, packed
    words: str  # tt-words, packed

    def page(self, at: int | None = None) -> bytes:
        """The HTML page, opening at event `at` (the last carried by default)."""
        _check_at(at, self.head["length"], self.head["first"], self.head["last"])
        return page({**self.head, "at": at or self.head["last"]}, self.lines, self.words)


def build(
    store: Store,
    *,
    role: str = GM,
    at: int | None = None,
    first: int | None = None,
    last: int | None = None,
    log_path: str | Path | None = None,
    find_picture: Callable[[PictureSpec], bytes | None] | None = None,
) -> bytes:
    """The bundle of a log (of the range `first`..`last`) as one HTML page, for `role` to read.

    `role` is "gm" (everything), a side, or "watcher" (a side's share without its refusals).
    `find_picture` gives the battle map's bytes (the server's own finder); by default they
    are looked for where the scenario had them and beside `log_path`.
    """
    made = make(store, role=role, at=at, first=first, last=last, log_path=log_path, find_picture=find_picture)
    return made.page(at)


def make(
    store: Store,
    *,
    role: str = GM,
    at: int | None = None,
    first: int | None = None,
    last: int | None = None,
    log_path: str | Path | None = None,
    find_picture: Callable[[PictureSpec], bytes | None] | None = None,
    upto: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Made:
    """`build`'s bundle made and packed (`at` only checked, before the work): of the log's first
    `upto` lines when given (the version a server was asked at), telling `progress(done, of)` the
    events made so far as it goes."""

    lines = list(store.read())  # read once: a live table may append while the bundle is made
    if upto is not None:
        lines = lines[:upto]
    held = MemoryStore(lines)
    held.name = store.name  # errors name the log, not the copy
    enc = Encounter.open(held, snapshots=False)  # every line checked: a bundle is made of a sound log
    records = enc.records
    lo, hi = _range(records, at, first, last)
    sides = sorted({f.side for f in enc.state.fighters})
    if role not in (GM, WATCHER) and role not in sides:
        raise InputError(f"--side: {role!r} is no side of this encounter (sides: {', '.join(sides)})")
    player = role != GM
    hidden = withheld_from_players(records) if player else {}
    shown: Callable[[Record], bool] = lambda r: r.seq not in hidden  # noqa: E731
    refused = store.refused() if hasattr(store, "refused") else []
    if player:
        refused = [x for x in refused if getattr(x, "by", GM) == role]
    strings = Lines()
    steps = carry_batches(
        records,
        lo,
        hi,
        explain_texts,
        refused,
        shown=shown if hidden else None,
        rulings=not player,
        progress=progress,
        whole=enc.timeline if hi == len(records) else None,
        strings=strings,
        explain_runs=explain_runs,
    )
    key = enc.key
    withheld = [
        Withheld(seq, line_hash(lines[seq - 1], key), line_hash(lines[seq - 1]), hidden[seq])
        for seq in sorted(hidden)
        if lo <= seq <= hi
    ]
    started = records[0].event
    assert isinstance(started, EncounterStarted)
    kept = store.kept_tip() if hasattr(store, "kept_tip") else None
    kept = kept if kept and kept[0] == len(lines) else None
    state = enc.state
    board = static_board(state)
    picture = _picture(started.scenario.picture, find_picture or (lambda spec: picture_bytes(spec, log_path)))
    if picture:
        board["picture"] = picture
    head = {
        "format": FORMAT,
        "made_by": "tabletrail bundle",
        "name": started.scenario.name,
        "ruleset": started.scenario.ruleset,
        "first": lo,
        "last": hi,
        "length": len(records),  # the whole log's, when the bundle was made
        "at": hi,
        "anchor": line_hash(lines[lo - 2]) if lo > 1 else "",
        "anchor_chain": line_hash(lines[lo - 2], key) if lo > 1 else "",
        "tip": _tip(hi, lines[hi - 1], key),
        "store_tip": {"seq": kept[0], "hash": kept[1]} if kept and hi == len(records) else None,
        "keyed": key_check(key) if key else "",
        "role": role,
        "withheld": [[w.seq, w.chain, w.plain, w.why] for w in withheld],
    }
    gone = {w.seq for w in withheld}
    body = b"\n".join(b"" if seq in gone else lines[seq - 1] for seq in range(lo, hi + 1)) + b"\n"
    return Made(head, _packed(body), _streamed(board, steps, strings))


def _tip(seq: int, last: bytes, key: bytes) -> dict[str, Any]:
    """The tip recorded: the last line's number and plain hash (what `verify` prints), and for a
    keyed log its tip MAC too (events/stores/chain.py `tip_hash`), which only the table's secret can write."""

    tip: dict[str, Any] = {"seq": seq, "hash": line_hash(last)}
    if key:
        tip["mac"] = tip_hash(last, key)
    return tip


def _picture(spec: Any, find: Callable[[PictureSpec], bytes | None]) -> dict[str, Any] | None:
    if not isinstance(spec, PictureSpec):
        return None
    data = find(spec)
    if data is None:
        return None
    mime = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}.get(spec.kind, "image/png")
    return {
        "href": f"data:{mime};base64,{base64.b64encode(data).decode()}",
        "pixels_per_grid": spec.pixels_per_grid,
        "origin": list(spec.origin),
        "width": spec.width,
        "height": spec.height,
        "name": spec.name,
    }


def _packed(data: bytes) -> str:
    """gzip then base64, its header's time 0, so the same log bundles to the same bytes. The lines are
    deflated `Z_FILTERED` (fewer short matches): 7% fewer bytes than the default at the same level
    for a log's JSON lines, in the same time (10k and 100k events, benchmarks/bench_bundle.py's)."""
    gz = zlib.compressobj(LEVEL, zlib.DEFLATED, 31, 8, zlib.Z_FILTERED)
    return base64.b64encode(gz.compress(data) + gz.flush()).decode()


def _streamed(board: dict[str, Any], steps: Iterator[list[Any]], strings: Any) -> str:
    """tt-words, packed as the steps are made: `{"board": …, "fields": [an event's], "steps": [[board or
    what changed, event, explanation's codes], …], "strings": [the lines and runs]}`, gzip then base64,
    none of it held whole: a batch's steps at a time are encoded into a buffer, handed to the gzip a chunk
    at a time."""
    encoder = msgspec.json.Encoder()
    gz = zlib.compressobj(LEVEL, zlib.DEFLATED, 31)  # gzip, its header's time 0: the same log, the same bytes
    out = []
    buf = bytearray(
        b'{"board":' + encoder.encode(board) + b',"fields":' + encoder.encode(FIELDS) + b',"steps":['
    )
    n = 0
    for batch in steps:
        if not batch:
            continue
        if n:
            buf += b","
        n += 1
        buf += encoder.encode(batch)[1:-1]  # a batch's steps, one array's items
        if len(buf) >= CHUNK:
            out.append(gz.compress(buf))
            buf.clear()
    buf += b'],"strings":' + encoder.encode(strings.table) + b"}"
    out.append(gz.compress(buf))
    out.append(gz.flush())
    return base64.b64encode(b"".join(out)).decode()


def _script_body(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def vendored() -> str:
    """The vendored BLAKE2b as published, each file a CommonJS module inside one function."""
    modules = ",\n".join(
        f'"./{name.removesuffix(".js")}": function (module, exports, require) {{\n'
        f"{(STATIC / 'vendor' / name).read_text(encoding='utf-8')}\n}}"
        for name in VENDOR
    )
    return (
        "const blakejs = (function () {\n"
        "  const defined = {\n" + modules + "\n  };\n"
        "  const done = {};\n"
        "  function require(name) {\n"
        "    if (!(name in done)) { const module = { exports: {} }; done[name] = module;\n"
        "      defined[name](module, module.exports, require); }\n"
        "    return done[name].exports;\n"
        "  }\n"
        '  return require("./blake2b");\n'
        "})();\n"
    )


def as_script(source: str, name: str) -> str:
    """An ES module with no imports as a classic script: `const NAME = {its exports}`.

    The page may load nothing (its policy forbids it), and inline modules can't import one
    another, so the table view's board module is inlined with its `export` words taken off,
    inside a function whose result holds what it exported.
    """
    if re.search(r"^\s*import\b", source, re.M):
        raise ValueError(f"{name}: a module with imports can't be inlined in a bundle")
    exported = re.findall(r"^export (?:async )?(?:function\*?|const|let|class) (\w+)", source, re.M)
    body = re.sub(r"^export ", "", source, flags=re.M)
    return f"const {name} = (function () {{\n{body}\nreturn {{ {', '.join(exported)} }};\n}})();\n"


def drawer() -> str:
    """The board's drawing: the table view's own module (app/web/static/board.js), inlined."""
    return as_script(_script_body(DRAWER), "TabletrailBoard")


def _csp(scripts: Sequence[str]) -> str:
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'" for s in scripts
    )
    return (
        f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def page(head: dict[str, Any], lines: str, words: str) -> bytes:
    """The HTML page around the payloads, packed: styles and scripts inline, every request forbidden."""
    scripts = [vendored(), drawer(), _script_body("bundle.js")]
    parts = {
        "title": html.escape(f"{head['name']} · tabletrail replay"),
        "csp": html.escape(_csp(scripts)),
        "style": _script_body("table.css") + "\n" + _script_body("bundle.css"),
        "head": json.dumps(head, separators=(",", ":")).replace("<", "\\u003c"),
        "lines": lines,
        "words": words,
        "scripts": "\n".join(f"<script>{s}</script>" for s in scripts),
    }
    template = _script_body("bundle.html")
    return MARK.sub(lambda m: parts[m.group(1)], template).encode("utf-8")


# --- reading a bundle back (tabletrail verify fight.html) -------------------------------------


@dataclass(frozen=True)
class Bundle:
    """What a bundle carries, read back: its head and its lines byte for byte ("" when withheld)."""

    name: str
    head: dict[str, Any]
    lines: list[bytes]

    @property
    def whole(self) -> bool:
        """Does it hold every line from the first, so that the rules can re-decide it?"""
        return self.head["first"] == 1 and not self.head["withheld"]


def is_bundle(path: str) -> bool:
    """A LOG argument naming a bundle: an .html file (its head says what it is when read)."""
    return path.lower().endswith((".html", ".htm"))


def read_bundle(path: str | Path) -> Bundle:
    """A bundle's head and lines; InputError names what is missing or damaged."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BUNDLE_BYTES:
            raise InputError(f"{path}: {size} bytes is larger than any bundle tabletrail writes")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such bundle file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a bundle file") from None
    found = {m.group(1).decode(): m.group(2) for m in DATA.finditer(data)}
    head_match = re.search(rb'<script type="application/json" id="tt-head">([^<]*)</script>', data)
    if head_match is None or "lines" not in found:
        raise InputError(f"{path}: not a tabletrail bundle (no tt-head or tt-lines element)")
    try:
        head = json.loads(head_match.group(1))
    except ValueError as exc:
        raise InputError(f"{path}: tt-head: not JSON ({exc})") from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise InputError(
            f"{path}: tt-head: format {head.get('format') if isinstance(head, dict) else '?'}"
            f" is not a bundle format this tabletrail reads ({FORMAT})"
        )
    try:
        body = gzip.decompress(base64.b64decode(found["lines"], validate=True))
    except (ValueError, OSError, EOFError) as exc:
        raise InputError(f"{path}: tt-lines: not gzip in base64 ({exc})") from None
    lines = body.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return Bundle(str(path), head, lines)


class BundleStore:
    """A whole bundle's lines as a read-only store, so `verify_store` checks them and the tip recorded."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.name = bundle.name

    def read(self, start: int = 0) -> Iterator[bytes]:
        yield from self.bundle.lines[start:]

    def kept_tip(self) -> tuple[int, str] | None:
        tip = self.bundle.head.get("tip") or {}
        if "seq" not in tip or "hash" not in tip:
            return None
        return int(tip["seq"]), str(tip.get("mac") or tip["hash"])  # a keyed log's tip is its MAC


def check_chain(bundle: Bundle, key: bytes = b"") -> dict[str, Any]:
    """The chain of a bundle that can't be re-decided (a range, or a player's): from its anchor on.

    The same checks in the same order as the page: each line a record, carrying the hash
    of the one before (a withheld line's hash is carried for it), numbered in order, and
    the last line's hash the tip recorded. Returns verify's report shape.
    """

    head = bundle.head
    lo = int(head["first"])
    withheld = {int(w[0]): (str(w[1]), str(w[2])) for w in head["withheld"]}
    prev = str(head["anchor_chain" if key else "anchor"]) if lo > 1 else ""
    finding: dict[str, Any] | None = None
    n = lo - 1
    for offset, line in enumerate(bundle.lines):
        n = lo + offset
        if n in withheld:
            prev = withheld[n][0]
            continue
        try:
            record = decode(line, f"{bundle.name}:{n}")
        except InputError as exc:
            finding = _finding(n, "line", f"line {n} is not a log record: {exc}")
            break
        if record.prev != prev:
            finding = _finding(
                n,
                "chain",
                f"line {n} does not carry the hash of line {n - 1} recorded with this range: it was changed, "
                "or the range does not follow that line"
                if n == lo > 1
                else chain_broken(n),
            )
            break
        if record.seq != n:
            finding = _finding(n, "order", f"line {n} says it is event {record.seq}")
            break
        prev = line_hash(line, key)
    tip = head.get("tip") or {}
    count = len(bundle.lines)
    last_hash = withheld[n][1] if n in withheld else (line_hash(bundle.lines[-1]) if bundle.lines else "")
    if (
        finding is None
        and key
        and tip.get("mac")
        and n not in withheld
        and bundle.lines
        and tip_hash(bundle.lines[-1], key) != tip["mac"]
    ):
        finding = _finding(n, "tip", f"line {n} does not match the keyed tip recorded: it was changed")
    if finding is None:
        expected = int(tip.get("seq", 0)) - lo + 1
        if count != expected or last_hash != tip.get("hash"):
            finding = _finding(
                min(int(tip.get("seq", 0)), lo + count - 1),
                "tip",
                f"the bundle holds lines {lo} to {lo + count - 1} ending in hash {last_hash}, but the tip "
                f"recorded says line {tip.get('seq')} ends in hash {tip.get('hash')}: the bundle was cut "
                "or its end edited",
            )
    return {
        "log": bundle.name,
        "ok": finding is None,
        "lines": count,
        "first": lo,
        "finding": finding,
        "tip": last_hash,
        "anchor": head.get("anchor", ""),
        "withheld": sorted(withheld),
    }


def _finding(seq: int, kind: str, reason: str) -> dict[str, Any]:
    return {"seq": seq, "kind": kind, "reason": reason, "rule": "", "expected": None, "recorded": None}
