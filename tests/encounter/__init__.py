"""The encounter service (app/encounter.py): checks before decide, its records, undo, random play."""
