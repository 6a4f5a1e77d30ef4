"""ap-squares walking: 1 AP a square walked, 2 crawled (walk, crawl).

`Stepping` (stepping.py) prices a character's own steps: walking, crawling prone, and
crawling along stable objects in zero gravity (zero-g-crawl); a drift or a
push-off moves a body instead (zero_g.py). `Walking` is the family's part: the
move command, how the fighter moves now, and the AP it has left to move on.
"""

from __future__ import annotations

from tabletrail.core.rulesets.ap_squares.hooks import ApPart
from tabletrail.core.rulesets.ap_squares.invasion import travel
from tabletrail.core.rulesets.ap_squares.stepping import CRAWL_AP, WALK_AP, Stepping
from tabletrail.core.rulesets.ap_squares.zero_g_base import (
    CRAWLING,
    GROUNDED,
    gravity,
    is_object,
)
from tabletrail.ruleset_api import (
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Move,
    handles,
    path_cells,
)


class Walking(ApPart):
    """walk, crawl, zero-g-crawl: a character's own way of moving, by posture and gravity, and the
    move command, paid from the cycle's AP."""

    def walker(self, state: EncounterState, f: Fighter) -> Stepping | None:
        """walk, crawl (prone) or zero-g-crawl, by the fighter's posture and gravity; None when carried."""
        if is_object(f):
            return None
        g = gravity(f)
        if g == CRAWLING:
            return Stepping(self.rs, "zero-g crawl", self.rule("zero-g-crawl"), CRAWL_AP)
        if g != GROUNDED:
            return None
        if f.state("posture", "standing") == "prone":
            return Stepping(self.rs, "crawl", self.rule("crawl"), CRAWL_AP)
        return Stepping(self.rs, "walk", self.rule("walk"), WALK_AP)

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        """The AP left to move on: none for a loose object, which never acts (it is pushed or drifts)."""
        return 0 if is_object(f) else max(self.rs.ap_left(state, f.id), 0)

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        f = self.rs.acting(b.state, cmd.fighter)
        policy = self.rs.mover(b.state, f)
        cells = path_cells(b.state, f, cmd.path, policy.rule)
        travel(self.rs, b, f.id, policy, cells, dice, (policy.rule,))
