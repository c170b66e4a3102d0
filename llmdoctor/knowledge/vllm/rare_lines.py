"""Where a vLLM log's rare lines are: requests refused for the context length, and the start-up
line that lists the engine's settings (in what clients received, also the 503 text).

A plain search for their marks costs a pass over every byte per mark, or a regex pass (about
grep's whole time each): on a log of gigabytes that is most of the scan. So a log is searched
for the marks wherever they stand only in its first EXACT_LINES lines (a paste, a ticket, a
short log, a long log's start-up); beyond them, only on lines that hold an anchor, one of
the forms in which vLLM writes these lines:
- the V0 scheduler's refusal is a warning: `WARNING ... Input prompt (N tokens) is too long and
  exceeds limit of M`;
- the other refusals reach a log as an exception (`ValueError: ...`, `VLLMValidationError:
  ...`, `openai.BadRequestError: Error code: 400 - {...}`) or as a JSON error body
  (`{"object": "error", "message": "This model's maximum context length is ..."}`);
- the settings lines are `non-default args: {...}` (V1) and `Initializing a(n) (V1) LLM
  engine (vX) with config: ...` (every version).
Anchors are found with one-character finds (memchr): 'W' of WARNING, 'V' of ValueError and
VLLMValidationError, '{', 'L' of "LLM engine"; a line is taken at most once per anchor. ("ERROR"
and "Error" would be anchors too but for their 'E', which every `GET /metrics` access line holds.) A mark on a line
without an anchor past the first EXACT_LINES lines is not read (vLLM prints none such).

Pure: buffers in, line starts out; bytes and str alike.
"""
from __future__ import annotations

import re
from functools import lru_cache

from llmdoctor.parsing import LazyPattern

EXACT_LINES = 65536  # lines of a log searched for the marks wherever they stand (~10 MB)
CONTEXT_MARKS = ("exceeds limit of", "maximum model length of", "maximum context length is",
                 "cannot be greater than max_model_len", "xt length ", "exceeds the capacity of block_manager")
SETTINGS_MARKS = ("non-default args: {", "engine with config: ", "engine (v", "x_num_batched_tokens=",
                  "x model len ", "x gpu_memory_utilization (", "ser-specified max_model_len")
# start-up lines about the KV cache without "KV cache" in them: the concurrency line (read here
# when it stands apart from its size line) and the refusal to start with no room for any block
NO_KV_MEMORY = "No available memory for the cache blocks"
DESIRED_UTIL = "esired GPU memory utilization"  # 'Desired ... is (U, R GiB)'; '... is less than desired ...'
START_MARKS = ("ximum concurrency for ", NO_KV_MEMORY, DESIRED_UTIL)
BUSY_MARK = "cannot accept new requests"
# (character found by memchr, the words it must begin on the line to anchor it)
V_ANCHORS = ("ValueError", "VLLMValidationError")  # the scanner's own 'V' loop finds these
ANCHORS = (("W", ("WARNING",)), ("V", V_ANCHORS), ("{", ("{",)), ("L", ("LLM engine",)))
_ANCHORS_B = tuple((c.encode(), tuple(w.encode() for w in words)) for c, words in ANCHORS)
V_ANCHORS_B = tuple(w.encode() for w in V_ANCHORS)
# The exact search in bytes: fewer passes than one per mark, each a superset of its marks'
# lines (a rarer first character stops less often); "non-default args: {" by memchr on "{".
_CONTEXT_OR_LIMIT = LazyPattern(rb"x(?:ceeds (?:limit of|the capacity of block_manager)|imum (?:model length of|context "
                                rb"length is|concurrency for )|_model_len|t length |_num_batched_tokens=| model len "
                                rb"| gpu_memory_utilization \()")
_ENGINE_CONFIG = LazyPattern(rb"gine (?:with config: |\(v)")  # 'g' is rarer than 'n': fewer stops
# (every other mark holds an 'x' that the first finds: "Maximum", "context", "max_...", "exceeds";
# the ones without, NO_KV_MEMORY and DESIRED_UTIL, by a plain find each, at memchr speed)
_LITERALS_B = (NO_KV_MEMORY.encode(), DESIRED_UTIL.encode())
_BUSY = LazyPattern(re.escape(BUSY_MARK.encode()))


def marks_for(busy: bool) -> tuple[str, ...]:
    return ((BUSY_MARK,) if busy else ()) + CONTEXT_MARKS + SETTINGS_MARKS + START_MARKS


@lru_cache(maxsize=4)
def encoded(marks: tuple[str, ...]) -> tuple[bytes, ...]:
    """`marks` for searching bytes."""
    return tuple(m.encode() for m in marks)


def holds_mark(buf, ls: int, le: int, marks) -> bool:
    """Does buf[ls:le] hold one of `marks` (bytes marks for a bytes buffer)?"""
    return any(buf.find(m, ls, le) != -1 for m in marks)


def line_bounds(buf, nl, begin: int, end: int, pos: int) -> tuple[int, int]:
    """(start, end) of the line of buf[begin:end] that holds `pos`, the newline left out."""
    ls = max(begin, buf.rfind(nl, begin, pos) + 1)
    le = buf.find(nl, pos, end)
    return ls, (end if le == -1 else le)


def exact_starts(buf, begin: int, end: int, marks: tuple[str, ...]) -> set[int]:
    """Starts of the lines of buf[begin:end] that may hold one of `marks` (a superset: the
    caller checks each line's text)."""
    starts: set[int] = set()
    if isinstance(buf, (bytes, bytearray)):
        searches = (_CONTEXT_OR_LIMIT.search, _ENGINE_CONFIG.search) + ((_BUSY.search,) if BUSY_MARK in marks else ())
        find, startswith, nl = buf.find, buf.startswith, b"\n"
        for search in searches:
            m = search(buf, begin, end)
            while m is not None:
                ls, le = line_bounds(buf, nl, begin, end, m.start())
                starts.add(ls)
                m = search(buf, le + 1, end) if le < end else None
        for literal in _LITERALS_B:
            p = find(literal, begin, end)
            while p != -1:
                ls, le = line_bounds(buf, nl, begin, end, p)
                starts.add(ls)
                p = find(literal, le + 1, end) if le < end else -1
        p = find(b"{", begin, end)
        while p != -1:
            if startswith(b"non-default args: {", p - 18):
                ls, le = line_bounds(buf, nl, begin, end, p)
                starts.add(ls)
                p = find(b"{", le + 1, end) if le < end else -1
            else:
                p = find(b"{", p + 1, end)
        return starts
    for mark in marks:
        p = buf.find(mark, begin, end)
        while p != -1:
            ls, le = line_bounds(buf, "\n", begin, end, p)
            starts.add(ls)
            p = buf.find(mark, le + 1, end) if le < end else -1
    return starts


def anchored_starts(buf, begin: int, end: int, marks: tuple[str, ...], v_done: bool = False) -> set[int]:
    """Starts of the lines of buf[begin:end] that hold an anchor and one of `marks`; `v_done`:
    the caller has looked at every 'V' already (the vLLM scanner's stats loop does)."""
    is_bytes = isinstance(buf, (bytes, bytearray))
    if is_bytes:
        anchors, nl, wanted = _ANCHORS_B, b"\n", encoded(marks)
    else:
        anchors, nl, wanted = ANCHORS, "\n", marks
    find, startswith = buf.find, buf.startswith
    starts: set[int] = set()
    for char, words in anchors:
        if v_done and char in ("V", b"V"):
            continue
        p = find(char, begin, end)
        while p != -1:
            if not startswith(words, p):
                p = find(char, p + 1, end)
                continue
            ls, le = line_bounds(buf, nl, begin, end, p)
            if ls not in starts and holds_mark(buf, ls, le, wanted):
                starts.add(ls)
            p = find(char, le + 1, end) if le < end else -1
    return starts


def line_anchored(line: str) -> bool:
    """Does one line hold an anchor (the test past the first EXACT_LINES lines)?"""
    return any(w in line for _, words in ANCHORS for w in words)
