"""Counting the lines of a log's bytes at memchr speed (the vLLM and SGLang region scanners).

Pure: buffers in, counts out.
"""
from __future__ import annotations

REPLACE_MAX = 16 * 1024 * 1024  # newlines() copies the buffer once: bounded memory


def newlines(buf, begin: int, end: int) -> int:
    """buf.count(b"\\n", begin, end), faster: bytes.count compares byte by byte, while
    replace() finds newlines with memchr (2-4x faster), but only over the whole buffer, so it
    is used when the region is most of it and the rest is counted apart."""
    n = len(buf)
    if (end - begin) * 4 < n * 3 or n > REPLACE_MAX:
        return buf.count(b"\n", begin, end)
    return n - len(buf.replace(b"\n", b"")) - buf.count(b"\n", 0, begin) - buf.count(b"\n", end, n)
