"""Fixtures the browser tests share."""

from tests.e2e.chromium import browser  # noqa: F401  (a fixture: pytest finds it here)
