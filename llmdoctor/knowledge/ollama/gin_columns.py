"""Gin's access lines of a block read as columns (numpy), for a journal of millions of them.

Gin prints every request in one layout (gin/logger.go's defaultLogFormatter, colours off):
`[GIN] 2006/01/02 - 15:04:05 | 200 |   538.260888ms |      10.0.1.207 | POST     "/api/chat"`.
A busy server's day is ten million such lines; read one at a time in Python they cost ~15 us
each (issues 28 and 29: 10M lines within 30 s). Here the lines in exactly that layout are found
and their fields read by array operations over the block's bytes. What is taken is only what
the scanner's bulk reader (log.OllamaLogScanner._gin_bulk) would read with the same result; any
other line (another layout, a client longer than 15 characters, a duration in minutes with a
fraction, a control or non-ASCII character other than the µ/μ of a duration, an earlier `GIN`,
a fragment mark, a stamp that is no date) is named for the line reader.
Without numpy `available()` is False and the scanner reads every gin line as before.
"""
from __future__ import annotations

from datetime import datetime

try:
    import numpy as np
except ImportError:  # (an install without it: the line-by-line path)
    np = None

_SPACE, _PIPE, _QUOTE = 32, 124, 34
# The layout from the `[`: `[GIN] ` stamp ` | ` status ` | ` duration (13 runes) ` | ` client (15)
# ` | ` method (7) two spaces `"` path. _FIXED: the columns that hold fixed bytes (_FIXED_WANT);
# _DIGITS: the stamp's and the status's digits. From the pipe after the duration (`tail`): the
# pipe and spaces around the client, the method's and the quote.
_LAYOUT = b"[GIN] 0000/00/00 - 00:00:00 | 000 | "
_TAIL = b" | " + b"?" * 15 + b" | " + b"?" * 7 + b'  "'
_PATHS_W = 21  # the longest inference path and the byte after it
_ROW = len(_LAYOUT) + 13 + len(_TAIL) + _PATHS_W + 1
_NUM_W = 12  # the widest number of a duration in the 13-rune field (and its unit)
_NUM_COLS = None
_FIXED = _FIXED_WANT = _DIGITS = _TAIL_FIXED = _TAIL_WANT = None
_POW = None


def available() -> bool:
    return np is not None


class GinColumns:
    """The gin lines of a block, in order (the first `GIN]` of each line that holds one).
    `lines`: the block's newlines. For each: `gin` (where `GIN]` is), `start`, `stop` (the
    line, without its newline) and `ok` (read here). For the lines read here, `sel` (their
    indexes among all) and in the same order: `status`, `seconds` (float, as _gin_bulk computes it), `inference` (an inference path) and
    `end` (the stamp's unix time, as _Requests._end makes it; NaN where it has none)."""

    __slots__ = ("lines", "gin", "start", "stop", "ok", "sel", "status", "seconds", "inference", "end")


def _gather(arr, starts, width: int):
    """arr[s:s+width] for each s, as rows (positions past either end read as spaces)."""
    if arr.size < width:
        out = np.full((starts.size, width), _SPACE, np.uint8)
        misfit = np.arange(starts.size)
    else:
        out = np.lib.stride_tricks.sliding_window_view(arr, width)[np.clip(starts, 0, arr.size - width)]
        misfit = np.flatnonzero((starts < 0) | (starts > arr.size - width))
    for r in misfit.tolist():  # (the last lines of a block)
        s = int(starts[r])
        out[r] = _SPACE
        piece = arr[max(s, 0):max(s + width, 0)]
        out[r, max(s, 0) - s:max(s, 0) - s + piece.size] = piece
    return out


def columns(data: bytes, inference_paths: frozenset[bytes], fragment: bytes) -> GinColumns | None:
    """The block's gin lines as columns, or None when it holds none."""
    global _POW, _NUM_COLS, _FIXED, _FIXED_WANT, _DIGITS, _TAIL_FIXED, _TAIL_WANT
    if _POW is None:
        _POW = np.array([10 ** e for e in range(19)], np.int64)
        _NUM_COLS = np.arange(_NUM_W)
        layout = np.frombuffer(_LAYOUT, np.uint8)
        _FIXED = np.flatnonzero(layout != 48)
        _FIXED_WANT, _DIGITS = layout[_FIXED], np.flatnonzero(layout == 48)
        tail = np.frombuffer(_TAIL, np.uint8)
        _TAIL_FIXED = np.flatnonzero(tail != 63)
        _TAIL_WANT = tail[_TAIL_FIXED]
    arr = np.frombuffer(data, np.uint8)
    n = arr.size
    g = np.flatnonzero(arr[:-3] == 71)  # G
    g = g[(arr[g + 1] == 73) & (arr[g + 2] == 78)]  # every GIN
    gin3 = g
    g = g[arr[g + 3] == 93]  # GIN]
    if not g.size:
        return None
    nl = np.flatnonzero(arr == 10)
    li = np.searchsorted(nl, g)  # line number of each GIN]
    first = np.ones(g.size, bool)
    first[1:] = li[1:] != li[:-1]
    g, li = g[first], li[first]
    start = np.where(li > 0, nl[np.maximum(li - 1, 0)] + 1 if nl.size else 0, 0)
    stop = np.where(li < nl.size, nl[np.minimum(li, max(nl.size - 1, 0))] if nl.size else n, n)
    cols = GinColumns()
    cols.lines = nl.size  # (the newlines: the block's lines less one)
    cols.gin, cols.start, cols.stop = g, start, stop
    q = g - 1  # the `[`
    ok = q >= start
    # no earlier GIN in the line (_gin_bulk: line.find(b"GIN") == at)
    k = np.searchsorted(gin3, g)
    ok &= (k == 0) | (gin3[np.maximum(k - 1, 0)] < start)
    # the line as gin lays it out, from its `[` (a µ/μ duration is one byte longer: `shift`)
    row = _gather(arr, q, _ROW)
    ok &= (row[:, _FIXED] == _FIXED_WANT).all(axis=1)
    ok &= ((row[:, _DIGITS] - 48) <= 9).all(axis=1)
    shift = row[:, 50] != _PIPE
    tail = row[:, 49:_ROW - 1]  # from the space before the pipe after the duration
    if shift.any():
        tail = tail.copy()
        tail[shift] = row[shift, 50:_ROW]
    ok &= (tail[:, _TAIL_FIXED] == _TAIL_WANT).all(axis=1)
    ok &= arr[np.minimum(stop - 1, n - 1)] == _QUOTE  # a closing quote ends the line
    ok &= stop - 1 > q + 79 + shift
    # the unit: s, ms, ns, us, µs (c2 b5) or μs (ce bc), before ` |`
    u1, u2 = row[:, 48], row[:, 47]
    m1, m2 = row[:, 47], row[:, 48]  # (the micro sign's bytes where the field is one byte longer)
    micro = shift & (((m1 == 0xC2) & (m2 == 0xB5)) | ((m1 == 0xCE) & (m2 == 0xBC))) & (row[:, 49] == 115)
    ok &= micro | (~shift & (u1 == 115))
    exp = np.full(g.size, 9, np.int64)
    ulen = np.ones(g.size, np.int64)
    for letter, e in ((109, 6), (110, 0), (117, 3)):  # ms ns us
        hit = ~shift & (u2 == letter)
        exp[hit], ulen[hit] = e, 2
    exp[micro], ulen[micro] = 3, 3
    ok &= micro | (ulen == 2) | ((u2 - 48) <= 9)
    # control characters, ANSI colour, carriage returns and non-ASCII bytes: only the micro sign is read here
    bad = np.flatnonzero(arr.view(np.int8) < 32)  # (signed: the non-ASCII bytes are below zero)
    bad = bad[arr[bad] != 10]
    if bad.size:
        bl = np.searchsorted(start, bad, side="right") - 1  # the gin line (by start) each falls in
        inside = (bl >= 0) & (bad < stop[np.maximum(bl, 0)])
        bl_in, bad_in = bl[inside], bad[inside]
        allowed = micro[bl_in] & ((bad_in == q[bl_in] + 47) | (bad_in == q[bl_in] + 48))
        ok[bl_in[~allowed]] = False
    # the number: digits, at most one dot with digits either side, padding before it (the window
    # starts at the field's first byte or the space before it)
    w = np.where((ulen - shift == 1)[:, None], row[:, 36:48], row[:, 35:47])  # (it ends before 47 or 48)
    dig = (w - 48) <= 9
    dot = w == 46
    sp = w == _SPACE
    # or gin's latency past a minute, truncated to whole seconds: `1m28s`, `1h2m3s`
    mk, hk = w == 109, w == 104
    nh = hk.sum(axis=1)
    clock = (ulen == 1) & ~shift & (mk.sum(axis=1) == 1) & (nh <= 1)
    ok &= (dig | dot | sp | (clock[:, None] & (mk | hk))).all(axis=1) & dig[:, -1]
    ok &= (np.diff(sp.view(np.int8), axis=1) <= 0).all(axis=1)  # padding only before the number
    dots = dot.sum(axis=1)
    ok &= (dots <= 1) & ~(clock & (dots > 0))
    r = np.arange(g.size)
    mpos, hpos = np.argmax(mk, axis=1), np.where(nh == 1, np.argmax(hk, axis=1), 0)
    ok &= ~clock | ((mpos >= 1) & dig[r, np.maximum(mpos - 1, 0)] & dig[r, np.minimum(mpos + 1, _NUM_W - 1)]
                    & ((nh == 0) | ((hpos >= 1) & dig[r, np.maximum(hpos - 1, 0)] & (hpos + 1 < mpos)
                                    & dig[r, np.minimum(hpos + 1, _NUM_W - 1)])))
    dpos = np.where(dots == 1, np.argmax(dot, axis=1), _NUM_W)
    ok &= (dpos == _NUM_W) | ((dpos > 0) & dig[r, np.maximum(dpos - 1, 0)])
    ok &= (dig & (_NUM_COLS < dpos[:, None])).sum(axis=1) <= 9
    # the client (printable, padding before it only) and the method (upper case, padding after it)
    ok &= (np.diff((tail[:, 3:18] == _SPACE).view(np.int8), axis=1) <= 0).all(axis=1)
    meth = tail[:, 21:28]
    up, msp = (meth - 65) <= 25, meth == _SPACE
    ok &= up[:, 0] & (up | msp).all(axis=1) & (np.diff(msp.view(np.int8), axis=1) >= 0).all(axis=1)
    # not a fragment mark (the line reader handles one)
    if fragment[:1]:
        maybe = np.flatnonzero(ok & (arr[np.minimum(start, n - 1)] == fragment[0]))
        for i in maybe.tolist():
            if data.startswith(fragment, int(start[i])):
                ok[i] = False
    # the path (from its opening quote on): an inference path, then its closing quote or a query
    path = np.ascontiguousarray(tail[:, 31:])
    inference = np.zeros(g.size, bool)
    head8 = path[:, :8].copy().view(np.uint64).reshape(-1)  # (first told apart by their first 8 bytes)
    for p in inference_paths:
        rows = (np.flatnonzero(head8 == np.frombuffer(p[:8], np.uint64)[0]) if len(p) >= 8
                else np.arange(g.size))
        if not rows.size:
            continue
        cand, after = path[rows], path[rows, len(p)]
        same = (cand[:, :len(p)] == np.frombuffer(p, np.uint8)).all(axis=1)
        inference[rows[same & ((after == _QUOTE) | (after == 63))]] = True
    # the time stamps: a line whose stamp is no date goes to the line reader
    idx = np.flatnonzero(ok)
    stamps = row[idx, 6:27]
    change = np.ones(idx.size, bool)  # (a run of lines shares a stamp: each distinct one is read once)
    if idx.size > 1:
        change[1:] = (stamps[1:] != stamps[:-1]).any(axis=1)
    end = _ends(stamps[change])[np.cumsum(change) - 1]
    dated = end != -np.inf
    ok[idx[~dated]] = False
    sel = idx[dated]
    cols.ok, cols.sel, cols.end = ok, sel, end[dated]
    # the duration in nanoseconds as _gin_bulk's integers, then seconds: the digits right-aligned
    # in a row make whole * 10^(width - dot) and frac as they stand
    dk, dp = dig[sel], dpos[sel]
    d = np.where(dk, w[sel].astype(np.int64) - 48, 0)
    place = _POW[_NUM_W - 1 - _NUM_COLS]
    whole = (d * (_NUM_COLS < dp[:, None])) @ place // _POW[_NUM_W - dp]
    frac = (d * (_NUM_COLS > dp[:, None])) @ place
    flen = np.where(dp < _NUM_W, _NUM_W - 1 - dp, 0)
    e = exp[sel]
    total = np.where(
        flen == 0, whole * _POW[e],
        np.where(flen <= e, (whole * _POW[np.minimum(flen, 18)] + frac) * _POW[np.maximum(e - flen, 0)],
                 whole * _POW[e] + frac // _POW[np.maximum(flen - e, 0)]))
    ck = np.flatnonzero(clock[sel])
    if ck.size:  # ((hours * 60 + minutes) * 60 + seconds) s, each part read as `whole` is
        dc, mp, hp = d[ck], mpos[sel][ck], np.where(nh[sel][ck] == 1, hpos[sel][ck], -1)

        def part(lo, hi, right):  # the digits between columns lo and hi, the last at right - 1
            return (dc * ((_NUM_COLS > lo[:, None]) & (_NUM_COLS < hi[:, None]))) @ place // _POW[_NUM_W - right]

        wide = np.full(ck.size, _NUM_W)
        secs = part(mp, wide, wide)
        mins = part(hp, mp, mp)
        hours = np.where(hp >= 0, part(np.full(ck.size, -1), np.maximum(hp, 0), np.maximum(hp, 0)), 0)
        total[ck] = ((hours * 60 + mins) * 60 + secs) * _POW[9]
    cols.seconds = total / 1e9
    sh = row[sel, 30:33].astype(np.int64) - 48
    cols.status = sh[:, 0] * 100 + sh[:, 1] * 10 + sh[:, 2]
    cols.inference = inference[sel]
    return cols


def _civil_days(y, m, d):
    """Days from 1970-01-01 to each (y, m, d) of the proleptic Gregorian calendar (H. Hinnant's
    days_from_civil)."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    doy = (153 * (m + np.where(m > 2, -3, 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


_MONTH_DAYS = None


def _ends(stamps):
    """datetime(...).timestamp() of each stamp (rows of `2006/01/02 - 15:04:05`), as _gin_bulk
    reads it: local time, the offset taken once an hour (where it is the same at both ends of
    the hour; else each stamp of that hour is converted alone); NaN where there is no local time
    (year 1), -inf where the stamp is no date at all (the line reader's)."""
    global _MONTH_DAYS
    if _MONTH_DAYS is None:
        _MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], np.int64)
    v = stamps.astype(np.int64) - 48
    y = v[:, 0] * 1000 + v[:, 1] * 100 + v[:, 2] * 10 + v[:, 3]
    mo, d = v[:, 5] * 10 + v[:, 6], v[:, 8] * 10 + v[:, 9]
    h, mi, s = v[:, 13] * 10 + v[:, 14], v[:, 16] * 10 + v[:, 17], v[:, 19] * 10 + v[:, 20]
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    good = (y >= 1) & (mo >= 1) & (mo <= 12) & (h <= 23) & (mi <= 59) & (s <= 59) & (d >= 1)
    good &= d <= _MONTH_DAYS[np.clip(mo, 0, 12)] + ((mo == 2) & leap)
    hour = _civil_days(y, mo, d) * 24 + h  # naive hours since the epoch
    naive = hour * 3600 + mi * 60 + s
    out = np.full(y.size, -np.inf)
    if not good.any():
        return out
    hours, first, inv = np.unique(np.where(good, hour, -(1 << 40)), return_index=True, return_inverse=True)
    at0 = np.full(hours.size, np.nan)
    alone = []
    for j, i in enumerate(first.tolist()):
        if not good[i]:
            at0[j] = -np.inf
            continue
        base = datetime(int(y[i]), int(mo[i]), int(d[i]), int(h[i]))
        try:
            t0, t1 = base.timestamp(), base.replace(minute=59, second=59).timestamp()
        except (ValueError, OverflowError, OSError):  # before local time's range: NaN
            continue
        if t1 - t0 == 3599:
            at0[j] = t0
        else:
            alone.append(j)
    inv = inv.reshape(-1)
    out = (naive - hours[inv] * 3600) + at0[inv]
    for j in alone:  # an hour that changes its offset: each stamp alone
        for r in np.flatnonzero(inv == j).tolist():
            out[r] = datetime(int(y[r]), int(mo[r]), int(d[r]), int(h[r]), int(mi[r]), int(s[r])).timestamp()
    return out

