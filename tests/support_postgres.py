"""The PostgreSQL server the tests talk to, and a schema of their own for each test.

Several people run the suite at once against the same server: every test gets a
schema named for its process and a random tag, dropped (with its tables) when
the test ends. TABLETRAIL_TEST_PG names another server or database.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest

BASE = os.environ.get("TABLETRAIL_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def url(schema: str, encounter: str | None = "fight", base: str = BASE) -> str:
    """An encounter's URL in the test's own schema."""
    query = f"schema={schema}" + (f"&encounter={encounter}" if encounter else "")
    return f"{base}?{query}"


def drop(schema: str) -> None:
    with psycopg.connect(BASE, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@contextmanager
def own_schema() -> Iterator[str]:
    """A fresh schema name, dropped with everything in it afterwards."""
    schema = f"tt_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    try:
        yield schema
    finally:
        drop(schema)


@pytest.fixture
def pg_schema() -> Iterator[str]:
    with own_schema() as schema:
        yield schema
