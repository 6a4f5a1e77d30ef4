"""Commands of GM rulings, accepted under every ruleset."""

from __future__ import annotations

from tabletrail.events.commands import Command  # noqa: F401
