"""BLAKE2b, the hash of the log's chain, the snapshots' checksums and the seeded dice.

`hashlib` loads OpenSSL (~4 ms of every command) for hashes tabletrail does not use
on its hot paths; its `blake2b` is the `_blake2` module's own, imported here directly.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it: hashlib finds one
    from hashlib import blake2b

__all__ = ["blake2b"]
