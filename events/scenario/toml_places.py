"""Where each field of a TOML file is written: `fighters[2].at` -> line 14, column 7.

tomllib keeps no positions, so a scenario error would name a field but not a
line. This scans the text once, for the TOML a scenario uses (tables, arrays of
tables, `key = value` lines, multi-line arrays of strings, inline tables), and
maps each field path, written as the validator writes it, to where its value
starts. `locate` then turns `FILE: FIELD: what` into `FILE:LINE:COL: FIELD: what`.
"""

from __future__ import annotations

import re

KEY = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)\s*=\s*')
STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


def _name(key: str) -> str:
    """A key as the validator names it: bare as written, a quoted one as Python's repr of its text."""
    return repr(key[1:-1]) if key[:1] in "\"'" else key


def _code(line: str) -> str:
    """A line without its comment: the first `#` outside a string."""
    at = 0
    while True:
        hash_at = line.find("#", at)
        string = STRING.search(line, at)
        if hash_at < 0:
            return line
        if string is None or hash_at < string.start():
            return line[:hash_at]
        at = string.end()


def places(text: str) -> dict[str, tuple[int, int]]:
    """Field path -> (line, column), both from 1, of every table, key and array item of the text."""
    found: dict[str, tuple[int, int]] = {}
    table = ""  # the current [table] or [[array]][i]
    counts: dict[str, int] = {}  # how many of each array so far
    open_array: str | None = None  # the path of a multi-line array being read, and its items so far
    items = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        body = _code(line)
        if open_array is not None:
            for item in STRING.finditer(body):
                found.setdefault(f"{open_array}[{items}]", (lineno, item.start() + 1))
                items += 1
            if "]" in STRING.sub("", body):
                open_array = None
            continue
        stripped = body.strip()
        indent = len(body) - len(body.lstrip())
        if stripped.startswith("[["):
            name = stripped[2 : stripped.find("]]")].strip()
            counts[name] = counts.get(name, -1) + 1
            table = f"{name}[{counts[name]}]"
            found.setdefault(name, (lineno, indent + 1))
            found[table] = (lineno, indent + 1)
            continue
        if stripped.startswith("["):
            table = stripped[1 : stripped.find("]")].strip()
            found.setdefault(table, (lineno, indent + 1))
            continue
        m = KEY.match(body)
        if not m:
            continue
        path = f"{table}.{_name(m.group(1))}" if table else _name(m.group(1))
        found.setdefault(path, (lineno, m.end() + 1))
        value = body[m.end() :]
        if value.lstrip().startswith("{"):  # an inline table: its keys, on this line
            for inner in KEY.finditer(value):
                found.setdefault(f"{path}.{_name(inner.group(1))}", (lineno, m.end() + inner.end() + 1))
        elif value.lstrip().startswith("["):
            strings = list(STRING.finditer(value))
            for i, s in enumerate(strings):
                found.setdefault(f"{path}[{i}]", (lineno, m.end() + s.start() + 1))
            if "]" not in STRING.sub("", value):
                open_array, items = path, len(strings)
    return found


def locate(message: str, source: str, text: str) -> str:
    """`FILE: FIELD: what` -> `FILE:LINE:COL: FIELD: what`, at the field or the nearest table holding it."""
    prefix = f"{source}: "
    if not message.startswith(prefix):
        return message
    field, sep, what = message[len(prefix) :].partition(": ")
    if not sep:
        return message
    where = places(text)
    path = field
    while path:
        if path in where:
            line, col = where[path]
            return f"{source}:{line}:{col}: {field}: {what}"
        path = re.sub(r"(\[\d+\]|\.[^.\[]+)$", "", path) if re.search(r"(\[\d+\]|\.[^.\[]+)$", path) else ""
    return message
