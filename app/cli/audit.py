"""CLI verbs of the audit group, registered into the main parser by tabletrail.cli.

explain, why, verify, whatif, refused and bundle. The answers come from
tabletrail.projections.audit as plain data; this module prints them as text a
person at the table can check by hand, or as JSON with --json.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabletrail.events.errors import InputError
from tabletrail.events.stores.chain import key_check, table_key
from tabletrail.projections import audit
from tabletrail.service import stores
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import command_words, parse, take_flags, verbs_for
from tabletrail.text import render
from tabletrail.text.audit import explain_text, refused_text, verify_text, whatif_text, why_text

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
    p.add_argument("log", help=stores.LOG_HELP)
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
    p.add_argument("log", help=stores.LOG_HELP)
    p.add_argument(
        "words", nargs=argparse.REMAINDER, help="the command, e.g. move ari 3,2 5,4 (nothing is appended)"
    )
    p = add(
        "verify",
        cmd_verify,
        "check the hash chain and sequence numbers, then re-decide every command and compare with "
        "the log; exits 1 at the first divergence",
    )
    p.add_argument("log", help=stores.LOG_HELP)
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
    p.add_argument("log", help=stores.LOG_HELP)
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
    p.add_argument("log", help=stores.LOG_HELP)
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p = add(
        "bundle",
        cmd_bundle,
        "write one self-contained HTML file that replays the encounter and checks its hash chain in any "
        "browser, offline (verify re-decides it: tabletrail verify fight.html)",
    )
    p.add_argument("log", help=stores.LOG_HELP)
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


def verify_bundle(path: str, tip: str = "") -> dict[str, Any]:
    """A bundle's lines verified: re-decided when it holds the whole log, else its chain from its anchor."""
    from tabletrail import bundle

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


# --- the verbs -------------------------------------------------------------------------


def _open(path: str) -> Encounter:
    """The whole log folded from its first line: the audit needs every record and every state."""
    return Encounter.open(stores.store_for(path), snapshots=False)


def cmd_explain(args: argparse.Namespace) -> int:
    store = stores.store_for(args.log)
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
    store = stores.store_for(args.log, heal=False)  # verify reports a torn tail; it never cuts one
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

    from tabletrail import bundle

    out = Path(args.output)
    if not bundle.is_bundle(str(out)):
        raise InputError(f"-o {out}: a bundle is an HTML file: name it NAME.html")
    if out.exists() and not args.force:
        raise InputError(f"-o {out}: the file exists; pass --force to overwrite it")
    store = stores.store_for(args.log)
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
    store = stores.store_for(args.log)
    entries = audit.refusals(store)
    print(render.json_doc("refused", entries) if args.json else refused_text(entries, args.log))
    return 0
