"""tabletrail's conformance kit: the checks any ruleset's author runs against their ruleset.

The four built-in rulesets run it too (tests/), and so does the example plug-in
(plugins/tabletrail-squares-example/tests/). Needs the test extra (hypothesis):

- `encounter(toml)`, `do(enc, "move ari 3,4")` (must be accepted; the batch's events),
  `refuse(enc, "…", "my-ruleset/rule")` (must be refused by that rule; nothing appended),
  `of_type(events, Moved)`, `grid(rows, legend)`: a rule tested from its document's own words;
- `get_ruleset(id)`: the installed ruleset, built (its hooks called directly: `card_words`…);
- `check_declaration(id)`: installed, and declared whole (catalogue, settings, commands decodable);
- `check_examples(id, toml)`: every command's `example` runs;
- `EncounterMachine` and `conformance_machine(toml, texts)`: the Hypothesis state machine that
  plays at random and holds after every step: a refusal changes nothing, an accepted command
  appends one batch, replaying the log gives the live board, every line round-trips and chains,
  undo then redo and undoing everything restore the boards they must.
"""

from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.testing.conformance import check_declaration, check_examples
from tabletrail.testing.helpers import CLOCK, do, encounter, grid, of_type, refuse
from tabletrail.testing.machine import EncounterMachine, conformance_machine

__all__ = [
    "CLOCK",
    "EncounterMachine",
    "check_declaration",
    "check_examples",
    "conformance_machine",
    "do",
    "encounter",
    "get_ruleset",
    "grid",
    "of_type",
    "refuse",
]
