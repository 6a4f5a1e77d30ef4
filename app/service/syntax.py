"""The table's command syntax: `move ari 3,4 5,4 roll=12 by=blue`.

One generic parser serves every command of every ruleset: the verb picks the
command type, bare words fill its fields in order (a list field takes the rest),
and `name=value` words set any field by name. Cells are written x,y or x,y,z.
"""

from __future__ import annotations

import functools
import shlex
from typing import Any

import msgspec
from msgspec import inspect as mi
from tabletrail.core.board.geometry import parse_cell
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.commands import Command, command_types
from tabletrail.events.errors import InputError
from tabletrail.events.limits import check_command, check_text

BASE_FIELDS = ("by", "rolls", "why")
ALIASES = {"roll": "rolls", "except": "exempt"}  # `except` is a Python word: Forbid's field is `exempt`


def verbs() -> dict[str, type[Command]]:
    return command_types()


def verbs_for(ruleset_id: str) -> dict[str, type[Command]]:
    """The verbs an encounter under this ruleset knows: its own and the GM's and log's (any ruleset's)."""

    ruleset = get_ruleset(ruleset_id)
    handled, withheld = ruleset._handlers, ruleset.withheld
    shared = ("tabletrail.events.commands", "tabletrail.events.commands.rulings")
    return {
        tag: cls
        for tag, cls in verbs().items()
        if cls in handled or (cls.__module__ in shared and cls not in withheld)
    }


def _unknown_verb(verb: str, known: dict[str, type[Command]], where: str) -> InputError:
    """`did you mean move?`: the nearest verbs this encounter knows, not every ruleset's."""
    import difflib  # only for a mistyped verb

    near = difflib.get_close_matches(verb, list(known), n=3, cutoff=0.6)
    if near:
        return InputError(
            f"{where}: unknown command {verb!r}; did you mean {' or '.join(near)}? "
            "(tabletrail commands RULESET lists them)"
        )
    return InputError(f"{where}: unknown command {verb!r} (verbs: {', '.join(known)})")


@functools.cache
def usage(cls: type[Command]) -> str:
    """A verb's syntax line, made once per command type: the board sends every verb's with each view, and
    reading a type's fields (msgspec.inspect) cost a third of a hosted worker's time under load."""
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    parts = [cls.__struct_config__.tag]
    after_list = False  # a field after a list of cells can only be named: `drag … put=4,2`
    for field in info.fields:
        if field.name in BASE_FIELDS:
            continue
        label = field.name.upper()
        if _is_list(field.type):
            label += "…"
        if not field.required:
            parts.append(f"[{field.name}={label}]")
        else:
            parts.append(f"{field.name}={label}" if after_list else label)
        after_list = after_list or _is_list(field.type)
    return " ".join(str(p) for p in parts) + " [roll=N…] [by=WHO] [why=TEXT]"


def take_flags(
    words: list[str], switches: tuple[str, ...] = (), options: tuple[str, ...] = ()
) -> tuple[list[str], dict[str, str | bool]]:
    """Pull a verb's own flags out of a command's words, wherever they were written.

    `do LOG move ari 3,2 --id x` and `why LOG move ari 3,2 --json` mean what they
    say: argparse hands every word after LOG to the command, flags included.
    Switches (`--json`) take no value; options take the next word or `--id=x`.
    """
    rest: list[str] = []
    found: dict[str, str | bool] = {}
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, value = word.partition("=")
        if word in switches:
            found[word] = True
        elif name in options and eq:
            found[name] = value
        elif word in options:
            if i + 1 >= len(words) or words[i + 1].startswith("--"):
                raise InputError(f"{word} needs a value, e.g. {word} VALUE")
            found[word] = words[i + 1]
            i += 1
        else:
            rest.append(word)
        i += 1
    return rest, found


def command_words(words: list[str], where: str = "command") -> tuple[list[str], str]:
    """The words of a command as typed, and its text for the log.

    `do LOG "move ari 3,2"` (the whole command in one quoted word) reads as its
    words. The text quotes a word only where the shell would need it, so the
    logged text parses back to the same command (`why="a long reason"`).
    """
    if len(words) == 1 and any(c.isspace() for c in words[0]):
        try:
            words = shlex.split(words[0])
        except ValueError as exc:
            raise InputError(f"{where}: {exc}") from None
    return words, shlex.join(words)


def _not_a_flag(word: str, where: str, verb: str, fields: list[str]) -> None:
    """A `--name` that is none of the command's options: say which options it has."""
    if word.startswith("--"):
        name = word[2:].split("=", 1)[0] or "name"
        raise InputError(
            f"{where}: {verb or 'a command'} has no option {name!r}"
            + (f" (options of {verb}: {', '.join(fields)})" if fields else "")
        )


def _as_words(rest: list[str], written: list[str], where: str) -> list[str]:
    """`--by blue` and `--by=blue` inside a command are `by=blue`: one syntax for options everywhere."""
    out: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        name, eq, value = word[2:].partition("=")
        if word.startswith("--") and name.replace("-", "_") in written:
            if not eq:
                if i + 1 >= len(rest):
                    raise InputError(f"{where}: {word} needs a value, e.g. {name}=VALUE")
                i += 1
                value = rest[i]
            out.append(f"{name.replace('-', '_')}={value}")
        else:
            out.append(word)
        i += 1
    return out


def parse(
    words: list[str] | str, where: str = "command", verbs: dict[str, type[Command]] | None = None
) -> Command:
    """Parse one command; InputError names the word or field at fault.

    verbs: the commands this encounter knows (see verbs_for): an unknown verb is
    answered with the nearest of them. Another ruleset's verb still parses, and
    the rules refuse it (tabletrail/command), as they would from a script. The
    text is bounded before it is split and every number the command carries is
    range-checked (events/limits.py) before any rule sees it.
    """
    check_text(words if isinstance(words, str) else " ".join(words), where)
    every = command_types()
    known = verbs if verbs is not None else every
    if isinstance(words, str):
        try:
            words = shlex.split(words)
        except ValueError as exc:
            raise InputError(f"{where}: {exc}") from None
    if not words:
        raise InputError(f"{where}: empty command (verbs: {', '.join(known)})")
    verb, *rest = words
    cls = every.get(verb)
    if cls is None:
        _not_a_flag(verb, where, "", [])
        raise _unknown_verb(verb, known, where)
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    fields = {f.name: f for f in info.fields}
    rest = _as_words(rest, [*fields, *ALIASES], where)
    positional = [f for f in info.fields if f.name not in BASE_FIELDS]
    values: dict[str, Any] = {}
    queue = list(positional)
    written = _written(fields)
    for word in rest:
        _not_a_flag(word, where, verb, written)
        if "=" in word and word.split("=", 1)[0].isidentifier():
            name, raw = word.split("=", 1)
            name = ALIASES.get(name, name)
            if name not in fields:
                raise InputError(f"{where}: {verb} has no option {name!r} (options: {', '.join(written)})")
            if not raw:  # `roll=` with nothing after it: a slip of the fingers, not "no roll"
                said = word.split("=", 1)[0]
                raise InputError(f"{where}: {said}= needs a value ({said}=VALUE), or leave {said}= out")
            value = _convert(fields[name].type, raw, f"{where}: {name}")
            if _is_list(fields[name].type):
                values.setdefault(name, []).extend(value)  # a list, so N words take linear time
            else:
                values[name] = value
            queue = [f for f in queue if f.name != name]
            continue
        if not queue:
            raise InputError(f"{where}: unexpected word {word!r}; usage: {usage(cls)}")
        field = queue[0]
        if _is_list(field.type):
            values.setdefault(field.name, []).extend(_convert(field.type, word, f"{where}: {field.name}"))
        else:
            values[field.name] = _convert(field.type, word, f"{where}: {field.name}")
            queue.pop(0)
    missing = [f.name for f in positional if f.required and f.name not in values]
    if missing:
        raise InputError(f"{where}: {verb} needs {', '.join(missing)}; usage: {usage(cls)}")
    try:
        command = msgspec.convert(values, cls)
    except msgspec.ValidationError as exc:
        raise InputError(f"{where}: {exc}") from None
    check_command(command, where)
    return command


def _written(fields: dict[str, Any]) -> list[str]:
    """Field names as a command writes them: `roll=`, not the field `rolls`."""
    spelled = {field: alias for alias, field in ALIASES.items()}
    return [spelled.get(name, name) for name in fields]


def _is_list(t: mi.Type) -> bool:
    return isinstance(t, mi.VarTupleType)


def _is_cell(t: mi.Type) -> bool:
    return isinstance(t, mi.Metadata) and (t.extra_json_schema or {}).get("title") == "cell"


def _convert(t: mi.Type, raw: str, where: str) -> Any:
    if isinstance(t, mi.Metadata) and not _is_cell(t):
        t = t.type
    if isinstance(t, mi.UnionType):
        for option in t.types:
            if isinstance(option, mi.NoneType):
                if raw.lower() in ("none", ""):
                    return None
                continue
            try:
                return _convert(option, raw, where)
            except InputError:
                continue
        raise InputError(f"{where}: cannot read {raw!r}")
    if isinstance(t, mi.LiteralType):
        if raw in t.values:
            return raw
        raise InputError(f"{where}: {raw!r} is not one of {', '.join(map(str, t.values))}")
    if isinstance(t, mi.StrType | mi.AnyType):
        return raw
    if isinstance(t, mi.BoolType):
        if raw.lower() in ("true", "yes", "1"):
            return True
        if raw.lower() in ("false", "no", "0"):
            return False
        raise InputError(f"{where}: expected yes or no, got {raw!r}")
    if isinstance(t, mi.IntType):
        try:
            return int(raw)
        except ValueError:
            raise InputError(f"{where}: expected a whole number, got {raw!r}") from None
    if isinstance(t, mi.FloatType):
        try:
            return float(raw)
        except ValueError:
            raise InputError(f"{where}: expected a number, got {raw!r}") from None
    if _is_cell(t):
        try:
            return parse_cell(raw)
        except ValueError as exc:
            raise InputError(f"{where}: {exc}") from None
    if isinstance(t, mi.VarTupleType | mi.TupleType):
        item = t.item_type if isinstance(t, mi.VarTupleType) else t.item_types[0]
        if _is_cell(item):
            return (_convert(item, raw, where),)
        return tuple(_convert(item, part, where) for part in raw.split(",") if part)
    raise InputError(f"{where}: cannot read {raw!r}")
