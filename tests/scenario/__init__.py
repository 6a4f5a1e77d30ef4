"""Scenario files (events/scenario.py): names, error places, the table view's fields."""
