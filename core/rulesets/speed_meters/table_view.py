"""What the table view shows of speed-meters' states and marks: a fall under way, a glide."""

from __future__ import annotations

from tabletrail.core.rulesets.speed_meters.shared import BUMPS_PER_SKIP
from tabletrail.ruleset_api import Answer, Awaited, EncounterState, Fighter, Heading, Part

GLIDE = "glide"  # mark on a gliding fighter: [dx, dy], where the glide carries it


class TableView(Part):
    """A fighter still falling may soften the landing with a Skill Feat (fall-table); a glide's
    heading (glide)."""

    answers = frozenset({"skill-feat"})

    def awaited(self, state: EncounterState) -> list[Awaited]:
        out = []
        for f in state.fighters:
            if f.state("mode", "") == "falling":
                answers = tuple(
                    Answer(f"Skill Feat: {n} Bumps", f"skill-feat {f.id} {n}", actor=f.id)
                    for n in (BUMPS_PER_SKIP, 2 * BUMPS_PER_SKIP, 3 * BUMPS_PER_SKIP)
                )
                prompt = f"{f.name or f.id} is falling: a Skill Feat may soften the landing"
                out.append(Awaited("fall", f.id, prompt, answers))
        return out

    def heading(self, state: EncounterState, f: Fighter) -> Heading | None:
        glide = f.marks.get(GLIDE)
        if isinstance(glide, list | tuple) and len(glide) == 2:
            return Heading(int(glide[0]), int(glide[1]), 0, "glides")
        return None
