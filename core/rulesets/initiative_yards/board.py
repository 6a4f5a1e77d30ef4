"""initiative-yards, what every family reads off the board.

The document's marks and tags, and the readings of the board that several
families ask, as plain functions: who is an enemy (`hostile`), who is within
whose Reach (engage), who is engaged with whom, and whether an engaged fighter
may move (engaged-actions, engage-break). What a rule does about a reading
lives in that rule's family module; the readings live here so that no family
has to ask another.
"""

from __future__ import annotations

from tabletrail.ruleset_api import CRAWL_FACTOR as CRAWL_FACTOR
from tabletrail.ruleset_api import EncounterState, Fighter, Pos, distance, reach_blocked, to_cu

ENGAGED = "engaged"  # the Linked kind of an engaged pair, and the ENGAGEMENT state
OBJECT = "object"  # a fighter entry with this tag is a movable object, not a fighter
ENGAGED_ACTIONS = ("strike", "command", "manifest")  # engaged-actions: all an engaged fighter may do
CLIMBABLE = ("stairs", "ladder")
DRAGGING = "dragging"  # mark: this turn's move action drags someone, so it is halved
SLIP_CHECKED = "slip_checked"  # mark: this move action has had a slippery check (per-move: its one)
STRIKING = "striking"  # mark: the fighter's Strike awaiting the table's outcome
FELL = "fell"  # mark: this move action's rest was lost in a fall (setting fall_rest = lost): the cell
STEP_OFF = "step-off"  # a step's mode: off an edge, falling once over the lower cell (setting step_off)
REACH = 1  # engage: a fighter's Reach in yards when its entry gives none (the `reach` stat's default)


def hostile(f: Fighter, other: Fighter) -> bool:
    """Enemies engage each other; objects and friends never do."""
    return other.id != f.id and other.side != f.side and OBJECT not in f.tags and OBJECT not in other.tags


# --- Reach and engagement ------------------------------------------------------------


def reach_of(f: Fighter) -> int:
    """engage: the fighter's Reach in centi-yards (its `reach` stat); an object has none."""
    return 0 if OBJECT in f.tags else to_cu(f.stats.get("reach", REACH))


def engaged_with(state: EncounterState, fighter_id: str) -> list[Fighter]:
    """The fighters engaged with this one (engage links each pair)."""
    return [state.fighter(o) for o in state.linked(ENGAGED, fighter_id)]  # type: ignore[misc]


def within_reach(state: EncounterState, f: Fighter, at: Pos, other: Fighter) -> tuple[bool, int, int]:
    """Is `other` within Reach of `f` standing at `at` (either one's Reach counts)?

    Returns (inside, horizontal distance, the Reach that counts). Height counts too:
    a foe more than a Reach above or below is out of it.
    """
    d = distance(state.settings["diagonal"], at, other.pos)
    r = max(reach_of(f), reach_of(other))
    inside = d <= r and abs(at[2] - other.pos[2]) <= r
    return inside and not reach_blocked(state, at, other.pos), d, r


def newly_in_reach(state: EncounterState, f: Fighter, frm: Pos, to: Pos) -> list[tuple[Fighter, int, int]]:
    """Enemies a step from `frm` to `to` brings within Reach (engage)."""
    out = []
    linked = set(state.linked(ENGAGED, f.id))
    for other in state.fighters:
        if not hostile(f, other) or other.id in linked:
            continue
        inside, d, r = within_reach(state, f, to, other)
        if inside and not within_reach(state, f, frm, other)[0]:
            out.append((other, d, r))
    return out


def breaking_away(state: EncounterState, f: Fighter, at: Pos) -> list[Fighter]:
    """engage-break: the prone foes a standing fighter, engaged with them, is out of the Reach of at `at`.

    "fighters that are engaged with a prone fighter and not prone themselves can freely break the
    engagement during movements": the engagement is broken where the move leaves that Reach; a
    move that stays within it breaks nothing.
    """
    if f.state("posture", "standing") == "prone":
        return []
    return [
        o
        for o in engaged_with(state, f.id)
        if o.state("posture", "standing") == "prone" and not within_reach(state, f, at, o)[0]
    ]


def clearance(state: EncounterState, f: Fighter) -> tuple[str, list[Fighter]]:
    """May this fighter move, engaged as it is? Returns how, and the foes it is engaged with.

    "free": not engaged. engage-break: "break", a standing fighter engaged only with
    prone fighters breaks away as it moves. engaged-actions: "tether", the
    engaged_move setting lets it shift within their Reach; "held", Move is refused.
    """
    foes = engaged_with(state, f.id)
    if not foes:
        return "free", foes
    standing = f.state("posture", "standing") == "standing"
    if standing and all(o.state("posture", "standing") == "prone" for o in foes):
        return "break", foes
    return ("tether" if state.settings["engaged_move"] == "within-reach" else "held"), foes
