"""Shared by the table-view tests: a small speed-meters encounter written to a real log file.

(No tests here; the API and browser tests import it.)
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from support import CLOCK, grid
from tabletrail.cli_store import store_for
from tabletrail.encounter import Encounter
from tabletrail.events import types as ev
from tabletrail.events.log import JsonlStore, Record, encode, line_hash
from tabletrail.events.scenario import parse_scenario
from tabletrail.events.sqlite_store import SqliteStore

ROWS = [
    "##########",
    "#........#",
    "#..~~....#",
    "#..^..#..#",
    "#..:.....#",
    "##########",
]


def scenario_toml(checks: str = "seeded") -> str:
    """ari (blue, Speed 4) and bo (blue) at the top left, cy (red) to the right.

    `~` is rough sand (2 m a space), `^` a 1 m platform, `:` a 2.5 m one, `#` walls.
    """
    legend = '"^" = {terrain = "floor", ground = 1}\n":" = {terrain = "floor", ground = 2.5}'
    return f"""
[encounter]
name = "Web test"
ruleset = "speed-meters"
seed = 7
[settings]
checks = "{checks}"
{grid(ROWS, legend)}
[[fighters]]
id = "ari"
name = "Ari"
side = "blue"
at = [1, 1]
speed = 4
[[fighters]]
id = "bo"
side = "blue"
at = [2, 1]
speed = 3
[[fighters]]
id = "cy"
side = "red"
at = [7, 3]
speed = 3
"""


def new_log(folder: Path, checks: str = "seeded", name: str = "web.jsonl") -> Path:
    """A fresh encounter log on disk, as `tabletrail new` would write it (NAME.db: a SQLite store)."""
    path = folder / name
    scenario = parse_scenario(tomllib.loads(scenario_toml(checks)), source="web test scenario")
    store = SqliteStore(path, durable=False) if path.suffix == ".db" else JsonlStore(path, durable=False)
    Encounter.create(store, scenario, clock=lambda: CLOCK)
    close = getattr(store, "close", None)
    if close is not None:
        close()
    return path


def records(log: Path) -> list[bytes]:
    """Every record line of a log, whatever its store: what 'nothing was appended' compares."""
    store = store_for(str(log))
    try:
        return list(store.read())
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()


# Facts of the kind other rulesets record (a knock-down, an engagement, a grab, a drift, a
# flight, damage), to check that the board draws whatever state the log holds. Marks are
# written as their rulesets write them (a drift: zero_g's {"dir", "speed"}).
STATES = [
    ev.StateChanged(fighter="bo", machine="posture", trigger="knock_down", source="standing", dest="prone"),
    ev.StateChanged(fighter="bo", machine="mode", trigger="land", source="flying", dest="walking"),  # at rest
    ev.Linked(kind="engaged", a="ari", b="cy"),
    ev.Linked(kind="grab", a="bo", b="cy"),
    ev.StateChanged(fighter="cy", machine="gravity", trigger="lose", source="grounded", dest="drifting"),
    ev.Marked(fighter="cy", key="trajectory", value={"dir": "e", "speed": 1}),
    ev.Damaged(fighter="cy", amount=3),
    ev.StateChanged(fighter="ari", machine="mode", trigger="fly", source="walking", dest="flying"),
    ev.Placed(fighter="ari", to=(1, 1, 150), how="flies up"),
]


def append_facts(log: Path, events: list[ev.Event]) -> None:
    """Append one batch of facts to a log, chained and numbered as a command's batch would be."""
    store = store_for(str(log))
    last = Encounter.open(store).records[-1]
    prev = line_hash(list(store.read())[-1])
    lines = []
    for n, event in enumerate(events, start=1):
        line = encode(
            Record(seq=last.seq + n, batch=last.batch + 1, actor="gm", at=CLOCK, prev=prev, event=event)
        )
        prev = line_hash(line)
        lines.append(line)
    store.append(lines)
    close = getattr(store, "close", None)
    if close is not None:
        close()


AP_SQUARES_ROWS = [
    "#######",
    "#.....#",
    "#.....#",
    "#.....#",
    "#######",
]


def ap_squares_log(folder: Path) -> Path:
    """A small ap-squares hold: ari (blue) next to bo (red), where a move into bo's square waits for bo."""
    toml = f"""
[encounter]
name = "Web hold"
ruleset = "ap-squares"
seed = 3
initiative = ["ari", "bo"]
{grid(AP_SQUARES_ROWS)}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]
ap = 10
[[fighters]]
id = "bo"
side = "red"
at = [3, 1]
ap = 10
"""
    path = folder / "hold.jsonl"
    store = JsonlStore(path, durable=False)
    Encounter.create(store, parse_scenario(tomllib.loads(toml), source="web hold"), clock=lambda: CLOCK)
    return path


def invite(log: Path, role: str = "gm", hours: float | None = None) -> tuple[str, str]:
    """A new invitation link's (id, token) for `role`, made as `tabletrail invite` makes it."""
    from tabletrail.web.invites import Invites, encounter_key, keep_for

    store = store_for(str(log))
    try:
        made, token = Invites(keep_for(log, store), encounter_key(store)).make(role, hours)
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()
    return made.id, token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
