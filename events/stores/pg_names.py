"""How a PostgreSQL log is named on a command line, without loading the driver.

Every CLI verb asks "is this LOG a database URL, or an encounter NAME?" before
it opens anything; answering that must not import psycopg (~200 ms), which only
`events/stores/postgres_store.py` needs, and only when a URL is given.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

SCHEMES = ("postgresql", "postgres")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")  # an encounter: safe in a URL path, a file name


def is_url(text: str) -> bool:
    """Does a LOG argument name a PostgreSQL database rather than a file?"""
    return text.split("://", 1)[0].lower() in SCHEMES and "://" in text


def masked(url: str) -> str:
    """The URL with its password replaced by ***, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
