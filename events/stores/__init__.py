"""The log's stores: the line format and hash chain they share, MemoryStore, JsonlStore, and the
database stores (SQLite, PostgreSQL)."""
