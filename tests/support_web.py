"""Shared by the table-view tests: a small speed-meters encounter written to a real log file.

(No tests here; the API and browser tests import it.)
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from support import CLOCK, grid
from tabletrail.events import types as ev
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.record import Record, encode
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for

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


def big_map_rows(width: int = 40, height: int = 30) -> list[str]:
    """A 40x30 hall: walls round it, a pillar row, a pool of rough sand."""
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            edge = x in (0, width - 1) or y in (0, height - 1)
            pillar = y == 10 and x % 6 == 3
            sand = 16 <= x <= 22 and 18 <= y <= 22
            row.append("#" if edge or pillar else "~" if sand else ".")
        rows.append("".join(row))
    return rows


def token_png(rgb: tuple[int, int, int] = (230, 140, 40), size: int = 8) -> bytes:
    """A small one-colour PNG: a token picture."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + bytes(rgb) * size for _ in range(size))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def big_log(folder: Path, name: str = "big.jsonl") -> Path:
    """A speed-meters encounter on a 40x30 map, the sides coloured and one token pictured,
    made from a scenario file the way `tabletrail new` makes it."""
    from tabletrail.events.scenario.reader import load_scenario

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tokens").mkdir(exist_ok=True)
    (folder / "tokens" / "ari.png").write_bytes(token_png())
    toml = f"""
[encounter]
name = "The long hall"
ruleset = "speed-meters"
seed = 11
{grid(big_map_rows())}
[sides.blue]
colour = "#1f5fbf"
[sides.red]
colour = "#b3261e"
[[fighters]]
id = "ari"
name = "Ari Vance"
side = "blue"
at = [5, 5]
speed = 6
image = "tokens/ari.png"
[[fighters]]
id = "bo"
name = "Bo"
side = "blue"
at = [6, 6]
speed = 5
[[fighters]]
id = "cy"
name = "Cyrene the Grey"
side = "red"
at = [30, 20]
speed = 5
[[fighters]]
id = "dax"
name = "Dax"
side = "red"
at = [31, 21]
speed = 4
"""
    (folder / "hall.toml").write_text(toml)
    scenario = load_scenario(folder / "hall.toml")
    path = folder / name
    store = JsonlStore(path, durable=False)
    Encounter.create(store, scenario, clock=lambda: CLOCK)
    return path
