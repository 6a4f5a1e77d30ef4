"""The rules version, and every correction of a decision the rules made since logs were first kept.

A log records the rules version that decided it (`EncounterStarted.rules_version`,
line 1; every snapshot too). `verify` re-decides an older log under today's rules:
where a batch differs and a correction below, made since the log's version, bears on
that batch's ruleset, command, rule and fact, `verify` names the correction ("decided
under 0.1; speed-meters `adjust` has given meters to the next Movement since 0.2"),
keeps the batch as recorded and checks everything else. Such a log still does not pass
(nothing in it tells an older decision from an edit), but the report says which it may be.

A correction can instead be gated by the version a log began under (`gated`): the rules
read that version (`EncounterState.rules_version`), so an encounter begun before the
correction goes on deciding the old way for its whole life, `verify` and `whatif`
re-decide it so, and its log verifies as recorded. Such an entry is listed, never named.

A maintainer who corrects a rule so that some command decides otherwise than before
raises RULES_VERSION and appends one entry here: since (the new version), made (when,
UTC), the ruleset ("" for the engine's own rules, every ruleset), the command verbs
whose batches can differ (empty: any), the rule ids it changed (a differing event, or
today's refusal, must cite one of them), and what the rules do now, as a sentence that
follows the ruleset's name. Words, citations and refusal texts need no entry: verify
compares facts, not prose, and notes changed citations by itself.

Logs from before logs recorded their version were decided under 0.1; every correction
made until then is listed as since 0.2, with the time it was made, so that a batch
decided after a correction is not excused by it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

RULES_VERSION = "0.3"  # the rules of this tabletrail; raise it with each correction appended below
FIRST = "0.1"  # a log that records no version was decided under this


class Correction(NamedTuple):
    since: str  # the first rules version that decides this way
    made: str  # when the correction was made (UTC): an older log's batches after it were decided so already
    ruleset: str  # the ruleset it corrected; "" for the engine's rules, under every ruleset
    commands: tuple[str, ...]  # the command verbs whose batches it changed; () for any command
    rules: tuple[str, ...]  # the rule ids it changed: the differing event (or refusal) must cite one
    says: str  # what the rules do now, in words that follow the ruleset's name
    # The facts it changed: event types ("marked"…) or "refused" (today's rules refuse the command); the
    # differing event, recorded or expected, must be one of them. (): any fact its rules give.
    events: tuple[str, ...] = ()
    # True: the rules read the version a log began under (EncounterState.rules_version), so a log
    # begun before `since` goes on deciding the old way for its whole life; verify and whatif re-decide
    # it so and it verifies as recorded. Such an entry is listed here, never named for a difference.
    gated: bool = False


# fmt: off
CORRECTIONS: tuple[Correction, ...] = (
    Correction("0.2", "2026-11-29T17:23", "speed-meters", ("stand-up", "drop-prone"),
        ("speed-meters/movement",),
        "standing up and dropping prone have taken an action (setting stand_up_actions)",
        ("spent", "refused")),
    Correction("0.2", "2026-11-29T17:35", "initiative-yards", ("pull-up", "drag", "act"),
        (
            "initiative-yards/ledge",
            "initiative-yards/drag",
            "initiative-yards/engage",
            "initiative-yards/engaged-actions",
        ),
        "a pull-up has reached any higher cell, the within-reach tether has held for pull-ups, an engaged"
        " friend is not dragged out of its combat"),
    Correction("0.2", "2026-11-29T17:36", "round-meters", ("delay", "end-turn"),
        ("round-meters/delay", "round-meters/passes"),
        "a Delay may go behind a combatant who delayed and has not acted, and a delayed idle turn has "
        "lost the document's 1 AP"),
    Correction("0.2", "2026-11-29T17:39", "ap-squares", ("reflexive-leap", "move"),
        ("ap-squares/reflexive-leap", "ap-squares/invade"),
        "a leap has needed 2 AP remaining whatever leap_ap says, and a weightless or GM-closed square is "
        "no way out"),
    Correction("0.2", "2026-11-29T17:42", "speed-meters", ("climb",),
        ("speed-meters/climb", "speed-meters/fall-table"),
        "a climb too long or through rock has been refused before its roll, not rolled and fallen from",
        ("refused",)),
    Correction("0.2", "2026-11-29T18:30", "", (),
        ("tabletrail/side",),
        "a player's side has commanded only its own fighters",
        ("refused",)),
    Correction("0.2", "2026-11-29T18:50", "speed-meters", ("force", "random", "fall"),
        ("speed-meters/forced", "speed-meters/random", "speed-meters/fall-table", "tabletrail/side"),
        "outside forces, random moves and effect falls have been the GM's to enter",
        ("refused",)),
    Correction("0.2", "2026-11-30T17:24", "speed-meters",
        ("move", "special-jump", "hover", "skill-feat", "fall"),
        ("speed-meters/jump", "speed-meters/hover", "speed-meters/fall-table", "speed-meters/special-jump"),
        "jumping has raised a fighter 1 m per Movement in total, every fall has taken its Skill Feat "
        "bumps, and hovering has floated across a dip up to hover_span spaces"),
    Correction("0.2", "2026-11-30T17:28", "", (),
        ("tabletrail/checks", "tabletrail/side"),
        "a table roll has been a face of its die, and the side check has covered end-turn and every table"
        " roll",
        ("refused",)),
    Correction("0.2", "2026-11-30T17:59", "initiative-yards", ("move", "leap", "pull-up", "vault", "drag"),
        ("initiative-yards/engage",),
        "every arrival has engaged (a step, a fall from a missed leap or ledge, a vault's landing, a "
        "friend set down by a drag)"),
    Correction("0.2", "2026-11-30T18:58", "round-meters", ("hold",),
        ("round-meters/sprint", "round-meters/hold"),
        "a held Sprint has resolved its Athletics test when triggered",
        ("check",)),
    Correction("0.2", "2026-11-30T20:24", "speed-meters", ("shove", "push", "pull", "force", "random"),
        (
            "speed-meters/forced",
            "speed-meters/shove",
            "speed-meters/push-pull",
            "speed-meters/random",
            "tabletrail/walls",
        ),
        "a forced move stopped before its first step has been recorded, with the distance meant and what "
        "stopped it",
        ("moved",)),
    Correction("0.2", "2026-11-30T20:27", "round-meters", ("hold", "end-turn"),
        ("round-meters/hold", "round-meters/passes"),
        "a hold has not ended the turn (setting hold_ends_turn, false)"),
    Correction("0.2", "2026-11-30T21:28", "", ("move", "grab", "shove", "push", "pull", "drag"),
        (
            "tabletrail/walls",
            "initiative-yards/engage",
            "speed-meters/grab",
            "speed-meters/shove",
            "speed-meters/push-pull",
        ),
        "a melee Reach, a grab or a shove has not passed a thin wall or a shut door (tabletrail/walls)"),
    Correction("0.2", "2026-11-30T21:40", "initiative-yards", ("drag",),
        ("initiative-yards/drag", "tabletrail/walls"),
        "a drag has taken hold of no body through a wall",
        ("refused", "moved", "placed", "linked")),
    Correction("0.2", "2026-11-30T21:45", "", ("lock", "unlock"),
        ("tabletrail/doors",),
        "the GM has locked and unlocked a door without the named fighter's turn or place"),
    Correction("0.2", "2026-11-30T21:57", "ap-squares", (),
        (
            "ap-squares/zero-g-drift",
            "ap-squares/push-off",
            "ap-squares/zero-g-crawl",
            "ap-squares/zero-g-grab",
        ),
        "a thin wall on a square's edge has been a stable surface in zero gravity"),
    Correction("0.2", "2026-11-30T23:11", "round-meters", ("hold",),
        ("round-meters/hold",),
        "a held action has needed no target"),
    Correction("0.2", "2026-11-30T23:11", "initiative-yards", ("leap",),
        ("initiative-yards/leap",),
        "the gap between two ledges has been any lower open ground, not only cells drawn as gap"),
    Correction("0.2", "2026-11-30T23:12", "speed-meters", ("climb",),
        ("speed-meters/climb",),
        "a climber at the lip of a face has climbed on over the top"),
    Correction("0.2", "2026-11-30T23:13", "initiative-yards", ("open", "close"),
        ("initiative-yards/engaged-actions", "tabletrail/doors"),
        "an engaged fighter held by its engagement has not opened or closed a door",
        ("refused",)),
    Correction("0.2", "2026-11-30T23:13", "ap-squares", ("move",),
        ("ap-squares/invade", "tabletrail/walls"),
        "a move into an occupied square across a wall or shut door has been refused at once",
        ("refused",)),
    Correction("0.2", "2026-11-30T23:15", "speed-meters", ("move",),
        ("speed-meters/occupancy",),
        "a Movement that steps off a ledge has ended where it lands (landing on a fighter refused)",
        ("refused",)),
    Correction("0.2", "2026-11-30T23:16", "initiative-yards", ("vault", "move"),
        ("initiative-yards/vault",),
        "anything lower than half a fighter's height has been vaulted, whatever the map draws it as"),
    Correction("0.2", "2026-11-30T23:25", "speed-meters", ("end-turn", "glide"),
        ("speed-meters/glide",),
        "a glide has moved the document's 5 m at each turn start, not the number after Glide"),
    Correction("0.2", "2026-11-30T23:25", "speed-meters", ("place",),
        ("tabletrail/gm-ruling",),
        "a GM's place onto the ground or into water has settled the fighter's mode there"),
    Correction("0.2", "2026-11-30T23:25", "initiative-yards", ("leap", "drag"),
        ("initiative-yards/leap", "initiative-yards/drag", "initiative-yards/combined"),
        "a leap in a dragging move action has been at most half the halved maximum movement"),
    Correction("0.2", "2026-11-30T23:26", "speed-meters", (),
        ("speed-meters/occupancy",),
        "a fall or glide coming down onto another fighter has landed in the nearest free space"),
    Correction("0.2", "2026-11-30T23:26", "round-meters", ("move",),
        ("round-meters/round-budget",),
        "alternating diagonals have counted on over the round's Movement"),
    Correction("0.2", "2026-11-30T23:26", "initiative-yards", ("move",),
        ("initiative-yards/move",),
        "alternating diagonals have counted on over the move action"),
    Correction("0.2", "2026-11-30T23:28", "speed-meters", (),
        ("speed-meters/occupancy",),
        "the free space a fall or glide lands in has been lower than where it comes down from"),
    Correction("0.2", "2026-11-30T23:30", "initiative-yards", ("pull-up", "move"),
        ("initiative-yards/ledge",),
        "a pull-up has paid the ledge's height only, counting no diagonal"),
    Correction("0.2", "2026-12-01T01:32", "speed-meters", (),
        ("speed-meters/grab",),
        "a fall, glide or GM's hand that carries a grabbed or grabbing fighter out of grapple reach has "
        "ended the grab"),
    Correction("0.2", "2026-12-01T01:35", "initiative-yards", ("move",),
        ("initiative-yards/engage-break",),
        "a standing fighter engaged with a prone foe has broken the engagement where its move leaves that"
        " foe's Reach, not by moving at all"),
    Correction("0.2", "2026-12-01T01:56", "round-meters", ("hold",),
        ("round-meters/hold",),
        "a second hold while a paid one is pending has been refused",
        ("refused",)),
    Correction("0.2", "2026-12-01T01:57", "initiative-yards", ("act",),
        ("initiative-yards/engage", "initiative-yards/engaged-actions"),
        "a second Strike at another foe has waited until the first is resolved"),
    Correction("0.2", "2026-12-01T02:16", "ap-squares", ("adjust", "override"),
        ("tabletrail/gm-ruling",),
        "`adjust` and an override's cost= with no resource named have spent AP",
        ("spent",)),
    Correction("0.2", "2026-12-01T02:16", "initiative-yards", ("move", "setting"),
        ("initiative-yards/slippery",),
        "every slippery check has marked its move action as checked",
        ("marked",)),
    Correction("0.2", "2026-12-01T02:20", "speed-meters", ("adjust",),
        ("tabletrail/gm-ruling",),
        "`adjust` has given meters to the next Movement",
        ("marked",)),
    Correction("0.2", "2026-12-01T02:44", "round-meters", ("end-turn",),
        ("round-meters/passes", "round-meters/hold"),
        "a hold set off inside the holder's own turn has kept that turn acted (no idle AP charged)"),
    Correction("0.2", "2026-12-01T02:46", "initiative-yards", ("move",),
        ("initiative-yards/move",),
        "a step off an edge or into an enemy's Reach that would end the move on a friend's cell has been "
        "refused",
        ("refused",)),
    Correction("0.2", "2026-12-01T02:47", "speed-meters", ("end-turn",),
        ("speed-meters/glide", "speed-meters/occupancy"),
        "a glide's leg at turn start has passed allies in the air, stopped before an enemy and never "
        "ended on anyone"),
    # issue 36, item 12: diagonal=euclidean (initiative-yards' default, round-meters' too; a setting of
    # every ruleset). Gated by the version a log began under (geometry.step_length): an encounter
    # begun before 0.3 keeps each diagonal at 1.41 (2.82 crawled), added, for its whole life, and a
    # log decided so verifies as recorded; one begun under 0.3 or later measures exactly.
    Correction("0.3", "2026-12-03T08:25", "", (),
        (
            "initiative-yards/move",
            "initiative-yards/crawl",
            "initiative-yards/drag",
            "initiative-yards/leap",
            "initiative-yards/vault",
            "initiative-yards/climb",
            "initiative-yards/engaged-actions",
            "round-meters/round-budget",
            "round-meters/difficult",
            "round-meters/move-free",
            "ap-squares/walk",
            "ap-squares/crawl",
            "ap-squares/zero-g-crawl",
            "ap-squares/invade",
            "speed-meters/movement",
            "speed-meters/rough",
            "speed-meters/jump",
            "speed-meters/maneuver",
            "speed-meters/stop",
        ),
        "a euclidean path has measured the exact sum of its steps (a diagonal √2, crawled or through "
        "difficult ground 2·√2 = 2.83), held against the budget exactly and rounded once, not each "
        "diagonal rounded to 1.41 first (three diagonals 4.24, not 4.23; 17 on Initiative 24 are 24.04 yd), "
        "in an encounter begun under it or later; one begun before keeps 1.41 a diagonal, added, for its "
        "whole life, so its log verifies as recorded",
        ("moved", "refused", "spent"), gated=True),
)
# fmt: on


def version_key(version: str) -> tuple[int, ...]:
    """'0.10' -> (0, 10): versions compare number by number; one that is not numbers sorts first."""
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        return ()


def _when(text: str) -> datetime | None:
    """A time as logs and this table write it (ISO 8601; UTC when no zone is said), or None."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def bearing_on(
    under: str,
    ruleset: str,
    verb: str,
    at: str,
    rule: str,
    facts: tuple[str, ...] = (),
    *,
    recorded: bool = True,
) -> list[Correction]:
    """The corrections made since rules version `under` that can change a batch of `verb` under `ruleset`.

    `rule`: the rule id the differing event (or today's refusal) cites, and `facts`
    the kinds of fact that differ (event types, "refused"): a correction bears only on
    the rules and facts it changed. Corrections that name the verb come first, and
    alone when there are any. `recorded`: the log records its version. One that does
    not (decided under 0.1) was decided by whatever tabletrail wrote it, so a
    correction made before the batch's time `at` was in force already and is not named. A gated
    correction is never named: an older log is re-decided the old way, so it changed nothing there.
    """
    version = version_key(under)
    moment = None if recorded else _when(at)
    found = [
        c
        for c in CORRECTIONS
        if version < version_key(c.since)
        and not c.gated
        and c.ruleset in ("", ruleset)
        and (not c.commands or verb in c.commands)
        and rule in c.rules
        and (not c.events or not facts or bool(set(c.events) & set(facts)))
        and (moment is None or moment < (_when(c.made) or moment))
    ]
    return [c for c in found if verb in c.commands] or found


def in_words(under: str, ruleset: str, found: list[Correction]) -> str:
    """'decided under 0.1; speed-meters `adjust` has given meters to the next Movement since 0.2'."""
    said = "; or ".join(
        f"{c.ruleset} {c.says} since {c.since}"
        if c.ruleset
        else f"under every ruleset, {c.says} since {c.since}"
        for c in found
    )
    return f"decided under {under}; {said}"
