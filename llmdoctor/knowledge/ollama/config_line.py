"""Ollama's start-up `server config env="map[KEY:value ...]"` line.

It shows every value after Ollama parsed it, which makes it the best single source of
the effective configuration. Values may contain spaces inside brackets
(`OLLAMA_ORIGINS:[* http://localhost ...]`) and paths with spaces, so keys are only
recognised at bracket depth 0 after a space.
"""
from __future__ import annotations

from llmdoctor.parsing import LazyPattern, ParseError

START = LazyPattern(r'server config"?\s+env="?map\[')
_KEY = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*:")


def is_start(line: str) -> bool:
    return START.search(line) is not None


def is_complete(text: str) -> bool:
    m = START.search(text)
    return m is not None and _body_end(text, m.end()) is not None


def _body_end(text: str, start: int) -> int | None:
    """Index of the `]` closing `map[`, honouring nested brackets."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == "[":
            depth += 1
        elif c == "]":
            if depth == 0:
                return i
            depth -= 1
    return None


def parse_server_config(text: str) -> dict[str, str]:
    """The key -> value map of a server config line (already joined if it was wrapped)."""
    m = START.search(text)
    if not m:
        raise ParseError('no `server config env="map[...]"` in line')
    end = _body_end(text, m.end())
    if end is None:
        raise ParseError("server config line is cut off before its closing `]`")
    body = text[m.end():end].replace('\\"', '"')
    values: dict[str, str] = {}
    key: str | None = None
    buf: list[str] = []
    depth = 0
    i = 0
    n = len(body)
    while i < n:
        at_token = i == 0 or (body[i - 1] == " " and depth == 0)
        if at_token:
            km = _KEY.match(body, i)
            if km:
                if key is not None:
                    values[key] = "".join(buf).rstrip(" ")
                key, buf = km.group(0)[:-1], []
                i = km.end()
                continue
        c = body[i]
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        buf.append(c)
        i += 1
    if key is not None:
        values[key] = "".join(buf).rstrip(" ")
    if not values:
        raise ParseError("server config map is empty")
    return values


def join_wrapped(first: str, continuation: str) -> str:
    """Rejoin a line a user's terminal or editor wrapped: a break at a space keeps one
    space; a break inside a word (`ROCR_VISIBL` / `E_DEVICES:`) joins directly."""
    if first.endswith(" ") or continuation[:1].isspace():
        return first.rstrip() + " " + continuation.lstrip()
    return first + continuation
