"""Text views of the board for the terminal: the map, the fighters, the log."""

from __future__ import annotations

from typing import Any

from tabletrail.core.ruleset import Ruleset
from tabletrail.core.rulesets import get as get_ruleset
from tabletrail.core.state import EncounterState
from tabletrail.core.units import fmt
from tabletrail.events.log import Record
from tabletrail.events.types import (
    CheckRolled,
    CommandIssued,
    Event,
    Moved,
    Refreshed,
    Spent,
    StateChanged,
    Step,
)

# C0 controls but newline and tab, DEL, and the C1 controls: a terminal acts on them (ESC [2J clears
# the screen), so text a player typed (a why=, a command, a fighter's name) is shown as \x1b instead.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x20), *range(0x7F, 0xA0)) if c not in (0x09, 0x0A)}


def printable(text: str) -> str:
    """`text` with every control character a terminal would act on written out as \\xNN."""
    return text.translate(_CONTROLS)


class Printable:
    """A text stream that escapes control characters on the way through (see `printable`).

    The CLI wraps stdout and stderr in it, so every human output, error messages
    included, is safe to show; JSON output is unchanged (json.dumps escapes them itself).
    """

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(printable(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def board(state: EncounterState) -> str:
    """The map with each fighter shown by its mark, then a key to the map's characters.

    Marks never repeat a map character or another fighter's mark (see `marks`); a
    cell where more than one fighter stands (at different heights) shows `*`.
    """
    rows = [list(r) for r in state.scenario.rows]
    mark = marks(state)
    taken: dict[tuple[int, int], str] = {}
    for f in state.fighters:
        x, y = f.pos[0], f.pos[1]
        taken[(x, y)] = STACKED if (x, y) in taken else mark[f.id]
    for (x, y), m in taken.items():
        rows[y][x] = m
    width = len(rows[0])
    ruler = "   " + "".join(str(x % 10) for x in range(width))
    lines = [ruler] + [f"{y:>2} " + "".join(r) for y, r in enumerate(rows)]
    lines.append(_map_key(state, STACKED in taken.values()))
    return "\n".join(lines)


STACKED = "*"  # more than one fighter on one column of the map


def marks(state: EncounterState) -> dict[str, str]:
    """One character per fighter: its id's first letter in capitals when that is free.

    A mark must not be a map character (the quarry's cliff is `C`, so is Cyn) nor
    another fighter's mark (dax and drum): then the id's other letters, then lower
    case, then digits are tried.
    """
    used = set("".join(state.scenario.rows)) | {STACKED}
    out: dict[str, str] = {}
    for f in state.fighters:
        letters = [c for c in f.id if c.isalnum()]
        candidates = [c.upper() for c in letters] + [c.lower() for c in letters]
        candidates += [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz@&%$"]
        out[f.id] = next((c for c in candidates if c not in used), "?")
        used.add(out[f.id])
    return out


def _map_key(state: EncounterState, stacked: bool) -> str:
    """`key: # wall  . floor  ~ rough  ^ floor (ground 1)`: what each map character stands for."""
    glyphs = dict.fromkeys("".join(state.scenario.rows))
    parts = []
    for ch in glyphs:
        kind = state.scenario.legend.get(ch)
        if kind is None:
            continue
        extra = [
            f"{name} {fmt_number(getattr(kind, name))}"
            for name in ("ground", "height", "depth", "climb")
            if getattr(kind, name)
        ] + [t for t in kind.tags if t != kind.terrain]
        parts.append(f"{ch} {kind.terrain}" + (f" ({', '.join(extra)})" if extra else ""))
    if stacked:
        parts.append(f"{STACKED} fighters stacked (see the table)")
    lines, line = [], "key:"
    for part in parts:  # wrapped at KEY_WIDTH, so a big legend stays readable
        if len(line) + 2 + len(part) > KEY_WIDTH and line != "key:":
            lines.append(line)
            line = "    " + part
        else:
            line += (" " if line == "key:" else "  ") + part
    return "\n".join([*lines, line])


KEY_WIDTH = 100


def fmt_number(value: float) -> str:
    """A number as a GM wrote it in the scenario: 3, 3.5, -4."""
    return str(int(value)) if float(value).is_integer() else str(value)


def fighters(state: EncounterState) -> str:
    rs = get_ruleset(state.ruleset)
    turn = state.turn
    head = (
        f"round {turn.round}"
        + (f", pass {turn.pass_no}" if turn.pass_no > 1 else "")
        + f", {turn.active} to act"
    )
    rows = [("", "id", "side", "at", "height", "states", "spent", "damage", "marks")]
    mark = marks(state)
    for f in state.fighters:
        states = " ".join(v for k, v in sorted(f.states.items()) if k != "turn") or "-"
        spent = ", ".join(_spent(rs.amount_label(k, v), k) for k, v in sorted(f.spent.items()) if v) or "-"
        facts = " ".join(f"{k}={_short(v)}" for k, v in sorted(f.marks.items())) or "-"
        rows.append(
            (
                mark[f.id],
                f.id,
                f.side,
                f"{f.pos[0]},{f.pos[1]}",
                fmt(f.pos[2]),
                states,
                spent,
                str(f.damage),
                facts,
            )
        )
    links = ", ".join(f"{a} {k} {b}" for k, a, b in state.links)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    table = "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)
    return f"{head}\n{table}" + (f"\nlinks: {links}" if links else "") + f"\nunits: {rs.unit}"


def _spent(label: str, resource: str) -> str:
    """`movement 5 m`, `actions 1`: the budget's name first, so two budgets in meters stay apart."""
    amount, _, unit = label.partition(" ")
    return f"{resource} {amount}" if unit in (resource, resource.removesuffix("s")) else f"{resource} {label}"


def _short(value: Any) -> str:
    """A field's value in a line of text: lists as comma-joined items, long texts cut at 40 characters."""
    if isinstance(value, tuple | list) and all(isinstance(v, str | int | float) for v in value):
        text = ",".join(str(v) for v in value)
    else:
        text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def describe(event: Event, rs: Ruleset | None = None) -> str:
    """One line a person can read for an event (budgets in the ruleset's words when it is given)."""
    name = type(event).__struct_config__.tag  # type: ignore[attr-defined]
    if isinstance(event, Spent):
        amount = (
            rs.amount_label(event.resource, abs(event.amount))
            if rs
            else f"{abs(event.amount)} {event.resource}"
        )
        return f"{event.fighter} {'spends' if event.amount >= 0 else 'gets back'} {amount}"
    if isinstance(event, Refreshed):
        return f"{event.fighter}: {', '.join(event.resources)} start over"
    if isinstance(event, StateChanged):
        trigger = event.trigger.replace("_", " ")
        return f"{event.fighter} {event.machine}: {event.source} -> {event.dest} ({trigger})"
    if isinstance(event, CheckRolled):
        if event.source == "seeded" and not event.dice:  # a dry run that keeps the draw unrevealed
            return f"{event.fighter} {event.check}: a seeded roll, not revealed"
        mod = f"{event.modifier:+d}" if event.modifier else ""
        against = f" vs {event.target}" if event.target is not None else ""
        result = "" if event.passed is None else (": passed" if event.passed else ": failed")
        return f"{event.fighter} {event.check}: rolled {event.number}{mod}{against}{result} ({event.source})"
    if isinstance(event, CommandIssued):
        return f"command: {event.text or type(event.command).__struct_config__.tag}"
    if isinstance(event, Moved):
        path = " ".join(_step(s) for s in event.steps)
        total = sum(s.cost for s in event.steps)
        stop = f"; stopped: {event.stopped}" if event.stopped else ""
        return f"{event.fighter} moved {path} = {fmt(total)} of {fmt(event.budget)}{stop}"
    fields = {k: getattr(event, k) for k in event.__struct_fields__ if k not in ("rules", "note")}
    if name == "encounter-started":
        return f"encounter started: {event.scenario.name} ({event.scenario.ruleset})"  # type: ignore[attr-defined]
    body = " ".join(f"{k}={_short(v)}" for k, v in fields.items() if v not in ("", (), None))
    return f"{name} {body}".strip()


def _step(s: Step) -> str:
    extra = f"[{s.terrain}]" if s.terrain not in ("", "floor") else ""
    return f"{s.to[0]},{s.to[1]}({fmt(s.cost)}{extra})"


def log_lines(records: list[Record], abandoned: set[int], undone: set[int], rs: Ruleset | None = None) -> str:
    out = []
    for r in records:
        flag = " (abandoned)" if r.batch in abandoned else " (undone)" if r.batch in undone else ""
        rules = f"  [{', '.join(r.event.rules)}]" if r.event.rules else ""
        note = f"  — {r.event.note}" if r.event.note else ""
        out.append(f"{r.seq:>5} b{r.batch:<4} {r.actor:<6} {describe(r.event, rs)}{rules}{note}{flag}")
    return "\n".join(out)
