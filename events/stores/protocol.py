"""What the service needs of a store, and what some stores offer beyond it (versions, snapshots)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, TypeGuard


class Store(Protocol):
    """What the encounter needs of a store: MemoryStore, JsonlStore, SqliteStore, or your own."""

    name: str

    def read(self, start: int = 0) -> Iterator[bytes]: ...

    def append(self, lines: Sequence[bytes]) -> None: ...


class VersionedStore(Store, Protocol):
    """A store whose append takes the version its writer saw (`versioned = True`): every store shipped."""

    versioned: bool

    def append(self, lines: Sequence[bytes], *, expected: int | None = None) -> None: ...


class SnapshotStore(Store, Protocol):
    """A store that keeps snapshots and reads any window of versions: the database stores, and a JSON
    Lines file (its snapshots in LOG.snapshots beside it). An encounter opened from a snapshot reads
    the batches before it back by their span when undo reaches them (app/service/history.py)."""

    @property
    def snapshot_every(self) -> int: ...

    def read(self, start: int = 0, stop: int | None = None) -> Iterator[bytes]: ...

    def latest_snapshot(self, fmt: int, upto: int | None = None) -> tuple[int, bytes] | None: ...

    def save_snapshots(self, fmt: int, snapshots: Sequence[tuple[int, bytes]]) -> None: ...

    def snapshots(self, fmt: int) -> list[tuple[int, bytes]]: ...

    def batch_span(self, batch: int) -> tuple[int, int] | None: ...


def is_versioned(store: Store) -> TypeGuard[VersionedStore]:
    """Does this store's append check the version (it says so: `versioned = True`)?"""
    return bool(getattr(store, "versioned", False))


def keeps_snapshots(store: Store) -> TypeGuard[SnapshotStore]:
    """Does this store keep snapshots (it has `latest_snapshot`)? Then it reads windows of versions too."""
    return getattr(store, "latest_snapshot", None) is not None
