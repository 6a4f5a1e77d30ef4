"""The base of every command, and the cell type commands name squares by.

Below both the commands (events/commands/) and the ruleset plug-ins' loader
(events/plugins.py), which asks what verbs a plug-in's module defined.
"""

from collections.abc import Iterator
from typing import Annotated, ClassVar

import msgspec

# x, y or x, y, z as typed at the table; the title tells the CLI parser it is a cell.
Cell = Annotated[tuple[int, ...], msgspec.Meta(title="cell")]


class Command(msgspec.Struct, frozen=True, gc=False, kw_only=True, tag_field="cmd"):
    """Base of every command.

    by: who asked (a side name or "gm"); rolls: numbers rolled at the table for
    this command's checks, used in order before any seeded draw; why: optional
    words for the audit.
    """

    by: str = "gm"
    rolls: tuple[int, ...] = ()
    why: str = ""
    # a command line `tabletrail commands` prints after the syntax; a test runs every one
    # on the ruleset's shipped scenario (tests/cli/test_syntax.py), so none is refused
    example: ClassVar[str] = ""


def defined() -> Iterator[tuple[str, type[Command]]]:
    """(verb, class) for every command class defined so far, in the order classes were made."""
    todo = list(Command.__subclasses__())
    while todo:
        cls = todo.pop(0)
        todo.extend(cls.__subclasses__())
        tag = cls.__struct_config__.tag
        if isinstance(tag, str):
            yield tag, cls
