"""Commands of the round-meters ruleset (document 001).

Moving uses the shared `move`; ending a turn the shared `end-turn`. These are the
rest of what a table does under round-meters, in the table's own syntax:

    sprint ari                                  a Minor Action: 1 AP, an Athletics test
    take-action ari shoot target=e test=12      any action of the table's action_costs
    roll-test ari perception 12                 a test the GM calls for (carries sprint penalties)
    delay ari after=cyn | delay ari             lower your place in this pass
    hold ari shoot "enemy-enters 4,5 5,5" target=e
"""

from tabletrail.events.commands import Command
from tabletrail.events.plugins import RulesetPlugin


class Sprint(Command, frozen=True, tag="sprint"):
    """Sprint: a Minor Action for 1 AP; each positive Hit of the Athletics test gives +2 m this round."""

    fighter: str


class TakeAction(Command, frozen=True, tag="take-action"):
    """Take an action of the table's `action_costs` setting and pay its AP.

    target: who or where it is aimed at (a fighter id or x,y), for the record and for
    held triggers; test: the number a test of this action must reach, if it takes one.
    """

    fighter: str
    kind: str
    target: str = ""
    test: int | None = None


class RollTest(Command, frozen=True, tag="roll-test"):
    """A test the GM calls for (Perception, Athletics…) against a number; no AP, any time."""

    fighter: str
    skill: str
    target: int


class Delay(Command, frozen=True, tag="delay"):
    """Lower your place in this pass: behind `after` (who has not acted yet), or to the pass's end.

    into_pass names the pass the delayed turn would fall in; only the current one is allowed.
    """

    fighter: str
    after: str = ""
    into_pass: int = 0


class Hold(Command, frozen=True, tag="hold"):
    """Hold a specific action for a specific trigger, paying its AP now.

    trigger is one of: "enemy-enters X,Y [X,Y…]", "starts-move FIGHTER",
    "takes-action FIGHTER KIND" (as the hold_triggers setting allows).
    """

    fighter: str
    action: str
    trigger: str
    target: str = ""


# The ruleset's declaration, named by the entry point 'round-meters' (pyproject.toml): its rules are
# imported only when a command of it is decided; its rules version is tabletrail's own (RULES_VERSION).
PLUGIN = RulesetPlugin(
    id="round-meters",
    ruleset="tabletrail.core.rulesets.round_meters:RoundMeters",
    rules_version="",
    title="Movement per round, AP for actions",
)
