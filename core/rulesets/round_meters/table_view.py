"""What the table view shows of round-meters' marks: a held action, a delayed turn."""

from __future__ import annotations

from tabletrail.core.rulesets.round_meters.shared import DELAYED, HELD
from tabletrail.ruleset_api import Awaited, EncounterState, Fighter, Part


class TableView(Part):
    """A held action waits for its trigger, which the engine fires (hold); a Delay moves a turn
    behind another combatant or to the pass's end (delay)."""

    def awaited(self, state: EncounterState) -> list[Awaited]:
        out = []
        for f in state.fighters:
            held = f.marks.get(HELD)
            if isinstance(held, dict) and held:
                at = f" at {held['target']}" if held.get("target") else ""
                action = held.get("action", "an action")
                prompt = f"{f.name or f.id} holds {action}{at} until: {held.get('text', '')}"
                out.append(Awaited("held", f.id, prompt))
        return out

    def turn_words(self, f: Fighter) -> str:
        turn = f.state("turn", "")
        if turn == "delayed":
            after = str((f.marks.get(DELAYED) or {}).get("after", ""))
            return f"delayed behind {after}" if after else "delayed to the end of the pass"
        if turn == "holding":
            held = f.marks.get(HELD) or {}
            if not held:
                return "held action spent"
            target = f" at {held['target']}" if held.get("target") else ""
            return f"holding {held.get('action', 'an action')}{target}"
        return ""
