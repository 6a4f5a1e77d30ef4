"""Commands of the ap-squares ruleset."""

from __future__ import annotations

from tabletrail.events.commands import Command  # noqa: F401
