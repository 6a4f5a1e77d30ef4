"""What tabletrail must know of squares-example before any of its rules runs.

Its commands (one here: the document's shove, whose verb is `barge`: a verb means one
command at every table, and speed-meters' `shove` came first; `move`, `end-turn` and the
GM's rulings are the engine's), and its declaration, `PLUGIN`, which the entry point in pyproject.toml names.
tabletrail imports this module to decode a log and to parse a command, so it imports
nothing heavy: `tabletrail.ruleset_api` hands out `Command` and `RulesetPlugin`
without loading the engine.
"""

from tabletrail.ruleset_api import Command, RulesetPlugin


class Barge(Command, tag="barge"):
    """Barge into a fighter next to yours: it is shoved one square straight away from you (your Movement)."""

    example = "barge ana bo"
    fighter: str
    target: str


PLUGIN = RulesetPlugin(
    id="squares-example",
    ruleset="tabletrail_squares_example.rules:SquaresExample",
    rules_version="1",  # raise it when a command would be decided otherwise than before
    title="A Speed in squares, one Movement a turn",
    # a bog is difficult terrain, and wet: `terrain = "bog"` in a scenario's legend
    terrains={"bog": ("bog", "difficult", "water")},
    tags=("bog",),
)
