"""Refusals: how a rule says no.

Rules raise `Refusal` deep inside a decision; `decide` turns it into a
`Rejection` value that cites the rule id and says why with its numbers.
Nothing is appended for a rejected command.
"""

from __future__ import annotations

import msgspec


class Refusal(Exception):
    """A rule says no: raised anywhere in a handler, the whole command is dropped (nothing appended)
    and the table reads `rule` (a catalogue id) and `reason` (words, with the numbers)."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{rule}: {reason}")
        self.rule = rule
        self.reason = reason


class Rejection(msgspec.Struct, frozen=True):
    rule: str
    reason: str

    def __str__(self) -> str:
        return f"refused by {self.rule}: {self.reason}"


def require(condition: bool, rule: str, reason: str) -> None:
    """Refuse under `rule`, saying `reason`, unless `condition` holds."""
    if not condition:
        raise Refusal(rule, reason)
