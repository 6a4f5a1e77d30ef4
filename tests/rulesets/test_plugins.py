"""A package that declares an entry point in the group `tabletrail.rulesets` is a ruleset.

A fake plug-in is installed the way pip installs one (a `NAME-VERSION.dist-info` folder with an
entry_points.txt on the path, beside its modules) and the real `tabletrail` command is run with
and without it: `rules` lists it, `new` takes its scenario and its terrain, `do` decides its
command, `log` decodes it, `verify` re-decides it; without it, reading its log says in one line
which package and rules version to install. A broken plug-in, or one whose verb is another
ruleset's, is one warning line, and the others still list.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tabletrail.events import plugins

VOCABULARY = '''
from tabletrail.ruleset_api import Cell, Command, RulesetPlugin

class Hop(Command, tag="hop"):
    """Hop to a square next to yours, whatever it costs."""
    fighter: str
    to: Cell

PLUGIN = RulesetPlugin(
    id="hop-example", ruleset="fakeplug_rules:HopRules", rules_version="7",
    terrains={"mire": ("mire", "difficult")}, tags=("mire",), title="Hops",
)
'''
RULES = """
from tabletrail.ruleset_api import Batch, Dice, Part, Rule, Ruleset, Stat, Step, Moved, handles, require, show
from fakeplug_vocab import Hop

class Hopping(Part):
    @handles(Hop)
    def hop(self, b: Batch, cmd: Hop, dice: Dice) -> None:
        f = self.rs.acting(b.state, cmd.fighter)
        x, y = cmd.to[0], cmd.to[1]
        near = max(abs(x - f.pos[0]), abs(y - f.pos[1])) == 1
        require(near, self.rule("hop"), f"{show((x, y))} is not next")
        step = Step(to=(x, y, 0), cost=100, terrain=b.state.grid.kind(x, y).terrain)
        b.emit(Moved(fighter=f.id, steps=(step,), rules=(self.rule("hop"),)))

class HopRules(Ruleset):
    id = "hop-example"
    title = "Hops"
    document = "hop"
    unit = "m"
    rules = (Rule("hop", "a hop goes to a square next to the hopper"),)
    settings = ()
    stats = (Stat("speed", "unused", length=True, default=1),)
    parts = (Hopping,)
"""
SCENARIO = """
[encounter]
name = "Hops"
ruleset = "hop-example"
initiative = ["ari", "bo"]

[map]
rows = ["#####", "#.,.#", "#####"]

[map.legend]
"#" = "wall"
"." = "floor"
"," = "mire"

[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]

[[fighters]]
id = "bo"
side = "red"
at = [3, 1]
"""


def install(
    site: Path,
    vocabulary: str = VOCABULARY,
    *,
    name: str = "fakeplug",
    version: str = "1.2",
    rules: str = RULES,
) -> Path:
    """A plug-in as pip leaves one: its modules and a dist-info folder naming its entry point."""
    site.mkdir(parents=True, exist_ok=True)
    (site / "fakeplug_vocab.py").write_text(textwrap.dedent(vocabulary), encoding="utf-8")
    (site / "fakeplug_rules.py").write_text(textwrap.dedent(rules), encoding="utf-8")
    info = site / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[tabletrail.rulesets]\nhop-example = fakeplug_vocab:PLUGIN\n", encoding="utf-8"
    )
    return site


def tabletrail(*args: str, site: Path | None = None, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run(
        [sys.executable, "-m", "tabletrail", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


@pytest.fixture
def played(tmp_path: Path) -> tuple[Path, Path]:
    """(site, log): the plug-in installed, an encounter of its ruleset started and one hop made."""
    site = install(tmp_path / "site")
    (tmp_path / "hops.toml").write_text(SCENARIO, encoding="utf-8")
    started = tabletrail("new", "hops.toml", "--log", "hops.jsonl", site=site, cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    hopped = tabletrail("do", "hops.jsonl", "hop", "ari", "2,1", site=site, cwd=tmp_path)
    assert hopped.returncode == 0, hopped.stderr
    return site, tmp_path / "hops.jsonl"


def test_rules_lists_a_plugin_with_its_package_and_rules_version(tmp_path: Path):
    site = install(tmp_path / "site")
    listed = tabletrail("rules", site=site, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if x.startswith("hop-example:"))
    assert "package fakeplug 1.2, rules 7" in line
    assert "speed-meters:" in listed.stdout  # the built-ins are registered the same way


def test_a_plugins_scenario_terrain_and_command_are_the_tables_own(played: tuple[Path, Path]):
    site, log = played
    first = json.loads(log.read_text(encoding="utf-8").splitlines()[0])["event"]
    assert (first["package"], first["package_version"], first["ruleset_rules"]) == ("fakeplug", "1.2", "7")
    shown = tabletrail("log", log.name, site=site, cwd=log.parent)
    assert shown.returncode == 0 and "hop ari 2,1" in shown.stdout, shown.stderr
    verified = tabletrail("verify", log.name, site=site, cwd=log.parent)
    assert verified.returncode == 0 and "OK" in verified.stdout, verified.stdout + verified.stderr


def test_a_typo_in_a_terrain_is_still_refused_with_a_plugins_terrains_open(tmp_path: Path):
    site = install(tmp_path / "site")
    (tmp_path / "typo.toml").write_text(SCENARIO.replace('"mire"', '"mirre"'), encoding="utf-8")
    refused = tabletrail("new", "typo.toml", "--log", "t.jsonl", site=site, cwd=tmp_path)
    assert refused.returncode != 0 and "unknown terrain 'mirre'" in refused.stderr
    assert "mire" in refused.stderr  # the known ones listed include the plug-in's


@pytest.mark.parametrize("verb", ["verify", "replay", "show"])
def test_a_log_whose_plugin_is_missing_names_the_package_and_version_in_one_line(
    played: tuple[Path, Path], verb: str
):
    _, log = played
    missing = tabletrail(verb, log.name, cwd=log.parent)  # the plug-in is not on the path
    assert missing.returncode != 0
    said = missing.stderr.strip()
    assert "Traceback" not in said and len(said.splitlines()) == 1, said
    assert "'hop-example'" in said and "package fakeplug" in said and "rules 7" in said, said


def test_verify_names_the_rules_version_that_decided_a_differing_batch(played: tuple[Path, Path]):
    """A plug-in whose rules changed (a hop now costs 2): verify says which version decided the log."""
    _, log = played
    newer = install(
        log.parent / "newer",
        VOCABULARY.replace('rules_version="7"', 'rules_version="8"'),
        version="1.3",
        rules=RULES.replace("cost=100", "cost=200"),
    )
    verified = tabletrail("verify", log.name, site=newer, cwd=log.parent)
    assert verified.returncode != 0
    assert "decided under hop-example rules 7 of fakeplug 1.2; installed here: rules 8 of fakeplug 1.3" in (
        verified.stdout
    ), verified.stdout + verified.stderr


def test_a_broken_plugin_is_one_warning_line_and_the_others_still_list(tmp_path: Path):
    site = install(tmp_path / "site", "raise ImportError('no module named shiny')\n")
    listed = tabletrail("rules", site=site, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    (warning,) = listed.stderr.strip().splitlines()
    assert "'hop-example'" in warning and "cannot be loaded" in warning and "shiny" in warning
    assert "speed-meters:" in listed.stdout and "hop-example:" not in listed.stdout
    (tmp_path / "hops.toml").write_text(SCENARIO, encoding="utf-8")
    refused = tabletrail("new", "hops.toml", "--log", "h.jsonl", site=site, cwd=tmp_path)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "shiny" in refused.stderr


def test_a_plugin_whose_verb_is_another_rulesets_is_left_out(tmp_path: Path):
    site = install(tmp_path / "site", VOCABULARY.replace('tag="hop"', 'tag="sprint"'))
    listed = tabletrail("rules", site=site, cwd=tmp_path)
    assert "'sprint' is a verb of tabletrail.events.commands.round_meters already" in listed.stderr
    sprint = tabletrail("commands", "round-meters", site=site, cwd=tmp_path)
    assert sprint.returncode == 0 and "sprint" in sprint.stdout  # round-meters' own still parses


def test_the_entry_points_read_are_those_importlib_metadata_reads():
    """The lean reader (no importlib.metadata at start-up) finds what the standard library finds."""
    ours = {(e.name, e.value, e.package) for e in plugins.read_entry_points()}
    theirs = {
        (e.name, e.value, e.dist.name.replace("_", "-").lower())  # type: ignore[union-attr]
        for e in importlib.metadata.entry_points(group=plugins.GROUP)
    }
    assert ours == theirs
    assert {"initiative-yards", "round-meters", "ap-squares", "speed-meters"} <= {name for name, _, _ in ours}


def test_importing_the_log_reads_no_entry_point_until_a_line_is_decoded(tmp_path: Path):
    probe = textwrap.dedent(
        """
        import sys
        from tabletrail.events import plugins
        from tabletrail.events.stores import record as log
        before = plugins._found is None and "tabletrail.events.commands.speed_meters" not in sys.modules
        first = open(sys.argv[1], "rb").readline()
        log.decode(first, "line 1")
        after = plugins._found is not None and "tabletrail.events.commands.speed_meters" in sys.modules
        print(before, after)
        """
    )
    replay = Path(__file__).resolve().parents[2] / "replays" / "speed-meters-brawl.jsonl"
    ran = subprocess.run(
        [sys.executable, "-c", probe, str(replay)], capture_output=True, text=True, timeout=60
    )
    assert ran.stdout.split() == ["True", "True"], ran.stderr
