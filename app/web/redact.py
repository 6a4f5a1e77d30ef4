"""What a player's (or a watcher's) screen may read of the encounter: redacted on the server, per role.

The README promises that a player's screen shows no rulings. The rules, applied
by every handler a non-GM link reads through (the board, the event list, an
explanation; a dry run and the live stream carry none of it):

- The GM's rulings are the GM's: a player reads no forbid or test ruling on a
  cell, and no ruling's words (its why, its detail, the command's text). A batch
  the GM ruled stays in the event list, numbered as it is, saying only "the GM
  made a ruling"; an undo or redo of one names it "a GM ruling".
- The settings the table set openly, as the encounter began (the scenario's
  [settings] and the defaults), stay visible: every cost the player is shown
  follows them. A setting a ruling changed since is the GM's.
- The seed of the encounter's dice is the GM's: it tells every seeded roll to
  come. (A seeded roll already drawn is a fact of the table and stays.)

- Where the engine's own words quote a ruling's why (a move refused at a forbidden
  cell, a test the GM requires, in a dry run, a refusal or the event list), a
  player reads "the GM's reason" in its place (`scrub`).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any, overload

from tabletrail.core.engine.cell_rulings import FORBID, TEST
from tabletrail.core.engine.ruleset import ENGINE_HANDLERS
from tabletrail.events.types import EncounterStarted, Redone, RulingMade, Undone
from tabletrail.projections.timeline import Timeline
from tabletrail.service.encounter import Encounter
from tabletrail.web.invites import GM, Invite

RULED = "the GM made a ruling"
MEMORY = ("marked", "unmarked", "board-marked")  # the engine's memory: a player reads one by its note
REASON = "the GM's reason"
A_RULING = "a GM ruling"
NO_RULINGS: dict[str, list[Any]] = {"forbid": [], "test": []}


def sees_all(who: Invite) -> bool:
    """Only the GM's link reads rulings, every setting and the seed."""
    return who.role == GM


def ruling_batches(enc: Encounter) -> set[int]:
    """The batches the GM ruled in (a command of the engine's rulings: override, place, forbid…).

    Kept per timeline and extended by the batches folded since: a long encounter
    keeps its older commands packed (projections/timeline.py), and unpacking every
    one at each player's request cost tens of milliseconds. Only the batch numbers past the last
    one looked at are looked up (batches are numbered upward), not every command's: a player's
    list is asked for at every move."""
    commands = enc.timeline.commands
    last, ruled = _RULED.get(enc.timeline, (-1, frozenset()))
    top = enc.records[-1].batch if enc.records else -1
    if top <= last:
        return set(ruled)
    newer = [b for b in range(last + 1, top + 1) if b in commands]
    found = set(ruled) | {b for b in newer if type(commands[b].command) in ENGINE_HANDLERS}
    _RULED[enc.timeline] = (top, frozenset(found))
    return found


_RULED: weakref.WeakKeyDictionary[Timeline, tuple[int, frozenset[int]]] = weakref.WeakKeyDictionary()


def open_settings(enc: Encounter) -> dict[str, Any]:
    """The settings in force that the table set openly: as the encounter began, unchanged since."""
    first = enc.records[0].event if enc.records else None
    began: Mapping[str, Any] = first.settings if isinstance(first, EncounterStarted) else {}
    missing = object()
    return {k: v for k, v in enc.state.settings.items() if began.get(k, missing) == v}


def board(who: Invite, enc: Encounter, data: dict[str, Any]) -> dict[str, Any]:
    """The board as `who` may read it (views.board's shape, unchanged for the GM)."""
    if sees_all(who):
        return data
    ruled = ruling_batches(enc)
    out = {**data, "rulings": NO_RULINGS, "settings": open_settings(enc)}
    for key in ("undo", "redo"):
        label = data.get(key)
        if label is not None and label["batch"] in ruled:
            out[key] = {**label, "text": A_RULING}
    return scrub(who, enc, out)


def records(who: Invite, enc: Encounter, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The event list's lines (views.record) as `who` may read them."""
    if sees_all(who):
        return rows
    ruled = ruling_batches(enc)
    targets = _ruling_targets(enc, ruled, rows)
    out = []
    for row in rows:
        if row["batch"] in ruled:
            row = {**row, "text": RULED, "note": ""}
        elif row["seq"] in targets:
            row = {**row, "text": f"{A_RULING} {targets[row['seq']]}", "note": ""}
        out.append(row)
    return scrub(who, enc, out)


def _ruling_targets(enc: Encounter, ruled: set[int], rows: list[dict[str, Any]]) -> dict[int, str]:
    """The undo and redo records among `rows` whose batch is a ruling: seq -> "undone" or "redone".

    Only the rows' own records are looked at: a page asking what changed since its version
    (`/api/events?after=V`) is answered in the time its new lines take, not the log's."""
    seqs = [row["seq"] for row in rows if row["type"] in _UNDO_TAGS]
    if not seqs:
        return {}
    first = min(seqs)
    span = enc.records[first - 1 : max(seqs)]  # read at once: older records come from the store
    out = {}
    for seq in seqs:
        r = span[seq - first]
        if isinstance(r.event, Undone | Redone) and r.event.batch in ruled:
            out[r.seq] = "undone" if isinstance(r.event, Undone) else "redone"
    return out


_UNDO_TAGS = {str(Undone.__struct_config__.tag), str(Redone.__struct_config__.tag)}


def explain(who: Invite, enc: Encounter, data: dict[str, Any]) -> dict[str, Any]:
    """The explanation of one event (views.explain) as `who` may read it."""
    if sees_all(who):
        return data
    ruled = ruling_batches(enc)
    shown = open_settings(enc)
    out = {
        **data,
        "rulings": {"in_force": [], "cells": [], "made_here": []},
        "settings": [s for s in data["settings"] if s["name"] in shown and shown[s["name"]] == s["value"]],
        "refused_before": [r for r in data["refused_before"] if r.get("by") == who.role],
        "event": _unseeded(data["event"]),
        "events": [{**e, "event": _unseeded(e["event"])} for e in data["events"]],
    }
    if data.get("type") in MEMORY and data.get("note"):  # a mark that explains: said by its note, as listed
        out["text"], out["note"] = data["note"], ""
    command = dict(data["command"])
    if data["batch"] in ruled:
        out["text"], out["note"] = RULED, ""
        out["event"] = {"type": data["event"].get("type", "")}
        out["events"] = [
            {"seq": e["seq"], "event": {"type": e["event"].get("type", "")}} for e in data["events"]
        ]
        command.update(text=A_RULING, why="", command=None)
    if command.get("target_batch") in ruled:
        command["target_text"] = A_RULING
        out["text"], out["note"] = f"{A_RULING} {'undone' if data['type'] == 'undone' else 'redone'}", ""
    out["command"] = command
    return scrub(who, enc, out)


def _unseeded(event: dict[str, Any]) -> dict[str, Any]:
    """An event as plain data, the seed of the dice left out of the encounter's start."""
    scenario = event.get("scenario")
    if event.get("type") != "encounter-started" or not isinstance(scenario, dict):
        return event
    return {**event, "scenario": {k: v for k, v in scenario.items() if k != "seed"}}


def reasons(enc: Encounter) -> list[str]:
    """Every why the GM gave a ruling, in force or not, longest first (so a longer one is replaced whole)."""
    whys = {
        str(entry[3]) for key in (FORBID, TEST) for entry in enc.state.marks.get(key, ()) if len(entry) > 3
    }
    whys.update(given_whys(enc))
    return sorted((w for w in whys if _scrubbed(w)), key=len, reverse=True)


def _scrubbed(why: str) -> bool:
    return len(why.strip()) >= 3  # a shorter why would blank out ordinary words


def given_whys(enc: Encounter) -> dict[str, int]:
    """Every why a ruling of the log gave (RulingMade), with the sequence number that first gave it.

    Kept per timeline and extended by the records folded since, as `ruling_batches` is: a
    player's event list is scrubbed at every move, and reading the whole log each time grew
    with it. A why first given after a page's version is what changes that page's older lines."""
    seen, whys = _WHYS.get(enc.timeline, (0, {}))
    if seen < len(enc.records):
        whys = dict(whys)
        for r in enc.records[seen:]:
            if isinstance(r.event, RulingMade):
                whys.setdefault(r.event.why, r.seq)
        _WHYS[enc.timeline] = (len(enc.records), whys)
    return whys


def new_reason_since(enc: Encounter, version: int) -> bool:
    """Whether a ruling after `version` gave a why a player's lines are scrubbed of that none gave before.

    The cells' rulings carry the why of the ruling that made them, so the whys given are every
    reason `scrub` replaces: the lines up to `version` read the same unless one is new since."""
    return any(seq > version and _scrubbed(why) for why, seq in given_whys(enc).items())


_WHYS: weakref.WeakKeyDictionary[Timeline, tuple[int, dict[str, int]]] = weakref.WeakKeyDictionary()


@overload
def scrub(who: Invite, enc: Encounter, data: dict[str, Any]) -> dict[str, Any]: ...


@overload
def scrub(who: Invite, enc: Encounter, data: list[Any]) -> list[Any]: ...


def scrub(who: Invite, enc: Encounter, data: dict[str, Any] | list[Any]) -> dict[str, Any] | list[Any]:
    """`data` with every ruling's why replaced by REASON in its strings, for a link that isn't the GM's.

    A dict comes back a dict and a list a list (a tuple inside becomes a list, as JSON has it)."""
    if sees_all(who):
        return data
    whys = reasons(enc)
    if not whys:
        return data

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            for why in whys:
                if why in value:
                    value = value.replace(why, REASON)
            return value
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [walk(v) for v in value]
        return value

    if isinstance(data, dict):
        return {k: walk(v) for k, v in data.items()}
    return [walk(v) for v in data]
