"""What a plain `pip install tabletrail` brings: the table view is the product's face, so `serve` must work
without an extra (issue 38: "serve fails after the README's first command")."""

from __future__ import annotations

import re
from importlib.metadata import requires


def _plain_requirements() -> set[str]:
    """The distribution's requirements that apply with no extra named."""
    names = set()
    for line in requires("tabletrail") or []:
        if "extra ==" in line:
            continue
        names.add(re.split(r"[<>=!~ \[;]", line, maxsplit=1)[0].lower())
    return names


def test_the_table_view_needs_no_extra():
    plain = _plain_requirements()
    assert {"starlette", "uvicorn", "segno"} <= plain, plain


def test_postgres_stays_an_extra():
    assert "psycopg" not in _plain_requirements()
