"""Text views of the board for the terminal: the map, the fighters, the log."""

from __future__ import annotations

from typing import Any

from tabletrail.core.rulesets import get as get_ruleset
from tabletrail.core.state import EncounterState
from tabletrail.core.units import fmt
from tabletrail.events.log import Record
from tabletrail.events.types import CommandIssued, Event, Moved, Step


def board(state: EncounterState) -> str:
    """The map with each fighter shown by a letter, and a key to the letters."""
    rows = [list(r) for r in state.scenario.rows]
    key = []
    for n, f in enumerate(state.fighters):
        mark = _mark(f.id, n)
        x, y = f.pos[0], f.pos[1]
        rows[y][x] = mark
        key.append(mark)
    width = len(rows[0])
    ruler = "   " + "".join(str(x % 10) for x in range(width))
    lines = [ruler] + [f"{y:>2} " + "".join(r) for y, r in enumerate(rows)]
    return "\n".join(lines)


def _mark(fid: str, n: int) -> str:
    return fid[0].upper() if fid else str(n)


def fighters(state: EncounterState) -> str:
    rs = get_ruleset(state.ruleset)
    turn = state.turn
    head = (
        f"round {turn.round}"
        + (f", pass {turn.pass_no}" if turn.pass_no > 1 else "")
        + f", {turn.active} to act"
    )
    rows = [("", "id", "side", "at", "height", "states", "spent", "damage", "marks")]
    for n, f in enumerate(state.fighters):
        states = " ".join(v for k, v in sorted(f.states.items()) if k != "turn") or "-"
        spent = " ".join(rs.amount_label(k, v) for k, v in sorted(f.spent.items()) if v) or "-"
        marks = " ".join(f"{k}={_short(v)}" for k, v in sorted(f.marks.items())) or "-"
        rows.append(
            (
                _mark(f.id, n),
                f.id,
                f.side,
                f"{f.pos[0]},{f.pos[1]}",
                fmt(f.pos[2]),
                states,
                spent,
                str(f.damage),
                marks,
            )
        )
    links = ", ".join(f"{a} {k} {b}" for k, a, b in state.links)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    table = "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)
    return f"{head}\n{table}" + (f"\nlinks: {links}" if links else "") + f"\nunits: {rs.unit}"


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 24 else text[:21] + "..."


def describe(event: Event) -> str:
    """One line a person can read for an event."""
    name = type(event).__struct_config__.tag  # type: ignore[attr-defined]
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


def log_lines(records: list[Record], abandoned: set[int], undone: set[int]) -> str:
    out = []
    for r in records:
        flag = " (abandoned)" if r.batch in abandoned else " (undone)" if r.batch in undone else ""
        rules = f"  [{', '.join(r.event.rules)}]" if r.event.rules else ""
        note = f"  — {r.event.note}" if r.event.note else ""
        out.append(f"{r.seq:>5} b{r.batch:<4} {r.actor:<6} {describe(r.event)}{rules}{note}{flag}")
    return "\n".join(out)
