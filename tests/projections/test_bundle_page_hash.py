"""The bundle page's own BLAKE2b (app/web/static/bundle.js, written for speed over a long log's
lines) gives hashlib's digest for every length around the block edges, keyed and not. The page
also checks it against the vendored blakejs before it trusts it; this holds it to Python's."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "bundle.js"
NODE = shutil.which("node")


def page_hash_source() -> str:
    """The page's hash function as written in bundle.js, from `const B2` to the end of its closure."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("  const B2 = (function () {")
    return text[start : text.index("\n  })();\n", start) + len("\n  })();\n")]


def sample(n: int) -> bytes:
    return bytes((i * 31 + n * 7) & 255 for i in range(n))


@pytest.mark.skipif(NODE is None, reason="needs node to run the page's script")
def test_the_pages_blake2b_is_hashlibs(tmp_path: Path) -> None:
    lengths = [*range(0, 300), 383, 384, 385, 1000, 4096, 10_000]
    key = bytes(range(1, 33))
    script = tmp_path / "hash.js"
    script.write_text(
        page_hash_source()
        + "const hex = (h) => Array.from(new Uint8Array(h.buffer, 0, 16),"
        + " (b) => b.toString(16).padStart(2, '0')).join('');\n"
        + f"const key = Uint8Array.from({list(key)});\n"
        + f"const out = {lengths}.map((n) => {{\n"
        + "  const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n * 7) & 255);\n"
        + "  return [B2(bytes, undefined, hex), B2(bytes, key, hex)];\n"
        + "});\nprocess.stdout.write(JSON.stringify(out));\n"
    )
    got = json.loads(subprocess.run([NODE, str(script)], capture_output=True, check=True, text=True).stdout)
    for n, (plain, keyed) in zip(lengths, got, strict=True):
        assert plain == hashlib.blake2b(sample(n), digest_size=16).hexdigest(), n
        assert keyed == hashlib.blake2b(sample(n), digest_size=16, key=key).hexdigest(), n
