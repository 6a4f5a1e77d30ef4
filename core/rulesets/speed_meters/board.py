"""speed-meters' board: the small questions every family asks, as pure functions.

A fighter's mode (the `mode` graph: walking, climbing, swimming, flying, hovering, gliding,
falling), its actions this turn, who stands where (occupancy: a body fills its space up to
body_height), how high above the ground it is, the grab it is in, and the meters the GM gave for
its next Movement (adjust). They read the state and cite no rule; the rules that refuse on them
are the ruleset's and its parts'.
"""

from __future__ import annotations

from tabletrail.core.rulesets.speed_meters.geometry import swimmable
from tabletrail.ruleset_api import EncounterState, Fighter, Graph, Pos, register, to_cu

GIVEN = "given"  # adjust: meters the GM gave (negative: took) for the next Movement, by resource

# --- the `mode` graph, registered once ------------------------------------------------------

MODES = ("walking", "climbing", "swimming", "flying", "hovering", "gliding", "falling")

TRIGGER = {
    "walking": "land",
    "climbing": "climb",
    "swimming": "swim",
    "flying": "fly",
    "hovering": "hover",
    "gliding": "glide",
    "falling": "fall",
}

MODE = register(
    Graph(
        "mode",
        list(MODES),
        [
            {"trigger": "land", "source": [m for m in MODES if m != "walking"], "dest": "walking"},
            {"trigger": "climb", "source": ["walking", "swimming", "flying", "hovering"], "dest": "climbing"},
            {
                "trigger": "swim",
                "source": ["walking", "falling", "flying", "hovering", "gliding", "climbing"],
                "dest": "swimming",
            },
            {"trigger": "fly", "source": [m for m in MODES if m != "flying"], "dest": "flying"},
            {"trigger": "hover", "source": ["walking", "flying", "gliding", "falling"], "dest": "hovering"},
            {
                "trigger": "glide",
                "source": ["walking", "climbing", "flying", "hovering", "falling"],
                "dest": "gliding",
            },
            {
                "trigger": "fall",
                "source": ["walking", "climbing", "swimming", "flying", "hovering", "gliding"],
                "dest": "falling",
            },
        ],
        "walking",
        {
            "land": "{f} is on its feet again",
            "climb": "{f} starts climbing",
            "swim": "{f} swims",
            "fly": "{f} takes to the air",
            "hover": "{f} hovers",
            "glide": "{f} glides",
            "fall": "{f} falls",
        },
    )
)

MODE_RULE = {
    "walking": "movement",
    "climbing": "climb",
    "swimming": "swim",
    "flying": "fly",
    "hovering": "hover",
    "gliding": "glide",
    "falling": "fall-speed",
}


def mode_of(f: Fighter) -> str:
    """The fighter's mode of movement (`mode` graph)."""
    return f.state("mode", "walking")


def actions_of(state: EncounterState, f: Fighter) -> int:
    """stop: the actions the fighter has each turn (stat actions, else the actions_per_turn setting)."""
    return int(f.stats.get("actions") or state.settings["actions_per_turn"])


def body_height(state: EncounterState) -> int:
    """occupancy: how high a fighter's body fills its space, in centi-units (setting body_height)."""
    return to_cu(state.settings["body_height"])


def others_at(state: EncounterState, fid: str, pos: Pos) -> list[Fighter]:
    """occupancy: the fighters whose bodies would overlap one standing at pos."""
    body = body_height(state)
    return [
        o
        for o in state.fighters
        if o.id != fid and o.pos[0] == pos[0] and o.pos[1] == pos[1] and abs(o.pos[2] - pos[2]) < body
    ]


def above_ground(state: EncounterState, f: Fighter) -> int:
    """How far the fighter is above what it would land on (0 on the ground; negative underwater)."""
    return f.pos[2] - state.grid.top[f.pos[1]][f.pos[0]]


def underwater(state: EncounterState, f: Fighter) -> bool:
    """swim: below the surface of deep water."""
    return swimmable(state.grid, f.pos[0], f.pos[1]) and f.pos[2] < state.grid.top[f.pos[1]][f.pos[0]]


def partner(state: EncounterState, fid: str) -> tuple[str, str] | None:
    """grab: (grabber, grabbed) of the grab this fighter is in, if any."""
    for kind, a, b in state.links:
        if kind == "grab" and fid in (a, b):
            return a, b
    return None


def gm_given(f: Fighter, resource: str = "movement") -> int:
    """adjust: meters the GM gave (negative: took) for the fighter's next Movement (mark GIVEN)."""
    return int(f.marks.get(GIVEN, {}).get(resource, 0))


def with_given(f: Fighter, base: int, resource: str = "movement") -> int:
    """A Movement's budget: its base (Speed, a mode's speed, 2 m of maneuvers) and the GM's meters."""
    return max(0, base + gm_given(f, resource))


def attack_pairs(
    state: EncounterState, fighter_id: str, against: str | None
) -> list[tuple[Fighter, Fighter | None, str]]:
    """The (defender, attacker, applies_to) pairs an Advantage for or against a fighter is judged on:
    attacks against it (by `against`, or by anyone fitting), then its own attack on `against`."""
    f = state.fighter(fighter_id)
    if f is None:
        return []
    other = state.fighter(against) if against else None
    pairs: list[tuple[Fighter, Fighter | None, str]] = [(f, other, "attack against")]
    if other is not None:
        pairs.append((other, f, "attack"))
    return pairs
