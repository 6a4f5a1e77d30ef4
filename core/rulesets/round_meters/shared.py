"""round-meters, what every rule of the chapter shares.

The document's own numbers, the marks kept on a fighter, the states of the
shared TURN machine, `parse_costs` (the action_costs setting) and `Shared`:
the round's budgets (AP, meters, the sprint penalty) and naming an action's
price and target. The rules themselves live in the sibling modules.
"""

from __future__ import annotations

from tabletrail.ruleset_api import CU, EncounterState, Fighter, Refusal, Ruleset, parse_cell, require, show

# Numbers the document itself gives.
SPRINT_AP = 1  # "Sprinting is a Minor Action that costs 1 AP."
SPRINT_METERS = 2 * CU  # "For each positive Hit, gain +2 meters of Movement for the current round."
SPRINT_PENALTY = -5  # "a cumulative −5 penalty to all other tests for the remainder of the round"
DELAY_IDLE_AP = 1  # "If you choose not to act when your delayed turn arrives, ... lose 1 AP."
DIFFICULT_FACTOR = 2  # "Each meter moved through Difficult Terrain costs 2 meters of Movement."
DIFFICULT_TAGS = ("difficult", "rough")

# Marks kept on a fighter.
HELD = "held"  # the held action: {action, target, ap, trigger, text, round, pass}
ACTION = "action"  # the latest action taken: {kind, target, ap, round, pass, held}
DELAYED = "delayed"  # a delayed turn pending: {after, round, pass}
SPRINTS = "sprint-penalty"  # {sprints, penalty} this round

# States of the shared TURN machine (core/machines.py).
WAITING, ACTING, DELAYED_STATE, HOLDING, DONE = "waiting", "acting", "delayed", "holding", "done"


def parse_costs(text: str) -> dict[str, int]:
    """'shoot:2,reload:1' -> {'shoot': 2, 'reload': 1}; ValueError says what is wrong."""
    costs: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        kind, sep, ap = part.partition(":")
        kind = kind.strip()
        if not sep or not kind or " " in kind:
            raise ValueError(f"{part!r} is not KIND:AP (e.g. shoot:2)")
        if kind == "sprint":
            raise ValueError("sprint is the document's own action (1 AP); it can't be priced here")
        if not ap.strip().isdigit():
            raise ValueError(f"{part!r}: the AP of {kind} must be a whole number, got {ap.strip()!r}")
        costs[kind] = int(ap)
    return costs


class Shared(Ruleset):
    """The round's budgets and the words every family of rules prices and aims actions with."""

    # --- budgets: AP, meters, the sprint penalty ---------------------------------------------

    def ap(self, f: Fighter) -> int:
        return int(self.stat(f, "ap"))

    def ap_left(self, f: Fighter) -> int:
        return self.ap(f) - f.used("ap")

    def meters_left(self, f: Fighter) -> int:
        """round-budget: Movement this round (sprints included) less what was moved, in centi-units."""
        movement: int = self.stat(f, "movement")  # a length: whole centi-units
        return movement - f.used("movement")

    def sprinted(self, f: Fighter) -> int:
        """sprint: the meters of Movement this round's Sprints gained, in centi-units."""
        return int(f.marks.get(SPRINTS, {}).get("meters", 0))

    def spent_counted(self, state: EncounterState, f: Fighter) -> dict[str, int]:
        """round-budget, sprint: Movement spent is the meters moved, which "remains spent" until the
        next round; a Sprint's gain is kept as negative spending, so it is added back here."""
        spent = dict(f.spent)
        if "movement" in spent or self.sprinted(f):
            spent["movement"] = f.used("movement") + self.sprinted(f)
        return spent

    def allowed(self, state: EncounterState, f: Fighter, resource: str) -> int | None:
        """round-budget, sprint: the Movement this round, "+2 meters" gained for each positive Hit."""
        return self.stat(f, "movement") + self.sprinted(f) if resource == "movement" else None

    def penalty(self, f: Fighter) -> int:
        """sprint: the cumulative penalty to the fighter's other tests this round."""
        return int(f.marks.get(SPRINTS, {}).get("penalty", 0))

    def costs(self, state: EncounterState) -> dict[str, int]:
        try:
            return parse_costs(str(state.settings["action_costs"]))
        except ValueError as exc:
            raise Refusal(self.rule("passes"), f"the action_costs setting is unreadable: {exc}") from None

    # --- naming an action --------------------------------------------------------------------

    def priced(self, costs: dict[str, int]) -> str:
        return ", ".join(f"{k} {v} AP" for k, v in costs.items()) or "none"

    def aim(self, state: EncounterState, target: str, rule: str) -> str:
        """A target is a fighter id or a cell x,y on the map."""
        if state.fighter(target) is not None:
            return target
        try:
            cell = parse_cell(target)
        except ValueError:
            fighters = ", ".join(f.id for f in state.fighters)
            raise Refusal(
                rule, f"target {target!r} is neither a fighter ({fighters}) nor a cell x,y"
            ) from None
        require(
            state.grid.inside(cell[0], cell[1]),
            rule,
            f"target {show(cell)} is off the {state.grid.width}x{state.grid.height} map",
        )
        return show(cell)
