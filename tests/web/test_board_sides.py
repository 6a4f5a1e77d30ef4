"""Every side's board is made from the GM's board of the same version (issue 40, hosted capacity).

A hosted worker answers the GM and each player side of a table after every move; the fighters'
cards were most of each board, so they are made once a version (api_board.board_for) and a side's
board is the GM's with what views.board makes differ by side replaced. Whatever the log holds
(moves, turns, undos and redos at any depth, rulings whose reasons a player's board is scrubbed
of), each side's board is byte for byte the one views.board and redact.board make for it.
"""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabletrail.web import redact, views
from tabletrail.web.api.board import board_for

from tests.web.test_events_after import COMMANDS, WHO, new_encounter, run


class Held:
    """Stands for the table the GM's board is kept for (any object a weak reference can name)."""


def made(enc, version: int, role: str, held: Held) -> bytes:  # noqa: ANN001
    who = next(w for w in WHO if w.role == role)
    return msgspec.json.encode(redact.board(who, enc, board_for(held, enc, version, role)))  # type: ignore[arg-type]


def expected(enc, version: int, role: str) -> bytes:  # noqa: ANN001
    who = next(w for w in WHO if w.role == role)
    return msgspec.json.encode(redact.board(who, enc, views.board(enc, version, role)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(COMMANDS), max_size=14), st.permutations([w.role for w in WHO]))
def test_every_side_reads_the_board_views_makes(commands: list[str], order: list[str]) -> None:
    """After each command, in any order of sides asking, each side's board is views.board's exactly."""
    enc = new_encounter()
    held = Held()
    for text in [None, *commands]:
        if text is not None:
            run(enc, text)
        version = len(enc.records)
        for role in order:
            assert made(enc, version, role, held) == expected(enc, version, role), (text, role)


def test_a_board_is_never_one_of_another_encounter_or_version() -> None:
    """The GM's board kept for a table is taken only for the same encounter at the same version."""
    held = Held()
    first, second = new_encounter(), new_encounter()
    run(first, "move ari 3,1")
    board_for(held, first, len(first.records), "blue")  # type: ignore[arg-type]
    assert made(held=held, enc=second, version=len(second.records), role="blue") == expected(
        second, len(second.records), "blue"
    )
    run(second, "move bo 2,3")
    assert made(held=held, enc=second, version=len(second.records), role="red") == expected(
        second, len(second.records), "red"
    )
