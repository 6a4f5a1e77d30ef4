"""What a picture file is, told from its first bytes: PNG, JPEG or WebP, and its size in pixels.

A battle map's picture comes from outside (a Universal VTT file's `image`, a
scenario's `[picture] file`). Its kind is read from the magic bytes, never from a
file name, so a text file renamed `cave.png` is refused where it is named; its
size lets the table view place it under the grid without decoding it.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): msgspec would
# compile each Struct field's annotation string when a command first builds a decoder (test_cli_fast).
import math
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

import msgspec

MAX_PICTURE_BYTES = 50_000_000  # a 200 x 200 cell map at 100 px a cell is well under this as a PNG
MAX_PICTURE_SIDE = 30_000  # pixels a side: more than any browser draws in one image


class Sniffed(NamedTuple):
    kind: str  # "png", "jpeg" or "webp": also the file suffix written
    width: int
    height: int


MEDIA_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}


def sniff(data: bytes) -> Sniffed | None:
    """The picture's kind and size, or None when the bytes are no PNG, JPEG or WebP we can read."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return _sized("png", width, height)
    if data.startswith(b"\xff\xd8\xff"):
        return _jpeg(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp(data)
    return None


def _sized(kind: str, width: int, height: int) -> Sniffed | None:
    if not (0 < width <= MAX_PICTURE_SIDE and 0 < height <= MAX_PICTURE_SIDE):
        return None
    return Sniffed(kind, width, height)


# JPEG markers that start a frame (and so carry its size): SOF0-SOF15 but DHT, JPG and DAC.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(data: bytes) -> Sniffed | None:
    """Walk the JPEG segments to the first frame header, which holds the size."""
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return _sized("jpeg", width, height)
        if length < 2:
            return None
        at += 2 + length
    return None


def _webp(data: bytes) -> Sniffed | None:
    """The three WebP flavours keep the size in three places (lossy, lossless, extended)."""
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return _sized("webp", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return _sized("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return _sized("webp", width, height)
    return None


class PictureSpec(msgspec.Struct, frozen=True, gc=False):
    """A scenario's `[picture]`: the battle map drawn under the grid, as it was when the encounter began.

    `file` is the path it resolved to beside the scenario; `sha256` pins its bytes, so the
    table view serves that picture and no other (the log holds the digest, never the pixels).
    """

    file: str
    pixels_per_grid: float
    origin: tuple[float, float] = (0.0, 0.0)  # grid position of the picture's top-left corner
    sha256: str = ""
    kind: str = ""
    width: int = 0  # pixels
    height: int = 0

    @property
    def name(self) -> str:
        """The file's name alone: where the table view looks beside the log when the path is gone."""
        return Path(self.file).name


PICTURE_KEYS = ("file", "pixels_per_grid", "origin")


def picture_spec(raw: Any, folder: Path | None, fail: Callable[[str, str], NoReturn]) -> PictureSpec:
    """Validate a scenario's `[picture]` table; `fail(field, what)` raises naming the field."""
    if not isinstance(raw, dict):
        fail("picture", 'expected a table: [picture] file = "cave.png", pixels_per_grid = 70')
    for key in raw:
        if key not in PICTURE_KEYS:
            fail(f"picture.{key}", f"unknown field (expected {', '.join(PICTURE_KEYS)})")
    name = raw.get("file")
    if not isinstance(name, str) or not name:
        fail("picture.file", f'expected the picture\'s file name, e.g. file = "cave.png", got {name!r}')
    ppg = raw.get("pixels_per_grid")
    if isinstance(ppg, bool) or not isinstance(ppg, int | float) or not 0 < ppg <= 1_000:
        fail("picture.pixels_per_grid", f"expected the pixels a cell spans, above 0 up to 1000, got {ppg!r}")
    origin = raw.get("origin", [0.0, 0.0])
    if (
        not isinstance(origin, list)
        or len(origin) != 2
        or not all(isinstance(c, int | float) and not isinstance(c, bool) for c in origin)
        or not all(math.isfinite(c) and abs(c) <= 1_000 for c in origin)
    ):
        fail(
            "picture.origin", f"expected [x, y]: the grid position of the picture's top-left, got {origin!r}"
        )
    spec = PictureSpec(file=name, pixels_per_grid=float(ppg), origin=(float(origin[0]), float(origin[1])))
    if folder is None:
        return spec
    path = (folder / name).resolve()
    try:
        data = path.read_bytes() if path.stat().st_size <= MAX_PICTURE_BYTES else None
    except OSError:
        fail("picture.file", f"{name!r}: no such file next to the scenario ({path})")
    if data is None:
        fail("picture.file", f"{name!r}: larger than {MAX_PICTURE_BYTES:,} bytes (MAX_PICTURE_BYTES)")
    sniffed = sniff(data)
    if sniffed is None:
        fail("picture.file", f"{name!r}: not a PNG, JPEG or WebP picture")
    import hashlib  # OpenSSL's sha256: only a scenario's picture is hashed, not every command's

    return msgspec.structs.replace(
        spec,
        file=str(path),
        sha256=hashlib.sha256(data).hexdigest(),
        kind=sniffed.kind,
        width=sniffed.width,
        height=sniffed.height,
    )
