"""`GET /api/reach` answers in a size bounded by the area, not by the area times its routes (issue 28,
item 12).

On an open N x N map a fighter whose budget covers it all was sent every cell's
whole route: N^2 routes of up to N steps (200 x 200: 70 MB, 20 s, ~1 GB held).
The routes are now one tree of steps, each step once: `tree.steps` lists
[x, y, running cost, parent] (parent: the step before it, -1 from the start) and
`tree.ends` names the step each cell's cheapest route ends on; a route is read by
following parents. The old `routes` field (every route written out) is kept only
while it is small (ROUTE_STEPS), for clients that still read it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from support import encounter as support_encounter
from support_web import bearer, invite, new_log
from tabletrail.core.search.reach import reach
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.service.encounter import Encounter
from tabletrail.web.api import reach as api_reach
from tabletrail.web.api.reach import routes
from tabletrail.web.server import create_app


def route_of(tree: dict, key: str) -> list[list[int]]:
    """A route read from the tree as a client reads it: parents followed back to the start."""
    out, i = [], tree["ends"][key]
    while i >= 0:
        x, y, total, i = tree["steps"][i]
        out.append([x, y, total])
    return out[::-1]


def engine_route(area, cell: tuple[int, int]) -> list[list[int]]:
    total, out = 0, []
    for step in area.steps(cell):
        total += step.cost
        out.append([step.to[0], step.to[1], total])
    return out


def open_floor(folder: Path, size: int) -> Path:
    rows = ", ".join(f'"{"." * size}"' for _ in range(size))
    toml = f"""
[encounter]
name = "Open floor"
ruleset = "speed-meters"
seed = 1
[map]
rows = [{rows}]
[map.legend]
"." = "floor"
[[fighters]]
id = "ari"
side = "blue"
at = [0, 0]
speed = {size * 2}
"""
    path = folder / "open.jsonl"
    Encounter.create(
        JsonlStore(path, durable=False), parse_scenario(tomllib.loads(toml), source="open floor")
    )
    return path


def test_every_route_read_from_the_tree_is_the_engines_cheapest(tmp_path: Path):
    log = new_log(tmp_path)
    client = TestClient(create_app(log), base_url="http://127.0.0.1", headers=bearer(invite(log, "blue")[1]))
    r = client.get("/api/reach?fighter=ari").json()
    state = Encounter.open(JsonlStore(log)).state
    area = reach(state, "ari")
    assert set(r["tree"]["ends"]) == {f"{x},{y}" for x, y, _ in r["cells"]}
    for x, y, cost in r["cells"]:
        route = route_of(r["tree"], f"{x},{y}")
        assert route == engine_route(area, (x, y)) and route[-1][2] == cost
        assert r["routes"][f"{x},{y}"] == route, "a small area keeps the old field, the same routes"
    further, wide = r["further"], reach(state, "ari", extra=4 * 100)
    assert set(further["tree"]["ends"]) == {f"{x},{y}" for x, y, _ in further["cells"]}
    for x, y, _ in further["cells"]:
        assert route_of(further["tree"], f"{x},{y}") == engine_route(wide, (x, y))


def test_an_open_map_the_budget_covers_is_answered_in_a_few_bytes_a_cell(tmp_path: Path):
    size = 48
    log = open_floor(tmp_path, size)
    client = TestClient(create_app(log), base_url="http://127.0.0.1", headers=bearer(invite(log, "blue")[1]))
    answer = client.get("/api/reach?fighter=ari")
    r = answer.json()
    assert len(r["cells"]) == size * size - 1, "every space is within the budget"
    assert len(r["tree"]["steps"]) <= len(r["cells"]), "each step once"
    assert "routes" not in r, f"{size * size} routes written out would hold ~{size**3 // 3:,} steps"
    assert len(answer.content) < 80 * len(r["cells"]), len(answer.content) / len(r["cells"])
    far = f"{size - 1},{size - 1}"
    assert route_of(r["tree"], far)[-1][:2] == [size - 1, size - 1]
    assert len(route_of(r["tree"], far)) == size - 1  # the diagonal: one step a space


def test_the_old_routes_field_is_kept_up_to_its_bound(tmp_path: Path, monkeypatch):
    log = new_log(tmp_path)
    client = TestClient(create_app(log), base_url="http://127.0.0.1", headers=bearer(invite(log, "gm")[1]))
    assert "routes" in client.get("/api/reach?fighter=ari").json()
    monkeypatch.setattr(api_reach, "ROUTE_STEPS", 3)
    r = client.get("/api/reach?fighter=ari").json()
    assert "routes" not in r and "routes" not in r["further"] and r["tree"]["steps"]


class _Plain(Mapping):
    """A trail without `tree`: `routes` walks it node by node, as for the step-by-step searches."""

    def __init__(self, came):
        self.came = came

    def __getitem__(self, node):
        return self.came[node]

    def __iter__(self):
        return iter(self.came)

    def __len__(self):
        return len(self.came)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    diagonal=st.sampled_from(["every-1", "alternating", "euclidean", "manhattan"]),
    seed=st.integers(0, 10_000),
    people=st.lists(
        st.tuples(st.sampled_from(["blue", "red"]), st.integers(1, 20), st.integers(1, 12)), max_size=5
    ),
    speed=st.integers(2, 9),
)
def test_the_tree_the_compiled_search_builds_at_once_is_the_one_walked_node_by_node(
    diagonal, seed, people, speed
):
    """Issue 40: the route tree of a compiled search is built in one pass; every route and running cost
    read from it is the one `routes` finds walking the trail node by node."""
    import random

    rnd = random.Random(seed)
    inner = ["".join(rnd.choice("....~~^#") for _ in range(20)) for _ in range(12)]
    rows = ["#" * 22, *(f"#{r}#" for r in inner), "#" * 22]
    fighters = [("ari", "blue", 10, 6, speed)]
    for i, (side, x, y) in enumerate(people):
        if (x, y) not in {(f[2], f[3]) for f in fighters}:
            fighters.append((f"o{i}", side, x, y, 2))
    for _, _, x, y, _ in fighters:
        rows[y] = rows[y][:x] + "." + rows[y][x + 1 :]
    people_toml = "".join(
        f'[[fighters]]\nid = "{fid}"\nside = "{side}"\nat = [{x}, {y}]\nspeed = {s}\n'
        for fid, side, x, y, s in fighters
    )
    body = ", ".join(f'"{r}"' for r in rows)
    toml = f"""
[encounter]
name = "tree"
ruleset = "speed-meters"
[settings]
diagonal = "{diagonal}"
[map]
rows = [{body}]
[map.legend]
"." = "floor"
"#" = "wall"
"~" = "rough"
"^" = {{terrain = "floor", ground = 1}}
{people_toml}
"""
    state = support_encounter(toml).state
    for _ in range(3):  # cold, completing, then the compiled search
        area = reach(state, "ari")
    assert hasattr(area.came, "tree")  # the compiled search answered
    fast = routes(area, area.costs)
    slow = routes(replace(area, came=_Plain(area.came)), area.costs)
    assert set(fast["tree"].ends) == set(slow["tree"].ends)
    for key in slow["tree"].ends:
        assert route_of(_as_dict(fast["tree"]), key) == route_of(_as_dict(slow["tree"]), key), key
    assert fast.get("routes") == slow.get("routes")


def _as_dict(tree) -> dict:
    return {"steps": tree.steps, "ends": tree.ends}
