"""The rules of squares-example, one part a family of rules.

The document, as short as a ruleset gets:

> Each turn a fighter has one Movement: it moves up to its Speed in squares. A diagonal
> square costs 1, like a straight one. Difficult terrain costs 2 squares a square. A square
> holding a wall can't be entered, and a move can't end on another fighter's square.
> Instead of moving, a fighter may shove a fighter next to it one square straight away;
> the shoved fighter stops short of a wall, a solid square or another fighter.

Rule ids (`squares-example/<name>`) stand next to the code that enforces them:
`Walking` holds movement, speed and difficult; `Shoving` holds shove.
"""

from __future__ import annotations

from tabletrail.ruleset_api import (
    CU,
    EVERY_1,
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Move,
    Part,
    Pos,
    QuietSteps,
    Refreshed,
    Rule,
    Ruleset,
    Spent,
    Stat,
    Step,
    away,
    difficult,
    end_alone,
    flat_step,
    fmt,
    forced_move,
    handles,
    path_cells,
    require,
    show,
    walk,
)

from tabletrail_squares_example.vocabulary import Barge

MOVES = "moves"  # a count budget: the turn's one Movement, spent by a move or a shove
DIFFICULT_FACTOR = 2  # difficult: "Difficult terrain costs 2 squares a square."


class Walking(Part["SquaresExample"]):
    """movement, speed, difficult: one Movement a turn, up to Speed squares, difficult terrain double."""

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        # movement: "Each turn a fighter has one Movement": what was spent starts over.
        b.emit(Refreshed(fighter=fighter_id, resources=("movement", MOVES), rules=(self.rule("movement"),)))

    def walker(self, state: EncounterState, f: Fighter) -> Squares | None:
        return Squares(self) if self.moves_left(f) else None

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        # speed: "it moves up to its Speed in squares" (a length stat: centi-squares)
        return self.rs.stat(f, "speed") if self.moves_left(f) else 0

    def card_words(self, state: EncounterState, f: Fighter) -> list[str]:
        # what the table view adds to the fighter's card: a player sees the Movement is spent
        return [] if self.moves_left(f) else ["its Movement is spent this turn"]

    def moves_left(self, f: Fighter) -> bool:
        return f.spent.get(MOVES, 0) < 1

    def spend_movement(self, b: Batch, f: Fighter, what: str) -> None:
        """movement: the turn's one Movement, refused when it is spent already."""
        require(
            self.moves_left(f),
            self.rule("movement"),
            f"{f.id} has used its one Movement this turn; {what} waits for its next turn",
        )
        b.emit(Spent(fighter=f.id, resource=MOVES, amount=1, rules=(self.rule("movement"),)))

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        f = self.rs.acting(b.state, cmd.fighter)
        cells = path_cells(b.state, f, cmd.path, self.rule("speed"))
        self.spend_movement(b, f, "a move")
        walk(
            b,
            Squares(self),
            f.id,
            cells,
            budget=self.rs.stat(f, "speed"),
            budget_rule=self.rule("speed"),
            rules=(self.rule("movement"), self.rule("speed")),
            what=f"{f.id}'s move (Speed {fmt(self.rs.stat(f, 'speed'))} squares)",
            dice=dice,
        )


class Squares(QuietSteps):
    """How a step is priced: 1 square, diagonal or not; 2 on difficult terrain; walls can't be entered."""

    unit = "sq"

    def __init__(self, part: Walking) -> None:
        self.part = part

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        require(
            not state.grid.blocked(*to),
            self.part.rule("speed"),
            f"{show(to)} is {state.grid.kind(*to).terrain}: no move enters it",
        )
        factor = DIFFICULT_FACTOR if difficult(state, to) else 1
        # version: the engine's arithmetic the encounter began under (how a diagonal is counted)
        return flat_step(
            state.grid, frm, to, parity, diagonal=EVERY_1, version=state.rules_version, terrain_factor=factor
        )

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        end_alone(state, f, self.part.rule("speed"))

    def cites(self, step: Step) -> tuple[str, ...]:
        """The Moved event cites difficult when a step paid double."""
        return (self.part.rule("difficult"),) if step.cost > CU else ()


class Shoving(Part["SquaresExample"]):
    """shove: instead of moving, push a fighter next to yours one square straight away."""

    @handles(Barge)
    def barge(self, b: Batch, cmd: Barge, dice: Dice) -> None:
        f = self.rs.acting(b.state, cmd.fighter)
        target = self.rs.fighter(b.state, cmd.target)
        apart = max(abs(target.pos[0] - f.pos[0]), abs(target.pos[1] - f.pos[1]))
        require(
            target.id != f.id and apart == 1,
            self.rule("shove"),
            f"{target.id} is {apart} squares from {f.id}: a shove reaches a fighter next to it",
        )
        self.rs.part(Walking).spend_movement(b, f, "a shove")
        # "the shoved fighter stops short of a wall, a solid square or another fighter": the shove
        # is made all the same (the Movement spent), and the log says what stopped it.
        forced_move(
            b, target.id, away(f.pos, target.pos, 1), rules=(self.rule("shove"),), note=f"shoved by {f.id}"
        )


class SquaresExample(Ruleset):
    """A Speed in squares, one Movement a turn, difficult terrain, a shove."""

    id = "squares-example"
    title = "A Speed in squares, one Movement a turn"
    document = "squares-example"  # no rule document of tabletrail's: its words are in rules.py
    document_title = "squares-example"
    unit = "sq"
    rules = (
        Rule("movement", "each turn a fighter has one Movement: a move or a shove"),
        Rule(
            "speed",
            "a move goes up to the fighter's Speed in squares, never into a wall, never ending "
            "on another fighter; a diagonal square costs 1",
        ),  # fmt: skip
        Rule("difficult", "difficult terrain costs 2 squares a square"),
        Rule(
            "shove",
            "a shove pushes a fighter next to the shover one square straight away; it stops "
            "short of a wall, a solid square or another fighter",
        ),  # fmt: skip
    )
    settings = ()
    stats = (Stat("speed", "squares a Movement may cover", length=True),)
    parts = (Walking, Shoving)
    # Budgets kept in centi-units, shown as lengths: a shove's squares are "forced" (forced_move).
    centi_resources = ("movement", "forced")
