"""Scenario files (events/scenario/reader.py): names, error places, the table view's fields."""
