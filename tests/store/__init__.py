"""The log and its stores (events/log.py, JSON Lines, SQLite, PostgreSQL)."""
