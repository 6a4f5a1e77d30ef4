"""Commands of the round-meters ruleset."""

from __future__ import annotations

from tabletrail.events.commands import Command  # noqa: F401
