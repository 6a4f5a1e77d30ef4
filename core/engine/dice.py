"""Check inputs: where the number of every test comes from.

A check's number is either entered at the table (`table`: the command carries
it in `rolls`, used in order) or drawn by the encounter's seeded dice
(`seeded`). The seeded dice are counter-based: draw number i of seed s is a
pure function of (s, i), and i lives in the encounter state. So undo-and-retry
meets the same number (undo is no way to re-roll), and replay never rolls.
"""

from __future__ import annotations

import re

from tabletrail.core.board.refusal import Refusal
from tabletrail.core.board.units import plural
from tabletrail.core.fold.batch import Batch
from tabletrail.events.digest import blake2b
from tabletrail.events.types import CheckRolled

CHECKS = "tabletrail/checks"
_FORMULA = r"^\s*(\d{1,2})\s*d\s*(\d{1,4})\s*$"  # compiled when first used (re caches it): few commands roll


def parse_formula(text: str) -> tuple[int, int]:
    """'2d6' -> (2, 6). ValueError for anything else."""
    m = re.match(_FORMULA, text)
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 2:
        raise ValueError(f"{text!r} is not a dice formula like 1d20 or 2d6")
    return int(m.group(1)), int(m.group(2))


def seeded_die(seed: int, index: int, sides: int) -> int:
    """Die number `index` of the encounter seeded with `seed`: uniform in 1..sides."""
    limit = (1 << 64) - (1 << 64) % sides
    attempt = 0
    while True:
        digest = blake2b(f"{seed}:{index}:{attempt}".encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "big")
        if value < limit:
            return value % sides + 1
        attempt += 1  # rejection keeps every face equally likely


def face(number: int, formula: str, label: str, rule: str = CHECKS) -> None:
    """A table roll must be a total the die can show: 1..6 on 1d6, 2..12 on 2d6 (tabletrail/checks).

    The refusal cites the check's own rule (a falling table, a drift trajectory)
    where it has one: that rule is what names the die.
    """
    try:
        count, sides = parse_formula(formula)
    except ValueError:
        return  # a formula the seeded dice could not roll either: the roll is the table's word
    if not count <= number <= count * sides:
        raise Refusal(
            rule,
            f"roll={number} for {label} is not a face of {count}d{sides}: "
            f"it shows {count} to {count * sides}",
        )


def ordinal(n: int) -> str:
    """`2nd`, `3rd`, `11th`: which roll of a command a refusal asks for."""
    last = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{last}"


class Dice:
    """The check inputs of one command: table rolls first, then the seeded dice."""

    def __init__(self, rolls: tuple[int, ...] = (), *, table_only: bool = False) -> None:
        self.rolls = rolls
        self.used = 0
        self.table_only = table_only

    def roll(
        self, b: Batch, formula: str, label: str, rule: str = CHECKS
    ) -> tuple[int, tuple[int, ...], str]:
        """The next table roll (a face of `formula`, else refused under `rule`), or a seeded draw."""
        if self.used < len(self.rolls):
            number = self.rolls[self.used]
            self.used += 1
            face(number, formula, label, rule)
            return number, (), "table"
        if self.table_only:
            raise Refusal(
                CHECKS,
                f"{label} needs a roll made at the table: add a {ordinal(self.used + 1)} roll=N "
                f"(this encounter's checks setting is 'table')"
                if self.used
                else f"{label} needs a roll made at the table: add roll=N "
                "(this encounter's checks setting is 'table')",
            )
        count, sides = parse_formula(formula)
        start = b.state.dice  # check() emits each draw before the next one
        dice = tuple(seeded_die(b.state.scenario.seed, start + i, sides) for i in range(count))
        return sum(dice), dice, "seeded"

    def finish(self) -> None:
        """A roll entered at the table but never used is a mistake worth refusing."""
        if self.used < len(self.rolls):
            extra = self.rolls[self.used :]
            raise Refusal(
                CHECKS,
                f"{plural(len(self.rolls), 'table roll')} given but only "
                f"{plural(self.used, 'check')} happened; "
                f"unused: {', '.join(map(str, extra))}",
            )


def check(
    b: Batch,
    dice: Dice,
    *,
    fighter: str,
    name: str,
    rule: str,
    target: int | None = None,
    modifier: int = 0,
    beat: bool = False,
    formula: str | None = None,
    note: str = "",
) -> CheckRolled:
    """Make one check, record it, and return it. beat=True means the total must exceed target."""
    formula = formula or str(b.state.settings.get("check_formula", "1d20"))
    number, rolled, source = dice.roll(b, formula, f"the {name} check of {fighter}", rule)
    total = number + modifier
    passed = None if target is None else (total > target if beat else total >= target)
    event = CheckRolled(
        fighter=fighter,
        check=name,
        number=number,
        dice=rolled,
        source=source,
        modifier=modifier,
        target=target,
        passed=passed,
        formula=formula if source == "seeded" else "",
        rules=(rule,),
        note=note,
    )
    b.emit(event)
    return event
