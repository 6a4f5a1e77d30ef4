"""tabletrail: tactical movement for tabletop RPGs as an event-sourced turn engine.

This folder is the `tabletrail` package itself: the CLI and the Encounter
service that ties the rules (tabletrail.core), the log (tabletrail.events) and
the read models (tabletrail.projections) together.
"""

__version__ = "0.1.0"
