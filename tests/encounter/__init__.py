"""The encounter service (app/service/encounter.py): checks before decide, its records, undo, random play."""
