"""What a replay bundle carries besides the lines: the board after every event and the words.

The engine's fold stays the one source of truth: the board after each event is folded
here (the timeline, as `show --at N` folds it) and written as the table view draws it
(app/web/views.py), so the page only draws. Boards go as one full view and then, per
event, only what changed; the explanations (the very text `tabletrail explain` prints)
are written as codes into a table of lines and runs of lines kept once each, since events
of a batch, and batches in a row, share most of theirs; an event's head line and its
batch's listing, which repeat the events' own words, are made by the page from the events
carried (`HEAD_LINE`, `LISTING`), each checked here to say what `explain` says.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import msgspec
from tabletrail.core.board.state import EncounterState, Fighter, Turn
from tabletrail.core.board.units import fmt
from tabletrail.core.board.walls import door_list, wall_lines
from tabletrail.core.engine.cell_rulings import FORBID, TEST
from tabletrail.core.engine.machines import GRAPHS
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.events.stores.record import Record
from tabletrail.events.types import Event
from tabletrail.projections.audit.explain import Around, explain_batch, target_batch
from tabletrail.projections.audit.parts import RulingsInForce, Statuses, fighter_card, rule_words
from tabletrail.projections.timeline import Timeline
from tabletrail.text.render import Words
from tabletrail.web import cards

_NONE = object()
_ENCODE = msgspec.json.encode
# A player's bundle leaves the GM's rulings out of every explanation; this line says so instead.
RULINGS_LEFT_OUT = "GM rulings: left out of a player's bundle"


def board_view(
    state: EncounterState, rulings: bool = True, fighters: FighterViews | None = None
) -> dict[str, Any]:
    """The board after one event, as the table view draws it: fighters, turn, links, doors, rulings
    (the cells the GM forbade or set a test on; none without `rulings`, as a player's screen).
    `fighters`: views kept from the boards before, so a fighter nothing touched is not drawn again."""
    rs = get_ruleset(state.ruleset)
    if fighters is None:
        return {
            "turn": _turn_view(state),
            "fighters": {f.id: fighter_view(state, f, rs) for f in state.fighters},
            "links": _links_view(state),
            "doors": door_list(state),
            "rulings": _rulings_view(state, rulings),
        }
    drawn = fighters.of(state, rs)
    kept = fighters.around
    if kept is not None and kept[0] is fighters.parts and kept[1] is rulings:
        turn, links, doors, ruled = kept[2]  # every part but the fighters the state before's
    else:
        turn = fighters.part("turn", state.turn, state, _turn_view)
        links = fighters.part("links", state.links, state, _links_view)
        doors = fighters.part("doors", (state.scenario, state.doors), state, door_list)
        ruled = fighters.part("rulings", (state.marks, rulings), state, lambda s: _rulings_view(s, rulings))
        fighters.around = (fighters.parts, rulings, (turn, links, doors, ruled))
    return {"turn": turn, "fighters": drawn, "links": links, "doors": doors, "rulings": ruled}


def _turn_view(state: EncounterState) -> dict[str, Any]:
    t = state.turn
    return {"order": list(t.order), "active": t.active, "round": t.round, "pass": t.pass_no}


def _links_view(state: EncounterState) -> list[list[Any]]:
    return [list(link) for link in state.links]


def _rulings_view(state: EncounterState, rulings: bool) -> dict[str, list[list[Any]]]:
    return {
        "forbid": [list(e) for e in state.marks.get(FORBID, ())] if rulings else [],
        "test": [list(e) for e in state.marks.get(TEST, ())] if rulings else [],
    }


# What the table view's fighter (web/cards.py) has that a replay does not draw.
NOT_DRAWN = ("spent", "marks", "stats", "image")


def fighter_view(state: EncounterState, f: Fighter, rs: Ruleset) -> dict[str, Any]:
    """The table view's fighter (cards.fighter and its card), less what a replay does not draw
    (stats, marks, token pictures), each of the ruleset's answers asked once: the table view asks
    for the budget's unit four times and the budget twice, and a bundle draws a fighter on every
    event (tests/projections/test_bundle_fighter_view.py holds the two equal)."""
    x, y, z = f.pos
    unit = rs.budget_unit(state, f)
    left = rs.move_budget(state, f)
    spent = cards.spent_words(rs, rs.spent_counted(state, f))
    ap = unit.lower() == "ap"
    words = Words(rs)
    card = [f"{words.measure('ap' if ap else 'movement', left)} {'left' if ap else 'to move'}"]
    more, what = rs.further_budget(state, f)
    if more > 0 and what:
        card.append(f"{what}: {words.measure('movement', more)} more")
    if spent:
        card.append("spent " + ", ".join(spent))
    turn = rs.turn_words(f)
    return {
        "id": f.id,
        "name": f.name,
        "side": f.side,
        "pos": [x, y, z],
        "ground": state.grid.top[y][x],
        "size": f.size,
        "states": dict(f.states),
        "spent_text": spent,
        "move_unit": unit,
        "move_left": left,
        "move_left_text": f"{fmt(left)} {unit}",
        "heading": cards.heading(state, f),
        "damage": f.damage,
        "tags": list(f.tags),
        "active": state.turn.active == f.id,
        "turn_text": turn,
        "card": {"left": card, "states": cards.states_words(state, f, turn) + rs.card_words(state, f)},
    }


class _Watched(tuple):  # type: ignore[type-arg]
    """A state's fighters that note being read, so a view can tell it read only its own fighter.

    Every way Python reads a tuple of fighters (iterating, indexing, slicing, `in`, `len`,
    comparing, hashing) goes through these, and a fighter's view reads the state only through
    Python code (the ruleset's and the cards'): one that reads `state.fighters` or
    `state.fighter(...)` (its own included) is kept against the whole tuple instead. C code that
    takes a tuple's items directly (msgspec encoding a whole state) would go unnoted: nothing a
    view asks does (a view encodes its fighter's marks at most), and the replay-wide test would
    catch a view that came to."""

    read = False  # each instance its own once set: bundles made in threads at once don't mix

    def _seen(self) -> None:
        self.read = True

    def __iter__(self) -> Iterator[Any]:
        self._seen()
        return super().__iter__()

    def __getitem__(self, i: Any) -> Any:
        self._seen()
        return super().__getitem__(i)

    def __len__(self) -> int:
        self._seen()
        return super().__len__()

    def __contains__(self, x: object) -> bool:
        self._seen()
        return super().__contains__(x)

    def __reversed__(self) -> Iterator[Any]:
        self._seen()
        return iter(tuple.__getitem__(self, slice(None, None, -1)))

    def __eq__(self, other: object) -> bool:
        self._seen()
        return super().__eq__(other)

    def __ne__(self, other: object) -> bool:
        self._seen()
        return super().__ne__(other)

    def __hash__(self) -> int:
        self._seen()
        return super().__hash__()

    def index(self, *args: Any) -> int:
        self._seen()
        return super().index(*args)

    def count(self, x: Any) -> int:
        self._seen()
        return super().count(x)


# What of a state a fighter's view may read besides the fighters: kept by identity (the fold
# replaces a part it changes, and a part kept is the same object).
_OTHER_PARTS = tuple(n for n in EncounterState.__struct_fields__ if n != "fighters")
# The same but the turn, which changes at every end of a turn while a view reads little of it.
_NOT_TURN = tuple(n for n in _OTHER_PARTS if n != "turn")
_parts_of = operator.attrgetter(*_OTHER_PARTS)
_not_turn_of = operator.attrgetter(*_NOT_TURN)


def _turn_watcher() -> tuple[type[Turn], set[str]]:
    """A Turn whose attributes note being read, and the set of their names (its own per bundle, so
    bundles made in threads at once don't mix). A name read that is no field nor `active` (a dunder:
    compared, hashed) stands for the whole turn. C code that reads a struct's fields directly
    (msgspec encoding it) would go unnoted, as with `_Watched`: no view does."""
    read: set[str] = set()

    class WatchedTurn(Turn, frozen=True, gc=False):
        def __getattribute__(self, name: str) -> Any:
            read.add(name)
            return super().__getattribute__(name)

        def __eq__(self, other: object) -> bool:
            read.add("__eq__")
            return msgspec.structs.astuple(self) == msgspec.structs.astuple(other)  # type: ignore[arg-type]

        def __hash__(self) -> int:
            read.add("__hash__")
            return hash(msgspec.structs.astuple(self))

    return WatchedTurn, read


_TURN_NAMES = frozenset((*Turn.__struct_fields__, "active"))
_TURN_GETTERS: dict[tuple[str, ...], Callable[[Turn], Any]] = {}


def _turn_getter(names: tuple[str, ...]) -> Callable[[Turn], Any]:
    """What a view read of a turn, as one value to compare: these attributes of it (none: nothing)."""
    got = _TURN_GETTERS.get(names)
    if got is None:
        got = _TURN_GETTERS[names] = operator.attrgetter(*names) if names else lambda turn: ()
    return got


class FighterViews:
    """Each fighter's view kept from the board before, drawn again only when what it read changed.

    A view is a function of what it reads: its fighter, the state's other parts (turn, settings,
    links, marks, doors...) and, for some rulesets' answers, the other fighters. Each is drawn once
    over a state whose fighters note being read (`_Watched`): a view that did not read them is
    kept while its own fighter and every other part of the state are the very same objects; one
    that did is kept only while the whole tuple of fighters is. So a move redraws the mover and
    whoever reads the movers, not everyone (tests/projections/test_bundle_fighter_cache.py holds
    the kept views equal to fresh ones at every event of every shipped replay).

    A view drawn is kept by its fighter's value too (as JSON), beside the state's other parts but the
    turn (by identity) and what it read of the turn (a `_turn_watcher` Turn: mostly whose turn it
    is, not the round): a fighter that walks back to where and how it was a turn or two before is
    not drawn again (tests/bundle/test_bundle_same_bytes.py holds the bundle the slow way's).

    A view kept answers for its fighter's card in the explanations too (`card`)."""

    def __init__(self) -> None:
        # fighter id -> (its Fighter, the state's other parts, the fighters tuple if it read them, view)
        self.kept: dict[str, tuple[Fighter, tuple[Any, ...], tuple[Fighter, ...] | None, dict[str, Any]]] = {}
        self.parts: tuple[Any, ...] = ()  # the state's other parts the views below were drawn on
        self.others: tuple[Any, ...] = ()  # and but the turn, the last asked (`of`)
        self.board: dict[str, tuple[Any, Any]] = {}  # the board's other views, by what they were drawn of
        # the last board's other views with the state's parts and the `rulings` they were drawn with
        self.around: tuple[tuple[Any, ...], bool, tuple[Any, Any, Any, Any]] | None = None
        # views drawn before, by their fighter as JSON: each with the state's parts but the turn it was
        # drawn on, the fighters if it read them, and what it read of the turn (the attributes' getter
        # and their values then, or the turn itself when it read it whole)
        self.alike: dict[bytes, list[tuple[tuple[Any, ...], Any, Any, dict[str, Any]]]] = {}
        self.turn_class, self.turn_read = _turn_watcher()
        # a view's id -> the view (held, so that an id is never mistaken) and its fighter's card (`card`)
        self.cards: dict[int, tuple[dict[str, Any], dict[str, Any] | None]] = {}

    def part(self, name: str, of: Any, state: EncounterState, draw: Callable[[EncounterState], Any]) -> Any:
        """The board's view `name` (turn, links, doors, rulings) kept while what it is drawn of, `of`
        (parts of the state, compared by identity), is the same: the board before's very view, which
        `delta` then passes over at once."""
        kept = self.board.get(name)
        if kept is not None and _same(kept[0], of):
            return kept[1]
        view = draw(state)
        self.board[name] = (of, view)
        return view

    def of(self, state: EncounterState, rs: Ruleset) -> dict[str, dict[str, Any]]:
        """Every fighter's view on this state, in the state's order."""
        parts = _parts_of(state)
        last = self.parts
        if len(last) == len(parts) and all(map(operator.is_, last, parts)):
            parts = last  # the very parts of the state before: each view below compares one object
        self.parts = parts
        watched: EncounterState | None = None
        others: tuple[Any, ...] | None = None  # the state's parts but the turn, when first asked
        seen = _Watched()
        out: dict[str, dict[str, Any]] = {}
        kept = self.kept
        for f in state.fighters:
            old = kept.get(f.id)
            if (
                old is not None
                and old[0] is f
                and old[1] is parts
                and (old[2] is None or old[2] is state.fighters)
            ):
                out[f.id] = old[3]
                continue
            code = _ENCODE(f)
            if others is None:
                others = _not_turn_of(state)
                before = self.others
                if len(before) == len(others) and all(map(operator.is_, before, others)):
                    others = before  # the very tuple views were kept with: `_same` compares one object
                self.others = others
            view = self._recall(code, state, others)
            if view is None:
                if watched is None:
                    seen = _Watched(state.fighters)
                    turn = self.turn_class(*msgspec.structs.astuple(state.turn))
                    watched = msgspec.structs.replace(state, fighters=seen, turn=turn)
                seen.read = False
                self.turn_read.clear()
                view = fighter_view(watched, f, rs)
                self._keep(code, state, others, seen.read, view)
            kept[f.id] = (f, parts, state.fighters if seen.read else None, view)
            out[f.id] = view
        return out

    def card(
        self, view: dict[str, Any], rs: Ruleset, state: EncounterState, fid: str
    ) -> dict[str, Any] | None:
        """Fighter `fid`'s card on `state` (parts.fighter_card: what explain shows of it), given its
        view drawn for that state by `of`: made once a view. The card reads of the state what the view
        read, no more: its fighter (whose value a view is kept by) and the ruleset's spent_counted,
        move_budget and budget_unit of it, which the view asked too (fighter_view); so wherever `of`
        gives a view again, nothing the card would read has changed, and its card is the same, however
        far apart in the log the two states (tests/bundle/test_bundle_same_words.py)."""
        kept = self.cards.get(id(view))
        if kept is None or kept[0] is not view:
            if len(self.cards) >= CARDS_KEPT:  # bounded, whatever the length of the log
                self.cards.clear()
            kept = self.cards[id(view)] = (view, fighter_card(rs, state, fid))
        return kept[1]

    def _recall(self, code: bytes, state: EncounterState, others: tuple[Any, ...]) -> dict[str, Any] | None:
        """A view drawn before of a fighter of the same value, on the same parts of the state but
        the turn, the same fighters if it read them, and the same values of what it read of the turn:
        the same view (a fighter comes back to where and how it was a turn or two before)."""
        for drawn_on, fighters, turn, view in self.alike.get(code, ()):
            if fighters is not None and fighters is not state.fighters:
                continue
            if not _same(drawn_on, others):
                continue
            now = state.turn
            if turn is now or (type(turn) is tuple and turn[0](now) == turn[1]):
                return view
        return None

    def _keep(
        self,
        code: bytes,
        state: EncounterState,
        others: tuple[Any, ...],
        read_fighters: bool,
        view: dict[str, Any],
    ) -> None:
        read = self.turn_read
        turn: Any = state.turn
        if read <= _TURN_NAMES:
            of = _turn_getter(tuple(sorted(read)))
            turn = (of, of(state.turn))
        if len(self.alike) >= 4096:  # bounded, whatever the length of the log
            self.alike.clear()
        drawn = self.alike.setdefault(code, [])
        if len(drawn) >= 4:
            del drawn[0]
        drawn.append((others, state.fighters if read_fighters else None, turn, view))


def _same(a: Any, b: Any) -> bool:
    """The very same objects: one, or tuples of them item by item."""
    if a is b:
        return True
    if type(a) is tuple and type(b) is tuple and len(a) == len(b):
        return all(map(operator.is_, a, b))
    return False


def static_board(state: EncounterState) -> dict[str, Any]:
    """What never changes in an encounter: the map, its walls, the sides and how states rest."""
    sc = state.scenario
    rs = get_ruleset(state.ruleset)
    return {
        "name": sc.name,
        "ruleset": {"id": rs.id, "title": rs.title, "unit": rs.unit},
        "map": cards.map_view(state),
        "walls": wall_lines(sc),
        "machines": {name: g.initial for name, g in sorted(GRAPHS.items())},
        "sides": sorted({f.side for f in state.fighters}),
        "side_colours": sc.side_colours(),
    }


# Fighters' changes made before, by the two views' ids (each held beside its change, so an id is
# never mistaken): views are kept by value (FighterViews), so a fight that walks back and forth
# goes between the same few views again and again.
Diffs = dict[tuple[int, int], tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]


def delta(before: dict[str, Any], after: dict[str, Any], diffs: Diffs | None = None) -> dict[str, Any]:
    """What changed from one board to the next: top-level parts whole, fighters key by key (each
    fighter's change kept in `diffs` when given)."""
    out: dict[str, Any] = {}
    for key, value in after.items():
        if key == "fighters":
            changed = {}
            for fid, f in value.items():
                old = before["fighters"].get(fid)
                if old is f:  # a view kept from the board before (FighterViews): nothing changed
                    continue
                if old is None:
                    changed[fid] = f
                    continue
                if diffs is None:
                    diff = _diff(old, f)
                else:
                    kept = diffs.get((id(old), id(f)))
                    if kept is None or kept[0] is not old or kept[1] is not f:
                        if len(diffs) >= 4096:  # bounded, whatever the length of the log
                            diffs.clear()
                        kept = diffs[id(old), id(f)] = (old, f, _diff(old, f))
                    diff = kept[2]
                if diff:
                    changed[fid] = diff
            if changed:
                out["fighters"] = changed
        elif key not in before or (before[key] is not value and before[key] != value):
            out[key] = value
    return out


def _diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """A fighter's view's keys whose values changed, with their new values."""
    return {k: v for k, v in new.items() if old.get(k) != v}


@dataclass
class Lines:
    """What the explanations say, each kept once in one table: lines (strings), and runs of lines
    (lists of the lines' numbers) that explanations share: a batch's lines, which each of its
    events says, or an event's own lines but its head, which events of a kind say alike."""

    table: list[str | list[int]] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    runs: dict[tuple[int, ...], int] = field(default_factory=dict)

    def numbers(self, lines: list[str]) -> list[int]:
        """The lines' numbers, a line not seen before given the next (a line holding a newline is one
        line here: joined, it reads the same). Most were seen before (a batch's, the settings), so
        all are looked up at once and only the new ones numbered one by one."""
        index = self.index
        out = list(map(index.get, lines))
        if None not in out:  # looked for in C
            return cast("list[int]", out)
        for i, n in enumerate(out):
            if n is None:
                line = lines[i]
                n = index.get(line)  # the same new line twice in one text: numbered once
                if n is None:
                    n = index[line] = len(self.table)
                    self.table.append(line)
                out[i] = n
        return cast("list[int]", out)  # every None numbered above

    def code(self, lines: list[str]) -> list[int]:
        """Lines said in a row as their code: one line's number, or the table's run of their numbers,
        kept once by value (no line, no code)."""
        ids = self.numbers(lines)
        if len(ids) < 2:
            return ids
        key = tuple(ids)
        n = self.runs.get(key)
        if n is None:
            n = self.runs[key] = len(self.table)
            self.table.append(ids)
        return [n]


# An event as carried (a step's second part): its fields in this order, what the page lists of it
# (`status` "" while in force; who logged it and when are in its line); a withheld event is its seq
# and batch alone. The words name them (`fields`), and the page reads each event back as an object
# of them (`event_of`).
FIELDS = ("seq", "batch", "text", "rules", "note", "status")

# An explanation as written is a list of codes: a number into the table (`Lines`: a line, or a run
# of lines), or one of these, a line (lines) the page makes from the events carried, which the
# explanation was checked to say word for word (`head_line`, `listed_line`):
HEAD_LINE = -1  # the event's own first line
LISTING = -2  # the listing of its batch's events, a line each, its own marked


def event_of(written: Sequence[Any]) -> dict[str, Any]:
    """An event as carried, read back: its fields by name, a withheld one's `withheld` true."""
    if len(written) == 2:
        return {"seq": written[0], "batch": written[1], "withheld": True}
    return dict(zip(FIELDS, written, strict=True))


def head_line(seq: int, batch: int, status: str, text: str) -> str:
    """An explanation's first line, from the event as carried: `event 12 (batch 4, in force): …`."""
    return f"event {seq} (batch {batch}, {status or 'in force'}): {text}"


def listed_line(seq: int, text: str, rules: Sequence[str], note: str, marked: bool = False) -> str:
    """An event's line in its batch's listing, from the event as carried: `   12 what happened  [rule
    ids]  — why`, marked ` >` in its own explanation."""
    cited = f"  [{', '.join(rules)}]" if rules else ""
    why = f"  — {note}" if note else ""
    return f"{' >' if marked else '  '}{seq:>4} {text}{cited}{why}"


def explanation(
    events: Sequence[Mapping[str, Any]], codes: Sequence[int], table: Sequence[str | list[int]], k: int
) -> str:
    """The text of the `k`th carried event's explanation from its codes, as the page reads them
    (app/web/static/bundle.js `explanation`): `events` every event carried, read back (`event_of`)."""
    e = events[k]
    out: list[str] = []
    for code in codes:
        if code == HEAD_LINE:
            out.append(head_line(e["seq"], e["batch"], e["status"], e["text"]))
        elif code == LISTING:
            for j in _batch_around(events, k):
                o = events[j]
                out.append(listed_line(o["seq"], o["text"], o["rules"], o["note"], j == k))
        else:
            said = table[code]
            out.extend([said] if isinstance(said, str) else [cast(str, table[i]) for i in said])
    return "\n".join(out)


def _batch_around(events: Sequence[Mapping[str, Any]], k: int) -> range:
    """The places of the events carried of the `k`th's batch (its neighbours of the same batch)."""
    batch = events[k]["batch"]
    lo, hi = k, k
    while lo > 0 and events[lo - 1]["batch"] == batch:
        lo -= 1
    while hi + 1 < len(events) and events[hi + 1]["batch"] == batch:
        hi += 1
    return range(lo, hi + 1)


_RULINGS_LINE = "GM rulings in force before it: none"


def _left_out(text: str, rulings: bool) -> str:
    """A player's explanation: the GM's rulings' line says they are left out."""
    return text if rulings else text.replace(_RULINGS_LINE, RULINGS_LEFT_OUT)


# One event's listing as the page would make it: the lines of its batch's events unmarked, its own
# line marked, and its place among them.
Listing = tuple[list[str], str, int]


def _own_codes(lines: list[str], strings: Lines, head: str, listing: Listing | None) -> list[int]:
    """The codes of an event's lines (some at least): its batch's listing as `LISTING` when they are
    that, its head line as `HEAD_LINE`, the lines between as the table's (`Lines.code`)."""
    if listing is not None:
        others, mine, i = listing
        if (
            len(lines) == len(others)
            and lines[i] == mine
            and lines[:i] == others[:i]
            and lines[i + 1 :] == others[i + 1 :]
        ):
            return [LISTING]
    if lines[0] == head:
        if lines.count(head) == 1:  # an event's own run: its head, then its lines
            return [HEAD_LINE, *strings.code(lines[1:])]
    elif head not in lines:
        return strings.code(lines)
    codes: list[int] = []
    at = 0
    for j, line in enumerate(lines):
        if line == head:
            codes.extend(strings.code(lines[at:j]))
            codes.append(HEAD_LINE)
            at = j + 1
    codes.extend(strings.code(lines[at:]))
    return codes


def _run_codes(
    runs_of: list[list[list[str]]],
    strings: Lines,
    rulings: bool,
    heads: list[str],
    listings: list[Listing | None],
) -> list[list[int]]:
    """Each text's codes from its runs (explain_runs), by `_own_codes` (its head line `heads[i]`, its
    listing `listings[i]`): a run the batch's events share (the very same list) made once, when its
    codes hold no line made from the event (which another event's would not be). The text read
    back (`explanation`) is the runs' lines joined, a player's rulings' line replaced: that line
    holds no newline, so it is replaced within its run as within the whole text (and a line
    holding a newline reads back the same joined, whether cut there or not)."""
    shared: dict[int, list[int]] = {}  # by the run's id: every run is held by runs_of, no id reused
    out = []
    for runs, head, listing in zip(runs_of, heads, listings, strict=True):
        codes: list[int] = []
        for run in runs:
            if not run:
                continue  # an empty run adds no line to the joined text
            kept = shared.get(id(run))
            if kept is None:
                kept = _own_codes(run if rulings else _left_out_of(run), strings, head, listing)
                if min(kept) >= 0:  # no line made from this event's own words
                    shared[id(run)] = kept
            codes += kept
        out.append(codes)
    return out


def _left_out_of(run: list[str]) -> list[str]:
    """A run of a player's explanation, its rulings' line saying they are left out (the very run
    when it has none)."""
    if _RULINGS_LINE not in "\n".join(run):
        return run
    return [_left_out(line, False) for line in run]


def _listings(listed: list[str]) -> list[Listing]:
    """Each event's listing as the page makes it from the events carried of its batch, given each
    one's line (`listed_line`, unmarked): the lines, its own marked, its place."""
    return [(listed, " >" + line[2:], i) for i, line in enumerate(listed)]


def _batches(records: Sequence[Record]) -> list[list[Record]]:
    groups: list[list[Record]] = []
    for r in records:
        if groups and groups[-1][0].batch == r.batch:
            groups[-1].append(r)
        else:
            groups.append([r])
    return groups


class ExplainRuns(Protocol):
    """text.audit.explain_runs: a batch's explanations as runs of lines, given the batch's events
    as held and the words to say them with (not decoded and worded again)."""

    def __call__(
        self,
        datas: list[dict[str, Any]],
        *,
        known: Mapping[int, Event] | None = None,
        words: Words | None = None,
    ) -> list[list[list[str]]]: ...


# Whether an explanation's fighter cards are the views' (FighterViews.card): off, explain_batch
# makes them as `explain` does (the bundle is the same bytes either way: a test turns this off).
CARDS_FROM_VIEWS = True
CARDS_KEPT = 4096  # the cards kept (FighterViews.card): bounded, whatever the length of the log


# One carried event as the page reads it: the board after it (the whole board for the first event
# carried, then only what changed), the event as `log` says it, and its `explain` text as line
# numbers into the table of lines (`Lines`) kept once.
Step = tuple[dict[str, Any], list[Any], list[int]]


def carry_batches(
    records: Sequence[Record],
    first: int,
    last: int,
    explain_texts: Callable[[list[dict[str, Any]]], list[str]],
    refused: Sequence[Any] = (),
    *,
    shown: Callable[[Record], bool] | None = None,
    rulings: bool = True,
    progress: Callable[[int, int], None] | None = None,
    whole: Timeline | None = None,
    strings: Lines | None = None,
    explain_runs: ExplainRuns | None = None,
) -> Iterator[list[Step]]:
    """Fold the log once, giving the board after each carried event and its explanation as it goes,
    a batch's at a time (so a long log's bundle is streamed into its gzip, never held whole); the
    lines of the explanations are kept in `strings`.

    `explain_texts` is the CLI's (app/text/audit.py), so the page says what `explain`
    says. An event `shown` refuses is carried as a gap: no words, no explanation (no `shown`: every
    event is told).
    Without `rulings` (a player's bundle) the GM's rulings are left out of every board and
    explanation, and so are the settings a ruling changed: the rules of the server's per-role
    redaction (a player's screen), applied to what a bundle carries. `progress(done, of)` is told
    after each batch how many events are made. `whole`: the timeline of `records[:last]` when the
    caller has it folded already (an encounter opened from the log), so it is not folded again.
    `explain_runs`: the same texts as runs of lines (app/text/audit.py), the runs a batch's events
    share numbered once, not each event's text joined and cut up again (the same numbers).
    """
    if whole is None:
        whole = Timeline()
        whole.extend(records[:last])
    began = records[0].event.settings
    rs = get_ruleset(records[0].event.scenario.ruleset)
    words = Words(rs)
    running = Timeline()
    in_force = RulingsInForce()
    statuses = Statuses(whole)
    refused_after: dict[int, list[Any]] = {}
    for x in refused:
        refused_after.setdefault(getattr(x, "after_seq", None), []).append(x)  # type: ignore[arg-type]
    strings = strings if strings is not None else Lines()
    previous: dict[str, Any] | None = None
    last_state: EncounterState | None = None
    last_board: dict[str, Any] = {}
    views = FighterViews()
    diffs: Diffs = {}
    said_rules: dict[str, dict[str, str]] = {}  # each rule's words, looked up once (a log cites a few)

    def said_rule(rule: str) -> dict[str, str]:
        said_rules[rule] = rule_words(rs, rule)
        return said_rules[rule]

    # the fighters' views drawn for the boards before and after the batch (None: not drawn here)
    drawn_before: dict[str, dict[str, Any]] | None = None
    drawn_after: dict[str, dict[str, Any]] | None = None

    def card(rs: Ruleset, state: EncounterState | None, fid: str) -> dict[str, Any] | None:
        """A fighter's card on the board before or after the batch, by its view (FighterViews.card)."""
        drawn = drawn_after if state is running.state else drawn_before if state is before else None
        view = drawn.get(fid) if drawn is not None else None
        if view is None or state is None:  # no such fighter, or a board not drawn (before `first`)
            return fighter_card(rs, state, fid)
        return views.card(view, rs, state, fid)

    for batch in _batches(records[:last]):
        before = running.state
        drawn_before = last_board.get("fighters") if before is not None and last_state is before else None
        rulings_before = in_force.now() if before is not None and batch[0].seq >= first else []
        boards = []
        for r in batch:
            running.apply(r)
            in_force.apply(r)
            if r.seq >= first:
                if running.state is not last_state:  # a command's header changes nothing: same board
                    last_state, last_board = running.state, board_view(running.state, rulings, views)  # type: ignore[arg-type]
                boards.append(last_board)
        if progress is not None:
            progress(batch[-1].seq, last)
        if not boards:
            continue
        drawn_after = last_board.get("fighters") if last_state is running.state else None
        around = Around(
            before=before,
            after=running.state,  # type: ignore[arg-type]
            whole=whole,
            rulings=rulings_before,
            target=target_batch(records, whole, batch[0].event),
            refused=refused_after.get(batch[0].seq - 1, []),
            status=statuses.of(batch[0].batch),
            cards=card if CARDS_FROM_VIEWS else None,
        )
        data = explain_batch(batch, batch[0].seq, around)
        if not rulings:  # a player's: no ruling's words, no cell ruled, no setting a ruling changed
            data["rulings"] = {"in_force": [], "cells": [], "made_here": []}
            data["settings"] = [s for s in data["settings"] if began.get(s["name"], _NONE) == s["value"]]
        carried = batch if batch[0].seq >= first else [r for r in batch if r.seq >= first]
        told = carried if shown is None else [r for r in carried if shown(r)]
        all_told = len(told) == len(carried)
        plains = {e["seq"]: e["event"] for e in data["events"]}  # each event's plain form, made once
        datas = [
            {
                **data,
                "seq": r.seq,
                "event": plains[r.seq],
                "rules": [said_rules[x] if x in said_rules else said_rule(x) for x in r.event.rules],
            }
            for r in told
        ]
        status = data["status"] if data["status"] != "in force" else ""
        worded = [words.event(r.event) for r in told]
        said = [  # each event as carried (FIELDS)
            [r.seq, r.batch, text, r.event.rules, r.event.note, status]
            for r, text in zip(told, worded, strict=True)
        ]
        heads = [head_line(r.seq, r.batch, status, text) for r, text in zip(told, worded, strict=True)]
        listings: list[Listing | None] = [None] * len(told)
        if all_told:  # the page lists the events of the batch it carries: all told here
            listings[:] = _listings(
                [
                    listed_line(r.seq, text, r.event.rules, r.event.note)
                    for r, text in zip(told, worded, strict=True)
                ]
            )
        if not told:
            codes_of: list[list[int]] = []
        elif explain_runs is not None:
            # the batch's events as held (not decoded again) and worded by `words` once, here and
            # in the event's timeline line above
            known = {r.seq: r.event for r in batch}
            codes_of = _run_codes(
                explain_runs(datas, known=known, words=words), strings, rulings, heads, listings
            )
        else:
            codes_of = [
                _own_codes(_left_out(text, rulings).split("\n"), strings, head, None)
                for text, head in zip(explain_texts(datas), heads, strict=True)
            ]
        told_as = iter(zip(said, codes_of, strict=True))
        steps: list[Step] = []
        for r, board in zip(carried, boards, strict=True):
            # the board before itself (a command's header): nothing changed
            changed = (
                board if previous is None else {} if board is previous else delta(previous, board, diffs)
            )
            previous = board
            if all_told or (shown is not None and shown(r)):
                event, codes = next(told_as)
                steps.append((changed, event, codes))
            else:
                steps.append((changed, [r.seq, r.batch], []))
        yield steps


def carry(*args: Any, **kwargs: Any) -> Iterator[Step]:
    """`carry_batches`' steps one by one."""
    for steps in carry_batches(*args, **kwargs):
        yield from steps
