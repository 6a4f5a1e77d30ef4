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


# --- exact lengths: a + b·√2 centi-units ------------------------------------------------------
#
# Under diagonal=euclidean a diagonal step is √2 cells long. A path's length is kept exact as a
# whole part and a count of √2 centi-units (a walked diagonal: 0 + 100·√2; crawled: 0 + 200·√2),
# compared with a budget exactly in integers, and rounded once, for display and for the log. A
# priced Step records its cost rounded to 0.01 and its √2 part (`Step.root2`): its exact length
# is `cost - root2_cu(root2) + root2·√2`.


def root2_cu(b: int) -> int:
    """b·√2 rounded to the nearest centi-unit (b·√2 is never halfway for b != 0): 100 -> 141, 300 -> 424."""
    if b < 0:
        return -root2_cu(-b)
    return (isqrt(8 * b * b) + 1) // 2


def exact_of(cost: int, root2: int) -> tuple[int, int]:
    """The exact length (whole, √2 part) of a value recorded as its rounding `cost` and its √2 part."""
    return cost - root2_cu(root2), root2


def rounded(whole: int, root2: int) -> int:
    """whole + root2·√2, rounded once to the centi-unit."""
    return whole + root2_cu(root2)


def sign(whole: int, root2: int) -> int:
    """The sign of whole + root2·√2, decided in integers (squares compared, never a float)."""
    if root2 == 0 or (whole >= 0) == (root2 >= 0):
        return (whole > 0) - (whole < 0) or (root2 > 0) - (root2 < 0)
    # opposite signs: |whole| against |root2|·√2, squared
    bigger = whole * whole - 2 * root2 * root2
    return (1 if whole > 0 else -1) if bigger > 0 else (1 if root2 > 0 else -1)


def fmt_exact(whole: int, root2: int, beside: int | None = None) -> str:
    """An exact length for people, to 0.01; to 0.0001 when that is needed to tell it from `beside`
    (a path of 24.003 yd is not within a budget of 24: '24.0032', not '24')."""
    shown = rounded(whole, root2)
    if beside is None or shown != beside or root2 == 0:
        return fmt(shown)
    fine = whole * CU + root2_cu(root2 * CU)  # ten-thousandths
    sign_ = "-" if fine < 0 else ""
    whole_part, frac = divmod(abs(fine), CU * CU)
    return f"{sign_}{whole_part}.{frac:04d}".rstrip("0").rstrip(".")


def half_down(cu: int) -> int:
    """Half a length, rounding down to the centi-unit (never grants extra movement)."""
    return cu // 2
