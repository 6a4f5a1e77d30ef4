"""Where a running server of a log listens, so `tabletrail invite` prints a link that reaches it.

`serve` writes `LOG.serving` beside the log while it runs (one small JSON document: the
address players use, the process, when it started) and removes it when it stops. `invite`
reads it: a record whose process is gone (a server that was killed) is ignored, and
`--url` still overrides. A log named by a database URL has no file beside it: `invite`
then needs `--url`, or falls back on this machine's address and the port.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

from tabletrail.events.stores.pg_names import is_url

SUFFIX = ".serving"


def lan_address() -> str | None:
    """This machine's address on the local network (the one a phone would use), if any.

    Connecting a UDP socket sends nothing; it only asks the kernel which address would be used.
    """
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere
        address = str(s.getsockname()[0])
        return None if address.startswith("127.") or address == "0.0.0.0" else address
    return None


def record_path(log: str | Path) -> Path | None:
    """Where a server of this log records its address (None for a database URL)."""
    return None if is_url(str(log)) else Path(f"{log}{SUFFIX}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def listening(log: str | Path) -> str | None:
    """The address a running server of this log told players to use, or None if none runs."""
    path = record_path(log)
    if path is None:
        return None
    try:
        kept = json.loads(path.read_text())
        url, pid = str(kept["url"]), int(kept["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return url if _alive(pid) else None


@contextlib.contextmanager
def recorded(log: str | Path, url: str) -> Iterator[None]:
    """Record this process's address for the log while the block runs (the server's whole run)."""
    path = record_path(log)
    if path is None:
        yield
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"url": url, "pid": os.getpid(), "started": time.time()}) + "\n")
    os.replace(tmp, path)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError, KeyError):
            if int(json.loads(path.read_text())["pid"]) == os.getpid():  # not a newer server's record
                path.unlink()
