"""The log and its stores (events/stores/: JSON Lines, SQLite, PostgreSQL)."""
