"""Faults of hosted tables (issue 17): servers killed mid-append, PostgreSQL restarted under open pages.

Not a test: it kills processes and restarts a database server, which would break
anyone else's tests running against the same server. Point it at a cluster of
its own (see --restart), or run it where nothing else uses PostgreSQL (CI).

1. kill: --servers `tabletrail serve DB` processes; a client posts end-turns
   to them in turn, with the version it last saw; every --kill-every seconds
   (randomised) one server is SIGKILLed, mid-request or not, and started again.
   After --kills kills: every command a server acknowledged (200 with its
   records) is in the log at the version it was given, each batch whole, and
   `tabletrail verify` passes.
2. restart: --streams live streams open on the servers, a client posting moves
   all along, and `--restart` run in the middle: writes during the outage must get
   503 (never a 500, never a partial batch), streams say `unavailable`, and once
   the database is back every stream catches up to the final version by itself.

Run (a private cluster on port 5499, so nobody else's tests notice):

    B=/usr/lib/postgresql/15/bin; OPTS='-o "-p 5499 -k /tmp" -l /tmp/tt-pg.log'
    su postgres -c "$B/initdb -D /tmp/tt-pg -A trust" && su postgres -c "$B/pg_ctl -D /tmp/tt-pg $OPTS start"
    .venv/bin/python benchmarks/fault_hosted.py --database postgresql://postgres@127.0.0.1:5499/postgres \\
        --restart "su postgres -c '$B/pg_ctl -D /tmp/tt-pg $OPTS -m fast restart'"

The default --restart is the issue's: `pg_ctlcluster 15 main restart`.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter

import httpx
import psycopg
from bench_store import SCENARIO, clock
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.service.encounter import Encounter
from tabletrail.web.invites import GM, Invites, encounter_key, keep_for


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`tabletrail serve DB` on a port of its own, which can be killed and started again."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        argv = [sys.executable, "-m", "tabletrail", "serve", self.database, "--port", str(self.port)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                httpx.get(self.base + "/", headers={"accept": "application/json"}, timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise SystemExit(f"{self.base}: the server did not start")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)


AUTH: dict[str, str] = {}  # a GM link's token for each encounter's requests (see `link`)


def link(url: str) -> None:
    """Make a GM link for the encounter; every request of this run carries it."""
    store = PostgresStore(url)
    token = Invites(keep_for(store.name, store), encounter_key(store)).make(GM)[1]
    AUTH["Authorization"] = f"Bearer {token}"
    AUTH["token"] = token


def post(base: str, path: str, body: dict) -> tuple[int, dict]:
    try:
        answer = httpx.post(
            base + path, json=body, timeout=30, headers={"Authorization": AUTH["Authorization"]}
        )
    except httpx.HTTPError as exc:
        return 0, {"message": f"{type(exc).__name__}"}
    try:
        return answer.status_code, answer.json()
    except ValueError:
        return answer.status_code, {"message": answer.text[:200]}


def version_of(servers: list[Server], name: str) -> int:
    for _ in range(200):
        for s in servers:
            try:
                got = httpx.get(
                    f"{s.base}/e/{name}/api/state",
                    timeout=5,
                    headers={"Authorization": AUTH["Authorization"]},
                )
                return got.json()["version"]
            except (httpx.HTTPError, KeyError, ValueError):
                time.sleep(0.05)
    raise SystemExit("no server answers")


def verify(url: str) -> bool:
    result = subprocess.run(
        [sys.executable, "-m", "tabletrail", "verify", url], capture_output=True, text=True
    )
    return result.returncode == 0


def start_table(database: str, name: str, servers_n: int) -> tuple[str, list[Server]]:
    """A fresh encounter in the database, a GM link for it, and that many servers started on it."""
    url = f"{database}&encounter={name}"
    Encounter.create(PostgresStore(url), load_scenario(SCENARIO), clock=clock)
    link(url)
    servers = [Server(database) for _ in range(servers_n)]
    for s in servers:
        s.start()
    return url, servers


# --- 1. kill a server mid-append -----------------------------------------------------------------------


def kill_servers(database: str, servers_n: int, kills: int, every: float) -> None:
    name = "killed"
    url, servers = start_table(database, name, servers_n)
    acked: dict[int, list[dict]] = {}  # version after -> the records the server answered with
    codes: Counter[int] = Counter()
    stop = threading.Event()

    def client() -> None:
        n = 0
        version = version_of(servers, name)
        while not stop.is_set():
            s = servers[n % len(servers)]
            n += 1
            code, body = post(s.base, f"/e/{name}/api/do", {"version": version, "text": "end-turn"})
            codes[code] += 1
            if code == 200:
                acked[body["version"]] = body["records"]
                version = body["version"]
            elif code == 409 and "version" in body:
                version = body["version"]
            elif code in (0, 500, 503):  # the server died under us: ask another what the log holds now
                version = version_of(servers, name)

    thread = threading.Thread(target=client)
    thread.start()
    rng = random.Random(17)
    try:
        for _ in range(kills):
            time.sleep(rng.uniform(0, every))
            victim = rng.choice(servers)
            victim.kill()
            victim.start()
    finally:
        stop.set()
        thread.join()
        for s in servers:
            s.stop()
    enc = Encounter.open(PostgresStore(url, private=True))
    by_seq = {r.seq: r for r in enc.records}
    lost = [
        v
        for v, records in acked.items()
        if any(rec["seq"] not in by_seq or by_seq[rec["seq"]].batch != rec["batch"] for rec in records)
        or v > len(enc.records)
    ]
    sizes = Counter(r.batch for r in enc.records)
    heads = {r.batch: r.size for r in enc.records if r.size}
    whole = all(sizes[b] == n for b, n in heads.items())
    print(
        f"kill: {kills} SIGKILLs over {servers_n} servers; answers {dict(sorted(codes.items()))} "
        f"(0: the connection died with the server); {len(acked)} acknowledged commands, "
        f"{len(lost)} of them missing; every batch whole: {whole}; verify passes: {verify(url)}; "
        f"{len(enc.records)} events"
    )


# --- 2. restart PostgreSQL under open pages -------------------------------------------------------------


def follow(base: str, name: str, seen: list[int], said: Counter[str], stop: threading.Event) -> None:
    """An open page: reconnects like a browser's EventSource (after the `retry` the server asks)."""
    while not stop.is_set():
        try:
            live = f"{base}/e/{name}/api/stream?seconds=3600&token={AUTH['token']}"
            with httpx.stream("GET", live, timeout=None) as stream:
                said[f"stream {stream.status_code}"] += 1
                kind = ""
                for line in stream.iter_lines():
                    if stop.is_set():
                        return
                    if line.startswith("event: "):
                        kind = line.removeprefix("event: ")
                        said[kind] += 1
                    elif line.startswith("data: ") and kind == "version":
                        seen.append(json.loads(line.removeprefix("data: "))["version"])
        except httpx.HTTPError:
            said["reconnect"] += 1
        time.sleep(0.3)


def restart_database(database: str, servers_n: int, streams: int, restart: str) -> None:
    name = "restarted"
    url, servers = start_table(database, name, servers_n)
    stop = threading.Event()
    pages = [([], Counter()) for _ in range(streams)]
    threads = [
        threading.Thread(
            target=follow, args=(servers[n % servers_n].base, name, seen, said, stop), daemon=True
        )
        for n, (seen, said) in enumerate(pages)
    ]
    for t in threads:
        t.start()
    codes: Counter[int] = Counter()
    messages: list[str] = []
    outage: list[float] = []
    writing = threading.Event()
    writes_stop = threading.Event()

    def client() -> None:
        n = 0
        version = version_of(servers, name)
        while not writes_stop.is_set():
            s = servers[n % servers_n]
            n += 1
            code, body = post(s.base, f"/e/{name}/api/do", {"version": version, "text": "end-turn"})
            codes[code] += 1
            if code == 200:
                version = body["version"]
                writing.set()
            elif code == 409:
                version = body.get("version", version)
            elif code == 503:
                messages.append(body.get("message", ""))
                outage.append(time.time())
                time.sleep(0.1)
            else:
                time.sleep(0.1)

    thread = threading.Thread(target=client)
    thread.start()
    writing.wait(60)
    time.sleep(1)
    began = time.time()
    done = subprocess.run(restart, shell=True, capture_output=True, text=True)
    took = time.time() - began
    time.sleep(3)  # writes go on after the restart
    writes_stop.set()
    thread.join()
    final = PostgresStore(url, private=True).version()
    for _ in range(100):  # a page that has not caught up in 10 s counts as not caught up
        caught_up = sum(1 for seen, _ in pages if seen and seen[-1] == final)
        if caught_up == streams:
            break
        time.sleep(0.1)
    stop.set()
    said: Counter[str] = Counter()
    for _, page in pages:
        said.update(page)
    for s in servers:
        s.stop()
    enc = Encounter.open(PostgresStore(url, private=True))
    sizes = Counter(r.batch for r in enc.records)
    heads = {r.batch: r.size for r in enc.records if r.size}
    print(
        f"restart: `{restart}` exited {done.returncode} after {took:.1f} s; writes answered "
        f"{dict(sorted(codes.items()))}; 503s for {max(outage) - min(outage) if outage else 0:.1f} s"
    )
    if messages:
        print(f"  a 503 said: {messages[0]}")
    print(
        f"  {caught_up} of {streams} open pages caught up to the final version {final} by themselves; "
        f"the streams said {dict(said)}; every batch whole: {all(sizes[b] == n for b, n in heads.items())}; "
        f"verify passes: {verify(url)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", default="postgresql://postgres@127.0.0.1/test")
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument(
        "--kill-every", type=float, default=0.5, help="at most this many seconds between kills"
    )
    parser.add_argument("--streams", type=int, default=10)
    parser.add_argument("--restart", default="pg_ctlcluster 15 main restart")
    parser.add_argument("--skip", default="", help="kill, restart")
    args = parser.parse_args()
    schema = f"tt_fault_{uuid.uuid4().hex[:10]}"
    database = f"{args.database}{'&' if '?' in args.database else '?'}schema={schema}"
    try:
        if "kill" not in args.skip:
            kill_servers(database, args.servers, args.kills, args.kill_every)
        if "restart" not in args.skip:
            restart_database(database, args.servers, args.streams, args.restart)
    finally:
        for _ in range(50):
            try:
                with psycopg.connect(args.database, autocommit=True) as conn:
                    conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                break
            except psycopg.OperationalError:
                time.sleep(0.2)


if __name__ == "__main__":
    main()
