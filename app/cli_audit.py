"""CLI verbs of the audit group, registered into the main parser by tabletrail.cli.

explain, why, verify, whatif, refused and bundle. The answers come from
tabletrail.projections.audit as plain data; this module prints them as text a
person at the table can check by hand, or as JSON with --json.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

import msgspec
from tabletrail import cli_store, render
from tabletrail.core.units import fmt
from tabletrail.encounter import Encounter
from tabletrail.events.errors import InputError
from tabletrail.events.types import AnyEvent, Event
from tabletrail.projections import audit
from tabletrail.syntax import command_words, parse, take_flags, verbs_for

AddVerb = Callable[[str, Any, str], argparse.ArgumentParser]


def register(sub: Any, add: AddVerb) -> None:
    """Add this group's verbs; `add(name, fn, help)` returns the verb's parser.

    Every verb's --help shows an example: return it from `examples()`.
    """
    p = add(
        "explain",
        cmd_explain,
        "why an event happened: its command, who issued it, rule ids, step costs, checks, "
        "settings and GM rulings in force, the fighters before and after",
    )
    p.add_argument("log", help=cli_store.LOG_HELP)
    p.add_argument("seq", type=int, help="the event's sequence number (tabletrail log lists them)")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p = add(
        "why",
        cmd_why,
        "dry run: would this command be allowed (rule id and reason if not), what would it cost "
        "and what would follow; nothing is appended",
    )
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.add_argument(
        "--reveal",
        action="store_true",
        help="show seeded check numbers and what follows them (the next draws of the dice: the GM's call)",
    )
    p.add_argument("log", help=cli_store.LOG_HELP)
    p.add_argument(
        "words", nargs=argparse.REMAINDER, help="the command, e.g. move ari 3,2 5,4 (nothing is appended)"
    )
    p = add(
        "verify",
        cmd_verify,
        "check the hash chain and sequence numbers, then re-decide every command and compare with "
        "the log; exits 1 at the first divergence",
    )
    p.add_argument("log", help=cli_store.LOG_HELP)
    p.add_argument(
        "--tip", default="", help="a line hash noted earlier (verify prints it): anchors the log's end"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p = add(
        "whatif",
        cmd_whatif,
        "re-run the same commands, undo and redo under other settings or GM rulings: "
        "first divergence and both boards",
    )
    p.add_argument("log", help=cli_store.LOG_HELP)
    p.add_argument(
        "--set", dest="sets", action="append", default=[], metavar="SETTING=VALUE", help="a setting to change"
    )
    p.add_argument(
        "--ruling",
        dest="rulings",
        action="append",
        default=[],
        metavar="COMMAND",
        help="a GM ruling made before the first command, e.g. --ruling \"forbid 3,2 why='pit'\"",
    )
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p = add("refused", cmd_refused, "list the refused attempts kept in the log's side log, with when and why")
    p.add_argument("log", help=cli_store.LOG_HELP)
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p = add(
        "bundle",
        cmd_bundle,
        "write one self-contained HTML file that replays the encounter and checks its hash chain in any "
        "browser, offline (verify re-decides it: tabletrail verify fight.html)",
    )
    p.add_argument("log", help=cli_store.LOG_HELP)
    p.add_argument("-o", "--output", required=True, help="the HTML file to write, e.g. fight.html")
    p.add_argument(
        "--at", type=int, help="the event the page opens at, with its explanation (default: the last)"
    )
    p.add_argument("--from", dest="first", type=int, help="carry the lines from this event on (default 1)")
    p.add_argument("--to", dest="last", type=int, help="carry the lines up to this event (default: the last)")
    p.add_argument(
        "--side",
        default="gm",
        help="the side the bundle is for: a player's leaves out the GM's rulings and settings and the "
        "first line, which holds the dice's seed (default gm: everything)",
    )
    p.add_argument("--force", action="store_true", help="overwrite the output file if it exists")


def examples() -> dict[str, str]:
    return {
        "explain": "tabletrail explain replays/speed-meters-skirmish.jsonl 7",
        "why": "tabletrail why fight.jsonl move ari 2,2   (also: why --json fight.jsonl undo by=blue)",
        "verify": "tabletrail verify fight.jsonl   (it prints the log's tip; give it later as --tip TIP "
        "to prove the log still holds that line)",
        "whatif": "tabletrail whatif fight.jsonl --set diagonal=euclidean --ruling \"forbid 3,2 why='pit'\"",
        "refused": "tabletrail refused fight.jsonl",
        "bundle": "tabletrail bundle replays/speed-meters-skirmish.jsonl -o fight.html   (open fight.html#12 "
        "at event 12; tabletrail verify fight.html re-decides it)",
    }


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
        length = m["length"]
        # forced, grapple...: lengths too, in the ruleset's unit; ap-squares' AP are centi-counted, in AP
        unit = render.unit_of(m["resource"], w.unit) if length else m["unit"]
        at = f"event {m['seq']}: " if m["seq"] else ""
        forced = m["resource"] in render.FORCED_RESOURCES  # a distance meant, not a budget left
        out.append(
            f"  {at}{m['fighter']} moves on {render.RESOURCE_LENGTHS.get(m['resource'], m['resource'])}, "
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
    data = datas[0]
    w = render.Words(unit=data["unit"], centi=tuple(data.get("centi", ())))
    shared = _explain_batch(data, w)
    listing = [(e["seq"], render.event_line(_event(e["event"]), words=w)) for e in data["events"]]
    refused = [
        f"refused just before it: {r['text']!r} by {r['by']}: {r['rule']}: {r['reason']}"
        for r in data["refused_before"]
    ]
    out = []
    for one in datas:
        lines = _explain_event(one, w)
        lines.extend(shared)
        lines.append("events of the batch:")
        lines.extend(f" {'>' if seq == one['seq'] else ' '}{seq:>4} {line}" for seq, line in listing)
        lines.extend(refused)
        out.append("\n".join(lines))
    return out


def _explain_event(data: dict[str, Any], w: render.Words) -> list[str]:
    """What explain says of the event itself: its line, why, its command, the rules it applied."""
    cmd = data["command"]
    event = _event(data["event"])
    out = [
        f"event {data['seq']} (batch {data['batch']}, {data['status']}): " + w.event(event),
        *([f"why: {event.note}"] if event.note else []),
        f"command: {cmd['text']}",
        f"  issued by {cmd['by']} (logged as {cmd['actor']}) at {audit.clock_text(cmd['at'])}"
        + (f"; why: {cmd['why']}" if cmd["why"] else ""),
    ]
    if "target_batch" in cmd:
        out.append(f"  takes back or puts back batch {cmd['target_batch']}: {cmd['target_text']}")
    out.append("rules applied by this event:")
    out.extend(_rules(data["rules"]) or ["  none"])
    extra = [r for r in data["batch_rules"] if r["id"] not in {w["id"] for w in data["rules"]}]
    if extra:
        out.append("other rules of its batch:")
        out.extend(_rules(extra))
    return out


def _explain_batch(data: dict[str, Any], w: render.Words) -> list[str]:
    """What explain says of the event's batch: moves, checks, settings, rulings, fighters."""
    out = []
    if data["moves"]:
        out.append("moves, step by step:")
        out.extend(_moves(data["moves"], w))
    out.append("checks:" if data["checks"] else "checks: none")
    out.extend(_checks(data["checks"]))
    bearing = [s for s in data["settings"] if s["bears"]]
    others = [s for s in data["settings"] if not s["bears"]]
    out.append("settings in force:")
    said = render.Words().value  # a setting as a GM says it: yes/no, the word or number as written
    for s in bearing:
        out.append(f"  {s['name']} = {said(s['value'])}  (bears on {s['rule']})")
    out.append("  " + ", ".join(f"{s['name']} = {said(s['value'])}" for s in others))
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


def verify_bundle(path: str, tip: str = "") -> dict[str, Any]:
    """A bundle's lines verified: re-decided when it holds the whole log, else its chain from its anchor."""
    from tabletrail import bundle
    from tabletrail.events.stores.chain import key_check, table_key

    found = bundle.read_bundle(path)
    if found.whole:
        data = audit.verify_store(bundle.BundleStore(found), tip)
        data["bundle"] = {"whole": True, "first": 1, "last": found.head["last"], "role": found.head["role"]}
        return data
    key = b""
    keyed = found.head.get("keyed", "")
    if keyed:
        key = table_key()
        if not key or key_check(key) != keyed:
            raise InputError(
                f"{path}: this log's hash chain is keyed with the table's secret: set TABLETRAIL_KEY "
                "to the secret it was started with to check it"
            )
    data = bundle.check_chain(found, key)
    if tip and data["ok"] and tip != data["tip"]:
        data["ok"] = False
        data["finding"] = bundle._finding(
            found.head["last"], "tip", f"the bundle's last line does not hash to the anchor {tip}"
        )
    data["bundle"] = {
        "whole": False,
        "first": found.head["first"],
        "last": found.head["last"],
        "role": found.head["role"],
    }
    return data


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


# --- the verbs -------------------------------------------------------------------------


def _open(path: str) -> Encounter:
    """The whole log folded from its first line: the audit needs every record and every state."""
    return Encounter.open(cli_store.store_for(path), snapshots=False)


def cmd_explain(args: argparse.Namespace) -> int:
    store = cli_store.store_for(args.log)
    enc = Encounter.open(store, snapshots=False)
    refused = store.refused() if hasattr(store, "refused") else []
    data = audit.explain(enc.records, args.seq, refused, where=args.log)
    print(render.json_doc("explain", data, enc.state.ruleset) if args.json else explain_text(data))
    return 0


def cmd_why(args: argparse.Namespace) -> int:
    words, flags = take_flags(list(args.words), switches=("--json", "--reveal"))  # flags after the command
    as_json, reveal = args.json or "--json" in flags, args.reveal or "--reveal" in flags
    words, text = command_words(words, "why")
    enc = _open(args.log)
    command = parse(words, "why", verbs=verbs_for(enc.state.ruleset))
    data = audit.dry_run(enc, command, text, reveal=reveal)
    print(render.json_doc("why", data, enc.state.ruleset) if as_json else why_text(data))
    return 0 if data["allowed"] else 1


def cmd_verify(args: argparse.Namespace) -> int:
    from tabletrail import bundle

    if bundle.is_bundle(args.log):
        data = verify_bundle(args.log, args.tip)
        print(render.json_doc("verify", data) if args.json else verify_text(data))
        return 0 if data["ok"] else 1
    store = cli_store.store_for(args.log, heal=False)  # verify reports a torn tail; it never cuts one
    data = audit.verify_store(store, args.tip)
    print(render.json_doc("verify", data) if args.json else verify_text(data))
    return 0 if data["ok"] else 1


def cmd_whatif(args: argparse.Namespace) -> int:
    rulings = [(parse(text, f"--ruling {text!r}"), text) for text in args.rulings]
    enc = _open(args.log)
    result = audit.whatif(enc.records, args.sets, rulings)
    print(render.json_doc("whatif", result.data(), enc.state.ruleset) if args.json else whatif_text(result))
    return 0


def cmd_bundle(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tabletrail import bundle

    out = Path(args.output)
    if not bundle.is_bundle(str(out)):
        raise InputError(f"-o {out}: a bundle is an HTML file: name it NAME.html")
    if out.exists() and not args.force:
        raise InputError(f"-o {out}: the file exists; pass --force to overwrite it")
    store = cli_store.store_for(args.log)
    data = bundle.build(
        store, role=args.side, at=args.at, first=args.first, last=args.last, log_path=args.log
    )
    out.write_bytes(data)
    whole = (args.first or 1) == 1 and args.side == "gm"
    print(
        f"wrote {out}: {len(data):,} bytes; open it in any browser (offline), or point at an event with "
        f"{out.name}#N; tabletrail verify {out} "
        + ("re-decides it" if whole else "checks its chain (re-deciding needs every line from the first)")
    )
    return 0


def cmd_refused(args: argparse.Namespace) -> int:
    store = cli_store.store_for(args.log)
    entries = audit.refusals(store)
    print(render.json_doc("refused", entries) if args.json else refused_text(entries, args.log))
    return 0
