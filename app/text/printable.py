"""Text safe to show on a terminal: control characters written out, not acted on.

Its own small module because every CLI verb wraps its output in `Printable`
before it knows what it will print; the renderers (app/text/render.py) are imported
only by the verbs that draw something.
"""

from __future__ import annotations

from typing import Any

# C0 controls but newline and tab, DEL, and the C1 controls: a terminal acts on them (ESC [2J clears
# the screen), so text a player typed (a why=, a command, a fighter's name) is shown as \x1b instead.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x20), *range(0x7F, 0xA0)) if c not in (0x09, 0x0A)}


def printable(text: str) -> str:
    """`text` with every control character a terminal would act on written out as \\xNN."""
    return text.translate(_CONTROLS)


class Printable:
    """A text stream that escapes control characters on the way through (see `printable`).

    The CLI wraps stdout and stderr in it, so every human output, error messages
    included, is safe to show; JSON output is unchanged (json.dumps escapes them itself).
    """

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        written: int = self.stream.write(printable(text))  # a text stream's count
        return written

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)
