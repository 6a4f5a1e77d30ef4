from __future__ import annotations
from typing import NamedTuple
class Answer(NamedTuple):
    label: str
    text: str
    actor: str = ""
    needs: str = ""
class Awaited(NamedTuple):
    kind: str
    fighter: str
    prompt: str
    answers: tuple[Answer, ...] = ()
    blocking: bool = False
class Heading(NamedTuple):
    dx: int
    dy: int
    speed: int
    why: str
