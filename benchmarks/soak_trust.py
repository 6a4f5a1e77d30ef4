"""Issue 13's figures: crashes, fuzzed input and tampering against the stores, counted.

Three parts, each printing its figures (nothing is asserted; the note of the
issue quotes them):

- kills: a writer process is SIGKILLed at a random moment while it appends
  acknowledged batches (an ack is written to a pipe only after `execute`
  returned); the next opener must find every acknowledged batch and be able to
  append again. Per store: kills, acknowledged batches, lost, logs left
  unwritable, torn tails cut.
- fuzz: mutated scenario files, command words, log lines and HTTP bodies, each
  run under a 10 s alarm; counted: inputs, tracebacks (any exception that is
  not the project's one-line InputError / a refusal / a 4xx), hangs, and
  logs changed by a refused or bad input.
- tamper: single-byte edits, deleted lines, truncations at every batch end and
  snapshot edits, each on a fresh copy; counted: how many `verify` caught (with
  the tip the store keeps outside the log).

    .venv/bin/python benchmarks/soak_trust.py [--kills 500] [--scenarios 3000] [--commands 1500]
        [--lines 4000] [--http 1500] [--tamper 300] [--seed 1] [--parts kills,fuzz,tamper]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "speed-meters-brawl.toml"

# Everything the parts use, imported now: the run measures the code as it stood when it started.
import tabletrail.cli  # noqa: E402, F401
import tabletrail.projections.audit  # noqa: E402, F401
import tabletrail.web.server  # noqa: E402, F401
from tabletrail.core.board.refusal import Rejection  # noqa: E402
from tabletrail.events.commands import EndTurn  # noqa: E402
from tabletrail.events.errors import InputError  # noqa: E402
from tabletrail.events.scenario.reader import load_scenario  # noqa: E402
from tabletrail.events.stores.jsonl import JsonlStore  # noqa: E402
from tabletrail.events.stores.sqlite_store import SqliteStore  # noqa: E402
from tabletrail.service.encounter import Encounter  # noqa: E402
from tabletrail.service.syntax import parse  # noqa: E402


class Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hang()


@contextlib.contextmanager
def limit(seconds: int = 10):
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)


def store(kind: str, path: Path, **kw: Any):
    if kind == "jsonl":
        return JsonlStore(path, heal=True, **kw)
    return SqliteStore(path, snapshot_every=25, **kw)


# --- kills ---------------------------------------------------------------------------------


def writer(kind: str, path: Path, ack: int, seed: int) -> None:
    """The child: append end-turn batches forever, acking each id after execute returned."""
    rng = random.Random(seed)
    enc = Encounter.open(store(kind, path))
    n = 0
    while True:
        n += 1
        cid = f"{seed}-{n}"
        result = enc.execute(EndTurn(), "end-turn", command_id=cid)
        if isinstance(result, Rejection):
            os._exit(3)
        os.write(ack, (cid + "\n").encode())
        if rng.random() < 0.02:
            time.sleep(0.001)


def kills(kind: str, count: int, rng: random.Random, folder: Path) -> dict[str, int]:
    path = folder / f"kill.{kind if kind == 'jsonl' else 'db'}"
    Encounter.create(store(kind, path), load_scenario(SCENARIO))
    acked: list[str] = []
    lost = unwritable = cut = opened_bad = 0
    for i in range(count):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child never returns
            os.close(r)
            try:
                writer(kind, path, w, rng.randrange(1 << 30) * 1000 + i)
            finally:
                os._exit(4)
        os.close(w)
        time.sleep(rng.uniform(0.02, 0.25))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        os.close(r)
        acked.extend(line for line in data.decode().split("\n") if line)
        torn_before = len(list(folder.glob(f"{path.name}.torn-*")))
        try:
            s = store(kind, path, warn=lambda _m: None)
            enc = Encounter.open(s)
        except InputError:
            opened_bad += 1
            unwritable += 1
            continue
        cut += len(list(folder.glob(f"{path.name}.torn-*"))) - torn_before
        ids = {r.command_id for r in enc.records if r.command_id}
        lost = sum(1 for cid in acked if cid not in ids)
        try:
            if isinstance(enc.execute(EndTurn(), "end-turn", command_id=f"check-{i}"), Rejection):
                unwritable += 1
        except InputError:
            unwritable += 1
        if isinstance(s, SqliteStore):
            s.close()
    return {
        "kills": count,
        "acked": len(acked),
        "lost": lost,
        "unwritable": unwritable,
        "unopenable": opened_bad,
        "torn_cut": cut,
    }


# --- fuzz ----------------------------------------------------------------------------------

NASTY = [
    "nan",
    "inf",
    "-inf",
    "1e400",
    str(2**64 + 1),
    str(-(2**70)),
    "0",
    "-7",
    "999",
    "[]",
    "[[1]]",
    "{}",
    '"x"',
    "true",
    "\x1b[2J",
    "a" * 5000,
    "[" * 3000 + "]" * 3000,
    "1.5",
    "-0",
    "\x00",
]


def mutate_text(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        i = rng.randrange(len(text) + 1)
        if op < 0.3:
            text = text[:i] + rng.choice(NASTY) + text[i:]
        elif op < 0.5:
            text = text[:i] + text[i + rng.randint(1, 20) :]
        elif op < 0.8 and text:
            text = text[:i] + chr(rng.randrange(32, 127)) + text[i + 1 :]
        else:
            text = text[:i] + text[i:][: rng.randint(0, 40)] + text[i:]
    return text


def fuzz_scenarios(count: int, rng: random.Random, folder: Path, out: Counter, problems: list) -> None:
    base = SCENARIO.read_text()
    values = [
        "nan",
        "inf",
        "-inf",
        "[1, 0, nan]",
        "[[1]]",
        '["wall"]',
        "{}",
        '"x"',
        "1e400",
        str(2**70),
        "-5",
        "[1]",
        "[1, 2, 3, 4]",
        "[" * 3000 + "]" * 3000,
        "true",
    ]
    keys = ["at", "eye_height", "speed", "brawn", "size", "ground", "terrain", "seed", "side", "rows"]
    for i in range(count):
        if rng.random() < 0.5:
            text = mutate_text(base, rng)
        else:
            lines = base.splitlines()
            key, value = rng.choice(keys), rng.choice(values)
            idx = [n for n, line in enumerate(lines) if line.split("=")[0].strip() == key]
            if idx:
                lines[rng.choice(idx)] = f"{key} = {value}"
            else:
                lines.insert(rng.randrange(4, len(lines)), f"{key} = {value}")
            text = "\n".join(lines)
        sc = folder / f"s{i}.toml"
        sc.write_text(text)
        log = folder / f"s{i}.{'jsonl' if i % 2 else 'db'}"
        out["inputs"] += 1
        out["scenario files"] += 1
        try:
            with limit():
                Encounter.create(store("jsonl" if i % 2 else "sqlite", log), load_scenario(sc))
                Encounter.open(store("jsonl" if i % 2 else "sqlite", log))
        except InputError:
            if log.exists() and log.stat().st_size:
                with contextlib.suppress(Exception):
                    Encounter.open(store("jsonl" if i % 2 else "sqlite", log))
                    continue
                out["partial logs"] += 1
                problems.append(("scenario partial log", text[:300]))
        except Hang:
            out["hangs"] += 1
            problems.append(("scenario hang", text[:300]))
        except Exception:
            out["tracebacks"] += 1
            problems.append(("scenario", text[:300], traceback.format_exc()[-600:]))
        for p in (sc, log, Path(f"{log}-wal"), Path(f"{log}-shm")):
            p.unlink(missing_ok=True)


def fuzz_commands(count: int, rng: random.Random, folder: Path, out: Counter, problems: list) -> None:
    from tabletrail.cli import main

    base = [
        "move tam 4,2",
        "grab tam pip roll=3 roll=2",
        "end-turn",
        "end-turn by=red",
        "shove tam pip",
        "climb tam 3,1,2 roll=2",
        "adjust tam 2",
        "place tam 2,2",
        "random tam meters=3 roll=2",
        "fall tam roll=3",
        "setting strict_turns false",
        "undo",
        "redo",
        "delay tam",
        "move tam 3,3 3,4 4,4 why=x",
        "fly tam 3,2,2",
        "release tam",
        "escape tam roll=4",
    ]
    words = [
        "tam",
        "ogre",
        "pip",
        "vex",
        "by=red",
        "by=gm",
        "by=blue",
        "roll=",
        "why=",
        "meters=",
        "3,3",
        "1,1,1",
        "-1,-1",
        "99999999999999999999,1",
        "nan,1",
        "--id",
        "--json",
        "",
    ]
    log = folder / "cmd.jsonl"
    Encounter.create(JsonlStore(log), load_scenario(SCENARIO))
    for _ in range(count):
        text = rng.choice(base)
        if rng.random() < 0.6:
            parts = text.split()
            for _ in range(rng.randint(1, 3)):
                parts.insert(rng.randrange(len(parts) + 1), rng.choice(words) + rng.choice(["", *NASTY]))
            text = " ".join(parts)
        if rng.random() < 0.2:
            text = mutate_text(text, rng)
        before = log.read_bytes()
        out["inputs"] += 1
        out["command words"] += 1
        code = None
        try:
            with (
                limit(),
                contextlib.redirect_stdout(open(os.devnull, "w")),
                contextlib.redirect_stderr(open(os.devnull, "w")),
            ):
                code = main(["do", str(log), text])
        except Hang:
            out["hangs"] += 1
            problems.append(("command hang", text[:200]))
        except SystemExit:
            code = 2  # argparse's own usage error
        except Exception:
            out["tracebacks"] += 1
            problems.append(("command", text[:200], traceback.format_exc()[-600:]))
        if code != 0 and log.read_bytes() != before:
            out["changed logs"] += 1
            problems.append(("command changed the log", text[:200]))


def fuzz_log_lines(count: int, rng: random.Random, folder: Path, out: Counter, problems: list) -> None:
    from tabletrail.projections.audit import verify_lines

    src = folder / "lines.jsonl"
    enc = Encounter.create(JsonlStore(src), load_scenario(SCENARIO))
    for n in range(12):
        enc.execute(parse("end-turn"), "end-turn", command_id=f"l{n}")
    lines = src.read_bytes().split(b"\n")[:-1]
    for i in range(count):
        k = rng.randrange(len(lines))
        line = lines[k].decode()
        choice = rng.random()
        if choice < 0.15:
            line = line[: rng.randrange(len(line))] + "[" * 50_000 + "]" * 50_000 + "}"
        elif choice < 0.3:
            line = line.replace(":", ":" + rng.choice(["1e400", "NaN", str(2**70), "[[]]", '"\x1b[2J"']), 1)
        else:
            line = mutate_text(line, rng)
        data = b"\n".join([*lines[:k], line.encode("utf-8", "surrogatepass"), *lines[k + 1 :]]) + b"\n"
        target = folder / f"f{i % 7}.jsonl"
        target.write_bytes(data)
        out["inputs"] += 1
        out["log lines"] += 1
        try:
            with limit():
                with contextlib.suppress(InputError):
                    Encounter.open(JsonlStore(target))
                verify_lines(data.split(b"\n")[:-1], str(target))
        except Hang:
            out["hangs"] += 1
            problems.append(("log line hang", line[:200]))
        except Exception:
            out["tracebacks"] += 1
            problems.append(("log line", line[:200], traceback.format_exc()[-600:]))


def fuzz_http(count: int, rng: random.Random, folder: Path, out: Counter, problems: list) -> None:
    from starlette.testclient import TestClient
    from tabletrail.web.server import create_app

    log = folder / "web.jsonl"
    Encounter.create(JsonlStore(log), load_scenario(SCENARIO))
    client = TestClient(create_app(log), base_url="http://127.0.0.1:8000", raise_server_exceptions=False)
    bodies = [
        {"version": 5, "text": "move tam 4,2"},
        {"version": 5, "text": "end-turn"},
        {"version": 5, "move": {"fighter": "tam", "to": [3, 3]}},
        {"text": "end-turn"},
        {"version": 5, "move": {"fighter": "tam", "waypoints": [[3, 3], [4, 3]]}, "rolls": [3]},
        {"version": 5, "by": "red", "text": "end-turn"},
    ]
    for _ in range(count):
        body: Any = json.loads(json.dumps(rng.choice(bodies)))
        mode = rng.random()
        if mode < 0.4:
            key = rng.choice(list(body) + ["rolls", "by", "version", "extra"])
            odd = [float("nan"), 2**70, -1, "x" * 100_000, [[[]]], None, {}, True, 1.5, "\x1b"]
            body[key] = rng.choice(odd)
            raw = json.dumps(body).encode()
        elif mode < 0.55:
            raw = b"[" * 100_000 + b"]" * 100_000
        elif mode < 0.7:
            many = {"version": 5, "move": {"fighter": "tam", "waypoints": [[3, 3]] * 50_000}}
            raw = json.dumps(many).encode()
        else:
            raw = mutate_text(json.dumps(body), rng).encode("utf-8", "surrogatepass")
        path = rng.choice(["/api/do", "/api/preview", "/api/undo", "/api/redo"])
        before = log.read_bytes()
        out["inputs"] += 1
        out["http bodies"] += 1
        try:
            with limit():
                resp = client.post(path, content=raw, headers={"content-type": "application/json"})
        except Hang:
            out["hangs"] += 1
            problems.append(("http hang", raw[:200]))
            continue
        if resp.status_code >= 500:
            out["tracebacks"] += 1
            problems.append(("http 5xx", raw[:200], resp.text[:300]))
        elif resp.status_code != 200 and log.read_bytes() != before:
            out["changed logs"] += 1
            problems.append(("http changed the log", raw[:200]))


# --- tamper --------------------------------------------------------------------------------


def tamper(count: int, rng: random.Random, folder: Path) -> dict[str, Any]:
    from tabletrail.projections.audit import verify_store  # what `verify` runs (with the kept tip)

    results: Counter = Counter()
    for kind in ("jsonl", "sqlite"):
        src = folder / f"t.{'jsonl' if kind == 'jsonl' else 'db'}"
        enc = Encounter.create(store(kind, src), load_scenario(SCENARIO))
        for n in range(30):
            enc.execute(parse("end-turn"), "end-turn", command_id=f"t{n}")
        if isinstance(enc.store, SqliteStore):
            enc.store.close()
        lines = list(store(kind, src).read())
        ends = [r.seq for r in enc.records if r.size][1:]
        ends = [s - 1 for s in ends] + [len(lines)]
        for i in range(count):
            work = folder / f"w{i % 3}.{'jsonl' if kind == 'jsonl' else 'db'}"
            for p in folder.glob(f"{work.name}*"):
                p.unlink()
            if kind == "jsonl":
                shutil.copyfile(src, work)
                tip = src.with_name(src.name + ".tip")
                if tip.exists():
                    shutil.copyfile(tip, work.with_name(work.name + ".tip"))
            else:
                with sqlite3.connect(src) as a, sqlite3.connect(work) as b:
                    a.backup(b)
            what = ["byte", "delete", "truncate", "snapshot"][i % (4 if kind == "sqlite" else 3)]
            edited = _tamper(kind, work, lines, ends, what, rng)
            if not edited:
                continue
            results[f"{kind} {what} edits"] += 1
            try:
                data = verify_store(store(kind, work, warn=lambda _m: None))
                caught = not data["ok"]
            except InputError:
                caught = True
            results[f"{kind} {what} caught"] += caught
    return dict(results)


def _tamper(
    kind: str, work: Path, lines: list[bytes], ends: list[int], what: str, rng: random.Random
) -> bool:
    if what == "byte":
        k = rng.randrange(len(lines))
        line = bytearray(lines[k])
        j = rng.randrange(len(line))
        new = rng.randrange(32, 127)
        if new == line[j]:
            return False
        line[j] = new
        edited = [*lines[:k], bytes(line), *lines[k + 1 :]]
    elif what == "delete":
        k = rng.randrange(len(lines))
        edited = lines[:k] + lines[k + 1 :]
    elif what == "truncate":
        cut = rng.choice(ends[:-1])
        edited = lines[:cut]
    else:
        with sqlite3.connect(work) as conn:
            rows = conn.execute("SELECT version, data FROM snapshots").fetchall()
            if not rows:
                return False
            version, data = rng.choice(rows)
            data = bytearray(data)
            j = rng.randrange(len(data))
            data[j] = (data[j] + rng.randrange(1, 255)) % 256
            conn.execute("UPDATE snapshots SET data = ? WHERE version = ?", (bytes(data), version))
        return True
    if kind == "jsonl":
        work.write_bytes(b"".join(line + b"\n" for line in edited))
    else:
        with sqlite3.connect(work) as conn:
            conn.execute("DELETE FROM events")
            conn.executemany(
                "INSERT INTO events (encounter, version, batch, line) VALUES ('main', ?, 0, ?)",
                [(n, line) for n, line in enumerate(edited, start=1)],
            )
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=500)
    ap.add_argument("--scenarios", type=int, default=3000, help="fuzzed scenario files")
    ap.add_argument("--commands", type=int, default=1500, help="fuzzed command words (`do LOG ...`)")
    ap.add_argument("--lines", type=int, default=4000, help="fuzzed log lines (open and verify)")
    ap.add_argument("--http", type=int, default=1500, help="fuzzed HTTP bodies")
    ap.add_argument("--tamper", type=int, default=300, help="tamperings per store")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--parts", default="kills,fuzz,tamper")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    parts = args.parts.split(",")
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        folder = Path(tmp)
        if "kills" in parts:
            for kind in ("jsonl", "sqlite"):
                t = time.perf_counter()
                sub = folder / f"k-{kind}"
                sub.mkdir()
                figures = kills(kind, args.kills, rng, sub)
                print(f"kills {kind}: {figures} ({time.perf_counter() - t:.0f} s)", flush=True)
        if "fuzz" in parts:
            out: Counter = Counter()
            problems: list = []
            for name, fn, count in (
                ("scenarios", fuzz_scenarios, args.scenarios),
                ("commands", fuzz_commands, args.commands),
                ("log lines", fuzz_log_lines, args.lines),
                ("http", fuzz_http, args.http),
            ):
                t = time.perf_counter()
                sub = folder / f"f-{name.replace(' ', '-')}"
                sub.mkdir()
                fn(count, rng, sub, out, problems)
                print(f"fuzz {name}: done ({time.perf_counter() - t:.0f} s)", flush=True)
            for key in ("tracebacks", "hangs", "changed logs", "partial logs"):
                out.setdefault(key, 0)
            print(f"fuzz: {dict(out)}", flush=True)
            for p in problems[:10]:
                print("  problem:", p, flush=True)
        if "tamper" in parts:
            t = time.perf_counter()
            print(
                f"tamper: {tamper(args.tamper, rng, folder / '.')} ({time.perf_counter() - t:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
