"""The audit's answers as text: what `explain`, `why`, `verify`, `whatif` and `refused` print.

The answers come from tabletrail.projections.audit as plain data; these words are the ones a
person at the table checks by hand. Apart from the verbs (app/cli/audit.py) because a replay
bundle (app/bundle/__init__.py) carries the very `explain` text too, and a bundle is below the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgspec
from tabletrail.core.board.units import fmt
from tabletrail.events.types import AnyEvent, Event
from tabletrail.projections import audit
from tabletrail.text import render

_EVENTS = msgspec.json.Decoder(AnyEvent)  # made once: converting a dict anew each time is 8x slower


def _event(data: dict[str, Any]) -> Event:
    """An event back from its plain form (as `explain` gives it)."""
    return _EVENTS.decode(msgspec.json.encode(data))  # type: ignore[no-any-return]


def _cited(event: Event) -> str:
    """`  [rule, rule]` after an event's line, or nothing when it cites none (a command header)."""
    return f"  [{', '.join(event.rules)}]" if event.rules else ""


def _rules(words: list[dict[str, str]], indent: str = "  ") -> list[str]:
    out = []
    for w in words:
        out.append(f"{indent}{w['id']}: {w['enforce'] or '(no description)'}")
        if w.get("default"):
            out.append(f"{indent}    default ruling: {w['default']}")
    return out


def _amount(value: int, length: bool) -> str:
    """A step cost or budget: lengths in fixed decimals of the unit, counts as they are."""
    return fmt(value) if length else str(value)


def _moves(moves: list[dict[str, Any]], w: render.Words) -> list[str]:
    out = []
    for m in moves:
        at = f"event {m['seq']}: " if m["seq"] else ""
        # a move's lines but its event number are a function of the move's other facts and the
        # words' unit: kept by value, since a long fight walks the same cells again and again
        key = (w.unit, _ENCODE({k: v for k, v in m.items() if k != "seq"}))
        said = _MOVES_SAID.get(key)
        if said is None:
            said = _move_lines(m, w)
            if len(_MOVES_SAID) >= _KEPT_BY_VALUE:
                _MOVES_SAID.clear()
            _MOVES_SAID[key] = said
        out.append("  " + at + said[0])
        out.extend(said[1:])
    return out


_ENCODE = msgspec.json.encode
_KEPT_BY_VALUE = 512  # entries of each memo below: bounded, whatever the length of the log
# A move's lines (its first without the indent and event number), by its facts as JSON and the unit.
_MOVES_SAID: dict[tuple[str, bytes], list[str]] = {}


def _move_lines(m: dict[str, Any], w: render.Words) -> list[str]:
    """One move's lines as `_moves` says them, the first without its indent and event number."""
    out = []
    length = m["length"]
    # forced, grapple...: lengths too, in the ruleset's unit; ap-squares' AP are centi-counted, in AP
    unit = render.unit_of(m["resource"], w.unit) if length else m["unit"]
    forced = m["resource"] in render.FORCED_RESOURCES  # a distance meant, not a budget left
    out.append(
        f"{m['fighter']} moves on {render.RESOURCE_LENGTHS.get(m['resource'], m['resource'])}, "
        f"{_amount(m['budget'], length)} {unit} {'to go' if forced else 'left before it'}"
    )
    rows: list[tuple[str, ...]] = [
        ("step", "cell", "terrain", "diagonal", "parity", "mode", "cost", "total", "left")
    ]
    for s in m["steps"]:
        x, y, z = s["cell"]
        rows.append(
            (
                str(s["n"]),
                f"{x},{y}" + (f" (h {fmt(z)})" if z else ""),
                s["terrain"] or "-",
                "yes" if s["diagonal"] else "no",
                str(s["parity"]),
                s["mode"] or "-",
                _amount(s["cost"], length),
                _amount(s["total"], length),
                _amount(s["left"], length),
            )
        )
    if len(rows) > 1:  # a forced move stopped before its first step has no steps to tabulate
        out.extend("    " + line for line in _table(rows))
    over = "  OVER BUDGET" if m["over"] else ""
    out.append(
        f"    total {_amount(m['total'], length)} of {_amount(m['budget'], length)} {unit}, "
        f"{_amount(m['left'], length)} left{over}  [{', '.join(m['rules'])}]"
    )
    if m["stopped"]:
        out.append(f"    stopped: {m['stopped']}")
    return out


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _checks(checks: list[dict[str, Any]]) -> list[str]:
    out = []
    for c in checks:
        at = f"event {c['seq']}: " if c["seq"] else ""
        if c["hidden"]:
            result = "draw, not shown in a dry run (why --reveal shows it)"
        else:
            dice = f" (dice {'+'.join(map(str, c['dice']))} of {c['formula']})" if c["dice"] else ""
            mod = f" {c['modifier']:+} = {c['total']}" if c["modifier"] else ""
            outcome = "" if c["passed"] is None else (", passed" if c["passed"] else ", failed")
            target = f" against {c['target']}" if c["target"] is not None else ""
            result = f"{c['number']}{dice}{mod}{target}{outcome}"
        out.append(f"  {at}{c['fighter']} {c['check']}: {c['source']} {result}  [{', '.join(c['rules'])}]")
        if c["note"]:
            out.append(f"      {c['note']}")
    return out


def _card(
    card: dict[str, Any] | None, unit: str, centi: tuple[str, ...] = audit.LENGTH_RESOURCES, fid: str = ""
) -> str:
    if card is None:
        return "-"
    kept = _CARDS_SAID.get(id(card))
    if kept is not None and kept[0] is card and kept[1] == (unit, centi, fid):
        return kept[2]
    said = (unit, centi, fid)
    key = (said, _ENCODE(card))  # a card said before, at another batch (the same facts, the same words)
    text = _CARD_TEXTS.get(key)
    if text is None:
        text = _card_text(card, unit, centi, fid)
        if len(_CARD_TEXTS) >= _KEPT_BY_VALUE:
            _CARD_TEXTS.clear()
        _CARD_TEXTS[key] = text
    if len(_CARDS_SAID) >= 16:
        _CARDS_SAID.clear()
    _CARDS_SAID[id(card)] = (card, said, text)
    return text


# The last cards worded, by identity (the card held, so its id is never mistaken): a fighter's card
# after a batch is the very card before the next one (projections/audit/explain.py keeps it).
_CARDS_SAID: dict[int, tuple[dict[str, Any], tuple[str, tuple[str, ...], str], str]] = {}
# The cards worded, by their facts as JSON and the words' unit.
_CARD_TEXTS: dict[tuple[tuple[str, tuple[str, ...], str], bytes], str] = {}


def _card_text(card: dict[str, Any], unit: str, centi: tuple[str, ...], fid: str) -> str:
    x, y, z = card["pos"]
    states = " ".join(f"{k}={v}" for k, v in card["states"].items()) or "-"
    w = render.Words(unit=unit, centi=centi)
    spent = ", ".join(render.spent_text(w, k, v) for k, v in card["spent"].items() if v) or "nothing"
    marks = "; ".join(render.short(w.mark(fid, k, v), 60) for k, v in card["marks"].items())
    return (
        f"at {x},{y} (h {fmt(z)}), {states}, spent {spent}, damage {card['damage']}, "
        f"next move up to {fmt(card['move_left'])} {card.get('move_unit', unit)}"
        + (f", {marks}" if marks else "")
    )


def _fighters(
    fighters: list[dict[str, Any]],
    unit: str,
    after: str = "after",
    centi: tuple[str, ...] = audit.LENGTH_RESOURCES,
) -> list[str]:
    out = []
    for f in fighters:
        out.append(f"  {f['id']}")
        out.append(f"    before: {_card(f['before'], unit, centi, f['id'])}")
        out.append(f"    {after + ':':<7} {_card(f['after'], unit, centi, f['id'])}")
    return out


def _ruling_line(r: dict[str, Any], w: render.Words) -> str:
    status = f" ({r['status']})" if r.get("status") else ""
    return f"  event {r['seq']}: {r['kind']} by {r['by']}: {r['why']}{status}  detail {w.value(r['detail'])}"


def explain_text(data: dict[str, Any]) -> str:
    return explain_texts([data])[0]


def explain_texts(datas: list[dict[str, Any]]) -> list[str]:
    """`explain`'s text of each event of one batch (their answers differ only in the event's own
    seq, event and rules): what the batch shares is worded once, so a bundle words a long log fast."""
    return ["\n".join([line for run in runs for line in run]) for runs in explain_runs(datas)]


_EVENTS_OF_THE_BATCH = ["events of the batch:"]


def explain_runs(
    datas: list[dict[str, Any]],
    *,
    known: Mapping[int, Event] | None = None,
    words: render.Words | None = None,
) -> list[list[list[str]]]:
    """`explain_texts` as runs of lines, each text its runs' lines in order: the runs the batch's
    events share are the very same lists, so a bundle numbers their lines once a batch.

    A bundle, which holds the batch's events already, gives them as `known` (by seq: the very
    events the plain forms were made from), so they are not decoded again, and its `words` (used
    only where they count in the answer's unit and budgets), so an event worded for the bundle's
    timeline is not worded again here: the same words either way."""
    data = datas[0]
    centi = tuple(data.get("centi", ()))
    w = (
        words
        if words is not None and words.unit == data["unit"] and words.centi == set(centi)
        else render.Words(unit=data["unit"], centi=centi)
    )
    shared = _explain_batch(data, w)
    # each event of the batch decoded and worded once: the listing's line and the event's own
    # explanation say the same event (an event given anew, not the batch's, is decoded for itself)
    held = known or {}
    events = {
        e["seq"]: (e["event"], held[e["seq"]] if e["seq"] in held else _event(e["event"]))
        for e in data["events"]
    }
    listing = [(seq, render.event_line(event, words=w)) for seq, (_, event) in events.items()]
    # each listed line as the other events' texts show it and as its own shows it (marked `>`),
    # made once a batch, not once an event
    listed = [(seq, f"  {seq:>4} {line}", f" >{seq:>4} {line}") for seq, line in listing]
    refused = [
        f"refused just before it: {r['text']!r} by {r['by']}: {r['rule']}: {r['reason']}"
        for r in data["refused_before"]
    ]
    out = []
    said: dict[int, Any] = {}  # the command's lines, worded once for the batch's events
    for one in datas:
        ours = events.get(one["seq"])
        own = (
            _explain_event(one, w, ours[1], said)
            if ours is not None and ours[0] == one["event"]
            else _explain_event(one, w, said=said)
        )
        me = one["seq"]
        marked = [mine if seq == me else other for seq, other, mine in listed]
        out.append([own, shared, _EVENTS_OF_THE_BATCH, marked, refused])
    return out


def _explain_event(
    data: dict[str, Any], w: render.Words, event: Event | None = None, said: dict[int, Any] | None = None
) -> list[str]:
    """What explain says of the event itself: its line, why, its command, the rules it applied
    (`event`: the event decoded already, by its batch's listing, which `w` keeps the words of;
    `said`: the command's lines by the command's identity, the batch's events sharing one command)."""
    cmd = data["command"]
    if event is None:
        event = _event(data["event"])
    out = [
        f"event {data['seq']} (batch {data['batch']}, {data['status']}): " + w.event(event),
        *([f"why: {event.note}"] if event.note else []),
    ]
    kept = said.get(id(cmd)) if said is not None else None
    if kept is None or kept[0] is not cmd:
        kept = (cmd, _command_lines(cmd))
        if said is not None:
            said[id(cmd)] = kept
    out.extend(kept[1])
    out.append("rules applied by this event:")
    out.extend(_rules(data["rules"]) or ["  none"])
    own = {w["id"] for w in data["rules"]}
    extra = [r for r in data["batch_rules"] if r["id"] not in own]
    if extra:
        out.append("other rules of its batch:")
        out.extend(_rules(extra))
    return out


def _command_lines(cmd: dict[str, Any]) -> list[str]:
    """The command behind an event: its text, who issued it and when, what it takes or puts back."""
    out = [
        f"command: {cmd['text']}",
        f"  issued by {cmd['by']} (logged as {cmd['actor']}) at {_clock_text(cmd['at'])}"
        + (f"; why: {cmd['why']}" if cmd["why"] else ""),
    ]
    if "target_batch" in cmd:
        out.append(f"  takes back or puts back batch {cmd['target_batch']}: {cmd['target_text']}")
    return out


_CLOCKS: dict[str, str] = {}  # times as said: a log's commands share a few (a table logs by the minute)


def _clock_text(at: str) -> str:
    said = _CLOCKS.get(at)
    if said is None:
        said = audit.clock_text(at)
        if len(_CLOCKS) >= _KEPT_BY_VALUE:
            _CLOCKS.clear()
        _CLOCKS[at] = said
    return said


def _explain_batch(data: dict[str, Any], w: render.Words) -> list[str]:
    """What explain says of the event's batch: moves, checks, settings, rulings, fighters."""
    out = []
    if data["moves"]:
        out.append("moves, step by step:")
        out.extend(_moves(data["moves"], w))
    out.append("checks:" if data["checks"] else "checks: none")
    out.extend(_checks(data["checks"]))
    out.append("settings in force:")
    out.extend(_settings_lines(data["settings"]))
    rulings = data["rulings"]
    out.append(
        "GM rulings in force before it:" if rulings["in_force"] else "GM rulings in force before it: none"
    )
    out.extend(_ruling_line(r, w) for r in rulings["in_force"])
    for c in rulings["cells"]:
        target = f" (test against {c['target']})" if c["kind"] == "test" else ""
        out.append(f"  cell {c['cell'][0]},{c['cell'][1]}: {c['kind']}{target} [{c['rule']}] {c['why']}")
    if rulings["made_here"]:
        out.append("GM rulings made by this batch:")
        out.extend(_ruling_line(r, w) for r in rulings["made_here"])
    out.append("fighters involved:" if data["fighters"] else "fighters involved: none")
    out.extend(_fighters(data["fighters"], data["unit"], centi=tuple(data.get("centi", ()))))
    return out


# The last settings' views worded, by identity (each held beside its lines, so an id is never mistaken).
_SETTINGS_SAID: dict[int, tuple[list[dict[str, Any]], list[str]]] = {}


def _settings_lines(settings: list[dict[str, Any]]) -> list[str]:
    """The settings in force in words, those a cited rule bears on first. The last views worded are
    kept by identity: an explanation answer's settings are the very list of a batch before while
    nothing changed them and its batch cited the same rules (projections/audit/explain.py keeps one
    view; batches of moves and of end-turns, which cite others, take turns: a few are kept here)."""
    kept = _SETTINGS_SAID.get(id(settings))
    if kept is not None and kept[0] is settings:
        return kept[1]
    key = _ENCODE(settings)  # a view made anew for the same settings: the same words
    lines = _SETTINGS_TEXTS.get(key)
    if lines is None:
        lines = _settings_words(settings)
        if len(_SETTINGS_TEXTS) >= _KEPT_BY_VALUE:
            _SETTINGS_TEXTS.clear()
        _SETTINGS_TEXTS[key] = lines
    if len(_SETTINGS_SAID) >= 8:
        _SETTINGS_SAID.clear()
    _SETTINGS_SAID[id(settings)] = (settings, lines)
    return lines


_SETTINGS_TEXTS: dict[bytes, list[str]] = {}  # settings' views worded, by their JSON


def _settings_words(settings: list[dict[str, Any]]) -> list[str]:
    said = render.Words().value  # a setting as a GM says it: yes/no, the word or number as written
    lines = [f"  {s['name']} = {said(s['value'])}  (bears on {s['rule']})" for s in settings if s["bears"]]
    lines.append("  " + ", ".join(f"{s['name']} = {said(s['value'])}" for s in settings if not s["bears"]))
    return lines


def why_text(data: dict[str, Any]) -> str:
    unit = data["unit"]
    w = render.Words(unit=unit, centi=tuple(data.get("centi", ())))
    if not data["allowed"]:
        rule = data["rule"]
        out = [f"refused by {rule['id']}: {data['reason']}", "the rule:"]
        out.extend(_rules([rule]))
        out.append("(dry run: nothing was appended)")
        return "\n".join(out)
    out = [f"allowed: {data['text']} (by {data['by']})"]
    target = data.get("target")
    if target:
        out.append(f"it would {data['text'].split()[0]} batch {target['batch']}: {target['text']}")
    if data["moves"]:
        out.append("the moves of that batch:" if target else "cost, step by step:")
        out.extend(_moves(data["moves"], w))
    if data["checks"]:
        out.append("checks:")
        out.extend(_checks(data["checks"]))
    out.append("consequences:")
    for e in data["events"]:
        out.append(f"  {render.event_line(_event(e), words=w)}")
    if data["hidden"]:
        out.append("  … and whatever follows from the seeded roll (not shown: --reveal shows it)")
    out.append("rules:")
    out.extend(_rules(data["rules"]))
    if data["fighters"]:
        out.append("fighters involved:")
        out.extend(_fighters(data["fighters"], unit, "would be", tuple(data.get("centi", ()))))
    out.append("(dry run: nothing was appended)")
    return "\n".join(out)


def _partial_text(data: dict[str, Any]) -> str:
    """verify's words for a bundle that carries a range or a player's share: the chain, and what's left."""
    b = data["bundle"]
    f = data["finding"]
    held = (
        f"; {render.plural(len(data['withheld']), 'line')} withheld from {b['role']}"
        if data["withheld"]
        else ""
    )
    start = (
        f"from the hash of line {b['first'] - 1} recorded with it ({data['anchor']})"
        if b["first"] > 1
        else ""
    )
    if f is None:
        out = [
            f"{data['log']}: OK: lines {b['first']} to {b['last']}, hash chain intact {start}".rstrip() + held
        ]
    else:
        out = [f"{data['log']}: FAILED at line/seq {f['seq']} ({f['kind']}): {f['reason']}"]
    out.append(
        "not re-decided: re-deciding the rules needs every line from the first"
        + (" (this bundle carries a range: bundle or verify the whole log)" if b["first"] > 1 else "")
        + (
            " (a player's bundle leaves some out: verify the GM's bundle or the log)"
            if data["withheld"]
            else ""
        )
    )
    out.append(f"tip: {data['tip']}")
    return "\n".join(out)


def verify_text(data: dict[str, Any]) -> str:
    if data.get("bundle") and not data["bundle"]["whole"]:
        return _partial_text(data)
    c = data["checked"]
    out = []
    f = data["finding"]
    if f is None:
        counts = ", ".join(render.plural(c[k], k) for k in ("command", "undo", "redo"))
        out.append(
            f"{data['log']}: OK: {data['lines']} lines, hash chain intact; "
            f"{counts} re-decided and matched the log"
        )
    else:
        out.append(f"{data['log']}: FAILED at line/seq {f['seq']} ({f['kind']}): {f['reason']}")
        if f["rule"]:
            out.append(f"  rule: {f['rule']}")
        if f["kind"] == "decision":  # what the rules decide today, not necessarily an edit
            out.append(
                "  (every command is re-decided under this version's rules: in a log written by an "
                "earlier tabletrail, the rules may have been corrected since, and the log differs "
                "there without any edit; `replay` still folds it as recorded)"
            )
        w = render.Words.of(data.get("ruleset"))  # the log's own units: m, yd, AP
        for label in ("expected", "recorded"):
            value = f[label]
            if value is None:
                continue
            if isinstance(value, dict) and "type" in value:
                event = _event(value)
                text = f"{w.event(event)}{_cited(event)}"
            elif isinstance(value, dict) and "refused" in value:
                text = f"refused by {value['refused']}: {value['reason']}"
            else:
                text = json.dumps(value)
            out.append(f"  {label}: {text}")
    if data.get("cited"):
        first, n = data["cited"][0], len(data["cited"])
        out.append(
            f"note: {render.plural(n, 'event')} {'matches' if n == 1 else 'match'} the rules but "
            f"{'cites' if n == 1 else 'cite'} other rule ids than this version gives (the rule texts "
            f"changed since the log was written; the board is the same): first at line {first['seq']}, "
            f"recorded {', '.join(first['recorded']) or 'none'}, now {', '.join(first['now']) or 'none'}"
        )
    for c in data.get("corrected", ())[1:]:  # more batches an older log decided before a correction
        out.append(f"note: line {c['seq']} (batch {c['batch']}, {c['text']!r}) differs too: {c['words']}")
    if data["rulings"]:
        out.append("GM rulings in the log (re-decided like any command):")
        w = render.Words.of(data.get("ruleset"))
        out.extend(_ruling_line(r, w) for r in data["rulings"])
    if data["tip"]:
        found = [
            said
            for said, yes in (
                ("the anchor given was found", data.get("anchor_given")),
                (
                    "the bundle ends at the tip recorded in it"
                    if data.get("bundle")
                    else "the log ends at the tip the store keeps beside it",
                    data.get("kept_tip"),
                ),
            )
            if yes
        ]
        anchor = (
            "; ".join(found)
            if found
            else "the last line is vouched for by re-deciding only; note this tip and pass --tip to anchor it"
        )
        out.append(f"tip: {data['tip']} ({anchor})")
    out.extend(f"warning: {w}" for w in data.get("warnings", ()))
    return "\n".join(out)


def _side_by_side(left: str, right: str, titles: tuple[str, str]) -> str:
    a, b = left.splitlines(), right.splitlines()
    width = max(len(x) for x in [*a, titles[0]]) + 4
    rows = [titles[0].ljust(width) + titles[1]]
    for i in range(max(len(a), len(b))):
        rows.append((a[i] if i < len(a) else "").ljust(width) + (b[i] if i < len(b) else ""))
    return "\n".join(rows)


def _fighter_fact(w: render.Words, fid: str, what: str, value: Any) -> str:
    """One fact of a fighter card in the table's words, as the explain card says it."""
    if what == "spent":
        return ", ".join(render.spent_text(w, k, v) for k, v in value.items() if v) or "nothing"
    if what == "states":
        return " ".join(f"{k}={v}" for k, v in value.items()) or "-"
    if what == "marks":
        return "; ".join(render.short(w.mark(fid, k, v), 60) for k, v in value.items()) or "none"
    return w.cell(value) if what == "pos" else w.value(value)


def whatif_text(result: audit.WhatIf) -> str:
    said = render.Words().value  # a setting as a GM says it: yes/no, the word or number as written
    what = [
        f"{k} = {said(new)} "
        + ("(the same as recorded: this changes nothing)" if old == new else f"(recorded {said(old)})")
        for k, (old, new) in result.changed.items()
    ]
    out = ["what if " + ", ".join(what + [f"the GM had ruled {text!r}" for text in result.rulings])]
    words = render.Words.of(result.recorded.ruleset)  # AP in AP, lengths in the ruleset's unit
    d = result.divergence
    if d is None:
        out.append("no divergence: every command decides the same events")
    else:
        out.append(f"first divergence at event {d['seq']} ({d['text']}), in {', '.join(d['differs'])}:")
        for label in ("recorded", "what_if"):
            value = d[label]
            if value is None:
                text = "(nothing)"
            elif "refused" in value:
                text = f"refused by {value['refused']}: {value['reason']}"
            else:
                event = _event(value)
                text = f"{words.event(event)}{_cited(event)}"
            out.append(f"  {label.replace('_', '-') + ':':<10} {text}")
    for r in result.refused:
        out.append(
            f"refused in the what-if: {r['text']!r} (batch at event {r['seq']}): {r['rule']}: {r['reason']}"
        )
    left, key = render.board(result.recorded).split("\nkey:", 1)  # the same map on both sides:
    right = render.board(result.alternative).split("\nkey:", 1)[0]  # its key once, under both
    out.append(_side_by_side(left, right, ("recorded", "what-if")))
    out.append("key:" + key)
    for diff in result.differences:
        fid, what = diff["fighter"], diff["what"]
        was, now = (_fighter_fact(words, fid, what, diff[k]) for k in ("recorded", "what_if"))
        out.append(f"  {fid} {what}: recorded {was}, what-if {now}")
    return "\n".join(out)


def refused_text(entries: list[dict[str, Any]], log: str) -> str:
    if not entries:
        return f"{log}: no refused attempts"
    return "\n".join(
        f"refused at {e['when']} (after event {e['after_seq']}), {e['text']!r} by {e['by']}, "
        f"because {e['reason']} [{e['rule']}]"
        for e in entries
    )
