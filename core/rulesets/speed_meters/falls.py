"""speed-meters falls: the falling table (fall-table) and the time a fall takes (fall-speed).

Every fall, whatever made it (a step off a ledge, a climber losing its grip, a
forced move over an edge, the GM's `fall`), comes to `Falls.drop` through the
ruleset's `drop`: the fall itself goes through `core.engine.falling.fall`, and this
part decides what it costs. It also keeps a long fall going at the faller's
turn start, lets a Skill Feat soften a landing, and shows the table a faller
who may still answer with one.
"""

from __future__ import annotations

from tabletrail.core.rulesets.speed_meters.board import above_ground, actions_of, mode_of
from tabletrail.core.rulesets.speed_meters.part import SpeedPart
from tabletrail.events.commands.speed_meters import Fall, SkillFeat
from tabletrail.ruleset_api import (
    CU,
    Answer,
    Awaited,
    Batch,
    Dice,
    EncounterState,
    check,
    fall,
    fmt,
    handles,
    landing_height,
    plural,
    require,
    show,
)
from tabletrail.ruleset_api import events as ev

FALL_ROLL_EVERY = 5 * CU  # fall-table: "for every 5 meters a character falls, roll a d6"
FALL_DAMAGE_EVERY = 2 * CU  # fall-table: "for every 2 meters you fell"
FALL_PER_TURN = 20 * CU  # fall-speed: "a total distance of 20 meters" a turn
SOFT_SKIPS, LIQUID_SKIPS, BUMPS_PER_SKIP = 1, 3, 2  # fall-table: opt-outs
DICE_PER_CHECK = 99  # the most dice one check's formula holds (core.engine.dice): longer falls roll in parts

FALL_TABLE = {
    1: "instant death",
    2: "a Permanent Trauma of the GM's choosing",
    3: "a Trauma of the GM's choosing",
    4: "1d10 damage for every 2 m fallen",
    5: "1d6 damage for every 2 m fallen",
    6: "lands prone with no ill effect",
}


class Falls(SpeedPart):
    """The fall and skill-feat commands, what any fall costs: the falling table's rolls and the turn
    it takes; a fall longer than a turn's goes on at the faller's turn start."""

    answers = frozenset({"skill-feat"})  # a Skill Feat answers a fall under way (fall-table)

    @handles(Fall)
    def fall_command(self, b: Batch, cmd: Fall, dice: Dice) -> None:
        """An effect drops an airborne or climbing fighter (a GM command)."""
        self.rs.gm_only(cmd, self.rule("fall-table"), "drop a fighter")
        f = self.rs.fighter(b.state, cmd.fighter)
        up = above_ground(b.state, f)
        require(
            up > 0,
            self.rule("fall-table"),
            f"{f.id} is not above the ground at {show(f.pos)} ({fmt(max(up, 0))} m): "
            "there is nowhere to fall",
        )
        self.drop(
            b, dice, f.id, rule=self.rule("fall-table"), bumps=cmd.bumps, note=cmd.why or "made to fall"
        )

    def drop(self, b: Batch, dice: Dice, fid: str, *, rule: str, bumps: int = 0, note: str = "") -> None:
        """A fall from where the fighter is: at most 20 m of it this turn, the rest at its next turn.

        fall-speed: the time it takes comes off the turn's actions; fall-table:
        landing from 5 m or more rolls on the falling table. Every fall, whatever made it,
        comes here and takes its Skill Feat reaction here: `bumps` entered with the command
        that makes it fall, or kept on the faller (`skill_feat`: entered by the skill-feat
        command, or kept from the command that began a fall longer than a turn's) until it lands.
        """
        f = b.state.fighter(fid)
        assert f is not None
        bumps = bumps or int(f.marks.get("skill_feat", 0))
        x, y, z = f.pos
        height = z - landing_height(b, (x, y))
        if height <= 0:
            if mode_of(f) == "falling":
                self.rs.settle_mode(b, fid, rule, "already on the ground")
            return
        self.rs.set_mode(b, fid, "falling", rule, note)
        before = int(f.marks.get("fallen", 0))
        if height > FALL_PER_TURN:
            b.emit(
                ev.Placed(
                    fighter=fid,
                    to=(x, y, z - FALL_PER_TURN),
                    how="fall",
                    rules=(rule, self.rule("fall-speed")),
                    note=f"falls {fmt(FALL_PER_TURN)} m, a whole turn's fall; "
                    f"{fmt(height - FALL_PER_TURN)} m still below",
                )
            )
            b.emit(
                ev.Marked(
                    fighter=fid, key="fallen", value=before + FALL_PER_TURN, rules=(self.rule("fall-speed"),)
                )
            )
            if bumps and f.marks.get("skill_feat") != bumps:
                self.keep_skill_feat(b, fid, bumps)
            self.fall_time(b, fid, FALL_PER_TURN)
            return
        (x, y), onto = self.rs.landing_space(b.state, fid, (x, y), z)  # occupancy: fall_onto_fighter
        height = z - landing_height(b, (x, y))
        total = before + height
        tags = b.state.grid.tags[y][x]
        rolls, skipped, why = fall_rolls(total, tags, bumps)
        # fall-table: a fall under 5 m rolls nothing; whether it lands prone is a house ruling
        short = total < FALL_ROLL_EVERY
        prone = not short or bool(b.state.settings["short_fall_prone"])
        fall(
            b,
            fid,
            (x, y),
            prone=prone,
            # fall-table: each rule cited once, also when the fall was the fall-table's own (`fall`)
            rules=tuple(
                dict.fromkeys(
                    (
                        rule,
                        *((self.rule("fall-table"),) if rolls or short else ()),
                        *((self.rule("occupancy"),) if onto else ()),
                    )
                )
            ),
            note=f"falls {fmt(height)} m"
            + (f" ({fmt(total)} m in all)" if before else "")
            + (f"; {why}" if why else "")
            + (f"; {onto}" if onto else "")
            + ("" if prone else "; lands on its feet (short_fall_prone = false)"),
            from_z=z,
        )
        self.rs.settle_mode(b, fid, rule, "lands")
        self.fall_table(b, dice, fid, total, rolls - skipped)
        self.fall_time(b, fid, height)

    @handles(SkillFeat)
    def skill_feat(self, b: Batch, cmd: SkillFeat, dice: Dice) -> None:
        """fall-table: a Reaction, entered while falling or in the fighter's turn before a fall."""
        f = self.rs.fighter(b.state, cmd.fighter)
        rule = self.rule("fall-table")
        require(cmd.bumps > 0, rule, f"bumps={cmd.bumps}: a Skill Feat that skips a roll has 2 Bumps or more")
        require(
            mode_of(f) == "falling" or b.state.turn.active == f.id,
            rule,
            f"{f.id} is neither falling nor taking its turn: a fall another makes it take gets its "
            "Bumps from that command (bumps=N)",
        )
        self.keep_skill_feat(b, f.id, cmd.bumps)

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """fall-speed: a fall taken outside the turn costs this turn's time; a long fall goes on."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        if "fall_time" in f.marks:  # fall-speed: a fall outside its turn takes this turn's time
            b.emit(ev.Unmarked(fighter=f.id, key="fall_time", rules=(self.rule("fall-speed"),)))
            self.lose_time(b, f.id, int(f.marks["fall_time"]), "the fall it took before its turn")
        if mode_of(f) == "falling":  # fall-speed: 20 m more of a long fall
            self.drop(b, dice, f.id, rule=self.rule("fall-speed"), note="still falling as its turn starts")

    def end_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """fall-table: a Skill Feat entered for a fall that never came lapses with the turn."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        if "skill_feat" in f.marks and mode_of(f) != "falling":
            b.emit(
                ev.Unmarked(
                    fighter=f.id,
                    key="skill_feat",
                    rules=(self.rule("fall-table"),),
                    note="the Skill Feat lapses: no fall came this turn",
                )
            )

    def awaited(self, state: EncounterState) -> list[Awaited]:
        """fall-table: a fighter still falling may soften the landing with a Skill Feat (a Reaction)."""
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

    def keep_skill_feat(self, b: Batch, fid: str, bumps: int) -> None:
        b.emit(
            ev.Marked(
                fighter=fid,
                key="skill_feat",
                value=bumps,
                rules=(self.rule("fall-table"),),
                note=f"a Skill Feat reaction with {bumps} Bumps: "
                f"{plural(bumps // BUMPS_PER_SKIP, 'falling-table roll')} fewer when it lands",
            )
        )

    def fall_table(self, b: Batch, dice: Dice, fid: str, fallen: int, rolls: int) -> None:
        """fall-table: one d6 per 5 m fallen (after opt-outs), each read off the document's chart."""
        rule = self.rule("fall-table")
        dice_count = fallen // FALL_DAMAGE_EVERY
        for i in range(rolls):
            roll = check(
                b,
                dice,
                fighter=fid,
                name="falling table",
                rule=rule,
                formula="1d6",
                note=f"roll {i + 1} of {rolls} for a {fmt(fallen)} m fall: "
                + ", ".join(f"{k} {v}" for k, v in FALL_TABLE.items()),
            )
            require(1 <= roll.number <= 6, rule, f"a d6 shows 1 to 6, not {roll.number}")
            f = b.state.fighter(fid)
            assert f is not None
            result = FALL_TABLE[roll.number]
            if roll.number == 1:
                b.emit(ev.Marked(fighter=fid, key="dead", value=True, rules=(rule,), note=f"1: {result}"))
                return
            if roll.number in (2, 3):
                key = "permanent_trauma" if roll.number == 2 else "trauma"
                count = int(f.marks.get(key, 0)) + 1
                b.emit(
                    ev.Marked(
                        fighter=fid, key=key, value=count, rules=(rule,), note=f"{roll.number}: {result}"
                    )
                )
            elif roll.number in (4, 5):
                sides = 10 if roll.number == 4 else 6
                parts = [DICE_PER_CHECK] * (dice_count // DICE_PER_CHECK)
                parts += [dice_count % DICE_PER_CHECK] if dice_count % DICE_PER_CHECK else []
                total = 0
                for n, count in enumerate(parts, start=1):
                    hurt = check(
                        b,
                        dice,
                        fighter=fid,
                        name="fall damage",
                        rule=rule,
                        formula=f"{count}d{sides}",
                        note=f"{roll.number}: {dice_count}d{sides}, "
                        f"1d{sides} for each 2 m of the {fmt(fallen)} m"
                        + (f" (part {n} of {len(parts)}: {count}d{sides})" if len(parts) > 1 else ""),
                    )
                    require(
                        count <= hurt.number <= count * sides,
                        rule,
                        f"{count}d{sides} makes {count} to {count * sides}, not {hurt.number}",
                    )
                    total += hurt.number
                b.emit(
                    ev.Damaged(
                        fighter=fid,
                        amount=total,
                        cause="fall",
                        rules=(rule,),
                        note=f"{dice_count}d{sides} = {total} for a {fmt(fallen)} m fall",
                    )
                )

    def fall_time(self, b: Batch, fid: str, fallen: int) -> None:
        """fall-speed: the share of a turn a fall of this length takes."""
        quarters = fall_quarters(fallen, b.state.settings["fall_rounding"])
        if not quarters:
            return
        if b.state.turn.active == fid:
            self.lose_time(b, fid, quarters, f"a {fmt(fallen)} m fall")
        elif b.state.settings["off_turn_fall"] == "next-turn":
            f = b.state.fighter(fid)
            assert f is not None
            already = int(f.marks.get("fall_time", 0))
            b.emit(
                ev.Marked(
                    fighter=fid,
                    key="fall_time",
                    value=max(already, quarters),
                    rules=(self.rule("fall-speed"),),
                    note=f"a {fmt(fallen)} m fall outside its turn takes {quarters}/4 of its next turn",
                )
            )

    def lose_time(self, b: Batch, fid: str, quarters: int, what: str) -> None:
        """fall-speed: leave (4 - quarters)/4 of the turn's actions, rounded down; the board shows it.

        Part-way through the turn (setting fall_mid_turn): 'remaining' leaves at most that share of
        the total; 'taken' takes the rest of the total, what the fall's time is worth, off what is left.
        """
        f = b.state.fighter(fid)
        assert f is not None
        total = actions_of(b.state, f)
        keep = total * (4 - quarters) // 4
        left = total - f.used("actions")
        if b.state.settings["fall_mid_turn"] == "taken":
            lost = min(left, total - keep)
            note = (
                f"{what} takes {quarters}/4 of the turn: {total - keep} of {total} actions, "
                f"{left - lost} left (fall_mid_turn = taken)"
            )
        else:
            lost = max(0, left - keep)
            note = f"{what} takes {quarters}/4 of the turn: {keep} of {total} actions remain"
        if lost:
            b.emit(
                ev.Spent(
                    fighter=fid,
                    resource="actions",
                    amount=lost,
                    rules=(self.rule("fall-speed"),),
                    note=note,
                )
            )


def fall_rolls(fallen: int, tags: frozenset[str], bumps: int) -> tuple[int, int, str]:
    """fall-table: (rolls owed, rolls opted out of, why) for a fall of `fallen` centi-units."""
    rolls = fallen // FALL_ROLL_EVERY
    if not rolls:
        return 0, 0, ""
    outs = []
    if "soft" in tags:
        outs.append((SOFT_SKIPS, "soft ground"))
    if "liquid" in tags:
        outs.append((LIQUID_SKIPS, "liquid"))
    if bumps // BUMPS_PER_SKIP:
        outs.append((bumps // BUMPS_PER_SKIP, f"a Skill Feat with {bumps} Bumps"))
    skipped = min(rolls, sum(n for n, _ in outs))
    why = f"{plural(rolls, 'roll')} on the falling table"
    if skipped:
        why += f", {skipped} opted out of (" + ", ".join(f"{w} {n}" for n, w in outs) + ")"
    return rolls, skipped, why


def fall_quarters(fallen: int, rounding: str) -> int:
    """fall-speed: quarters of a turn a fall takes: 5 m 1/4, 10 m 1/2, 15 m 3/4, 20 m all."""
    mark = FALL_PER_TURN // 4
    if fallen < mark:
        return 0
    quarters = fallen // mark if rounding == "down" else -(-fallen // mark)
    return min(4, quarters)
