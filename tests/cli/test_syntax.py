"""One syntax for every verb, examples that run, and typos answered from the encounter's own verbs."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import msgspec
import pytest
from tabletrail.cli import EXAMPLES, PLUGINS, build_parser, main, quick_do
from tabletrail.events import plugins
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[2]
SKIRMISH = ROOT / "scenarios" / "speed-meters-skirmish.toml"
SCENARIOS = {  # the scenario each ruleset's `commands` examples run on
    "initiative-yards": "initiative-yards-ruined-bridge.toml",
    "round-meters": "round-meters-ambush.toml",
    "ap-squares": "ap-squares-derelict.toml",
    "speed-meters": "speed-meters-skirmish.toml",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def new(capsys: pytest.CaptureFixture[str], path: Path, scenario: Path = SKIRMISH) -> Path:
    assert run(capsys, "new", scenario, "--log", path)[0] == 0
    return path


def undone(log: Path) -> list[dict[str, object]]:
    """The Undone events of a log, without their clocks: what the three spellings must agree on."""
    events = [r.event for r in Encounter.open(JsonlStore(log)).records]
    return [msgspec.to_builtins(e) for e in events if type(e).__name__ in ("Undone", "CommandIssued")][-2:]


def test_undo_by_name_value_is_undo_with_flags_is_do_undo(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """`undo LOG by=party` ≡ `undo LOG --by party` ≡ `do LOG undo by=party` (it was 'unrecognized')."""
    spellings = [
        ["undo", "{log}", "by=gm", "why=misclick"],
        ["undo", "{log}", "--by", "gm", "--why", "misclick"],
        ["do", "{log}", "undo", "by=gm", "why=misclick"],
        ["do", "{log}", "undo", "--by", "gm", "--why=misclick"],
    ]
    results = []
    for n, words in enumerate(spellings):
        log = new(capsys, tmp_path / f"f{n}.jsonl")
        assert run(capsys, "do", log, "move", "ari", "2,2")[0] == 0
        code, out, err = run(capsys, *(w.format(log=log) for w in words))
        assert code == 0, err
        assert "batch 2 undone by gm: misclick" in out
        results.append(undone(log)[-1])
    assert all(r == results[0] for r in results), results


def test_every_verb_reads_its_flags_as_name_value_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    log = new(capsys, tmp_path / "f.jsonl")
    run(capsys, "do", log, "move", "ari", "2,2")
    assert run(capsys, "show", log, "at=3")[1] == run(capsys, "show", log, "--at", "3")[1]
    code, out, _ = run(capsys, "replay", log, "json=yes")
    assert code == 0 and out.startswith("{") and '"schema"' in out
    code, _, err = run(capsys, "replay", log, "json=maybe")
    assert code == 2 and "json is a switch" in err


def test_a_mistyped_verb_suggests_the_encounter_own_verbs(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    log = new(capsys, tmp_path / "f.jsonl")
    before = log.read_bytes()
    code, _, err = run(capsys, "do", log, "mvoe", "ari", "2,2")
    assert code == 2 and "did you mean move?" in err
    assert err.count("\n") == 1 and "sprint" not in err  # one line; no other ruleset's verbs
    code, _, err = run(capsys, "do", log, "shve", "ari", "bo")
    assert code == 2 and "shove" in err
    assert log.read_bytes() == before
    code, _, err = run(capsys, "shwo", log)
    assert code == 2 and "did you mean show?" in err


def help_examples() -> dict[str, str]:
    """Every verb's `example:` as its --help prints it, without the words in parentheses."""
    out = dict(EXAMPLES)
    for module in PLUGINS:
        out.update(__import__(module, fromlist=["examples"]).examples())
    return {verb: re.split(r"\s{3,}", text)[0].split("#")[0].strip() for verb, text in out.items()}


@pytest.fixture
def table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A folder like the README's: scenarios/, replays/ and fight.jsonl, with something to undo and to redo.

    Ari is still to act from where the scenario put it.
    """
    base = tmp_path / "table"
    base.mkdir()
    for name in ("scenarios", "replays"):
        shutil.copytree(ROOT / name, base / name)
    new(capsys, base / "fight.jsonl")
    for words in (["forbid", "9,6", "why=for the test"], ["move", "ari", "2,2"], ["undo"]):
        assert run(capsys, "do", base / "fight.jsonl", *words)[0] == 0
    return base


# serve and shell run until stopped; invite is tested in tests/web/test_invites.py
@pytest.mark.parametrize("verb", sorted(set(help_examples()) - {"serve", "shell", "invite"}))
def test_every_help_example_runs(verb: str, table: Path, capsys: pytest.CaptureFixture[str], monkeypatch):
    monkeypatch.chdir(table)
    example = help_examples()[verb]
    words = shlex.split(example)
    assert words[:2] == ["tabletrail", verb], example
    if verb == "new":
        (table / "fight.jsonl").unlink()
    if verb == "export":
        assert run(capsys, "import", "fight.jsonl", "fight.db")[0] == 0
    code, out, err = run(capsys, *words[1:])
    assert code == 0, f"{example}: {err}"
    parser = build_parser(only=verb).get_default("verbs")[verb]
    assert example in parser.format_help().replace("\n", " ") or verb in ("do",)


def test_serve_and_shell_examples_parse():
    words = shlex.split(help_examples()["serve"])
    assert build_parser().parse_args(words[1:]).port == 8000
    words = shlex.split(help_examples()["shell"])
    assert build_parser().parse_args(words[1:]).log == "fight.jsonl"  # shell: tests/cli/test_shell.py


@pytest.mark.parametrize("ruleset", plugins.built_in())  # a plug-in runs its own (tabletrail.testing)
def test_every_example_commands_prints_is_allowed(
    ruleset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    code, listing, _ = run(capsys, "commands", ruleset)
    examples = re.findall(r"^\s+e\.g\. (.+)$", listing, re.M)
    assert examples and any(e.startswith("setting ") for e in examples)
    log = new(capsys, tmp_path / "f.jsonl", ROOT / "scenarios" / SCENARIOS[ruleset])
    for example in examples:
        code, out, err = run(capsys, "why", log, *shlex.split(example))
        assert code == 0, f"{ruleset}: {example}: {out}{err}"


@pytest.mark.parametrize(
    "argv",
    [
        ["do", "f.db", "move", "ari", "3,4", "roll=14", "by=blue"],
        ["do", "f.db", "move", "ari", "3,4", "--id", "k1"],
        ["do", "f.db"],
        ["do", "f.db", "why=a reason with spaces"],
    ],
)
def test_do_read_without_argparse_is_what_argparse_reads(argv: list[str]):
    """`do` skips building the parsers (quick_do); what it reads must be argparse's reading."""
    quick = quick_do(argv)
    assert quick is not None
    parsed = build_parser(only="do").parse_args(argv)
    assert (quick.verb, quick.fn, quick.log, quick.id, quick.words) == (
        parsed.verb,
        parsed.fn,
        parsed.log,
        parsed.id,
        parsed.words,
    )


@pytest.mark.parametrize(
    "argv", [["do"], ["do", "--id", "k1", "f.db", "end-turn"], ["do", "f.db", "--help"], ["show", "f.db"]]
)
def test_every_other_shape_is_left_to_argparse(argv: list[str]):
    assert quick_do(argv) is None
