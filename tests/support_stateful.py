"""The harness every stateful test shares: the kit's conformance machine (app/testing/machine.py)."""

from tabletrail.testing.machine import EncounterMachine, conformance_machine, undoers  # noqa: F401
