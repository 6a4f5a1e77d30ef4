"""What a fighter can do now, as buttons in words, and the reactions the table waits for (the phone view).

Every verb comes from the ruleset's own command catalogue (the commands it handles,
`cards.commands`), its fields read off the command struct: a `Cell` (or a path of
cells) asks for a place on the board, a `target` for a fighter, a `door` for a door,
a `Literal` gives one button per choice. A verb that needs more than one place, or a
number or words the board can't ask for (a speed, a trigger), is left to the command
line. The engine says the rest (`Encounter.preview`): which are allowed now, what
they cost (the dry run's Spent events, in the ruleset's words) and, when not, why
(its refusal, said as a sentence). Nothing here knows a ruleset's rules; the
reactions below know only the marks the rulesets leave while they wait.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import msgspec.inspect as mi
from tabletrail.core.board.geometry import NEIGHBOURS
from tabletrail.core.board.refusal import Refusal, Rejection
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.engine.doors import doors_beside
from tabletrail.core.engine.presentation import Answer
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import ENGINE_HANDLERS, ENGINE_TURN, Ruleset
from tabletrail.core.search.reach import reach
from tabletrail.events import types as ev
from tabletrail.events.commands import Command, Redo, Undo
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import BASE_FIELDS, parse
from tabletrail.text.render import Words
from tabletrail.web import cards
from tabletrail.web.cards import LABELS as LABELS  # re-exported: the buttons' words
from tabletrail.web.cards import budget_resource, card, name_of
from tabletrail.web.invites import GM, WATCHER

FIELD_FIGHTER = "target"  # a command's field naming another fighter (grab, shove, drag…)
FIELD_DOOR = "door"
NEAR = 2  # fighters this many cells away or closer are offered as targets
CELL_RADIUS = 3  # cells this far away or closer are tried for a verb that needs one (other than move)
FIRST_TRIES = 8  # when the nearest places are refused for one same reason, the rest are not tried
MOST_TRIES = 48  # previews at most for one verb's places: beyond that, the page asks and previews
# Whole-number fields a button sets to one step, the player tapping again for the next (a circle's squares).
STEPS = frozenset({"squares"})


@dataclass(frozen=True)
class Verb:
    """A command as a button: its words, what it asks of the board, and how its text is written."""

    cls: type[Command]
    verb: str
    needs: str | None  # None, "cell", "fighter" or "door"
    template: str  # the command's text with {fighter} for the actor and {place} for what it needs
    choice: str = ""  # the Literal value this button stands for, if the verb has one
    choice_field: str = ""
    place_field: str = ""
    path: bool = False  # the place is a path of cells (move, fly…): one cell tapped is a path of one
    # a whole number a button can't ask for, set to one step (rotate-about's squares: tap again for more)
    fixed: tuple[tuple[str, int], ...] = ()

    def command(self, fid: str, role: str, place: str = "") -> Command:
        """The command itself, built from its fields (parsing its text for every try costs more)."""
        fields: dict[str, Any] = {"fighter": fid, "by": role, **dict(self.fixed)}
        if self.choice_field:
            fields[self.choice_field] = self.choice
        if self.place_field:
            value: Any = place
            if self.needs == "cell":
                cell = tuple(int(n) for n in place.split(","))
                value = (cell,) if self.path else cell
            fields[self.place_field] = value
        return self.cls(**fields)

    @property
    def key(self) -> str:
        return f"{self.verb}:{self.choice}" if self.choice else self.verb

    @property
    def base(self) -> str:
        return LABELS.get(self.verb, self.verb.replace("-", " ").capitalize())

    def label(self) -> str:
        return f"{self.base}: {LABELS.get(self.choice, self.choice)}" if self.choice else self.base


def _is_cell(t: mi.Type) -> bool:
    return isinstance(t, mi.Metadata) and (t.extra_json_schema or {}).get("title") == "cell"


@functools.cache
def verbs_of(rs: Ruleset) -> list[Verb]:
    """The ruleset's verbs a fighter's button can send, read off each command's fields (once a ruleset)."""
    out = []
    for entry in cards.commands(rs):
        verb = str(entry["verb"])
        cls = next(c for c in [*rs._handlers, *ENGINE_HANDLERS] if c.__struct_config__.tag == verb)  # noqa: SLF001
        if (
            cls in ENGINE_HANDLERS
            or cls in (Undo, Redo)
            or verb in rs.answer_verbs()
            or "fighter" not in cls.__struct_fields__
        ):
            continue
        out.extend(_buttons(cls, verb))
    return out


def _buttons(cls: type[Command], verb: str) -> list[Verb]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    words, needs, choices = [verb], None, None
    place_field, choice_field, path = "", "", False
    fixed: list[tuple[str, int]] = []
    for field in info.fields:
        if field.name == "fighter":  # the actor, also where it is optional (end-turn checks whose turn)
            words.append("{fighter}")
            continue
        if field.name in BASE_FIELDS or not field.required:
            continue
        t = field.type
        kind = (
            "cell"
            if _is_cell(t) or (isinstance(t, mi.VarTupleType) and _is_cell(t.item_type))
            else "fighter"
            if field.name == FIELD_FIGHTER and isinstance(t, mi.StrType)
            else "door"
            if field.name == FIELD_DOOR and isinstance(t, mi.StrType)
            else "choice"
            if isinstance(t, mi.LiteralType) and choices is None
            else None
        )
        if kind is None and isinstance(t, mi.IntType) and field.name in STEPS:
            fixed.append((field.name, 1))
            words.append("1")
            continue
        if kind is None or (kind != "choice" and needs is not None):
            return []  # a number, free words, a second place: the command line's, not a button's
        if kind == "choice":
            assert isinstance(t, mi.LiteralType)
            choices = [str(v) for v in t.values]
            choice_field = field.name
            words.append("{choice}")
        else:
            needs, place_field, path = kind, field.name, isinstance(t, mi.VarTupleType)
            words.append("{place}")
    template = " ".join(words)

    def made(text: str, choice: str = "") -> Verb:
        return Verb(
            cls,
            verb,
            needs,
            text,
            choice,
            choice_field=choice_field,
            place_field=place_field,
            path=path,
            fixed=tuple(fixed),
        )

    if choices is None:
        return [made(template)]
    return [made(template.replace("{choice}", c), c) for c in choices]


# --- the engine's answer ------------------------------------------------------------------------


def _text(v: Verb, fid: str, place: str = "") -> str:
    return v.template.replace("{fighter}", fid).replace("{place}", place or "{" + str(v.needs) + "}")


def _as(role: str, text: str) -> Command:
    return parse(text if role == GM else f"{text} by={role}", "actions")


def may_ask(enc: Encounter, role: str, command: Command) -> bool:
    """Whether this link may send the command at all (the engine's side check; the GM any; a watcher none)."""
    if role == GM:
        return True
    if role == WATCHER or type(command) in ENGINE_HANDLERS:
        return False
    try:
        get_ruleset(enc.state.ruleset).check_side(enc.state, command)
    except Refusal:
        return False
    return True


def _gms(result: Rejection) -> bool:
    """A refusal that says the command is the GM's to give (an effect the GM narrates)."""
    return result.reason.startswith("only the GM may")


def cost_words(w: Words, events: Iterable[ev.Event], fid: str) -> str:
    """What the command would spend, in the ruleset's words ('1 AP', '3 m', '1 action'), or 'free'."""
    spent: dict[str, int] = {}
    for e in events:
        if isinstance(e, ev.Spent) and e.fighter == fid and e.amount > 0:
            spent[e.resource] = spent.get(e.resource, 0) + e.amount
    return ", ".join(w.amount(k, v) for k, v in spent.items()) or "free"


_PAREN_INTERNALS = re.compile(r"\s*\([^()]*(?:=|/|\||_|\bby\b|\bstat\b)[^()]*\)")


def plain(state: EncounterState, reason: str) -> str:
    """A refusal's reason as a player reads it: names for ids, no `by=`, settings or rule ids in brackets."""
    text = _PAREN_INTERNALS.sub("", reason)
    text = re.sub(r"\s*;?\s*\bby=\S+", "", text)
    for f in state.fighters:
        if f.name and f.name != f.id and len(f.id) > 1:
            text = re.sub(rf"\b{re.escape(f.id)}\b", f.name, text)
    return text.strip().rstrip(".")


def why_not(state: EncounterState, fid: str, label: str, result: Rejection) -> str:
    """'Ari can't sprint yet: it is Kel's turn.' — a refusal as one sentence for the fighter's player."""
    who = name_of(state, fid)
    doing = label.split(" (", 1)[0]
    doing = doing[:1].lower() + doing[1:]
    if result.rule == ENGINE_TURN and state.turn.active and state.turn.active != fid:
        return f"{who} can't {doing} yet: it is {name_of(state, state.turn.active)}'s turn."
    return f"{who} can't {doing}: {plain(state, result.reason)}."


@dataclass
class Tried:
    """A place tried for a verb, and the engine's answer there."""

    place: str
    result: list[ev.Event] | Rejection


def _try(enc: Encounter, role: str, said: str | Command) -> list[ev.Event] | Rejection | None:
    """The dry run of a command as this link would send it; None when the link may not send it."""
    command = _as(role, said) if isinstance(said, str) else said
    if not may_ask(enc, role, command):
        return None
    return enc.preview(command)


def _ok(result: list[ev.Event] | Rejection) -> bool:
    return not isinstance(result, Rejection) or cards.needs_roll(result)


def places(enc: Encounter, v: Verb, f: Fighter) -> tuple[list[str], bool]:
    """The places worth trying for a verb that needs one, and whether they are all there are."""
    state = enc.state
    x, y = f.pos[0], f.pos[1]
    if v.needs == "door":
        shut = v.verb != "close"  # open a door that is shut; close one that is open
        return [d for d, now in doors_beside(state, f.id) if (now != "open") == shut], True
    if v.needs == "fighter":
        others = [o for o in state.fighters if o.id != f.id]
        near = [o for o in others if max(abs(o.pos[0] - x), abs(o.pos[1] - y)) <= NEAR]
        nearest = sorted(others, key=lambda o: (max(abs(o.pos[0] - x), abs(o.pos[1] - y)), o.id))[:1]
        return [o.id for o in near or nearest], True
    ring = nearby_cells(state, f)
    return [f"{cx},{cy}" for cx, cy in ring[:MOST_TRIES]], len(ring) <= MOST_TRIES


def nearby_cells(state: EncounterState, f: Fighter) -> list[tuple[int, int]]:
    """The open cells around a fighter, nearest first, out to CELL_RADIUS."""
    grid = state.grid
    x, y = f.pos[0], f.pos[1]
    return [
        (x + dx, y + dy)
        for r in range(1, CELL_RADIUS + 1)
        for dy in range(-r, r + 1)
        for dx in range(-r, r + 1)
        if max(abs(dx), abs(dy)) == r and grid.inside(x + dx, y + dy) and not grid.blocked(x + dx, y + dy)
    ]


def _one_reason(tried: list[Tried]) -> bool:
    reasons = {t.result.reason if isinstance(t.result, Rejection) else None for t in tried}
    return len(reasons) == 1 and None not in reasons


def _target(place: str) -> Any:
    if "," in place and "|" not in place:
        cx, cy = place.split(",")
        return [int(cx), int(cy)]
    return place


def action(enc: Encounter, role: str, v: Verb, f: Fighter, w: Words) -> dict[str, Any] | None:
    """One button: its words, what it asks for, its cost, and whether the engine allows it now."""
    state = enc.state
    label = v.label()
    out: dict[str, Any] = {"key": v.key, "label": label, "cost": None, "needs": v.needs}
    if v.needs is None:
        tried = [Tried("", r)] if (r := _try(enc, role, v.command(f.id, role))) is not None else []
        complete = True
    elif v.verb == "move":
        return _move(enc, role, v, f, w, out)
    else:
        spots, complete = places(enc, v, f)
        if v.needs == "door" and not spots:
            return None  # no door beside it: nothing to tap
        tried = []
        for n, p in enumerate(spots):
            r = _try(enc, role, v.command(f.id, role, p))
            if r is not None:
                tried.append(Tried(p, r))
            if n + 1 == FIRST_TRIES and v.needs == "cell" and _one_reason(tried):
                break  # the nearest places are all refused for one reason: it is not about the place
    if not tried and v.needs is None:
        return None  # this link may not send it at all
    if any(isinstance(t.result, Rejection) and _gms(t.result) for t in tried) and role != GM:
        return None  # the GM's to narrate
    allowed = [t for t in tried if _ok(t.result)]
    out["text"] = _text(v, f.id)
    if v.needs is not None:
        out["targets"] = [_target(t.place) for t in allowed]
    if allowed:
        first = allowed[0].result
        out["cost"] = cost_words(w, first, f.id) if not isinstance(first, Rejection) else None
        if isinstance(first, Rejection):
            out["roll"] = True  # the table rolls for it: the page asks for the number
        label = f"{label} ({out['cost']})" if out["cost"] not in (None, "free") else label
        return {**out, "label": label, "ok": True, "why": None}
    refusals = [t.result for t in tried if isinstance(t.result, Rejection)]
    reasons = {r.reason for r in refusals}
    if v.needs == "cell" and not complete and len(reasons) > 1:
        out.pop("targets")  # none nearby, but further off may do: the page asks, the preview tells
        return {**out, "ok": True, "why": None}
    if not refusals:
        return None
    said = [r.reason for r in refusals]
    common = max(refusals, key=lambda r: said.count(r.reason))  # the reason most places give
    return {**out, "ok": False, "why": why_not(state, f.id, v.base, common), "rule": common.rule}


def _move(
    enc: Encounter, role: str, v: Verb, f: Fighter, w: Words, out: dict[str, Any]
) -> dict[str, Any] | None:
    """Moving: the places are the reachable area's cells (the engine's own search), its cost the budget."""
    state = enc.state
    area = reach(state, f.id)
    start = (f.pos[0], f.pos[1])
    cells = sorted(c for c in area.costs if c != start)
    plain_cells = [c for c in cells if c not in area.events] or cells
    grid = state.grid
    near = [
        (start[0] + dx, start[1] + dy)
        for dx, dy in NEIGHBOURS
        if grid.inside(start[0] + dx, start[1] + dy) and not grid.blocked(start[0] + dx, start[1] + dy)
    ]
    probe = min(plain_cells, key=lambda c: (area.costs[c], c)) if plain_cells else (near[0] if near else None)
    if probe is None:
        return None
    result = _try(enc, role, f"move {f.id} {probe[0]},{probe[1]}")
    if result is None:
        return None
    rs = get_ruleset(state.ruleset)
    left = f"up to {w.measure(budget_resource(rs, state, f), area.budget)}" if area.budget > 0 else None
    out.update(text=_text(v, f.id), cost=left, targets=[[x, y] for x, y in cells])
    if _ok(result) and cells:
        return {**out, "ok": True, "why": None}
    if isinstance(result, Rejection) and not cards.needs_roll(result):
        return {
            **out,
            "targets": [],
            "ok": False,
            "why": why_not(state, f.id, out["label"], result),
            "rule": result.rule,
        }
    return {**out, "ok": bool(cells), "why": None}


# --- reactions the table waits for ----------------------------------------------------------------


def _choice(enc: Encounter, role: str, label: str, text: str, w: Words, actor: str) -> dict[str, Any]:
    """One answer to a reaction: its words (with what it costs), and whether this link may give it."""
    result = _try(enc, role, text)
    out: dict[str, Any] = {"label": label, "text": text, "mine": result is not None}
    if result is not None and not isinstance(result, Rejection):
        cost = cost_words(w, result, actor)
        out["label"] = f"{label} ({cost})" if cost != "free" else label
    out["ok"] = result is not None and _ok(result)
    if isinstance(result, Rejection) and not out["ok"]:
        out["why"] = why_not(enc.state, actor, label, result)
    return out


def awaiting(enc: Encounter, role: str) -> list[dict[str, Any]]:
    """Every reaction the table waits for now, with the choices and whether this link may answer.

    The ruleset says which, from the marks it leaves while it waits (`Ruleset.awaited`,
    core/engine/presentation.py): an invaded square, an area effect about to land, a fall still under
    way, a held action, a Strike awaiting its outcome. A reaction of no fighter is the GM's alone.
    """
    state = enc.state
    rs = get_ruleset(state.ruleset)
    w = Words(rs)
    out: list[dict[str, Any]] = []
    for waited in rs.awaited(state):
        f = state.fighter(waited.fighter) if waited.fighter else None
        if f is None:
            if waited.fighter or role != GM:  # a fighter no longer there; or the GM's alone
                continue
            choices = [_answer(enc, role, a, w) for a in waited.answers]
            said = {"kind": waited.kind, "fighter": None, "side": GM, "mine": True}
            out.append({**said, "blocking": waited.blocking, "prompt": waited.prompt, "choices": choices})
            continue
        choices = [_answer(enc, role, a, w) for a in waited.answers]
        mine = role == GM or (role != WATCHER and (role == f.side or any(c["mine"] for c in choices)))
        out.append(
            {
                "kind": waited.kind,
                "fighter": f.id,
                "side": f.side,
                "mine": mine,
                "prompt": waited.prompt,
                "blocking": waited.blocking,
                "choices": [c for c in choices if c["mine"]] if mine else [],
            }
        )
    return out


def _answer(enc: Encounter, role: str, a: Answer, w: Words) -> dict[str, Any]:
    """One answer as a choice; one that needs a square offers the open squares near its actor the
    engine would take (its roll aside), tried as dry runs, nearest first."""
    if a.needs != "cell":
        return _choice(enc, role, a.label, a.text, w, a.actor)
    f = enc.state.fighter(a.actor)
    if f is None:
        return {"label": a.label, "text": a.text, "needs": "cell", "targets": [], "mine": False, "ok": False}
    near = nearby_cells(enc.state, f)[:MOST_TRIES]
    x, y = near[0] if near else f.pos[:2]  # any square: whether this link may send it at all
    mine = may_ask(enc, role, _as(role, a.text.format(cell=f"{x},{y}")))
    targets = [c for c in near if mine and _fits(enc, role, a.text.format(cell=f"{c[0]},{c[1]}"))]
    return {"label": a.label, "text": a.text, "needs": "cell", "targets": [list(c) for c in targets],
            "mine": mine, "ok": bool(targets)}  # fmt: skip


def _fits(enc: Encounter, role: str, text: str) -> bool:
    """Would the engine take this command from this link (its roll aside)?"""
    result = _try(enc, role, text)
    return result is not None and _ok(result)


# --- the answer of GET /api/actions ---------------------------------------------------------------


def answer(enc: Encounter, role: str, fid: str) -> dict[str, Any]:
    """Everything the phone shows for one fighter: its card, its buttons, the reactions awaited."""
    state = enc.state
    f = state.fighter(fid)
    if f is None:
        known = ", ".join(x.id for x in state.fighters)
        raise LookupError(f"actions: no fighter {fid!r} (fighters: {known})")
    rs = get_ruleset(state.ruleset)
    w = Words(rs)
    buttons: list[dict[str, Any]] = []
    if role != WATCHER:
        grouped: dict[str, list[dict[str, Any]]] = {}
        for v in verbs_of(rs):
            a = action(enc, role, v, f, w)
            if a is not None:
                grouped.setdefault(v.verb, []).append(a)
        for verb, group in grouped.items():
            buttons.extend(_fold_choices(verb, group))
    return {
        "version": len(enc.records),
        "fighter": f.id,
        "name": f.name or f.id,
        "side": f.side,
        "mine": role == GM or role == f.side,
        "card": card(state, f),
        "actions": buttons,
        "awaiting": awaiting(enc, role),
    }


def _fold_choices(verb: str, group: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A verb with one button per choice: the allowed ones, or one refused button if none is allowed."""
    if len(group) == 1:
        return group
    allowed = [a for a in group if a["ok"]]
    if allowed:
        return allowed
    first = group[0]
    base = LABELS.get(verb, verb.replace("-", " ").capitalize())
    return [{**first, "key": verb, "label": base}]
