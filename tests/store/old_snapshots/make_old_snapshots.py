"""How fight.jsonl and its sidecar here were made: by tabletrail as of commit ee0c665, before the
snapshot kept its batch lists packed and before the sidecar kept its interval. Not run by the tests.

Run with that version installed: `python make_old_snapshots.py FOLDER`. It plays seeded random
commands (support_store.play: moves, turns, undos and redos, so some batches are abandoned) on a
JSON Lines log taking a snapshot every 20 events, then undoes until a snapshot is taken with a redo
stack of two or more: every list the old format kept as tuples is there to be read back. The log's
side files but the sidecar and the tip (LOG.refused) are not kept.
"""

import sys
from pathlib import Path

import msgspec
from tabletrail.events.commands import Undo
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.jsonl_snapshots import unsealed

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support_store import fresh, play  # noqa: E402

EVERY = 20


def newest(path: Path) -> msgspec.Struct | None:
    from tabletrail.projections.snapshot import loads

    store = JsonlStore(path)
    kept = (
        unsealed(store.snapshots_path.read_bytes(), store._key(None)) if store.snapshots_path.exists() else []
    )
    return loads(max(kept, key=lambda k: k.version).data) if kept else None


def main() -> None:
    path = Path(sys.argv[1]) / "fight.jsonl"
    enc = fresh(JsonlStore(path, durable=False, snapshot_every=EVERY))
    play(enc, 90, seed=3)
    for _ in range(200):
        snap = newest(path)
        if snap and len(snap.undone) >= 2 and snap.abandoned and len(snap.applied) >= 3:
            print(
                f"{len(enc.records)} events; newest snapshot at {snap.version}: {snap.applied=} "
                f"{snap.undone=} {snap.abandoned=}"
            )
            return
        enc.execute(Undo(by="gm"), "undo by=gm")
    raise SystemExit("no such snapshot")


main()
