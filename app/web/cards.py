"""A fighter, the map and the verbs in words: the pieces every page's view is built from.

Below both app/web/views.py (the board, the event list, a dry run) and app/web/actions.py (the phone's
buttons and the reactions awaited), so each builds on these and neither imports the other's words back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import to_builtins
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.board.units import fmt, to_cu
from tabletrail.core.engine.dice import CHECKS
from tabletrail.core.engine.machines import GRAPHS
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import ENGINE_HANDLERS, Ruleset
from tabletrail.events.commands import Command
from tabletrail.service.syntax import usage
from tabletrail.text.render import Words

# Words for a verb or a choice where the command's name is not already a good label; every ruleset
# shares them. Any verb not here reads as its name ("grab-hold" -> "Grab hold").
LABELS = {
    "move": "Move",
    "end-turn": "End the turn",
    "drop-prone": "Drop prone",
    "stand-up": "Stand up",
    "open": "Open the door",
    "close": "Close the door",
    "special-jump": "Jump",
    "pull-up": "Pull up onto the ledge",
    "take-action": "Act",
    "let-go": "Let go",
    "turn-drift": "Turn the drift",
    "parry": "Parry",
    "block": "Body-block",
    "allow": "Let in",
    "cw": "clockwise",
    "ccw": "counter-clockwise",
    "n": "north",
    "ne": "north-east",
    "e": "east",
    "se": "south-east",
    "s": "south",
    "sw": "south-west",
    "w": "west",
    "nw": "north-west",
}


def commands(rs: Ruleset) -> list[dict[str, Any]]:
    """The verbs this ruleset accepts, their syntax, and whether they only need a fighter."""
    types: list[type[Command]] = [*rs._handlers, *ENGINE_HANDLERS]  # noqa: SLF001 - the CLI lists them so too
    out = []
    for cls in sorted(set(types), key=lambda c: str(c.__struct_config__.tag)):
        required = [
            name
            for name in cls.__struct_fields__
            if name not in ("by", "rolls", "why") and name not in _defaults(cls)
        ]
        out.append(
            {
                "verb": cls.__struct_config__.tag,
                "usage": usage(cls),
                "doc": (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else "",
                "fighter_only": required == ["fighter"],
                "bare": not required,  # needs nothing at all (end-turn)
                "takes_fighter": "fighter" in cls.__struct_fields__,
                "gm": cls in ENGINE_HANDLERS,  # rulings and settings: the GM's alone
            }
        )
    return out


def _defaults(cls: type[Command]) -> set[str]:
    fields = cls.__struct_fields__
    defaults = cls.__struct_defaults__
    return set(fields[len(fields) - len(defaults) :])


def spent_words(rs: Ruleset, spent: Mapping[str, int]) -> list[str]:
    """What a fighter has spent, as `do` says it (render.Words): '2.5 m', '4 AP', '1 action', '1 m of forced
    movement' (never centi-units). Kept by value: a replay bundle asks at every event, for a few sums."""
    key = (rs.unit, tuple(rs.centi_resources), tuple(spent.items()))  # all the words below read
    said = _SPENT_SAID.get(key)
    if said is None:
        w = Words(rs)
        said = [w.amount(k, v) for k, v in sorted(spent.items()) if v]
        if len(_SPENT_SAID) >= 512:
            _SPENT_SAID.clear()
        _SPENT_SAID[key] = said
    return list(said)  # the caller's own list, as before


_SPENT_SAID: dict[tuple[str, tuple[str, ...], tuple[tuple[str, int], ...]], list[str]] = {}


def heading(state: EncounterState, f: Fighter) -> dict[str, Any] | None:
    """Where the fighter is being carried (a drift, a push-off, a glide), for the board to draw an arrow."""
    said = get_ruleset(state.ruleset).heading(state, f)
    return None if said is None else {"dx": said.dx, "dy": said.dy, "speed": said.speed, "why": said.why}


def fighter(state: EncounterState, f: Fighter) -> dict[str, Any]:
    x, y, z = f.pos
    rs = get_ruleset(state.ruleset)
    spec = state.scenario.fighter(f.id)
    return {
        "id": f.id,
        "name": f.name,
        "side": f.side,
        "pos": [x, y, z],
        "ground": state.grid.top[y][x],  # z above this: off the ground (flying, leaping, drifting)
        "size": f.size,
        "states": dict(f.states),
        "spent": dict(f.spent),
        "spent_text": spent_words(rs, rs.spent_counted(state, f)),
        "move_unit": rs.budget_unit(state, f),
        "move_left": (left := rs.move_budget(state, f)),
        "move_left_text": f"{fmt(left)} {rs.budget_unit(state, f)}",
        "heading": heading(state, f),
        "marks": to_builtins(f.marks),
        "damage": f.damage,
        "stats": dict(f.stats),
        "tags": list(f.tags),
        "active": state.turn.active == f.id,
        "turn_text": rs.turn_words(f),
        "image": bool(spec and spec.picture),  # served by /api/image/ID
        "card": card(state, f),
    }


def name_of(state: EncounterState, fid: str) -> str:
    f = state.fighter(fid)
    return f.name if f is not None and f.name else fid


def map_view(state: EncounterState) -> dict[str, Any]:
    """The map as the page draws it: its size, rows and what each character stands for (heights in
    centi-units). The table view and the replay bundle draw from the same."""
    sc = state.scenario
    return {
        "width": state.grid.width,
        "height": state.grid.height,
        "rows": list(sc.rows),
        "legend": {
            ch: {
                "terrain": k.terrain,
                "tags": sorted(k.all_tags),
                "ground": to_cu(k.ground),
                "height": to_cu(k.height),
                "depth": to_cu(k.depth),
                "climb": k.climb,
            }
            for ch, k in sc.legend.items()
        },
    }


def card(state: EncounterState, f: Fighter) -> dict[str, list[str]]:
    """A fighter as its player needs it: what it can still spend, and its states, in words."""
    rs = get_ruleset(state.ruleset)
    w = Words(rs)
    left = rs.move_budget(state, f)
    unit = rs.budget_unit(state, f)
    lines = [
        f"{w.measure(budget_resource(rs, state, f), left)} {'left' if unit.lower() == 'ap' else 'to move'}"
    ]
    more, what = rs.further_budget(state, f)
    if more > 0 and what:
        lines.append(f"{what}: {w.measure('movement', more)} more")
    spent = spent_words(rs, rs.spent_counted(state, f))
    if spent:
        lines.append("spent " + ", ".join(spent))
    return {"left": lines, "states": states_words(state, f) + rs.card_words(state, f)}


def states_words(state: EncounterState, f: Fighter, turn: str | None = None) -> list[str]:
    """Its states that differ from rest (prone, flying, drifting…), its links, its turn, its wounds.
    `turn`: the ruleset's `turn_words` of the fighter, when the caller has asked it already."""
    out = []
    for machine, now in sorted(f.states.items()):
        graph = GRAPHS.get(machine)
        if machine == "turn" or (graph is not None and now == graph.initial):
            continue
        out.append(now.replace("_", " ").replace("-", " "))
    if turn is None:
        turn = get_ruleset(state.ruleset).turn_words(f)
    if turn:
        out.append(turn)
    elif state.turn.active == f.id:
        out.append("taking its turn")
    for kind, a, b in state.links:
        if f.id in (a, b):
            other = name_of(state, b if a == f.id else a)
            out.append(
                f"{kind.replace('_', ' ')} with {other}"
                if kind != "grab"
                else (f"grabbing {other}" if a == f.id else f"grabbed by {other}")
            )
    if f.damage:
        out.append(f"{f.damage} damage taken")
    # a state its link already says ("engaged" beside "engaged with Kel") is said once
    return [w for w in out if not any(o != w and o.startswith(w + " with ") for o in out)]


def budget_resource(rs: Ruleset, state: EncounterState, f: Fighter) -> str:
    """The budget a move is paid from, by its unit ('AP' counts AP; a length counts movement)."""
    return "ap" if rs.budget_unit(state, f).lower() == "ap" else "movement"


def needs_roll(rejection: Rejection) -> bool:
    """A check whose number must come from the table (the checks setting is 'table')."""
    return rejection.rule == CHECKS and "needs a roll" in rejection.reason
