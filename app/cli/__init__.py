"""The `tabletrail` command line: start, play, undo, inspect and replay encounters."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn

from tabletrail.events.errors import InputError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from tabletrail.core.engine.ruleset import Ruleset
    from tabletrail.events.commands import Command
    from tabletrail.service.encounter import Encounter

# A verb imports what it uses when it runs (a `do` never loads the audit, the web
# server or the other rulesets): a GM types dozens of commands an hour.
PLUGINS = {  # verb groups that live in their own modules, imported only to run or list their verbs
    "tabletrail.cli.audit": ("explain", "why", "verify", "whatif", "refused", "bundle"),
    "tabletrail.cli.store": ("repair", "import", "export", "encounters"),
    "tabletrail.cli.serve": ("serve", "invite"),
    "tabletrail.cli.maps": ("import-map",),
    "tabletrail.cli.schema": ("schema",),
}
GC_THRESHOLD = 100_000  # new objects between two runs of the cycle collector in the program (see run)


def _open(path: str, upto: int | None = None, flag: str = "--at", *, snapshots: bool = True) -> Encounter:
    """The encounter in a log; with `upto`, as it stood after that event (checked against the log).
    snapshots=False folds every line, whatever snapshot the store keeps: `replay` promises that."""
    from tabletrail.service import stores
    from tabletrail.service.encounter import Encounter

    if upto is not None and upto < 1:
        raise InputError(f"{flag} {upto}: expected an event number from 1 (tabletrail log lists them)")
    enc = Encounter.open(stores.store_for(path), upto=upto, snapshots=snapshots)
    if upto is not None and len(enc.records) < upto:
        raise InputError(
            f"{path}: {flag} {upto}: no event {upto}: the log holds events 1 to {len(enc.records)}"
        )
    return enc


def _rulesets_named(name: str | None) -> list[Ruleset]:
    """The ruleset a GM names, or the one a log runs under (`commands fight.db`); all when none."""
    from tabletrail.core.engine.registry import RULESETS
    from tabletrail.core.engine.registry import get as get_ruleset
    from tabletrail.events.stores.pg_names import is_url

    if not name:
        return list(RULESETS.values())
    if name in RULESETS:
        return [RULESETS[name]]
    if Path(name).is_file() or is_url(name):
        return [get_ruleset(_open(name).state.ruleset)]
    known = ", ".join(sorted(RULESETS))
    raise InputError(f"unknown ruleset {name!r} (known: {known}), and no log file of that name")


def cmd_new(args: argparse.Namespace) -> int:
    from tabletrail.events.scenario.reader import at_its_place, load_scenario
    from tabletrail.service import stores
    from tabletrail.service.encounter import Encounter
    from tabletrail.text import render

    scenario = load_scenario(args.scenario)
    log = args.log or stores.default_log(args.scenario)
    if not args.log and Path(log).exists():
        raise InputError(
            f"{log}: this scenario's default log already exists; name another with --log NAME.db "
            f"(or NAME.jsonl), or go on with this one: tabletrail show {log}"
        )
    with at_its_place(args.scenario):  # a ruleset's check of the scenario names its line and column
        enc = Encounter.create(stores.store_for(log), scenario, where=args.scenario)
    print(f"started {scenario.name!r} under {scenario.ruleset} in {log}")
    print(render.board(enc.state))
    print(render.fighters(enc.state))
    return 0


def _run(
    enc: Encounter, command: Command, text: str, command_id: str | None = None, as_json: bool = False
) -> int:
    from tabletrail.core.board.refusal import Rejection
    from tabletrail.core.engine.registry import get as get_ruleset
    from tabletrail.text import render

    result = enc.execute(command, text, command_id=command_id)
    ruleset = enc.state.ruleset
    if isinstance(result, Rejection):
        if as_json:  # the refusal is the answer: one document on stdout, exit 1 as in text
            refused = {"rule": result.rule, "reason": result.reason, "command": text}
            print(render.json_doc("refused", refused, ruleset))
        else:
            print(str(result), file=sys.stderr)
        return 1
    if as_json:
        print(render.json_doc("appended", render.records_data(result, get_ruleset(ruleset)), ruleset))
    else:
        print(render.done_lines(result, ruleset))
    return 0


def cmd_do(args: argparse.Namespace) -> int:
    from tabletrail.service.encounter import same_command
    from tabletrail.service.syntax import command_words, parse, take_flags, verbs_for

    # argparse leaves a late --id or --json in the words, and `do`'s quick path hands it every word
    words, flags = take_flags(list(args.words), switches=("--json",), options=("--id",))
    command_id = flags.get("--id", args.id)
    assert command_id is None or isinstance(command_id, str)
    words, text = command_words(words)
    enc = _open(args.log)
    command = parse(words, verbs=verbs_for(enc.state.ruleset))
    if command_id is not None:
        done = enc.recorded(command_id)
        if done is not None:
            same_command(done, command, command_id, text, args.log)
            print(
                f"note: command id {command_id!r} is already in the log (batch {done[0].batch}): "
                "nothing new was appended; these are the events it appended then",
                file=sys.stderr,
            )
    return _run(enc, command, text, command_id, as_json=bool(flags.get("--json", args.json)))


def cmd_undo(args: argparse.Namespace) -> int:
    from tabletrail.events.commands import Undo

    return _run(_open(args.log), Undo(by=args.by, why=args.why), "undo", as_json=args.json)


def cmd_redo(args: argparse.Namespace) -> int:
    from tabletrail.events.commands import Redo

    return _run(_open(args.log), Redo(by=args.by, why=args.why), "redo", as_json=args.json)


def _say_if_broken(enc: Encounter) -> None:
    """One line on stderr when a log read whole does not end where the tip kept beside it says.

    Opening checks every line's hash against the line before, so an edit anywhere but the last
    line is refused; the last line (or a cut at a batch end) only the kept tip can tell, which
    `verify` compares. `show`, `log` and `replay` say so too, instead of printing an edited
    board as if nothing were wrong (issue 28, item 7).
    """
    from tabletrail.events.stores.chain import line_hash

    kept_tip = getattr(enc.store, "kept_tip", None)
    kept = kept_tip() if kept_tip is not None else None
    if kept is None or enc.read_only:
        return
    version, tip = kept
    held = len(enc.records)
    if version == held:
        last = next(iter(enc.store.read(held - 1)), b"") if held else b""
        if line_hash(last) == tip:
            return
    name = enc.store.name
    why = (
        f"its last line (line {held}) is not the one the tip kept beside it vouches for: it was edited"
        if version == held
        else f"it holds {held} lines where the tip kept beside it says {version}: it was cut, or "
        "appended to by a writer that keeps no tip"
    )
    print(
        f"warning: {name}: the hash chain is broken at its end: {why}; `tabletrail verify {name}` says more",
        file=sys.stderr,
    )


def cmd_show(args: argparse.Namespace) -> int:
    from tabletrail.text import render

    enc = _open(args.log, upto=args.at, flag="--at")
    if args.at is None:
        _say_if_broken(enc)
    if args.json:
        from tabletrail.projections.board import view

        print(render.json_doc("board", view(enc.state), enc.state.ruleset, sort_keys=True))
        return 0
    print(render.board(enc.state))
    print(render.fighters(enc.state))
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    from tabletrail.core.engine.registry import get as get_ruleset
    from tabletrail.text import render

    enc = _open(args.log)
    _say_if_broken(enc)
    t = enc.timeline
    rs = get_ruleset(enc.state.ruleset)
    if args.json:
        print(render.json_doc("log", render.records_data(enc.records, rs, t.abandoned, set(t.undone)), rs.id))
        return 0
    print(render.log_lines(enc.records, t.abandoned, set(t.undone), rs))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from tabletrail.projections.board import view
    from tabletrail.text import render

    # Every line folded from the first, as recorded: a snapshot is a cache, and `replay` is the
    # verb a player runs to see the log itself give the board (`show` may start from a snapshot).
    enc = _open(args.log, upto=args.to, flag="--to", snapshots=False)
    if args.to is None:
        _say_if_broken(enc)
    if args.json:
        print(render.json_doc("board", view(enc.state), enc.state.ruleset, sort_keys=True))
    else:
        print(f"replayed {len(enc.records)} events of {args.log}")
        print(render.board(enc.state))
        print(render.fighters(enc.state))
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    from tabletrail.core.engine.ruleset import ENGINE_RULE_WORDS
    from tabletrail.events import plugins
    from tabletrail.text import render

    chosen = _rulesets_named(args.ruleset)
    if not args.ruleset:
        for problem in plugins.problems():  # a broken plug-in: one line each, the others listed
            print(f"warning: {problem}", file=sys.stderr)
    data: list[dict[str, Any]] = [
        {
            "id": rs.id,
            "title": rs.title,
            "document": rs.document,
            "document_title": render.document_title(rs),
            "unit": rs.unit,
            "rules": [{"id": rs.rule(r.name), "enforce": r.enforce, "default": r.default} for r in rs.rules],
            "settings": [
                {
                    "name": s.name,
                    "default": s.default,
                    "choices": list(s.choices),
                    "doc": s.doc,
                    "rule": s.rule,
                }
                for s in rs.all_settings()
            ],
            "stats": [{"name": s.name, "doc": s.doc, "default": s.default} for s in rs.stats],
            "commands": sorted(str(c.__struct_config__.tag) for c in rs._handlers),
        }
        for rs in chosen
    ]
    if args.json:
        print(render.json_doc("rulesets", data))
        return 0
    for rs in data:
        provider = plugins.find(rs["id"])
        source = (  # a plug-in's package, and its rules version; tabletrail's own need no words
            ""
            if provider.package == plugins.HOME
            else f"; package {provider.package} {provider.version}, rules {provider.plugin.rules_version}"
        )
        print(f"{rs['id']}: {rs['title']} (rule {rs['document_title']}; cells of 1 {rs['unit']}{source})")
        for r in rs["rules"]:
            default = f"\n      default ruling: {r['default']}" if r["default"] else ""
            print(f"  {r['id']}: {r['enforce']}{default}")
        print("  settings:")
        for s in rs["settings"]:
            print(f"    {s['name']} = {render.Words().value(s['default'])}: {s['doc']}")
        print("  commands: " + ", ".join(rs["commands"]))
        print()
    print("engine rules (cited under every ruleset):")
    for rule_id, words in ENGINE_RULE_WORDS.items():
        print(f"  {rule_id}: {words}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Play the script in memory first: a script that fails leaves no half-played log behind."""
    from tabletrail.core.board.units import plural
    from tabletrail.events.scenario.reader import at_its_place, load_scenario
    from tabletrail.events.stores.memory import MemoryStore
    from tabletrail.service import stores
    from tabletrail.service.encounter import Encounter
    from tabletrail.text import render

    target = stores.store_for(args.log)
    if Path(args.log).is_dir():
        raise InputError(f"{args.log}: is a folder, not a log file")
    if Path(args.log).exists():
        raise InputError(f"{args.log}: a log already exists here; pick another name")
    scenario = load_scenario(args.scenario)
    memory = MemoryStore()
    with at_its_place(args.scenario):
        enc = Encounter.create(memory, scenario, where=args.scenario)
    refused = play_script(enc, Path(args.script))
    target.create(memory.lines, refused=memory.refused_lines())
    played = f"{len(enc.records)} events, {plural(refused, 'refusal')} as expected"
    print(f"played {args.script}: {played} in {args.log}")
    print(render.board(enc.state))
    print(render.fighters(enc.state))
    return 0


def play_script(enc: Encounter, script: Path) -> int:
    """Run a file of commands, one per line. A line starting with `!` must be refused."""
    from tabletrail.core.board.refusal import Rejection
    from tabletrail.service.syntax import parse, verbs_for

    if script.is_dir():
        raise InputError(f"{script}: is a folder, not a script of commands")
    try:
        lines = script.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"{script}: no such script file") from None
    except OSError as exc:
        raise InputError(f"{script}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{script}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    refused = 0
    for lineno, raw in enumerate(lines, start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        expect_refusal = text.startswith("!")
        text = text.lstrip("!").strip()
        where = f"{script}:{lineno}"
        result = enc.execute(parse(text, where, verbs=verbs_for(enc.state.ruleset)), text)
        if isinstance(result, Rejection) and not expect_refusal:
            raise InputError(f"{where}: {text!r} was {result}")
        if not isinstance(result, Rejection) and expect_refusal:
            raise InputError(f"{where}: {text!r} was expected to be refused but was accepted")
        refused += expect_refusal
    return refused


def cmd_modifiers(args: argparse.Namespace) -> int:
    import msgspec
    from tabletrail.core.engine.registry import get as get_ruleset
    from tabletrail.text import render

    enc = _open(args.log)
    state = enc.state
    for fid in (args.fighter, args.against):
        if fid and state.fighter(fid) is None:
            raise InputError(
                f"{args.log}: no fighter {fid!r} (fighters: {', '.join(f.id for f in state.fighters)})"
            )
    mods = get_ruleset(state.ruleset).modifiers(state, args.fighter, args.against)
    if args.json:  # one JSON document, nothing else on stdout
        print(render.json_doc("modifiers", [msgspec.structs.asdict(m) for m in mods], state.ruleset))
        return 0
    if not mods:
        print(f"no modifiers in force for {args.fighter}")
    for m in mods:
        print(
            f"{m.applies_to}: {m.value:+}" if isinstance(m.value, int) else f"{m.applies_to}: {m.value}",
            f"[{m.rule}]",
            m.why,
        )
    return 0


def cmd_shell(args: argparse.Namespace) -> int:
    from tabletrail.cli.shell import run_shell

    return run_shell(args.log, history=args.history)


def cmd_commands(args: argparse.Namespace) -> int:
    """Every verb with its syntax and the rulesets that know it; GM and log commands work in all."""
    from tabletrail.core.engine.registry import RULESETS
    from tabletrail.service.syntax import usage, verbs
    from tabletrail.text import render

    chosen = _rulesets_named(args.ruleset)
    listed: list[dict[str, Any]] = []
    for cls in verbs().values():
        known = [rs.id for rs in chosen if cls in rs._handlers]
        if args.ruleset and not known and any(cls in rs._handlers for rs in RULESETS.values()):
            continue  # another ruleset's command
        doc = (cls.__doc__ or "").strip().splitlines()
        listed.append(
            {
                "verb": cls.__struct_config__.tag,
                "usage": usage(cls),
                "doc": doc[0] if doc else "",
                "example": cls.example,
                "rulesets": known or "all",  # all: a GM or log command
            }
        )
    if args.json:
        print(render.json_doc("commands", listed, chosen[0].id if len(chosen) == 1 else None))
        return 0
    for c in listed:
        print(f"  {c['usage']}")
        if c["doc"]:
            print(f"      {c['doc']}")
        if c["example"]:
            print(f"      e.g. {c['example']}")
        if not args.ruleset:
            said = ", ".join(c["rulesets"]) if c["rulesets"] != "all" else "all (a GM or log command)"
            print(f"      rulesets: {said}")
    return 0


EXAMPLES = {
    "new": "tabletrail new scenarios/speed-meters-skirmish.toml --log fight.jsonl",
    "do": "tabletrail do fight.jsonl move ari 3,2 5,4   (also: end-turn, drop-prone ari, … roll=14 by=blue)",
    "undo": "tabletrail undo fight.jsonl --by gm --why 'misclick'",
    "redo": "tabletrail redo fight.jsonl",
    "show": "tabletrail show fight.jsonl --at 7   (tabletrail log lists the event numbers)",
    "log": "tabletrail log fight.jsonl",
    "replay": "tabletrail replay replays/speed-meters-skirmish.jsonl --to 20 --json",
    "rules": "tabletrail rules speed-meters --json",
    "commands": "tabletrail commands speed-meters",
    "modifiers": "tabletrail modifiers fight.jsonl ari --against cyn",
    "shell": "tabletrail shell fight.jsonl   (then: move ari 3,2, show, why move ari 5,4, explain 7, quit)",
    "play": "tabletrail play scenarios/speed-meters-skirmish.toml replays/speed-meters-skirmish.script "
    "--log out.jsonl",
}


class _Unbuilt:
    """Stands in for the parser of a verb not being run: building all twenty costs a GM 80 ms a command."""

    def add_argument(self, *args: object, **kwargs: object) -> None:
        pass

    def set_defaults(self, **kwargs: object) -> None:
        pass


class UsageError(SystemExit):
    """argparse refused the words: the one line it printed, kept for a --json answer."""

    def __init__(self, line: str) -> None:
        super().__init__(2)
        self.line = line


def _parser_class() -> type[argparse.ArgumentParser]:
    import argparse

    class Parser(argparse.ArgumentParser):
        """argparse, but a refusal of the words is one line: what is wrong, then the verb's usage."""

        def error(self, message: str) -> NoReturn:
            message = message.replace("invalid int value:", "expected a whole number, got")
            line = f"{self.prog}: error: {message}; {' '.join(self.format_usage().split())}"
            print(line, file=sys.stderr)
            raise UsageError(line)

    return Parser


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `only`, just that verb's parser is built (its `verbs` says all names)."""
    import argparse

    from tabletrail.service.stores import LOG_HELP

    names: list[str] = []
    plugins: list[Any] = []
    parser = _parser_class()(
        prog="tabletrail",
        description="Tactical movement for tabletop RPGs: every action a logged, replayable event.",
        epilog="example: tabletrail replay replays/speed-meters-skirmish.jsonl   (a shipped encounter)\n"
        "then:    tabletrail new scenarios/speed-meters-skirmish.toml --log fight.jsonl\n"
        "         tabletrail do fight.jsonl move ari 2,2 4,2\n"
        "every verb's --help shows an example of it, e.g. tabletrail do --help",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="verb", required=True)

    def add(name: str, fn: Callable[[argparse.Namespace], int], help_: str) -> argparse.ArgumentParser:
        names.append(name)
        if only is not None and name != only:
            return _Unbuilt()  # type: ignore[return-value]
        example = EXAMPLES.get(name) or next(
            (pl.examples()[name] for pl in plugins if name in pl.examples()), ""
        )
        p = sub.add_parser(
            name,
            help=help_,
            description=help_,
            epilog=f"example: {example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(fn=fn)
        return p

    p = add("new", cmd_new, "start an encounter from a scenario file")
    p.add_argument("scenario", help="the scenario file (TOML), e.g. scenarios/speed-meters-skirmish.toml")
    p.add_argument(
        "--log",
        help="the log to create: NAME.jsonl for a JSON Lines file, NAME.db for SQLite "
        "(default: the scenario file's name with .db, in this folder: "
        "scenarios/skirmish.toml starts ./skirmish.db)",
    )
    p = add("do", cmd_do, "decide one command and append its events")
    p.add_argument("log", help=LOG_HELP)
    p.add_argument(
        "--id",
        help="a command id: retrying the same command with the same id appends nothing new and prints "
        "the first result; the id given to another command is an error",
    )
    p.add_argument("--json", action="store_true", help="print what was appended (or refused) as JSON")
    p.add_argument(
        "words",
        nargs=argparse.REMAINDER,
        help="the command, e.g. move ari 3,2 5,4 (tabletrail commands lists them); "
        "its options are name=value words: roll=14 by=blue why='a reason'",
    )
    for name, fn, help_ in (
        ("undo", cmd_undo, "take back the latest command in force"),
        ("redo", cmd_redo, "put back the command undone most recently"),
    ):
        p = add(name, fn, help_)
        p.add_argument("log", help=LOG_HELP)
        p.add_argument("--by", default="gm", help="who asks (default gm)")
        p.add_argument("--why", default="", help="why, for the audit")
        p.add_argument("--json", action="store_true", help="print what was appended (or refused) as JSON")
    p = add("show", cmd_show, "print the board and the fighters")
    p.add_argument("log", help=LOG_HELP)
    p.add_argument("--at", type=int, help="as it stood after this sequence number")
    p.add_argument("--json", action="store_true", help="print the board state as JSON")
    p = add("log", cmd_log, "list the events with their rule ids")
    p.add_argument("log", help=LOG_HELP)
    p.add_argument("--json", action="store_true", help="print the events as JSON: as logged, and in words")
    p = add("replay", cmd_replay, "fold the log from the start and print the board")
    p.add_argument("log", help=LOG_HELP)
    p.add_argument("--to", type=int, help="stop after this sequence number")
    p.add_argument("--json", action="store_true", help="print the board state as JSON")
    p = add("rules", cmd_rules, "list the rulesets, their rule ids, settings and commands")
    p.add_argument(
        "ruleset", nargs="?", help="only this ruleset, e.g. speed-meters, or a log's (default: all)"
    )
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p = add("commands", cmd_commands, "list every command verb, its syntax and the rulesets that know it")
    p.add_argument(
        "ruleset", nargs="?", help="only the commands of this ruleset, or of a log's (and the GM's)"
    )
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p = add(
        "modifiers", cmd_modifiers, "the attack and Defense modifiers in force for a fighter, with rule ids"
    )
    p.add_argument("log", help=LOG_HELP)
    p.add_argument("fighter", help="the fighter's id, e.g. ari")
    p.add_argument("--against", help="the fighter it attacks or is attacked by")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p = add(
        "shell",
        cmd_shell,
        "keep an encounter open at a prompt: each line is what `do` takes and appends what it appends; "
        "show, log, why and explain read; history and Tab completion of verbs, fighters and cells",
    )
    p.add_argument("log", help=LOG_HELP)
    p.add_argument("--history", help="a file that keeps the lines typed between sessions (default: none)")
    p = add(
        "play",
        cmd_play,
        "start an encounter and run a script of commands (one per line, ! = must be refused)",
    )
    p.add_argument("scenario", help="the scenario file (TOML)")
    p.add_argument("script", help="a text file of commands, one per line; # starts a comment")
    p.add_argument(
        "--log", required=True, help="the new log (.jsonl or .db), written once the whole script has run"
    )
    for module, verbs in PLUGINS.items():
        if only is None or only in verbs:
            plugins.append(importlib.import_module(module))
            plugins[-1].register(sub, add)
        else:
            names.extend(verbs)
    parser.set_defaults(verbs=sub.choices, names=names)
    return parser


VALUE_VERBS = ("do", "why")  # their words after LOG are a command, whose name=value words are its own


def flag_words(parser: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """A verb's `name=value` words as the `--name value` flags they stand for: one syntax everywhere.

    `undo LOG by=party` is `undo LOG --by party`, as in `do LOG undo by=party`;
    a switch reads `json=yes` as `--json` and `json=no` as nothing. A word whose
    name is not one of the verb's options is left alone (a file may hold `=`).
    """
    out: list[str] = []
    for word in words:
        name, eq, value = word.partition("=")
        action = parser._option_string_actions.get("--" + name.replace("_", "-")) if eq else None
        if action is None or word.startswith("-"):
            out.append(word)
        elif action.nargs == 0:  # a switch
            if value.lower() in ("yes", "true", "1", "on"):
                out.append(action.option_strings[-1])
            elif value.lower() not in ("no", "false", "0", "off"):
                parser.error(f"{name}={value}: {name} is a switch: write {name}=yes, {name}=no or --{name}")
        else:
            out += [action.option_strings[-1], value]
    return out


def run() -> None:
    """The `tabletrail` program: run one verb, then leave without tearing the interpreter down.

    Freeing every module and object at exit costs a command ~60 ms of CPU, a quarter
    of a `do` (benchmarks/bench_cli.py), and there is nothing left to do then: every
    batch is committed when it is appended, the output is flushed here, and the stores
    the verb opened are closed (SQLite folds its write-ahead log back into the .db).
    A verb that started threads or processes (serve) exits the ordinary way.

    The cycle collector runs rarely (every 100,000 new objects, not 700): a command's
    imports make tens of thousands of objects that live until exit (modules, classes,
    functions), and the default threshold has the collector walk them again and again,
    finding nothing: ~5 ms of a `do`. A verb that runs long still collects, in bigger
    steps. So that the threshold is in force before them, this module imports no store
    (nor msgspec) at its top.
    """
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    code = main()
    from tabletrail.service import stores

    stores.close_opened()
    threading = sys.modules.get("threading")
    if "multiprocessing" in sys.modules or (threading is not None and threading.active_count() > 1):
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (| head): nothing more can reach it
        pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    """Run one verb; every line it prints has its control characters escaped (printable.Printable)."""
    from tabletrail.text.printable import Printable

    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Printable(out), Printable(err)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def quick_do(argv: list[str]) -> SimpleNamespace | None:
    """`do LOG WORDS...` read without argparse: the verb a table types most, ~10 ms of CPU sooner.

    It is what argparse makes of it (LOG, then every word the command's; cmd_do takes a
    late --id out of the words); any other shape (a flag before LOG, a --help) is argparse's.
    """
    if len(argv) < 2 or argv[0] != "do" or argv[1].startswith("-") or {"-h", "--help"} & set(argv):
        return None
    return SimpleNamespace(verb="do", fn=cmd_do, log=argv[1], id=None, json=False, words=argv[2:])


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv or "json=yes" in argv
    try:
        args = quick_do(argv) or _parse(argv)
    except UsageError as exc:
        if as_json:
            _error_doc(exc.line)
        raise
    if isinstance(args, int):
        return args
    try:
        status: int = args.fn(args)  # every verb returns its exit status
        return status
    except InputError as exc:
        line = f"error: {exc}"
    except BrokenPipeError:
        return 0
    except OSError as exc:
        where = f"{exc.filename}: " if isinstance(exc.filename, str) else ""
        line = f"error: {where}{exc.strerror or exc}"
    print(line, file=sys.stderr)
    if as_json:
        _error_doc(line)
    return 2


def _error_doc(line: str) -> None:
    """Under --json an error is a document too (kind "error"), so a program reading stdout gets one."""
    from tabletrail.text import render

    print(render.json_doc("error", {"error": line.removeprefix("error: ")}))


def _parse(argv: list[str]) -> argparse.Namespace | int:
    """The verb and its arguments as argparse reads them; an exit code for a verb that isn't one."""
    parser = build_parser(only=argv[0] if argv else None)
    verb = argv[0] if argv else ""
    if verb not in parser.get_default("names"):
        names = parser.get_default("names")
        if verb and not verb.startswith("-"):
            import difflib  # only for a mistyped verb

            near = difflib.get_close_matches(verb, names, n=3)
            hint = f"did you mean {' or '.join(near)}?" if near else f"verbs: {', '.join(names)}"
            print(f"tabletrail: unknown verb {verb!r}; {hint} (--help lists them)", file=sys.stderr)
            return 2
        parser = build_parser()  # --help and the like: argparse lists every verb
    elif verb not in VALUE_VERBS:
        argv = [verb, *flag_words(parser.get_default("verbs")[verb], argv[1:])]
    args, extra = parser.parse_known_args(argv)
    if extra:  # a stray word: show the usage of the verb it was given to, not the whole list of verbs
        args.verbs[args.verb].error(f"unrecognized arguments: {' '.join(extra)}")
    return args


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
