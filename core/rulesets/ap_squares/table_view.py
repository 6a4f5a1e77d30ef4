"""What the table view shows of ap-squares' marks: an invasion to answer, an area effect, a drift."""

from __future__ import annotations

from collections.abc import Mapping

from tabletrail.core.rulesets.ap_squares.shared import AREA, INVADING
from tabletrail.core.rulesets.ap_squares.zero_g import DIRECTIONS, TRAJECTORY, trajectory
from tabletrail.ruleset_api import Answer, Awaited, EncounterState, Fighter, Heading, Part

# The occupant's answers to an invasion (rule invade), as the buttons say them.
INVASION_ANSWERS = (("parry", "Parry"), ("block", "Body-block"), ("allow", "Let in"))


class TableView(Part):
    """An invaded square's occupant answers (invade); those caught by an area effect leap or halve
    its damage (reflexive-leap), and the GM lands it; a drifting body's heading (zero-g-drift)."""

    answers = frozenset({"react-invasion", "reflexive-leap"})

    def awaited(self, state: EncounterState) -> list[Awaited]:
        out = []
        for f in state.fighters:
            invading = f.marks.get(INVADING)
            occ = state.fighter(str(invading.get("occupant", ""))) if isinstance(invading, dict) else None
            if occ is not None:
                answers = tuple(
                    Answer(label, f"react-invasion {occ.id} {choice}", actor=occ.id)
                    for choice, label in INVASION_ANSWERS
                )
                prompt = f"{f.name or f.id} is entering {occ.name or occ.id}'s square"
                out.append(Awaited("invasion", occ.id, prompt, answers, blocking=True))
        area = state.marks.get(AREA)
        if isinstance(area, dict):
            for fid in area.get("caught", ()):
                caught = state.fighter(str(fid))
                if caught is None or caught.id in area.get("unaware", ()):
                    continue
                who = caught.id
                answers = (
                    Answer("Leap clear", f"reflexive-leap {who} {{cell}}", actor=who, needs="cell"),
                    Answer("Halve the damage", f"reflexive-leap {who}", actor=who),
                )
                damage = area.get("damage", 0)
                prompt = f"An area effect of {damage} damage is about to land on {caught.name or who}"
                out.append(Awaited("area", who, prompt, answers, blocking=True))
            land = (Answer("Land it", "area-hit"),)
            out.append(
                Awaited("area", "", "The area effect lands once those caught have answered", land, True)
            )
        return out

    def heading(self, state: EncounterState, f: Fighter) -> Heading | None:
        mark = f.marks.get(TRAJECTORY)
        if isinstance(mark, Mapping) and "dir" in mark and "speed" in mark:
            name, speed = trajectory(mark)
            if name in DIRECTIONS:
                dx, dy = DIRECTIONS[name]
                return Heading(dx, dy, speed, f"drifts {name} at {speed} a turn")
        return None
