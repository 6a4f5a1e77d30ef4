"""A command's NOTIFY carries its batch's lines when they fit (issue 40): a hosted worker folds the move
from them instead of reading it back (events/stores/postgres_store.py, app/web/live.py).

- against the real server: a batch whose lines ride the NOTIFY, one too big to ride, a NOTIFY missed
  (a gap in the versions) and a loss of listening all leave the reader with the board a read of the
  database gives; only the first is folded without a read;
- the lines ride only when they are what the encounter holds: a writer refused for a stale version
  tells nothing; a payload at PostgreSQL's limit goes through, one past it goes as the version alone;
- lines heard are checked as read ones are: a forged NOTIFY whose lines break the (keyed) chain is
  refused, as the same lines read from the database would be;
- the listener hands over only lines that follow one another up to every version heard or read, in
  order, each once, whatever order NOTIFYs arrive in.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import msgspec
import psycopg
import pytest
from support_postgres import BASE, url
from support_store import fresh, play, timeline_of
from tabletrail.events.stores import postgres_store
from tabletrail.events.stores.chain import KEY_VARIABLE, line_hash
from tabletrail.events.stores.conflicts import VersionConflict
from tabletrail.events.stores.postgres_store import (
    CHANNEL,
    NOTIFY_BYTES,
    PostgresStore,
    notice_text,
    parse_url,
    read_notice,
)
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse
from tabletrail.web.live import KEEP_LINES, Broker
from tabletrail.web.table import Table

NAME = "fight"
GUARD = 300  # tries of 0.05 s before a test gives up waiting for a NOTIFY: a guard, not a measurement


# --- the payload -------------------------------------------------------------------------------------


def test_a_payload_carries_the_lines_it_can_and_is_read_back_as_it_was():
    lines = [b'{"seq":5,"note":"caf\xc3\xa9\\tx"}', b'{"seq":6,"tab":"\t"}']
    text = notice_text("s", "cellar", 6, lines)
    assert read_notice(text) == ("s", "cellar", "6", tuple(lines))
    assert read_notice("s\tcellar\t6") == ("s", "cellar", "6", None)
    assert read_notice("s\tcellar") == ("s", "cellar", "", None)
    assert read_notice("s") == ("s", "", "", None)
    assert notice_text("s", "cellar", 6, lines, utf8=False) == "s\tcellar\t6", "not UTF-8: ASCII lines only"
    assert notice_text("s", "cellar", 6, [b'{"a":1}'], utf8=False) == 's\tcellar\t6\t{"a":1}'
    for bad in (b'{"a":"\xff"}', b'{"a":1}\n', b'{"a":"\x00"}'):  # not UTF-8, two lines, a NUL
        assert notice_text("s", "cellar", 6, [b"{}", bad]) == "s\tcellar\t6"


def test_a_payload_never_reaches_postgresqls_limit():
    head = "s\tcellar\t6\t"
    fits = [b"x" * (NOTIFY_BYTES - 1 - len(head))]
    assert len(notice_text("s", "cellar", 6, fits).encode()) == NOTIFY_BYTES - 1
    assert notice_text("s", "cellar", 6, [fits[0] + b"x"]) == "s\tcellar\t6"
    two = [b"y" * 100, b"\xc3\xa9" * ((NOTIFY_BYTES - len(head) - 101) // 2)]  # bytes, not characters, count
    assert len(notice_text("s", "cellar", 6, two).encode()) < NOTIFY_BYTES


# --- the listener's lines -------------------------------------------------------------------------------


def listening(encounter: str = "cellar") -> tuple[Broker, Callable[[int, int], list[bytes] | None]]:
    broker = Broker("", "s", CHANNEL)
    broker.up = True
    return broker, broker.follow(encounter).after


def told(version: int, *lines: str) -> str:
    return notice_text("s", "cellar", version, [line.encode() for line in lines])  # none: the version alone


def test_lines_are_handed_over_only_in_order_with_none_missing():
    broker, after = listening()
    assert after(4, 4) is None, "nothing heard yet"
    broker._heard(told(6, "5", "6"))
    assert after(4, 4) == [b"5", b"6"] and after(5, 0) == [b"6"] and after(6, 6) == []
    assert after(3, 0) is None, "line 4 was never heard"
    assert after(4, 7) is None, "the store read version 7: the lines must reach it"
    broker._heard(told(7, "7"))
    assert after(4, 7) == [b"5", b"6", b"7"]
    broker._heard(told(6, "5", "6"))  # a NOTIFY arriving late changes nothing
    assert after(4, 0) == [b"5", b"6", b"7"]
    broker._heard(told(9, "9"))  # version 8's NOTIFY was never sent (another writer passed it) or lost
    assert after(7, 0) is None and after(8, 0) == [b"9"]
    broker._heard(told(12))  # a batch too big to ride: its lines must be read
    assert after(9, 0) is None and after(12, 12) == []
    assert after(12, 0) is None, "ahead of what its store read, with nothing newer heard: the database says"
    broker._heard(told(13, "13"))
    assert after(12, 0) == [b"13"] and after(11, 0) is None
    broker.note("cellar", 15, broker.epoch)  # a version read from the database, beyond what was heard
    assert after(13, 0) is None
    broker._heard(told(16, "16"))
    assert after(15, 0) == [b"16"] and after(13, 0) is None
    assert (broker.lines_served, broker.lines_missed) == (9, 9)


def test_lines_are_forgotten_with_the_listening_and_kept_only_for_followed_encounters():
    broker, after = listening()
    broker._heard(told(6, "5", "6"))
    broker.up = False
    assert after(4, 0) is None, "not listening: a NOTIFY may be missed"
    broker.up = True
    broker._forget()
    assert after(4, 0) is None and after(6, 0) is None
    broker._heard("s\tbridge\t3\t1\n2\n3")
    broker._heard("other\tcellar\t3\t1\n2\n3")  # another schema's encounter of the same name
    assert "bridge" not in broker._lines and after(0, 0) is None
    assert broker.version("bridge") == 3


def test_two_notifys_telling_different_lines_at_one_version_leave_them_to_the_database():
    broker, after = listening()
    broker._heard(told(6, "5", "6"))
    broker._heard(told(6, "6"))  # the same line told again: nothing changes
    assert after(4, 0) == [b"5", b"6"]
    broker._heard(told(3, "2", "3"))  # before what is kept: nothing to compare, nothing changes
    assert after(4, 0) == [b"5", b"6"]
    broker._heard(told(6, "6?"))  # one of the two was forged: neither is trusted
    assert after(4, 0) is None and after(5, 0) is None
    broker._heard(told(7, "7"))
    assert after(6, 0) == [b"7"]
    broker.follow("cellar").untrue()  # the database held fewer lines than were folded
    assert after(6, 0) is None


def test_only_the_newest_lines_are_kept():
    broker, after = listening()
    for version in range(1, 2 * KEEP_LINES + 1):
        broker._heard(told(version, str(version)))
    low = KEEP_LINES
    assert after(low - 1, 0) is None
    assert after(low, 0) == [str(v).encode() for v in range(low + 1, 2 * KEEP_LINES + 1)]


# --- against the real server ------------------------------------------------------------------------------


@contextmanager
def hearing(address: str) -> Iterator[Broker]:
    """A worker's listener on the database, running in an event loop of its own, once it listens."""
    where = parse_url(address)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    broker = Broker(where.conninfo, where.schema, CHANNEL)

    async def start() -> None:
        broker.changed("-")  # the first wait starts the listening

    asyncio.run_coroutine_threadsafe(start(), loop).result(30)
    try:
        waited(lambda: broker.up)
        yield broker
    finally:
        asyncio.run_coroutine_threadsafe(broker.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


def waited(done: Callable[[], bool]) -> None:
    for _ in range(GUARD):
        if done():
            return
        time.sleep(0.05)
    raise AssertionError("not heard")


def from_database(address: str) -> dict:
    return timeline_of(Encounter.open(PostgresStore(address, private=True)))


class Reader:
    """A worker's encounter: its store asks the listener for the lines of a move before the database."""

    def __init__(self, address: str, broker: Broker) -> None:
        self.store = PostgresStore(address, private=True)
        self.store.heard_lines = broker.follow(NAME)
        self.broker = broker
        self.enc = Encounter.open(self.store)

    def caught_up(self, writer: Encounter) -> tuple[dict, bool]:
        """Once the listener heard the writer's tip: the board folded in, and whether it came from the
        NOTIFYs (no read of the database)."""
        waited(lambda: self.broker.version(NAME) == len(writer.records))
        missed = self.broker.lines_missed
        self.enc.refresh()
        return timeline_of(self.enc), self.broker.lines_missed == missed


def command(enc: Encounter, text: str) -> None:
    done = enc.execute(parse(text), text)
    assert isinstance(done, list), done


BIG = "forbid 0,0 1,0 2,0 rule=speed-meters/movement why=" + "w" * 3500  # a batch of some 10 KB


def test_a_reader_folds_what_rode_the_notify_and_reads_what_did_not(pg_schema: str):
    address = url(pg_schema, NAME)
    writer = fresh(PostgresStore(address, private=True))
    with hearing(address) as broker:
        reader = Reader(address, broker)
        play(writer, 6)
        board, heard = reader.caught_up(writer)
        assert heard and board == from_database(address), "every batch rode its NOTIFY"
        assert broker.lines_served >= 1

        command(writer, BIG)
        assert sum(len(line) for line in list(writer.store.read())[-3:]) > NOTIFY_BYTES
        board, heard = reader.caught_up(writer)
        assert not heard and board == from_database(address), "too big to ride: read from the database"
        command(writer, "end-turn")
        board, heard = reader.caught_up(writer)
        assert heard and board == from_database(address), "the next batch rides again"

        with pytest.MonkeyPatch.context() as patch:  # one NOTIFY goes where nobody listens: missed
            patch.setattr(postgres_store, "CHANNEL", "nobody_listens")
            command(writer, "end-turn")
        missed = len(writer.records)
        command(writer, "end-turn")
        assert broker.version(NAME) != missed
        board, heard = reader.caught_up(writer)
        assert not heard and board == from_database(address), "a gap: read from the database"
        play(writer, 4, seed=3)
        board, heard = reader.caught_up(writer)
        assert heard and board == from_database(address)


def test_a_reader_behind_a_loss_of_listening_reads_the_database(pg_schema: str):
    address = url(pg_schema, NAME)
    writer = fresh(PostgresStore(address, private=True))
    with hearing(address) as broker:
        reader = Reader(address, broker)
        command(writer, "end-turn")
        epoch = broker.epoch
        with psycopg.connect(BASE, autocommit=True) as admin:  # the listener's connection dropped
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %%' "
                "AND pid <> pg_backend_pid() AND application_name = ''"
            )
        waited(lambda: broker.epoch >= epoch + 2 and broker.up)
        command(writer, "end-turn")
        board, heard = reader.caught_up(writer)
        assert not heard and board == from_database(address)


def test_a_writer_refused_for_a_stale_version_tells_no_lines(pg_schema: str):
    """Its NOTIFY would name a version the encounter has reached, with another writer's lines there."""
    address = url(pg_schema, NAME)
    writer = fresh(PostgresStore(address, private=True))
    play(writer, 3)
    before = len(writer.records)
    rival = PostgresStore(address, private=True)
    with psycopg.connect(BASE, autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        command(writer, "end-turn")
        batch = list(writer.store.read())[before:]
        last = json.loads(batch[-1])
        other = [*batch[:-1], msgspec.json.encode({**last, "at": "2026-11-30T00:00:00+00:00"})]
        with pytest.raises(VersionConflict):  # the same versions, decided on the version before the writer's
            rival.append(other, expected=before)
        payloads = [n.payload for n in conn.notifies(timeout=0.5) if n.payload.startswith(f"{pg_schema}\t")]
    assert [read_notice(p).lines for p in payloads] == [tuple(batch)], "the writer's NOTIFY alone"


def padded_batch(store: PostgresStore, size: int) -> list[bytes]:
    """The next batch's one line, `size` bytes long (the store checks versions and batches, not hashes)."""
    last = json.loads(list(store.read())[-1])
    line = {**last, "seq": last["seq"] + 1, "batch": last["batch"] + 1, "command_id": None, "pad": ""}
    line["pad"] = "p" * (size - len(msgspec.json.encode(line)))
    out = msgspec.json.encode(line)
    assert len(out) == size
    return [out]


def test_a_payload_at_postgresqls_limit_goes_through_and_one_past_it_goes_without_lines(pg_schema: str):
    address = url(pg_schema, NAME)
    store = PostgresStore(address, private=True)
    fresh(store)
    with psycopg.connect(BASE, autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        for extra in (0, 1):
            tip = store.version() + 1
            head = f"{pg_schema}\t{NAME}\t{tip}\t"
            store.append(padded_batch(store, NOTIFY_BYTES - 1 - len(head) + extra), expected=tip - 1)
            payloads = [n.payload for n in conn.notifies(timeout=0.5) if n.payload.startswith(pg_schema)]
            assert [read_notice(p).what for p in payloads] == [str(tip)]
            assert (read_notice(payloads[0]).lines is None) == bool(extra)


@pytest.mark.parametrize("keyed", [False, True])
def test_forged_lines_in_a_notify_are_refused_or_undone_by_the_database(
    pg_schema: str, keyed: bool, monkeypatch: pytest.MonkeyPatch
):
    """Any role that can connect may NOTIFY. A forged line that breaks the chain (a keyed chain's, forged
    without the table's secret) is refused by the fold as the same line read from the database would be,
    and the table reads the log again; one that chains on (a plain chain is anyone's to extend) is shown
    to the pages that read what was heard until the next write looks at the database, or the real
    batch at that version is heard."""
    if keyed:
        monkeypatch.setenv(KEY_VARIABLE, "table 7 of the tuesday group")
    address = url(pg_schema, NAME)
    writer = fresh(PostgresStore(address, private=True))
    play(writer, 3)
    with hearing(address) as broker:
        store = PostgresStore(address, private=True)
        store.heard_lines = broker.follow(NAME)
        table = Table(store.name, store)
        command(writer, "end-turn")
        waited(lambda: broker.version(NAME) == len(writer.records))
        table.live(broker.version(NAME))  # a page's read: folded from what was heard
        lines = list(writer.store.read())
        forged = json.loads(lines[-1])
        forged.update(seq=forged["seq"] + 1, batch=forged["batch"] + 1, prev=line_hash(lines[-1]))
        tip = len(lines) + 1
        payload = notice_text(pg_schema, NAME, tip, [msgspec.json.encode(forged)])
        with psycopg.connect(BASE, autocommit=True) as conn:
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
        waited(lambda: broker.version(NAME) == tip)
        shown = table.live(broker.version(NAME))
        if keyed:
            assert timeline_of(shown) == from_database(address), "refused: the log read again"
        else:
            assert len(shown.records) == tip, "a plain chain's forged line is shown"
            assert timeline_of(table.live()) == from_database(address), "undone by a write's look"
            again = table.live(broker.version(NAME))  # the forged line is not folded again
            assert timeline_of(again) == from_database(address)
        command(writer, "end-turn")  # the real batch at the forged version: what was kept is dropped
        assert len(writer.records) > tip
        waited(lambda: broker.version(NAME) == len(writer.records))
        assert timeline_of(table.live(broker.version(NAME))) == from_database(address)


def test_notify_lines_0_tells_the_version_alone(pg_schema: str, monkeypatch: pytest.MonkeyPatch):
    """For a database where roles not trusted may connect, or to compare: moves are read back."""
    monkeypatch.setenv(postgres_store.NOTIFY_LINES_ENV, "0")
    address = url(pg_schema, NAME)
    writer = fresh(PostgresStore(address, private=True))
    with psycopg.connect(BASE, autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        command(writer, "end-turn")
        payloads = [n.payload for n in conn.notifies(timeout=0.5) if n.payload.startswith(f"{pg_schema}\t")]
    assert payloads == [f"{pg_schema}\t{NAME}\t{len(writer.records)}"]


@pytest.mark.parametrize("said", ["maybe", "yes", "2", "off"])
def test_a_notify_lines_setting_that_is_neither_0_nor_1_is_a_one_line_error(
    said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    from tabletrail.cli import main

    monkeypatch.setenv(postgres_store.NOTIFY_LINES_ENV, said)
    code = main(["encounters", BASE])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err, out + err
    expected = "expected 1 (lines ride the NOTIFY, the default) or 0"
    assert err == f"error: {postgres_store.NOTIFY_LINES_ENV}={said!r}: {expected}\n"
