"""What a ruleset shows at the table beyond the board: reactions awaited, headings, turn words.

A ruleset's facts live in marks only it knows the meaning of (a held action, a Strike awaiting
its outcome, a drift). The table view asks the ruleset, through the hooks `Ruleset.awaited`,
`Ruleset.heading`, `Ruleset.turn_words` and `Ruleset.card_words`, and draws what they say: it never
imports a ruleset's marks, so a plug-in's reactions show like the built-ins'.
"""

from __future__ import annotations

import msgspec


class Answer(msgspec.Struct, frozen=True):
    """One way to answer a reaction: a button's words and the command it runs.

    label: the button's words ("Parry"); the table view adds what the command costs.
    text: the command as typed at the table ("react-invasion bo parry"); with `needs="cell"`,
        "{cell}" stands where the square the player taps goes ("reflexive-leap bo {cell}").
    actor: the fighter whose budgets the command spends (its cost is shown in its units).
    needs: "" (a button), or "cell": the page asks for a square; the view offers the open squares
        near `actor` that the engine would take (each tried as a dry run).
    """

    label: str
    text: str
    actor: str = ""
    needs: str = ""


class Awaited(msgspec.Struct, frozen=True):
    """A reaction the table waits for: who answers it, the question in words, and the answers.

    kind: a short name the page styles it by ("invasion", "held", "area"…).
    fighter: who answers (its side's player or the GM); "" for the GM alone.
    blocking: True when the game can't go on until it is answered (the page says so).
    """

    kind: str
    fighter: str
    prompt: str
    answers: tuple[Answer, ...] = ()
    blocking: bool = False


class Heading(msgspec.Struct, frozen=True):
    """Where a fighter is carried without walking (a drift, a glide), for the board's arrow."""

    dx: int
    dy: int
    speed: int  # cells a turn; 0 when it isn't a count
    why: str  # in words: "drifts ne at 1 a turn"
