"""Walking a path: the loop every ruleset shares, parameterised by a policy.

A move is a list of cells. For each step the ruleset's policy prices it (and
refuses what its rules forbid); the running total is held against the budget;
and where the policy says something happens on a cell (an enemy's reach, a
slippery floor, an occupied square), the steps so far are recorded and the
policy's `on_step` emits the consequence, which may end the move there.
A refusal anywhere drops the whole command: nothing is appended.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from msgspec.structs import replace
from tabletrail.core.board.geometry import ALTERNATING, EUCLIDEAN, XY, Grid, Pos, expand, show, step_length
from tabletrail.core.board.refusal import Refusal, require
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.board.units import fmt, fmt_exact, root2_cu, rounded, sign
from tabletrail.core.board.walls import refuse_step
from tabletrail.core.engine.cell_rulings import forbidden, test_required
from tabletrail.core.engine.dice import Dice, check
from tabletrail.core.fold.batch import Batch
from tabletrail.events.types import Marked, Moved, Step

# A fighter mark: 1 when an odd number of diagonals has been taken on a budget that several
# commands share (alternating rule): the next diagonal of that budget costs 2, whichever command
# takes it. The ruleset unmarks it when the budget starts over.
DIAGONALS = "diagonals"


class StepPolicy(Protocol):
    """How a ruleset prices a walk step by step (`walk`, and the reachable area): what a step
    costs, what happens on a cell, where a move may end; `unit` names what the cost counts."""

    unit: str

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        """The step's cost and facts, or a Refusal naming the rule it breaks."""
        ...

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        """Does something happen once the fighter stands on this step's cell?"""
        ...

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        """Emit what happens there; return why the move stops, or "" to go on."""
        ...

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        """Refuse an end position the rules forbid (an occupied space…)."""
        ...

    # Optional: `cites(step) -> tuple[str, ...]`, the rule ids a step applied (e.g. rough
    # terrain), added to the Moved event's rules.


class QuietSteps:
    """A StepPolicy's defaults for moves where nothing happens on the way: subclass and price."""

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        return False

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        return ""


def walk(
    b: Batch,
    policy: StepPolicy,
    fighter_id: str,
    cells: list[XY],
    *,
    budget: int,
    budget_rule: str,
    rules: tuple[str, ...],
    resource: str = "movement",
    what: str = "the move",
    dice: Dice | None = None,
    carry_diagonals: bool = False,
    parity: int = 0,
) -> tuple[list[Step], str]:
    """Walk the cells; returns the steps taken and why the move stopped early ("" if it didn't).

    carry_diagonals: the budget is shared by several commands (a move split around actions or
    across turns), so the alternating rule's count of diagonals runs on from the last command
    (mark DIAGONALS) instead of starting again: splitting a move never makes it cheaper.
    parity: the diagonals already taken by the move this command goes on with, when the ruleset
    keeps that itself (a Movement going on past a door); ignored when carry_diagonals applies.

    Lengths are exact: a step with a √2 part (a euclidean diagonal, Step.root2) adds that part,
    the move's length is held against the budget in integers (units.sign) and rounded once for
    the refusal's words and the Moved event's budget. With carry_diagonals the budget's exact
    remainder counts too (the √2 part already spent of `resource`, EncounterState.roots).

    GM rulings on cells apply to every ruleset here: a forbidden cell refuses the
    move, a cell that needs a test stops the move there when the test fails (pass
    `dice` so the test can be rolled). So do walls and shut doors on cell edges: a
    step across one is refused under tabletrail/walls before the policy prices it.
    """
    pending: list[Step] = []
    taken: list[Step] = []
    f = b.state.fighter(fighter_id)
    assert f is not None
    carried = carry_diagonals and b.state.settings.get("diagonal") == ALTERNATING
    parity = int(f.marks.get(DIAGONALS, 0)) if carried else parity
    cited = set(rules)
    # The budget left, exact: a budget shared by several commands is what its exact spent amount
    # leaves (core/board/units.py), so splitting a euclidean move never rounds any of it away.
    left_whole, left_root2 = exact_left(b.state, f, budget, resource, carry_diagonals)
    left = budget  # the same, rounded once: what the Moved events record

    def flush(stopped: str = "") -> None:
        nonlocal left, left_whole, left_root2
        if pending:
            whole, root2 = exact_length(pending)
            b.emit(
                Moved(
                    fighter=fighter_id,
                    steps=tuple(pending),
                    resource=resource,
                    budget=left,
                    stopped=stopped,
                    rules=tuple(sorted(cited)),
                )
            )
            left_whole, left_root2 = left_whole - whole, left_root2 - root2
            left = rounded(left_whole, left_root2)
            taken.extend(pending)
            pending.clear()

    here = f.pos
    spent_whole = spent_root2 = 0  # this command's steps so far, exact
    start_whole, start_root2 = left_whole, left_root2
    for cell in cells:
        # tabletrail/walls: walls and shut doors on the edges (and what shuts the way round a wall)
        refuse_step(b.state, here, cell, what, way=(policy, fighter_id, cells[-1], left))
        ruling = forbidden(b.state, *cell, f)
        if ruling:
            raise Refusal(ruling[2], f"the GM ruled {show(cell)} can't be crossed: {ruling[3]}")
        step = policy.price(b.state, f, here, cell, parity)
        if step.root2:
            spent_whole += step.cost - root2_cu(step.root2)
            spent_root2 += step.root2
        else:
            spent_whole += step.cost
        if sign(spent_whole - start_whole, spent_root2 - start_root2) > 0:  # exact, in integers
            raise Refusal(
                budget_rule,
                f"{what} costs {fmt_exact(spent_whole, spent_root2, budget)} {policy.unit} by {show(cell)}, "
                f"but only {fmt(budget)} {policy.unit} are left",
            )
        parity = step.parity
        here = step.to
        pending.append(step)
        cites = getattr(policy, "cites", None)  # optional: the rule ids this step applied
        if cites is not None:
            cited.update(cites(step))
        probe_state = b.state  # the fighter has not moved on the board yet
        probe = _standing_at(f, step.to)
        tested = test_required(b.state, *cell)
        if tested or policy.eventful(probe_state, probe, step):
            flush()
            stopped = _ruled_test(b, dice, policy, fighter_id, cell, tested) if tested else ""
            stopped = stopped or policy.on_step(b, fighter_id, step)
            f = b.state.fighter(fighter_id)
            assert f is not None
            if stopped:
                _note_stop(b, stopped)
                if carried:
                    _carry_diagonals(b, fighter_id, parity, budget_rule)
                return taken, stopped
    flush()
    if carried:
        _carry_diagonals(b, fighter_id, parity, budget_rule)
    f = b.state.fighter(fighter_id)
    assert f is not None
    policy.can_end(b.state, f)
    return taken, ""


def exact_left(
    state: EncounterState, f: Fighter, budget: int, resource: str, shared: bool
) -> tuple[int, int]:
    """A move's budget, exact (whole, √2 part): `budget` itself, or when the budget is shared by
    several commands (`shared`), what the exact amount already spent of `resource` leaves of it.

    `budget` is counted from the rounded spent amount (Fighter.spent); the exact one (with its √2
    part, EncounterState.roots) differs from it by less than half a centi-unit, put back here."""
    exact = shared and state.settings.get("diagonal") == EUCLIDEAN  # as the reachable area counts it
    root2 = state.root2(f.id, resource) if exact else 0
    return budget + root2_cu(root2), -root2


def _carry_diagonals(b: Batch, fighter_id: str, parity: int, rule: str) -> None:
    """Keep the alternating count for the budget's next command, when it changed."""
    f = b.state.fighter(fighter_id)
    if f is None or int(f.marks.get(DIAGONALS, 0)) == parity % 2:
        return
    b.emit(
        Marked(
            fighter=fighter_id,
            key=DIAGONALS,
            value=parity % 2,
            rules=(rule,),
            note="alternating diagonals count on over the whole budget: the next diagonal costs "
            + ("2" if parity % 2 else "1"),
        )
    )


def _ruled_test(
    b: Batch, dice: Dice | None, policy: StepPolicy, fighter_id: str, cell: XY, ruling: list[Any]
) -> str:
    """A GM-required test to cross a cell: failing it ends the move there.

    A policy may define `test_modifier(state, fighter_id) -> (modifier, why[, rule ids])` for
    the modifiers its ruleset puts on every test (e.g. a sprint's cumulative penalty); the
    rule ids are cited by the check.
    """
    _, _, rule, why, target = ruling
    if dice is None:
        raise Refusal(rule, f"the GM requires a test at {show(cell)} ({why}) but this move takes no checks")
    modifier, because = 0, ""
    cites: tuple[str, ...] = ()
    hook = getattr(policy, "test_modifier", None)
    if hook is not None:
        modifier, because, *more = hook(b.state, fighter_id)
        cites = tuple(more[0]) if more else ()
    result = check(
        b,
        dice,
        fighter=fighter_id,
        name="ruled test",
        rule=rule,
        target=int(target),
        modifier=modifier,
        note=f"the GM requires a test at {show(cell)}: {why}" + (f"; {because}" if because else ""),
    )
    if cites:  # the rules behind the modifier are cited by the check they changed
        b.events[-1] = replace(result, rules=(rule, *cites))
    return "" if result.passed else f"failed the GM's test at {show(cell)} ({why})"


def _standing_at(f: Fighter, pos: Pos) -> Fighter:
    return replace(f, pos=pos)


def _note_stop(b: Batch, why: str) -> None:
    """Mark the last Moved event of the batch with why the move ended there."""
    for i in range(len(b.events) - 1, -1, -1):
        event = b.events[i]
        if isinstance(event, Moved):
            b.events[i] = replace(event, stopped=why)
            return


def flat_step(
    grid: Grid,
    frm: Pos,
    to: XY,
    parity: int,
    *,
    diagonal: str,
    version: str,
    terrain_factor: int = 1,
    mode: str = "",
) -> Step:
    """A king's step across the ground: diagonal rule, then a terrain multiplier.

    version: the rules version the encounter began under (EncounterState.rules_version), which
    decides how a euclidean diagonal is counted (geometry.step_length)."""
    dx, dy = to[0] - frm[0], to[1] - frm[1]
    if max(abs(dx), abs(dy)) != 1:
        raise ValueError(f"{show(frm)} to {show(to)} is not one step")
    whole, root2, parity = step_length(diagonal, dx, dy, parity, version=version)
    z = grid.top[to[1]][to[0]]
    kind = grid.kind(*to)
    # The multiplier applies to the exact length, then it is rounded: a crawled euclidean diagonal is
    # 2·√2 = 2.83, not 2 x 1.41 (the √2 part is kept, so the path is rounded once, core/board/units.py).
    return Step(
        to=(to[0], to[1], z),
        cost=rounded(whole * terrain_factor, root2 * terrain_factor),
        terrain=kind.terrain,
        diagonal=bool(dx and dy),
        parity=parity,
        mode=mode,
        root2=root2 * terrain_factor,
    )


def exact_length(steps: Iterable[Step]) -> tuple[int, int]:
    """The exact length of steps: (whole, √2 part) in centi-units (core/board/units.py)."""
    whole = root2 = 0
    for s in steps:
        if s.root2:
            whole += s.cost - root2_cu(s.root2)
            root2 += s.root2
        else:
            whole += s.cost
    return whole, root2


def length_of(steps: Iterable[Step]) -> int:
    """What steps cost, their exact length rounded once (three euclidean diagonals: 4.24)."""
    return rounded(*exact_length(steps))


def rise(frm: Pos, to: Pos) -> int:
    """Height gained by a step, in centi-units (negative when going down)."""
    return to[2] - frm[2]


def waypoint(state: EncounterState, raw: tuple[int, ...], rule: str) -> XY:
    """A cell a command names, read as x,y on the map, or refused under `rule`."""
    require(len(raw) >= 2, rule, f"{raw!r} is not a cell; write x,y")
    require(
        state.grid.inside(raw[0], raw[1]),
        rule,
        f"{show(raw)} is off the {state.grid.width}x{state.grid.height} map",
    )
    return raw[0], raw[1]


def path_cells(state: EncounterState, f: Fighter, path: Sequence[tuple[int, ...]], rule: str) -> list[XY]:
    """The cells a move's waypoints walk through, joined by straight lines: every ruleset reads a
    path this one way, and refuses it under its own move rule."""
    cells = expand((f.pos[0], f.pos[1]), [waypoint(state, wp, rule) for wp in path])
    require(bool(cells), rule, f"{f.id} is already at {show(f.pos)}")
    return cells


def end_alone(state: EncounterState, f: Fighter, rule: str) -> None:
    """A move that may pass others but not end on their cell: refused under `rule` if it would."""
    others = [o.id for o in state.at(f.pos[0], f.pos[1]) if o.id != f.id]
    if others:
        raise Refusal(rule, f"the move would end on {show(f.pos)}, occupied by {', '.join(others)}")
