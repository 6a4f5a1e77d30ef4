"""What the table view shows of initiative-yards' marks: a Strike awaiting its outcome."""

from __future__ import annotations

from tabletrail.core.rulesets.initiative_yards.board import STRIKING
from tabletrail.core.rulesets.initiative_yards.part import YardsPart
from tabletrail.ruleset_api import Answer, Awaited, EncounterState


class TableView(YardsPart):
    """A Strike made to break an engagement waits for the table to say hit or miss (engage-break)."""

    answers = frozenset({"resolve"})

    def awaited(self, state: EncounterState) -> list[Awaited]:
        out = []
        for f in state.fighters:
            striking = f.marks.get(STRIKING)
            target = state.fighter(striking) if isinstance(striking, str) else None
            if target is not None:
                answers = tuple(
                    Answer(said, f"resolve {f.id} {target.id} {said.lower()}", actor=f.id)
                    for said in ("Hit", "Miss")
                )
                prompt = f"{f.name or f.id}'s Strike at {target.name or target.id} awaits its outcome"
                out.append(Awaited("strike", f.id, prompt, answers))
        return out
