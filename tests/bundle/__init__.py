"""The replay bundle built fast: the same bytes as built the slow way."""
