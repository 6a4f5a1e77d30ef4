"""Verify: the hash chain, the sequence numbers, then every batch re-decided from the
state before it and compared with what the log records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec
from tabletrail.core.board.corrections import FIRST, RULES_VERSION, bearing_on, in_words
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.units import fmt, unit_of
from tabletrail.core.engine.dice import Dice
from tabletrail.core.engine.movement import length_of
from tabletrail.core.engine.registry import RULESETS
from tabletrail.core.engine.ruleset import ENGINE_RULE_WORDS, UNDO_RULE, Ruleset
from tabletrail.core.engine.rulings import known_rules
from tabletrail.core.fold.batch import Batch
from tabletrail.core.fold.evolve import initial_state
from tabletrail.events import plugins
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.errors import InputError
from tabletrail.events.plugins import MissingRuleset
from tabletrail.events.stores.chain import (
    KEY_VARIABLE,
    chain_broken,
    chain_key,
    line_hash,
    table_key,
    tip_hash,
)
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.record import Record, decode, encode
from tabletrail.events.stores.tail import lagging_batch
from tabletrail.events.types import (
    SCHEMA_VERSION,
    Abandoned,
    EncounterStarted,
    Event,
    Moved,
    Redone,
    RulingMade,
    Undone,
)
from tabletrail.projections.audit.inputs import Decide, Logged, Replay, decide_on
from tabletrail.projections.audit.parts import CITATIONS, _command_of, _groups, _ruling, _same, _status, plain
from tabletrail.projections.snapshot import FORMAT as SNAPSHOT_FORMAT
from tabletrail.projections.snapshot import loads, take


@dataclass(frozen=True)
class Finding:
    """The first thing wrong with a log: where, what kind, and what the rules expected."""

    seq: int  # the line (= sequence number) at fault
    kind: str  # line, chain, order, tip, setup, decision, undo
    reason: str
    rule: str = ""
    expected: Any = None
    recorded: Any = None


@dataclass
class _Citations:
    """Events the rules give exactly but with other rule ids cited: a log written under older texts.

    Only ids that exist count (the ruleset's catalogue and the engine's rules); a
    citation of a rule that does not exist is a fault like any other.
    """

    known: frozenset[str] = frozenset()  # set once the ruleset is known (the setup batch)
    found: list[dict[str, Any]] = field(default_factory=list)

    def excuse(self, expected: Event, recorded: Record) -> bool:
        """Is this the only difference, and are the recorded ids real? Then note it and go on."""
        if not self.known.issuperset(recorded.event.rules) or not _same(expected, recorded.event, *CITATIONS):
            return False
        self.found.append(
            {"seq": recorded.seq, "recorded": list(recorded.event.rules), "now": list(expected.rules)}
        )
        return True


class _Stop(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.reason)
        self.finding = finding


def read_lines(path: str | Path) -> tuple[list[bytes], bool]:
    """A log file's raw lines, and whether its last line is torn (no newline at the end)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such log file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a log file") from None
    return data.splitlines(), bool(data) and not data.endswith(b"\n")


def _same_json(raw: Any, built: Any) -> bool:
    """Equal as JSON values: the same keys, items and numbers (1 and 1.0 alike, never true).

    A key only the re-encoding has is a field added later with a default (the decoder filled
    it in: "a new field with a default needs no new version", events/upcast.py); a key only
    the line has (a renamed one) is a difference. So are items only the re-encoding has at the
    end of a list: a struct written as an array (a Step) that gained a field with a default.
    """
    if isinstance(raw, dict):
        return (
            isinstance(built, dict)
            and raw.keys() <= built.keys()
            and all(_same_json(v, built[k]) for k, v in raw.items())
        )
    if isinstance(raw, list):
        return (
            isinstance(built, list)
            and len(raw) <= len(built)
            and all(_same_json(a, b) for a, b in zip(raw, built, strict=False))
        )
    if isinstance(raw, bool) or isinstance(built, bool):
        return raw is built
    return raw == built and isinstance(raw, int | float) == isinstance(built, int | float)


def _as_written(line: bytes, record: Record) -> bool:
    """Does the line say exactly what its record says?

    A line of the current vocabulary re-encodes to itself, or at least to the same
    JSON: a renamed key (which decodes to the field's default) would otherwise
    change the file unnoticed. A line of an older vocabulary is upcast on reading
    and can't be compared this way.
    """
    try:
        raw = msgspec.json.decode(line)
    except msgspec.DecodeError:  # e.g. bytes that are not UTF-8 inside a key the types skip
        return False
    version = raw.get("schema", 1) if isinstance(raw, dict) else 1
    if version != SCHEMA_VERSION:
        return True
    again = encode(record)
    return again == line or _same_json(raw, msgspec.json.decode(again))


def _chain(lines: Sequence[bytes], name: str, torn: bool) -> list[Record]:
    """Decode every line and check seq and the hash chain; stops at the first bad line."""
    if not lines:
        raise _Stop(Finding(1, "line", f"{name}: the log is empty"))
    records: list[Record] = []
    prev = ""
    key = b""
    for n, line in enumerate(lines, start=1):
        if torn and n == len(lines):
            raise _Stop(
                Finding(
                    n,
                    "line",
                    f"line {n} is torn: no newline ends the file (cut mid-write? `tabletrail repair` cuts)",
                )
            )
        try:
            record = decode(line, f"{name}:{n}")
        except MissingRuleset:  # no fault of the log: it can't be checked here, and the line says why
            raise
        except (InputError, msgspec.MsgspecError, ValueError) as exc:  # any undecodable line is a finding
            why = str(exc).removeprefix(f"{name}:{n}: ").removeprefix("not a log record: ")
            raise _Stop(Finding(n, "line", f"line {n} is not a log record: {why}")) from None
        if not _as_written(line, record):
            raise _Stop(
                Finding(n, "line", f"line {n} is not as the engine writes it (a key or spacing changed)")
            )
        if record.prev != prev:
            raise _Stop(
                Finding(
                    n,
                    "chain",
                    chain_broken(n),
                )
            )
        if record.seq != n:
            raise _Stop(Finding(n, "order", f"line {n} says it is event {record.seq}"))
        if n == 1:
            key = _key(record)
        prev = line_hash(line, key)
        records.append(record)
    return records


def _key(first: Record) -> bytes:
    """The chain's key; a keyed log needs the table's secret, and a secret expects a keyed log."""
    try:
        key = chain_key(first, "line 1")
    except InputError as exc:
        raise _Stop(Finding(1, "key", str(exc).removeprefix("line 1: "))) from None
    if not key and table_key():
        raise _Stop(
            Finding(
                1,
                "key",
                f"{KEY_VARIABLE} is set but this log's chain is not keyed: it was started without the "
                "table's secret, or re-chained by someone who does not hold it",
            )
        )
    return key


def _tip(lines: Sequence[bytes], tip: str) -> None:
    if tip and tip not in {line_hash(line) for line in lines}:
        raise _Stop(
            Finding(
                len(lines),
                "tip",
                f"no line hashes to the anchor {tip}: the anchored line was edited or the log cut before it",
            )
        )


def _explain_gap(expected: Event | None, recorded: Event | None, unit: str) -> str:
    """Plain words on how a recorded event differs from what the rules give."""
    words = []
    if isinstance(recorded, Moved):
        total = length_of(recorded.steps)
        if total > recorded.budget:
            said = unit_of(recorded.resource, unit)
            words.append(
                f"the recorded move costs {fmt(total)} {said}, "
                f"but only {fmt(recorded.budget)} {said} were left"
            )
    if expected is None:
        words.append(f"the rules produce nothing here, the log records a {type(recorded).__name__}")
    elif recorded is None:
        words.append(f"the rules also produce a {type(expected).__name__} here, missing from the log")
    else:
        pe, pr = plain(expected), plain(recorded)
        keys = [k for k in pe if pe.get(k) != pr.get(k)] or ["type"]
        words.append("they differ in " + ", ".join(keys))
    return "; ".join(words)


def _check_setup(recs: list[Record], cited: _Citations) -> Ruleset:
    """The first batch: a known ruleset, settings the scenario chose, and the first turn as begun."""
    started = recs[0].event
    if not isinstance(started, EncounterStarted):
        raise _Stop(Finding(1, "setup", "a log must start with an encounter-started event"))
    sc = started.scenario
    rs = RULESETS.get(sc.ruleset)
    if rs is None:
        raise _Stop(
            Finding(1, "setup", f"unknown ruleset {sc.ruleset!r} (known: {', '.join(sorted(RULESETS))})")
        )
    try:
        rs.resolve_settings(dict(started.settings), "settings in force")
        chosen = rs.resolve_settings(dict(sc.settings), "scenario settings")
        rs.validate(sc, "scenario")
        state = initial_state(started)
    except InputError as exc:
        raise _Stop(Finding(1, "setup", str(exc))) from None
    except (KeyError, IndexError, ValueError) as exc:
        raise _Stop(Finding(1, "setup", f"the scenario can't be set up: {exc!r}")) from None
    for key in sc.settings:
        if started.settings.get(key) != chosen[key]:
            raise _Stop(
                Finding(
                    1,
                    "setup",
                    f"the settings in force say {key} = {started.settings.get(key)!r}, "
                    f"the scenario chose {chosen[key]!r}",
                )
            )
    for r in recs:
        if r.actor != "gm" or r.at != recs[0].at:
            raise _Stop(
                Finding(r.seq, "order", f"line {r.seq}: the setup batch is the GM's, written at once")
            )
    cited.known = frozenset((*known_rules(rs), *ENGINE_RULE_WORDS))
    b = Batch(state)
    try:
        rs.begin(b, Dice())
    except Exception as exc:  # a forged scenario can crash a ruleset: report it, don't crash
        raise _Stop(Finding(1, "setup", f"the first turn can't begin: {exc!r}")) from None
    _compare(b.events, recs[1:], recs[0].seq + 1, "setup", rs.unit, cited)
    return rs


def _compare(
    expected: Sequence[Event],
    recorded: Sequence[Record],
    next_seq: int,
    kind: str,
    unit: str,
    cited: _Citations,
) -> None:
    """The first difference between what the rules give and what the log records.

    An event that differs only in which existing rules it cites is no fault: the
    board is the same, and a log written before an update of the rule texts cites
    the ids of its day. `cited` keeps it for the report, and the check goes on.
    """
    for exp, rec in zip(expected, recorded, strict=False):
        if not _same(exp, rec.event) and not cited.excuse(exp, rec):
            rule = (exp.rules or rec.event.rules or ("",))[0]
            raise _Stop(
                Finding(
                    rec.seq,
                    kind,
                    f"event {rec.seq} is not what the rules give: {_explain_gap(exp, rec.event, unit)}",
                    rule,
                    plain(exp),
                    plain(rec.event),
                )
            )
    if len(expected) > len(recorded):
        missing = expected[len(recorded)]
        seq = recorded[-1].seq + 1 if recorded else next_seq
        rule = (missing.rules or ("",))[0]
        raise _Stop(Finding(seq, kind, _explain_gap(missing, None, unit), rule, plain(missing), None))
    if len(recorded) > len(expected):
        extra = recorded[len(expected)]
        rule = (extra.event.rules or ("",))[0]
        raise _Stop(
            Finding(extra.seq, kind, _explain_gap(None, extra.event, unit), rule, None, plain(extra.event))
        )


def _check_batch(scratch: Replay, recs: list[Record], unit: str, cited: _Citations) -> str:
    """Re-decide one batch on the state before it; returns its kind ("command", "undo", "redo")."""
    first = recs[0]
    for r in recs[1:]:
        if r.actor != first.actor or r.at != first.at:
            raise _Stop(
                Finding(
                    r.seq,
                    "order",
                    f"line {r.seq} is in batch {r.batch} but its actor or time differ from line {first.seq}",
                )
            )
    head = first.event
    command, text = _command_of(head)
    if command is None:
        raise _Stop(
            Finding(
                first.seq, "order", f"batch {first.batch} starts with a {type(head).__name__}, not a command"
            )
        )
    if first.actor != command.by:
        raise _Stop(
            Finding(
                first.seq,
                "order",
                f"batch {first.batch} is logged as entered by {first.actor}, "
                f"its command says by={command.by}",
            )
        )
    if isinstance(head, Undone | Redone):
        if len(recs) > 1:
            raise _Stop(
                Finding(
                    recs[1].seq, "order", f"an {text} batch holds one event, batch {first.batch} holds more"
                )
            )
        result = scratch.preview(command)
        if isinstance(result, Rejection):
            raise _Stop(
                Finding(
                    first.seq,
                    "undo",
                    f"{text} by {command.by} is not allowed here: {result.reason}",
                    result.rule,
                    {"refused": result.rule, "reason": result.reason},
                    plain(head),
                )
            )
        _compare(result, recs, first.seq, "undo", unit, cited)
        return text
    if isinstance(command, Undo | Redo):
        raise _Stop(
            Finding(first.seq, "order", "undo and redo are logged as undone/redone events, never as commands")
        )
    body = recs[1:]
    cut = tuple(scratch.timeline.undone)
    opens = bool(body) and isinstance(body[0].event, Abandoned)
    if cut and not (opens and body[0].event.batches == cut):
        seq = body[0].seq if body else first.seq + 1
        raise _Stop(
            Finding(
                seq,
                "undo",
                f"a new command after an undo abandons the redo branch (batches {list(cut)}) first",
                UNDO_RULE,
            )
        )
    if opens and not cut:
        raise _Stop(
            Finding(body[0].seq, "undo", "nothing was undone, so nothing can be abandoned", UNDO_RULE)
        )
    body = body[1:] if opens else body
    try:  # table rolls come with the command; seeded draws follow from the seed and the dice counter
        result = scratch.preview(command)
    except Exception as exc:  # a tampered state can crash a ruleset: report it, don't crash
        raise _Stop(Finding(first.seq, "decision", f"re-deciding {text!r} failed: {exc!r}")) from None
    if isinstance(result, Rejection):
        culprit = next((r for r in body if result.rule in r.event.rules), body[0] if body else first)
        raise _Stop(
            Finding(
                culprit.seq,
                "decision",
                f"the rules refuse {text!r}: {result.reason}",
                result.rule,
                {"refused": result.rule, "reason": result.reason},
                plain(culprit.event),
            )
        )
    _compare(result, body, first.seq + 1, "decision", unit, cited)
    return "command"


def _tip_names(line: bytes, digest: str, key: bytes, versioned: bool) -> str:
    """Does a kept tip's hash name this line? "keyed" or "plain" (it does), "forged", or "" (it doesn't).

    A keyed log's tip is keyed too (issue 28, item 9): its hash is a MAC, so that
    without the secret no one can write a tip a cut log passes with. A keyed log
    whose line 1 records its rules version was started by a tabletrail that keys
    every tip, so a plain hash there was written without the secret: "forged". An
    older keyed log's plain tip (kept before tips were keyed) still names its end.
    """
    if key and tip_hash(line, key) == digest:
        return "keyed"
    if line_hash(line) == digest:
        return "forged" if key and versioned else "plain"
    return ""


def _kept_tip(
    store: Logged, lines: Sequence[bytes], data: dict[str, Any], key: bytes = b"", versioned: bool = False
) -> Finding | None:
    """The log must end where the store's kept tip says it does: a cut at a batch end is caught.

    A tip whole batches behind is what a crash between writing a batch and moving its
    tip leaves (JSON Lines: the tip is a file beside the log): said as a crash, not an
    edit (issue 28, item 8). Those batches were checked like any other.
    """
    kept_tip = getattr(store, "kept_tip", None)
    kept = kept_tip() if kept_tip is not None else None
    if kept is None:
        if kept_tip is not None:
            data["warnings"].append(
                "no tip is kept beside this log (an older or copied log): a cut at a batch end or an "
                "edit of the last line can't be told from the log alone; pass --tip to anchor it"
            )
        return None
    version, last = kept
    # Only a file's tip can lag (it is moved after the batch); a database moves it in the batch's own
    # transaction, so a database tip behind its log is no crash's doing.
    lag = lagging_batch(lines, version) if isinstance(store, JsonlStore) else None
    said = _tip_names(lines[version - 1], last, key, versioned) if len(lines) == version or lag else ""
    if said == "forged":
        return Finding(
            version,
            "tip",
            "the tip kept beside this keyed log is a plain hash, not keyed with the table's secret as this "
            "log's writer keeps it: it was written by someone who does not hold the secret (the log was cut "
            "or its end edited)",
        )
    if said and said == "plain" and key:
        data["warnings"].append(
            "the tip kept beside this keyed log is a plain hash (kept so by a tabletrail before tips were "
            "keyed): it names the log's end, but anyone could have written it; the next command keys it"
        )
    if said and lag:
        data["warnings"].append(
            f"lines {lag[0]}-{lag[1]} (whole batches at the end) were written but the tip kept beside the "
            "log not yet moved past them: a crash between a batch and its tip, not an edit (they re-decide "
            "like any other batch, but only the tip would have vouched for the last line); the next "
            "command, or `tabletrail repair`, moves the tip"
        )
        return None
    if said:
        data["anchored"] = True
        data["kept_tip"] = True
        return None
    return Finding(
        min(version, len(lines)),
        "tip",
        f"the log holds {len(lines)} lines ending in hash {data['tip']}, but the tip kept beside it says "
        f"{version} lines ending in hash {last}: the log was cut or its end edited (or a writer that keeps "
        "no tip appended to it)",
    )


def _snapshots(store: Logged, data: dict[str, Any]) -> Finding | None:
    """Every snapshot checked: its checksum, and equal to the one the full fold takes at its version.

    Called on a log verify found whole, so the fold needs none of the opener's checks.
    """
    listed = getattr(store, "snapshots", None)
    if listed is None:
        return None
    stored = dict(listed(SNAPSHOT_FORMAT))
    if not stored:
        return None
    for version, blob in stored.items():
        try:
            loads(blob)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return Finding(version, "snapshot", f"the snapshot at version {version} is damaged: {exc}")
    folded = Replay()
    wrong: list[int] = []
    seen: set[int] = set()

    def compare() -> None:  # at a batch end
        version = len(folded.records)
        if version in stored and version not in seen:
            seen.add(version)
            kept = loads(stored[version])
            now = take(folded.timeline, folded.last_hash, folded.batch)
            if kept != msgspec.structs.replace(now, rules_version=kept.rules_version):  # any version's fits
                wrong.append(version)

    for n, line in enumerate(store.read(), start=1):
        record = decode(line, f"{store.name}:{n}")
        if n == 1:
            folded.key = chain_key(record, f"{store.name}:1")  # verify's chain check found it fits
        if folded.records and record.batch != folded.batch:
            compare()
        folded.apply(record, line)
    if folded.records:
        compare()
    missed = sorted(set(stored) - seen)  # not at a batch end of this log
    if wrong or missed:
        version = (wrong or missed)[0]
        return Finding(
            version,
            "snapshot",
            f"the snapshot at version {version} does not match the log folded from its first line "
            "(edited, or of another log): `tabletrail repair` rebuilds the snapshots",
        )
    return None


def _plugin_changed(first: Record) -> str:
    """Words for a decision that differs where the log's ruleset plug-in is now of another rules
    version than the one that decided it (its first line says which): "" when it is the same."""
    started = first.event
    if not isinstance(started, EncounterStarted) or not started.ruleset_rules or not started.package:
        return ""
    try:
        now = plugins.find(started.scenario.ruleset)
    except InputError:
        return ""
    rules = now.plugin.rules_version or RULES_VERSION
    if now.package == started.package and rules == started.ruleset_rules:
        return ""
    return (
        f" (decided under {started.scenario.ruleset} rules {started.ruleset_rules} of "
        f"{started.package} {started.package_version}; installed here: rules {rules} of "
        f"{now.package} {now.version})"
    )


def _rules_version(records: Sequence[Record]) -> str:
    """The rules version line 1 says decided the log (0.1: a log from before logs said)."""
    started = records[0].event if records else None
    return (started.rules_version if isinstance(started, EncounterStarted) else "") or FIRST


def _corrected(first: Record, recs: list[Record], ruleset: str, finding: Finding) -> dict[str, Any] | None:
    """A batch that differs from today's decision, in a log decided before a correction that bears on it.

    Then the correction is named and the batch kept as recorded (the board folds it,
    and every later batch is re-decided from there: a later fault is still found);
    None when no correction made since the log's rules version bears on this
    ruleset, command, rule and fact: a fault like any other.
    """
    started = first.event
    if finding.kind != "decision" or not isinstance(started, EncounterStarted):
        return None
    head = recs[0].event
    command, text = _command_of(head)
    if command is None:
        return None
    under = started.rules_version or FIRST
    verb = type(command).__struct_config__.tag
    versioned = bool(started.rules_version)
    facts = tuple(
        "refused" if "refused" in fact else str(fact.get("type"))
        for fact in (finding.expected, finding.recorded)
        if isinstance(fact, dict)
    )
    found = bearing_on(under, ruleset, str(verb), recs[0].at, finding.rule, facts, recorded=versioned)
    if not found:
        return None
    return {
        "seq": finding.seq,
        "batch": recs[0].batch,
        "text": text,
        "under": under,
        "corrections": [c._asdict() for c in found],
        "words": in_words(under, ruleset, found),
        "reason": finding.reason,
        "rule": finding.rule,
        "expected": finding.expected,
        "recorded": finding.recorded,
    }


def _differs(corrected: list[dict[str, Any]]) -> Finding:
    """What an older log whose only differences a correction names is told: named, and not passed.

    Such a batch differs without any edit, but nothing in the log tells it from an
    edited one (anyone can re-chain a plain log; a deletion looks the same), so the
    log does not pass; every other batch was checked from it on, and passed.
    """
    first = corrected[0]
    more = len(corrected) - 1
    others = f" (and {more} more batch{'es' if more != 1 else ''}, named below)" if more else ""
    return Finding(
        first["seq"],
        "corrected",
        f"batch {first['batch']} ({first['text']!r}) differs from what today's rules decide{others}: "
        f"{first['words']}. A log decided before a correction differs there without any edit, but "
        "verify can't tell it from an edited one; every other batch was re-decided and matched",
        first["rule"],
        first["expected"],
        first["recorded"],
    )


def _chain_of(lines: Sequence[bytes]) -> tuple[bytes, bool]:
    """The chain's key (b"" when plain or unreadable) and whether line 1 records its rules version."""
    try:
        first = decode(lines[0], "line 1")
        key = chain_key(first, "line 1")
    except (InputError, IndexError):
        return b"", False
    started = first.event
    return key, isinstance(started, EncounterStarted) and bool(started.rules_version)


def verify_lines(
    lines: Sequence[bytes],
    name: str = "log",
    tip: str = "",
    torn: bool = False,
    *,
    decide: Decide = decide_on,
) -> dict[str, Any]:
    """Check a log line by line and batch by batch; the report names the first fault.

    The chain makes every line vouch for the one before it, so the last line is
    vouched for by re-deciding only (with `decide`); `tip` (a line hash noted
    earlier) anchors it.
    """
    counts = {"command": 0, "undo": 0, "redo": 0}
    rulings: list[dict[str, Any]] = []
    cited = _Citations()
    corrected: list[dict[str, Any]] = []
    finding: Finding | None = None
    records: list[Record] = []
    try:
        records = _chain(lines, name, torn)
        _tip(lines, tip)
        groups = _groups(records)
        for i, recs in enumerate(groups, start=1):
            if recs[0].batch != i:
                raise _Stop(
                    Finding(
                        recs[0].seq, "order", f"line {recs[0].seq} starts batch {recs[0].batch}, expected {i}"
                    )
                )
        rs = _check_setup(groups[0], cited)
        scratch = Replay(decide)  # the recorded history, folded as it is checked
        for recs in groups:
            if recs is not groups[0]:
                try:
                    counts[_check_batch(scratch, recs, rs.unit, cited)] += 1
                except _Stop as stop:  # an older log's batch, decided before a correction: named, kept
                    note = _corrected(records[0], recs, rs.id, stop.finding)
                    if note is None:
                        raise
                    corrected.append(note)
            for r in recs:
                try:
                    scratch.apply(r)
                except (KeyError, ValueError, IndexError, AssertionError, AttributeError) as exc:
                    raise _Stop(
                        Finding(
                            r.seq, "decision", f"event {r.seq} does not fit the board before it ({exc!r})"
                        )
                    ) from None
                if isinstance(r.event, RulingMade):
                    rulings.append(_ruling(r.seq, r.event))
        for ruling in rulings:
            ruling["status"] = _status(scratch.timeline, records[ruling["seq"] - 1].batch)
        if corrected:
            raise _Stop(_differs(corrected))
    except _Stop as stop:
        finding = stop.finding
    if finding is not None and finding.kind == "decision" and records:
        finding = replace(finding, reason=finding.reason + _plugin_changed(records[0]))
    return {
        "log": name,
        "ok": finding is None,
        "lines": len(lines),
        "batches": len(_groups(records)),
        "checked": counts,
        "rulings": rulings,
        "cited": cited.found,
        "corrected": corrected,
        "rules_version": _rules_version(records),
        "ruleset": records[0].event.scenario.ruleset
        if records and isinstance(records[0].event, EncounterStarted)
        else None,
        "tip": line_hash(lines[-1]) if lines else "",
        "anchored": bool(tip) and tip in {line_hash(line) for line in lines},
        "anchor_given": bool(tip) and tip in {line_hash(line) for line in lines},
        "kept_tip": False,
        "finding": asdict(finding) if finding else None,
    }


def verify_file(path: str | Path, tip: str = "", *, decide: Decide = decide_on) -> dict[str, Any]:
    """verify_lines on a log file read raw (opening it would stop at the first bad line)."""
    lines, torn = read_lines(path)
    return verify_lines(lines, str(path), tip, torn, decide=decide)


def verify_store(store: Logged, tip: str = "", *, decide: Decide = decide_on) -> dict[str, Any]:
    """verify a store's raw lines: a file is read byte for byte, other stores line by line.

    Then what the store keeps beside its log (issue 13): the tip (version and last
    line hash, kept with every append) must be the log's end, and every snapshot
    must pass its checksum and equal the snapshot the full fold gives at its version.
    """
    if isinstance(store, JsonlStore):
        lines, torn = read_lines(store.path)
        data = verify_lines(lines, str(store.path), tip, torn, decide=decide)
    else:
        lines = list(store.read())
        data = verify_lines(lines, store.name, tip, decide=decide)
    data["warnings"] = []
    key, versioned = _chain_of(lines)
    if data["ok"]:
        finding = _kept_tip(store, lines, data, key, versioned) or _snapshots(store, data)
        if finding is not None:
            data["ok"], data["finding"] = False, asdict(finding)
    elif data["finding"]["kind"] == "decision":  # a log cut short re-decides wrong: the tip says why
        cut = _kept_tip(store, lines, data, key, versioned)
        if cut is not None and cut.seq <= data["finding"]["seq"]:
            data["finding"] = asdict(cut)
    elif data["finding"]["kind"] == "corrected":  # every batch checked: what the store keeps is, too
        finding = _kept_tip(store, lines, data, key, versioned) or _snapshots(store, data)
        if finding is not None:
            data["finding"] = asdict(finding)
    return data
