"""The rulesets by id: every installed ruleset plug-in (events/plugins.py), tabletrail's four included.

The registry imports no ruleset: each is found through its plug-in's entry point and imported by
name (importlib), so it sits in the engine's layer, under the reachable area and `decide` that ask it;
the built-in rulesets themselves are packages of core/rulesets/, a layer above.

A ruleset's class is imported the first time that ruleset is asked for: a
command on a speed-meters encounter never loads the other three (the CLI
answers faster; see benchmarks/bench_cli.py). Iterating RULESETS loads them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, ValuesView

from tabletrail.core.engine import rulings  # noqa: F401  (GM rulings: commands every ruleset accepts)
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.events import plugins
from tabletrail.events.errors import InputError


def _make(ruleset_id: str) -> Ruleset:
    """The ruleset's class, imported from where its declaration says, checked, and built."""
    found = plugins.find(ruleset_id)
    where = f"ruleset plug-in {ruleset_id!r} (package {found.package} {found.version})"
    module, _, name = found.plugin.ruleset.partition(":")
    try:
        cls = getattr(importlib.import_module(module), name)
    except Exception as exc:  # a third party's import failing is that plug-in's, said in one line
        why = f"{type(exc).__name__}: {exc}"
        raise InputError(f"{where}: cannot load {found.plugin.ruleset}: {why}") from None
    if not (isinstance(cls, type) and issubclass(cls, Ruleset)):
        raise InputError(f"{where}: {found.plugin.ruleset} is not a tabletrail Ruleset")
    if cls.id != ruleset_id:
        raise InputError(f"{where}: {found.plugin.ruleset} has the id {cls.id!r}, not {ruleset_id!r}")
    return cls()


class _Registry(Mapping[str, Ruleset]):
    """The installed rulesets by id, each built once, on first use."""

    def __init__(self) -> None:
        self._made: dict[str, Ruleset] = {}

    def __getitem__(self, ruleset_id: str) -> Ruleset:
        made = self._made.get(ruleset_id)
        if made is None:
            try:
                made = self._made[ruleset_id] = _make(ruleset_id)
            except InputError as exc:
                plugins.leave_out(ruleset_id, str(exc))  # `rules` says why; the others still list
                raise KeyError(str(exc)) from None
        return made

    def values(self) -> ValuesView[Ruleset]:
        """Every ruleset that loads (one that doesn't is left out, `plugins.problems()` says why)."""
        for ruleset_id in list(self):
            self.get(ruleset_id)  # loads it, or leaves it out
        return ValuesView(self)

    def __iter__(self) -> Iterator[str]:
        return iter(plugins.installed())

    def __len__(self) -> int:
        return len(plugins.installed())

    def __contains__(self, ruleset_id: object) -> bool:
        return ruleset_id in plugins.installed()


RULESETS: Mapping[str, Ruleset] = _Registry()


def get(ruleset_id: str) -> Ruleset:
    """The ruleset of this id; an InputError in one line when it is unknown, missing or broken."""
    try:
        return RULESETS[ruleset_id]
    except KeyError as exc:
        raise InputError(exc.args[0]) from None
