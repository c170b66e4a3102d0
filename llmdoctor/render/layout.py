"""Text layout: styled lines wrapped at the real width with hanging indents, then painted.

The layout is the same with and without colour (NO_COLOR and pipes change the paint, not
the shape): each line keeps its leading indent, and its continuations hang under the
first word after that indent, plus `hang` columns. Words are never broken; a word that
cannot fit on a line of its own (a URL, a path, a log token) is cut after a separator
("/", "=", ",", ":", "-", "_") where it has one, and only as a last resort between
characters. Pure functions, except `output_width`, which asks the terminal.
"""
from __future__ import annotations

import os
import shutil

from llmdoctor.parsing import LazyPattern

Segment = tuple[str, str]  # (text, style): styles are names in PAINT
Line = tuple[Segment, ...]

DEFAULT_WIDTH = 80
MIN_WIDTH = 20  # narrower than this, hanging indents stop making sense

PAINT = {  # style name -> SGR parameters; unknown styles paint nothing
    "bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36",
    "bold red": "1;31", "bold yellow": "1;33", "bold green": "1;32", "rule": "1",
}

_WORD = LazyPattern(r"\S+|\s+")
_BREAK_AFTER = LazyPattern(r"[/=,:;\-_.&?]")


def output_width(stream, environ=os.environ) -> int:
    """The width to lay text out at: the terminal's (COLUMNS wins, as for every program),
    else COLUMNS when piped, else 80."""
    columns = environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(MIN_WIDTH, int(columns))
    if getattr(stream, "isatty", lambda: False)():
        try:  # this stream's terminal (stderr's may be one while stdout is piped)
            return max(MIN_WIDTH, os.get_terminal_size(stream.fileno()).columns)
        except (OSError, ValueError, AttributeError):
            return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)
    return DEFAULT_WIDTH


def _cut(word: str, room: int) -> tuple[str, str]:
    """The longest head of an over-long word that fits `room`, ending after a separator
    when one lies in the second half of the room."""
    head = word[:room]
    seps = [m.end() for m in _BREAK_AFTER.finditer(head)]
    if seps and seps[-1] > room // 2:
        return word[:seps[-1]], word[seps[-1]:]
    return head, word[room:]


def wrap(line: Line, width: int, hang: int = 2) -> list[Line]:
    """One styled line as lines of at most `width` columns. The first line's leading
    spaces are its indent; continuations start `hang` columns further in, so an evidence
    line or a fix reads as one block under its heading."""
    width = max(MIN_WIDTH, width)
    tokens = [(t, style) for text, style in line for t in _WORD.findall(text.replace("\t", "    "))]
    lead = tokens.pop(0)[0] if tokens and tokens[0][0].isspace() else ""
    indent = min(len(lead) + hang, width // 2)
    out: list[list[Segment]] = [[(lead, "")]]
    col, fresh, gap = len(lead), True, ""

    def newline() -> None:
        nonlocal col
        out.append([(" " * indent, "")])
        col = indent

    for text, style in tokens:
        if text.isspace():
            gap = text
            continue
        sep, gap = ("" if fresh else gap), ""
        if col + len(sep) + len(text) > width:
            if not fresh:
                newline()
            sep = ""
            while len(text) > width - col:
                head, text = _cut(text, width - col)
                out[-1].append((head, style))
                newline()
        out[-1] += [(sep, ""), (text, style)]
        col += len(sep) + len(text)
        fresh = False
    return [tuple(seg for seg in segs if seg[0]) for segs in out]


def wrap_continued(line: Line, width: int) -> list[Line]:
    """A shell command or a config line, wrapped so that it still pastes as one: each break
    is at a space and ends in a backslash (shells and systemd both join such lines). A word
    is never cut here, since the indent of the next line would split it: a word longer than
    the width stays whole and overruns it."""
    width = max(MIN_WIDTH, width)
    text = "".join(t for t, _ in line)
    lead = text[: len(text) - len(text.lstrip(" "))]
    if len(text) <= width:
        return [line]
    code, sep, comment = text.partition("  # ")
    if sep and code.strip() not in ("", "$"):  # a backslash inside a comment continues nothing:
        prompt = "$ " if code.lstrip().startswith("$ ") else ""  # the comment goes on lines of its own
        notes = [((lead + "# " + "".join(t for t, _ in w).strip(), "verbatim"),)
                 for w in wrap(((lead + comment, ""),), width - 2, hang=0)]
        return notes + wrap_continued(((code.rstrip(), "verbatim"),), width)
    words = text.split()
    if len(words) < 2:
        return [line]
    out, current = [], lead + words[0]
    for word in words[1:]:
        if len(current) + 1 + len(word) + 2 > width:
            out.append(current + " \\")
            current = lead + "  " + word
        else:
            current += " " + word
    return [((l, "verbatim"),) for l in out + [current]]


def rule(title: str, width: int) -> list[Line]:
    """A heading rule `── title ───…` exactly `width` columns wide (a long title wraps)."""
    lines = wrap(((f"── {title}", "rule"),), width, hang=3)
    room = max(MIN_WIDTH, width) - sum(len(t) for t, _ in lines[-1]) - 1
    if room >= 2:
        lines[-1] = lines[-1] + ((" " + "─" * room, "rule"),)
    return lines


def paint(line: Line, color: bool) -> str:
    """A styled line as text: with ANSI colours, or plain."""
    if not color:
        return "".join(text for text, _ in line).rstrip()
    out = []
    for text, style in line:
        code = PAINT.get(style)
        out.append(f"\x1b[{code}m{text}\x1b[0m" if code and text.strip() else text)
    return "".join(out).rstrip()


def wrap_text(text: str, width: int, hang: int = 2) -> str:
    """Plain text (one view's lines) wrapped line by line at `width`."""
    lines = text.split("\n")
    return "\n".join(paint(w, False) for line in lines for w in wrap(((line, ""),), width, hang))


PROSE, CODE, WHOLE = "prose", "code", "whole"


def fit_lines(lines: list[tuple[str, str]], width: int | None) -> str:
    """Lines of a view, each marked how it may break, laid out at `width` (0 or None: as
    they are): PROSE wraps at spaces under its own indent, CODE (a command, a drop-in line)
    breaks at spaces with a backslash so it still pastes, WHOLE (a diff line, which a
    backslash would change) stays as it is."""
    if not width:
        return "\n".join(text for text, _ in lines) + "\n"
    out: list[str] = []
    for text, kind in lines:
        if kind == WHOLE or len(text) <= width:
            out.append(text)
        elif kind == CODE:
            out += [paint(w, False) for w in wrap_continued(((text, ""),), width)]
        else:
            out += [paint(w, False) for w in wrap(((text, ""),), width)]
    return "\n".join(out) + "\n"
