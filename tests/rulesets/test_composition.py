"""A built-in ruleset is one class over the engine's `Ruleset`, made of parts (issue 37): its families of
rules are objects plugged into named hooks, as a plug-in's are, not a stack of mixins a reader climbs."""

from __future__ import annotations

from typing import Generic

import pytest
from tabletrail.core.engine.registry import get
from tabletrail.core.engine.ruleset import Part, Ruleset

BUILT_INS = ("initiative-yards", "round-meters", "ap-squares", "speed-meters")


@pytest.mark.parametrize("name", BUILT_INS)
def test_a_built_in_derives_from_the_engine_directly(name: str) -> None:
    cls = type(get(name))
    assert cls.__mro__ == (cls, Ruleset, object), [k.__name__ for k in cls.__mro__]


@pytest.mark.parametrize("name", BUILT_INS)
def test_its_families_are_parts_each_named_once(name: str) -> None:
    parts = type(get(name)).parts
    assert len(parts) >= 3, f"{name} lists {len(parts)} parts"
    assert len(set(parts)) == len(parts)
    for part in parts:
        assert issubclass(part, Part), part
        assert not issubclass(part, Ruleset), f"{part.__name__} is a ruleset mixin, not a part"
        # At most one ruleset-local base between a family and the engine's Part (it types `self.rs`);
        # `Generic` comes with `Part[...]` and is no base of the ruleset's own.
        bases = [k.__name__ for k in part.__mro__ if k is not Generic]
        assert len(bases) <= 4, bases


@pytest.mark.parametrize("name", BUILT_INS)
def test_every_handler_is_a_parts_or_the_rulesets_own(name: str) -> None:
    """A command reaches the part that owns its rule: a handler is a part's (wrapped with the part's
    name) or one the ruleset class or the engine writes itself, never one inherited from a family."""
    ruleset = get(name)
    owners = {p.__name__ for p in type(ruleset).parts}
    seen = set()
    for command, handler in type(ruleset)._handlers.items():
        owner = handler.__qualname__.split(".")[0]
        assert owner in owners | {type(ruleset).__name__, "Ruleset"}, (command.__name__, handler.__qualname__)
        seen.add(owner)
    assert len(seen & owners) >= 3, f"only {sorted(seen & owners)} of {name}'s parts handle a command"
