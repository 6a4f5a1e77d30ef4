"""The checks every ruleset passes before it is played: installed, declared whole, its examples run."""

from __future__ import annotations

import msgspec
from tabletrail.core.refusal import Rejection
from tabletrail.core.ruleset import Ruleset
from tabletrail.core.rulesets import get as get_ruleset
from tabletrail.events import plugins
from tabletrail.events.commands import Command, command_types
from tabletrail.events.types import CommandIssued
from tabletrail.syntax import parse
from tabletrail.testing.helpers import encounter

ENGINE_MODULES = ("tabletrail.events.commands", "tabletrail.events.commands.rulings")  # every ruleset's


def check_declaration(ruleset_id: str) -> Ruleset:
    """The plug-in is installed and whole; returns its ruleset.

    Its entry point loads (no problem reported for it), its class has the declared id, its
    catalogue names each rule once with the words it enforces, every setting's default passes
    its own check and cites one of its rules, every stat says what it is, and every command it
    handles is in the command union, so that it decodes from a log as written.
    """
    mine = [p for p in plugins.problems() if repr(ruleset_id) in p]
    assert not mine, mine
    rs = get_ruleset(ruleset_id)
    assert rs.id == ruleset_id, (rs.id, ruleset_id)
    names = [r.name for r in rs.rules]
    assert len(set(names)) == len(names), f"a rule is named twice: {names}"
    assert all(r.enforce for r in rs.rules), "every rule says what the engine enforces"
    ids = {rs.rule(n) for n in names}
    for s in rs.settings:
        s.check(s.default, f"settings.{s.name}")
        assert s.doc, f"setting {s.name} says what it is"
        assert not s.rule or s.rule in ids, f"setting {s.name} cites {s.rule!r}, not one of {sorted(ids)}"
    assert all(s.doc for s in rs.stats), "every stat says what it is"
    union = set(command_types().values())
    for cls in rs._handlers:  # noqa: SLF001
        assert cls in union, (
            f"{cls.__name__} is handled but not decodable: define it in the plug-in's vocabulary"
        )
        header = CommandIssued(command=_blank(cls))
        again = msgspec.json.decode(msgspec.json.encode(header), type=CommandIssued)
        assert type(again.command) is cls
    return rs


def _blank(cls: type[Command]) -> Command:
    """A command of this type with every required field given a plain value (for a round trip)."""
    fields = {}
    for f in msgspec.structs.fields(cls):
        if f.required:
            fields[f.name] = msgspec.convert(_plain(f.type), f.type)
    return cls(**fields)


def _plain(t: object) -> object:
    info = msgspec.inspect.type_info(t)
    if isinstance(info, msgspec.inspect.StrType):
        return "x"
    if isinstance(info, msgspec.inspect.IntType):
        return 1
    if isinstance(info, msgspec.inspect.FloatType):
        return 1.0
    if isinstance(info, msgspec.inspect.BoolType):
        return False
    if isinstance(info, msgspec.inspect.LiteralType):
        return info.values[0]
    if isinstance(info, msgspec.inspect.TupleType | msgspec.inspect.VarTupleType | msgspec.inspect.ListType):
        return [] if not isinstance(info, msgspec.inspect.TupleType) else [1] * len(info.item_types)
    return None


def check_examples(ruleset_id: str, scenario: str) -> None:
    """Every command of the ruleset's own that gives an `example` is accepted, as typed, on a fresh
    encounter of `scenario` (TOML text): what `tabletrail commands` prints must run. (The engine's
    commands, whose examples name the built-in scenarios' fighters, are tabletrail's to check.)"""
    rs = get_ruleset(ruleset_id)
    for cls in rs._handlers:  # noqa: SLF001
        if not cls.example or cls.__module__ in ENGINE_MODULES:
            continue
        enc = encounter(scenario)
        assert enc.state.ruleset == ruleset_id, enc.state.ruleset
        result = enc.execute(parse(cls.example), cls.example)
        assert not isinstance(result, Rejection), f"the example {cls.example!r} was {result}"
