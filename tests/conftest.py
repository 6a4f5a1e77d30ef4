"""Fixtures shared by every test file."""

from support_postgres import pg_schema

__all__ = ["pg_schema"]
