"""round-meters' numbers and marks: what more than one family of its rules reads.

The document's own numbers, the marks kept on a fighter and the states of the
shared TURN machine, as names, so every family spells them alike. The budgets
they are counted against are the ruleset's (`RoundMeters`); the rules
themselves live in the sibling modules.
"""

from __future__ import annotations

from tabletrail.ruleset_api import CU

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

# States of the shared TURN machine (core/engine/machines.py).
WAITING, ACTING, DELAYED_STATE, HOLDING, DONE = "waiting", "acting", "delayed", "holding", "done"
