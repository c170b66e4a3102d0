"""Where a vLLM log's rare lines are: requests refused for the context length, the start-up
line that lists the engine's settings (in what clients received, also the 503 text), and the
other start-up lines the message catalogue (catalogue.py) names: limits in effect (chunked
prefill's token budget, "Using max model len", the memory share), a "Maximum concurrency" line
apart from its size line, and the refusals to start for want of GPU memory.

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
  engine (vX) with config: ...` (every version), and the release is also in `vLLM API server
  version X` (0.4.1-);
- the start-up refusals are raised (`ValueError: No available memory for the cache blocks`,
  `ValueError: Free memory on device ...`); the other start-up lines are INFO lines with no
  anchor, read in the first EXACT_LINES lines only, where a start-up stands.
Anchors are found with one-character finds (memchr): 'W' of WARNING, 'V' of ValueError and
VLLMValidationError, '{', 'L' of "LLM engine" and of "vLLM API server version"; a line is taken
at most once per anchor. ("ERROR" and "Error" would be anchors too but for their 'E', which every
`GET /metrics` access line holds.) A mark on a line without an anchor past the first EXACT_LINES
lines is not read (no refusal is printed so).

Pure: buffers in, line starts out; bytes and str alike.
"""
from __future__ import annotations

import re
from functools import lru_cache

from llmdoctor.parsing import LazyPattern

EXACT_LINES = 65536  # lines of a log searched for the marks wherever they stand (~10 MB)
CONTEXT_MARKS = ("exceeds limit of", "maximum model length of", "maximum context length is",
                 "cannot be greater than max_model_len", "xt length ", "exceeds the capacity of block_manager")
API_SERVER_VERSION = "API server version "  # 'vLLM API server version X' (the release; also in "LLM engine (vX)")
SETTINGS_MARKS = ("non-default args: {", "engine with config: ", "engine (v", "x_num_batched_tokens=",
                  "x model len ", "x gpu_memory_utilization (", "ser-specified max_model_len", API_SERVER_VERSION)
# start-up lines about the KV cache without "KV cache" in them: the concurrency line (read here
# when it stands apart from its size line) and the refusal to start with no room for any block
NO_KV_MEMORY = "No available memory for the cache blocks"
DESIRED_UTIL = "esired GPU memory utilization"  # 'Desired ... is (U, R GiB)'; '... is less than desired ...'
PROFILE_RESULTS = "Memory profiling results: "  # 0.6.4, ending "... gpu_memory_utilization=U"
START_MARKS = ("ximum concurrency for ", NO_KV_MEMORY, DESIRED_UTIL, PROFILE_RESULTS)
BUSY_MARK = "cannot accept new requests"
# (character found by memchr, the words it must begin on the line to anchor it)
V_ANCHORS = ("ValueError", "VLLMValidationError")  # the scanner's own 'V' loop finds these
ANCHORS = (("W", ("WARNING",)), ("V", V_ANCHORS), ("{", ("{",)), ("L", ("LLM engine", "LLM " + API_SERVER_VERSION)))
_ANCHORS_B = tuple((c.encode(), tuple(w.encode() for w in words)) for c, words in ANCHORS)
V_ANCHORS_B = tuple(w.encode() for w in V_ANCHORS)
# The exact search: fewer passes than one per mark (each costs a pass over the head), each a
# superset of its marks' lines (a rarer first character stops less often); "non-default args: {"
# by a find of "{". Every mark but two holds an 'x' that the first pattern finds ("Maximum",
# "context", "max_...", "exceeds"; PROFILE_RESULTS's line ends in "gpu_memory_utilization=", which
# the second finds); the two others by one find of the " memory " both hold.
_CONTEXT_OR_LIMIT_RX = (r"x(?:ceeds (?:limit of|the capacity of block_manager)|imum (?:model length of|context "
                        r"length is|concurrency for )|_model_len|t length |_num_batched_tokens=| model len "
                        r"| gpu_memory_utilization \()")
_ENGINE_CONFIG_RX = r"g(?:ine (?:with config: |\(v)|pu_memory_utilization=\d)"  # 'g' is rarer than 'n': fewer stops
_CONTEXT_OR_LIMIT = LazyPattern(_CONTEXT_OR_LIMIT_RX.encode())
_ENGINE_CONFIG = LazyPattern(_ENGINE_CONFIG_RX.encode())
_BUSY = LazyPattern(re.escape(BUSY_MARK.encode()))
_CONTEXT_OR_LIMIT_S = LazyPattern(_CONTEXT_OR_LIMIT_RX)
_ENGINE_CONFIG_S = LazyPattern(_ENGINE_CONFIG_RX)
_BUSY_S = LazyPattern(re.escape(BUSY_MARK))
_MEMORY = " memory "
_BEFORE_MEMORY = tuple(m[:m.index(_MEMORY)] for m in (NO_KV_MEMORY, DESIRED_UTIL))  # "No available", "esired GPU"
_MEMORY_B, _BEFORE_MEMORY_B = _MEMORY.encode(), tuple(m.encode() for m in _BEFORE_MEMORY)


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
    caller checks each line's text); bytes and str alike."""
    starts: set[int] = set()
    busy = BUSY_MARK in marks
    if isinstance(buf, (bytes, bytearray)):
        searches = (_CONTEXT_OR_LIMIT.search, _ENGINE_CONFIG.search) + ((_BUSY.search,) if busy else ())
        memory, before, nl, brace, args = _MEMORY_B, _BEFORE_MEMORY_B, b"\n", b"{", b"non-default args: {"
        version = API_SERVER_VERSION.encode()
    else:
        searches = (_CONTEXT_OR_LIMIT_S.search, _ENGINE_CONFIG_S.search) + ((_BUSY_S.search,) if busy else ())
        memory, before, nl, brace, args = _MEMORY, _BEFORE_MEMORY, "\n", "{", "non-default args: {"
        version = API_SERVER_VERSION
    find, startswith = buf.find, buf.startswith
    for search in searches:
        m = search(buf, begin, end)
        while m is not None:
            ls, le = line_bounds(buf, nl, begin, end, m.start())
            starts.add(ls)
            m = search(buf, le + 1, end) if le < end else None
    p = find(memory, begin, end)
    while p != -1:
        if any(startswith(b, p - len(b)) for b in before):
            ls, le = line_bounds(buf, nl, begin, end, p)
            starts.add(ls)
            p = find(memory, le + 1, end) if le < end else -1
        else:
            p = find(memory, p + 1, end)
    p = find(version, begin, end)
    while p != -1:
        ls, le = line_bounds(buf, nl, begin, end, p)
        starts.add(ls)
        p = find(version, le + 1, end) if le < end else -1
    p = find(brace, begin, end)
    while p != -1:
        if startswith(args, p - 18):
            ls, le = line_bounds(buf, nl, begin, end, p)
            starts.add(ls)
            p = find(brace, le + 1, end) if le < end else -1
        else:
            p = find(brace, p + 1, end)
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
