"""What the table view's pages are sent: the board, the event list, a dry run, an explanation.

Plain data only (dicts, lists, numbers in centi-units), built from the engine's
state and records. The browser draws it and holds no rules.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import UnsetType, to_builtins
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.state import EncounterState
from tabletrail.core.board.units import fmt, fmt_number
from tabletrail.core.board.walls import door_list, wall_lines
from tabletrail.core.engine.cell_rulings import FORBID, TEST
from tabletrail.core.engine.machines import GRAPHS
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.events.commands import Command
from tabletrail.events.picture import PictureSpec
from tabletrail.events.stores.record import Record
from tabletrail.events.types import (
    AnyEvent,
    BoardMarked,
    CheckRolled,
    CommandIssued,
    Event,
    Marked,
    Moved,
    StateChanged,
    Unmarked,
)
from tabletrail.projections import audit
from tabletrail.service.encounter import Encounter
from tabletrail.text.render import Words
from tabletrail.web.actions import LABELS, awaiting
from tabletrail.web.cards import (
    budget_resource as budget_resource,
)
from tabletrail.web.cards import (
    card as card,
)
from tabletrail.web.cards import (
    commands as commands,
)
from tabletrail.web.cards import (
    fighter as fighter,
)
from tabletrail.web.cards import (
    heading as heading,
)
from tabletrail.web.cards import (
    map_view as map_view,
)
from tabletrail.web.cards import (
    name_of as name_of,
)
from tabletrail.web.cards import (
    needs_roll as needs_roll,
)
from tabletrail.web.cards import (
    spent_words as spent_words,
)
from tabletrail.web.cards import (
    states_words as states_words,
)
from tabletrail.web.invites import GM, WATCHER


def board(enc: Encounter, live_version: int, role: str = GM) -> dict[str, Any]:
    """The board at the encounter's point in the log, with what the page needs to draw and act.

    Every fighter carries its card in words. A player's or a watcher's board (`role` not
    the GM's) leaves out the raw marks and stats (the card says what matters), and its
    undo and redo lines name no `by=`, saying instead whether this link may take them.
    """
    state = enc.state
    rs = get_ruleset(state.ruleset)
    sc = state.scenario
    t = enc.timeline
    undo, redo = t.undo_target(), t.redo_target()
    fighters = [fighter(state, f) for f in state.fighters]
    if role != GM:
        fighters = [{**f, "marks": {}, "stats": {}} for f in fighters]
    return {
        "version": live_version,
        "at": len(enc.records),
        "live": len(enc.records) == live_version,
        "name": sc.name,
        "ruleset": {"id": rs.id, "title": rs.title, "unit": rs.unit},
        "map": map_view(state),
        # Walls on cell edges (merged segments [x1, y1, x2, y2] in grid corners) and doors with their state.
        "walls": wall_lines(sc),
        "doors": door_list(state),
        "fighters": fighters,
        # Each state machine's resting state: the board writes only the states that differ from it.
        "machines": {name: g.initial for name, g in sorted(GRAPHS.items())},
        "links": [list(link) for link in state.links],
        "marks": to_builtins({k: v for k, v in state.marks.items() if k not in (FORBID, TEST)}),
        "rulings": {
            "forbid": [list(e) for e in state.marks.get(FORBID, ())],
            "test": [list(e) for e in state.marks.get(TEST, ())],
        },
        "turn": {
            "order": list(state.turn.order),
            "active": state.turn.active,
            "round": state.turn.round,
            "pass": state.turn.pass_no,
        },
        "settings": to_builtins(state.settings),
        "undo": _batch_label(enc, undo, role),
        "redo": _batch_label(enc, redo, role),
        "awaiting": awaiting(enc, role) if len(enc.records) == live_version else [],
        "commands": commands(rs),
        "sides": sorted({f.side for f in state.fighters}),
        "side_colours": sc.side_colours(),
        "picture": picture(sc.picture),
    }


def picture(spec: PictureSpec | UnsetType) -> dict[str, Any] | None:
    """The battle-map picture under the grid: where the page fetches it, its size, where it sits.

    The page draws it `width / pixels_per_grid` cells wide with its top-left corner at
    `origin` (grid units), so it scales and pans with the board. `url` carries the
    digest, so a browser's cached copy is never another picture's.
    """
    if not isinstance(spec, PictureSpec):
        return None
    return {
        "url": f"/api/picture?v={spec.sha256[:16]}",
        "pixels_per_grid": spec.pixels_per_grid,
        "origin": list(spec.origin),
        "width": spec.width,
        "height": spec.height,
        "kind": spec.kind,
        "name": spec.name,
    }


def _batch_label(enc: Encounter, batch: int | None, role: str = GM) -> dict[str, Any] | None:
    """The command an undo or redo would take: its text, whose it was, and whether this link may take it
    (the GM any; a side only its own side's, as the server's authorisation says)."""
    if batch is None:
        return None
    issued = enc.timeline.commands.get(batch)
    text = issued.text if issued else f"batch {batch}"
    owner = enc.timeline.actors.get(batch, GM)
    return {
        "batch": batch,
        "text": text if role == GM else without_by(text),
        # what every screen shows, the GM's included: the command in words, names for ids
        "words": said(enc.state, issued.command) if issued else "an earlier command",
        "by": owner,
        "mine": role == GM or (role == owner and role != WATCHER),
    }


def said(state: EncounterState, command: Command) -> str:
    """A command in words, as every screen shows it: 'Ari the Boarder: Move to 4,1', 'Bo the Guard:
    React invasion, Body-block' — names for ids, the buttons' words for verbs and choices, no syntax."""
    tag = str(command.__struct_config__.tag)
    parts = [LABELS.get(tag, tag.replace("-", " ").capitalize())]
    for name in command.__struct_fields__:
        if name in ("fighter", "by", "rolls", "why"):
            continue
        value = getattr(command, name)
        if value in ((), [], None, ""):
            continue
        parts.append(_field_words(state, name, value))
    fid = getattr(command, "fighter", None)
    who = f"{name_of(state, fid)}: " if isinstance(fid, str) and fid else ""
    text = parts[0]
    for p in parts[1:]:
        text += (" " if p.startswith("to ") else ", ") + p if p else ""
    return who + text


def _field_words(state: EncounterState, name: str, value: Any) -> str:
    """A command's field in words: a cell 'x,y', a path 'to x,y', a fighter its name, a choice its label."""

    def cell(v: Any) -> bool:
        return isinstance(v, list | tuple) and 2 <= len(v) <= 3 and all(isinstance(n, int) for n in v)

    def xy(v: Any) -> str:
        return ",".join(str(n) for n in v[:2]) + (f" at height {fmt(v[2])}" if len(v) > 2 and v[2] else "")

    if cell(value):
        return f"{name.replace('_', ' ')} {xy(value)}"
    if isinstance(value, list | tuple) and value and all(cell(v) for v in value):
        via = f" by way of {' and '.join(xy(v) for v in value[:-1])}" if len(value) > 1 else ""
        return f"to {xy(value[-1])}{via}"
    if isinstance(value, str):
        if state.fighter(value) is not None:
            return name_of(state, value)
        if "|" in value and value.count(",") == 2:
            a, b = value.split("|", 1)
            return f"the door between {a} and {b}"
        return LABELS.get(value, value.replace("_", " "))
    if isinstance(value, list | tuple):
        return ", ".join(_field_words(state, name, v) for v in value)
    if isinstance(value, bool):
        return name.replace("_", " ") if value else ""
    if isinstance(value, int | float):
        return f"{name.replace('_', ' ')} {fmt_number(value)}" if value else ""
    return ""


BY = re.compile(r"\s*\(by=[^)]*\)|\s*;?\s*\bby=\S+")


def unsigned(text: str) -> str:
    """A sentence without the `by=` a ruleset's note may carry ('bo chose to block (by=red): …')."""
    return BY.sub("", text)


def without_by(text: str) -> str:
    """A command's text without its `by=` word (a player's screen says who in words, or not at all)."""
    return " ".join(w for w in text.split() if not w.startswith("by="))


def status(enc: Encounter, batch: int) -> str:
    t = enc.timeline
    if batch in t.abandoned:
        return "abandoned"
    if batch in t.undone:
        return "undone"
    return ""


def words_of(enc: Encounter) -> Words:
    """The encounter's ruleset's words: the page says each event as `do` prints it (render.Words)."""
    return Words(get_ruleset(enc.state.ruleset))


def record(enc: Encounter, r: Record, w: Words | None = None, role: str = GM) -> dict[str, Any]:
    """One line of the event list: the sentence `do` prints, and why (shown inline, not as a tooltip).

    For a player (`role` not the GM's) a command's line names no `by=`, and a note that
    only repeats the sentence is left out.
    """
    e = r.event
    text = (w or words_of(enc)).event(e)
    note = unsigned(e.note)
    if isinstance(e, CommandIssued):  # every screen, the GM's too: the command in words, not as typed
        text = said(enc.state, e.command)
    explains = _explains(e)
    if explains and (role != GM or _repeats(note, text)):
        # the engine's memory, said by the note the ruleset wrote for it (the GM's list too, where the
        # note already says the mark's words: never "ari may not … — ari may not … (cycle 1)")
        text, note = note, ""
    if role != GM:
        note = "" if _repeats(text, note) else note
    line = {
        "seq": r.seq,
        "batch": r.batch,
        "actor": r.actor,
        "type": type(e).__struct_config__.tag,
        "text": text,
        "rules": list(e.rules),
        "note": note,
        "status": status(enc, r.batch),
        "explains": explains,
        "fighters": concerned(e),
    }
    if _routine(e):
        line["routine"] = True
    return line


def _routine(e: Event) -> bool:
    """A round's bookkeeping: every fighter waits for its next turn as a new pass begins. The event list
    shows it; a summary of what a command did (the player's "Done:") leaves it out."""
    return isinstance(e, StateChanged) and e.machine == "turn" and e.dest == "waiting"


MEMORY = (Marked, Unmarked, BoardMarked)


def _explains(e: Event) -> bool:
    """A mark the engine notes down that explains an outcome (its ruleset wrote why: 'ari is kept out',
    'the move waits for bo's answer'): every screen lists it. A bare mark is the engine's bookkeeping."""
    return isinstance(e, MEMORY) and bool(e.note.strip())


def concerned(e: Event) -> list[str]:
    """The fighters an event is about (its fighter, a link's ends, a target): whose screen it is news for."""
    out = []
    for name in ("fighter", "a", "b", "target", "occupant"):
        value = getattr(e, name, None)
        if isinstance(value, str) and value and value not in out:
            out.append(value)
    if isinstance(e, CommandIssued):
        out += [f for f in concerned(e.command) if f not in out]  # type: ignore[arg-type]
    return out


def _repeats(text: str, note: str) -> bool:
    said, extra = text.strip().rstrip(".").lower(), note.strip().rstrip(".").lower()
    return bool(extra) and (extra == said or said.endswith(extra) or extra in said)


def records(enc: Encounter, role: str = GM, start: int = 0, stop: int | None = None) -> list[dict[str, Any]]:
    """The event list as this link reads it: for a player, a sentence said twice in a row in one
    batch (a turn's end told by the state machine and by the turn) is said once.

    `start`, `stop`: only the lines of records `start` to `stop` (a page's new lines, or one page of
    the list), said exactly as they are in the whole list."""
    w = words_of(enc)
    out: list[dict[str, Any]] = []
    if 0 < start < len(enc.records):  # the line before: whether the first is said twice in a row
        out.append(record(enc, enc.records[start - 1], w, role))
    for r in enc.records[start:stop]:
        line = record(enc, r, w, role)
        if role != GM and out and out[-1]["batch"] == line["batch"] and out[-1]["text"] == line["text"]:
            continue
        out.append(line)
    return out[1:] if 0 < start < len(enc.records) else out


def event(e: Event, w: Words) -> dict[str, Any]:
    """An event of a dry run: what it says (as `do` would print it), why, and the rules behind it.

    A mark that explains (`_explains`: "the move waits for bo's answer") carries `explains`: a
    player's preview says it by its note, so the mover learns before confirming that another side
    will be asked to react."""
    return {
        "type": type(e).__struct_config__.tag,
        "text": w.event(e),
        "rules": list(e.rules),
        "note": unsigned(e.note),
        "explains": _explains(e),
    }


def refusal(rs: Ruleset, rejection: Rejection) -> dict[str, Any]:
    """A refusal as the page shows it: the rule id, what the rule enforces, and why, with the numbers."""
    return {
        "rule": rejection.rule,
        "enforce": audit.rule_words(rs, rejection.rule)["enforce"],
        "reason": rejection.reason,
        "needs_roll": needs_roll(rejection),
    }


def dry_run(enc: Encounter, command: Command, text: str, reveal: bool) -> dict[str, Any]:
    """The dry run of `tabletrail why`, with a line of words for each event it shows.

    Unless the GM reveals them, a seeded check's number stays hidden, with all
    that follows from it: a preview is no way to peek at the dice.
    """
    dry = audit.dry_run(enc, command, text, reveal=reveal)
    if not dry["allowed"]:
        words = dry["rule"]
        return {
            "ok": False,
            "rule": words["id"],
            "enforce": words["enforce"],
            "reason": dry["reason"],
            "needs_roll": needs_roll(Rejection(words["id"], dry["reason"])),
        }
    shown = [msgspec.convert(e, AnyEvent) for e in dry["events"]]
    moves = dry["moves"]
    if any(c["hidden"] for c in dry["checks"]):
        # A failed test stops the move, and walk writes why on the move before the check:
        # that would tell the check's outcome, so it is left out with the number. So is how
        # many events the dry run held back (a passed test lets the move go on).
        shown = [msgspec.structs.replace(e, stopped="") if isinstance(e, Moved) else e for e in shown]
        moves = [{**m, "stopped": ""} for m in moves]
    w = words_of(enc)
    return {
        "ok": True,
        "events": [_masked(e, w) if not reveal else event(e, w) for e in shown],
        "moves": worded_moves(w, moves),
        "checks": dry["checks"],
        "rules": dry["rules"],
        "fighters": worded(enc, dry["fighters"]),
    }


def worded(enc: Encounter, fighters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The audit's before/after cards with their budgets in words ('4 ap', 'may still move 2.5 m')."""
    state = enc.state
    rs = get_ruleset(state.ruleset)

    def card(fid: str, c: dict[str, Any] | None) -> dict[str, Any] | None:
        if c is None:
            return None
        f = state.fighter(fid)
        unit = rs.budget_unit(state, f) if f is not None else rs.unit
        words = {"spent_text": spent_words(rs, c["spent"]), "move_left_text": f"{fmt(c['move_left'])} {unit}"}
        return {**c, **words}

    return [{**x, "before": card(x["id"], x["before"]), "after": card(x["id"], x["after"])} for x in fighters]


def worded_moves(w: Words, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The audit's step-by-step moves, each with its line in words ('0 m of 2 m of forced movement')."""
    out = []
    for m in moves:
        stopped = f"; stopped: {m['stopped']}" if m["stopped"] else ""
        text = f"{m['fighter']}: {w.progress(m['resource'], m['total'], m['budget'])}{stopped}"
        out.append({**m, "text": text, "cost_unit": w.measure(m["resource"], 0).split(" ", 1)[1]})
    return out


def _masked(e: Event, w: Words) -> dict[str, Any]:
    """An event of a preview, a seeded check's number and outcome left out."""
    if isinstance(e, CheckRolled) and e.source == "seeded":
        return {
            "type": "check",
            "text": f"{e.fighter}: {e.check} check, seeded: the number is drawn on confirming",
            "rules": list(e.rules),
            "note": e.note,
        }
    return event(e, w)


def explain(enc: Encounter, seq: int) -> dict[str, Any]:
    """The audit's explanation of one event, with a line of words for it."""
    refused = enc.store.refused() if hasattr(enc.store, "refused") else []
    out = audit.explain(enc.records, seq, refused, where=enc.store.name)
    e = enc.records[seq - 1].event
    batch = enc.records[seq - 1].batch
    issued = enc.timeline.commands.get(batch)
    command = {**out["command"], "words": said(enc.state, issued.command) if issued else ""}
    return {
        **out,
        "command": command,
        "moves": worded_moves(words_of(enc), out["moves"]),
        "fighters": worded(enc, out["fighters"]),
        "type": type(e).__struct_config__.tag,
        "text": said(enc.state, e.command) if isinstance(e, CommandIssued) else words_of(enc).event(e),
        "note": unsigned(e.note),
    }
