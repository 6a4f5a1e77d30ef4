"""Exact lengths.

Every length, cost and height inside the engine is an integer count of
hundredths of the ruleset's unit (a "centi-unit": 0.01 yd or 0.01 m). Sums stay
exact, replays are bit-identical, and an audit prints numbers a person can
check by hand.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from math import isqrt

CU = 100  # centi-units in one unit (one cell edge)
UNIT_RESOURCES = {"ap": "AP"}  # centi-counted budgets told in their own unit, not the ruleset's length


def unit_of(resource: str, length_unit: str) -> str:
    """What a centi-counted budget is told in: `AP` for ap-squares' AP, else the length unit (m, yd)."""
    return UNIT_RESOURCES.get(resource, length_unit)


def to_cu(value: float | int | str) -> int:
    """Convert a number as a GM writes it (1.5, "2", 3) into centi-units."""
    try:
        exact = Decimal(str(value)) * CU
    except InvalidOperation as exc:  # pragma: no cover - callers validate types first
        raise ValueError(f"not a number: {value!r}") from exc
    return int(exact.to_integral_value(rounding=ROUND_HALF_EVEN))


def fmt(cu: int) -> str:
    """Format centi-units for people: 141 -> '1.41', 200 -> '2'."""
    sign = "-" if cu < 0 else ""
    whole, frac = divmod(abs(cu), CU)
    return f"{sign}{whole}" if frac == 0 else f"{sign}{whole}.{frac:02d}".rstrip("0")


def fmt_number(value: float) -> str:
    """A number as a GM wrote it in the scenario: 3, 3.5, -4."""
    return str(int(value)) if float(value).is_integer() else str(value)


def plural(n: float, one: str, many: str | None = None) -> str:
    """`1 action`, `2 actions`, `0 actions`: a count whose noun agrees, never `action(s)`."""
    return f"{fmt_number(n)} {one if n == 1 else (many or one + 's')}"


def root_cu(units_squared: int) -> int:
    """sqrt of a squared length given in whole units², rounded to the nearest 0.01."""
    scaled = units_squared * CU * CU * 4  # sqrt(4x) = 2 sqrt(x): one extra bit to round by
    doubled = isqrt(scaled)
    return (doubled + 1) // 2


def half_down(cu: int) -> int:
    """Half a length, rounding down to the centi-unit (never grants extra movement)."""
    return cu // 2
