"""GM rulings: commands every ruleset accepts, handled once for all of them.

Handlers register with `@engine_command(CommandType)` from tabletrail.core.ruleset.
"""

from __future__ import annotations
