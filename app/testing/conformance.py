"""The checks every ruleset passes before it is played: installed, declared whole, its examples run."""

from __future__ import annotations

import msgspec
import msgspec.inspect as mi
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.events import plugins
from tabletrail.events.commands import Command, command_types
from tabletrail.events.types import CommandIssued
from tabletrail.service.syntax import parse
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
    fields = {
        f.name: msgspec.convert(_plain(mi.type_info(f.type)), f.type)
        for f in msgspec.structs.fields(cls)
        if f.required
    }
    return cls(**fields)


def _plain(t: mi.Type) -> object:
    """A plain value of a field's type, as JSON would carry it."""
    if isinstance(t, mi.Metadata):
        return _plain(t.type)
    if isinstance(t, mi.UnionType):
        return _plain(next((u for u in t.types if not isinstance(u, mi.NoneType)), t.types[0]))
    if isinstance(t, mi.LiteralType):
        return t.values[0]
    if isinstance(t, mi.TupleType):
        return [_plain(item) for item in t.item_types]
    if isinstance(t, mi.VarTupleType | mi.ListType | mi.SetType | mi.FrozenSetType):
        return []
    if isinstance(t, mi.DictType):
        return {}
    plain = {mi.StrType: "x", mi.IntType: 1, mi.FloatType: 1.0, mi.BoolType: False}
    return next((value for kind, value in plain.items() if isinstance(t, kind)), None)


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
