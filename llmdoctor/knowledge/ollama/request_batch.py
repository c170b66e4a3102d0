"""_Requests.add over a run of gin lines at once (numpy), with exactly its result.

log._Requests groups the requests whose intervals overlap and files each closed group in its
grid of cells, one request at a time: ~5 us a request, too slow for a journal of ten million.
Here a run of requests read as columns (gin_columns) is grouped by array operations: the groups'
bounds found as a fixed point (a bound the running maximum allows is a true bound; bounds are
added until the rule holds everywhere), each closed group's figures (peak, gaps, typical answer,
grid cell) computed per group, and only the few cells whose best example changes built in
Python. The state left behind (the open group, the last answers alone, the deques) is the one
the request-at-a-time path leaves, so the two paths can take turns.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

_GRIDS: dict = {}


def _grids(L):
    key = (L.GAP_GRID, L.SHARE_GRID, L.TYPICAL_GRID)
    if key not in _GRIDS:
        _GRIDS[key] = tuple(np.array(grid) for grid in key)
    return _GRIDS[key]


def add_ok(req, starts, ends, seconds, example, L: SimpleNamespace) -> None:
    """req.add(end, seconds, ...) for each request in order (numpy arrays; `example(i)` makes
    the i-th one's example, asked only for the few kept). `L`: log's limits and grids as it
    reads them (MAX_TIMED, MAX_CLUSTER, SERIAL_CAP, MAX_SERIAL_CELLS, COARSE_STEP, GAP_GRID,
    SHARE_GRID, TYPICAL_GRID) and its served_median and group_figures."""
    m = ends.size
    if not m:
        return
    req.count += m
    top = float(seconds.max())
    if top > req.max_dur:
        req.max_dur = top
    # the gap before each (from the latest end so far), made for the last MAX_TIMED once looked at
    last_end = req.last_end
    run = np.maximum.accumulate(ends)
    lo = max(0, m - L.MAX_TIMED)

    def timed() -> None:
        before = run[lo - 1:m - 1].tolist() if lo else [None] + run[:m - 1].tolist()
        if last_end is not None:
            before = [last_end if b is None or last_end > b else b for b in before]
        tail = starts[lo:].tolist()
        req.timed.extend((None if b is None else x - b, float(seconds[lo + i]), example(lo + i))
                         for i, (x, b) in enumerate(zip(tail, before)))

    req.defer(0, m, timed)
    if last_end is None or run[-1] > last_end:
        req.last_end = float(run[-1])
    _group(req, starts, ends, example, L)


def _group(req, starts, ends, example, L) -> None:
    carry = req.cluster
    c = len(carry)
    s = np.concatenate((np.array([x[0] for x in carry], float), starts)) if c else starts
    e = np.concatenate((np.array([x[1] for x in carry], float), ends)) if c else ends
    n = s.size
    bound = _bounds(s, e, L.MAX_CLUSTER)
    first = np.flatnonzero(bound)
    size = np.diff(np.append(first, n))
    ex = (lambda i: carry[i][2] if i < c else example(i - c))
    closed = first.size - 1  # all but the last group close here
    if closed:
        _close(req, s, e, first[:closed], size[:closed], ex, L)
    last = int(first[-1])
    req.cluster = [(float(s[i]), float(e[i]), ex(i)) for i in range(last, n)]
    req.cluster_end = float(e[last:].max())


def _bounds(s, e, cap: int):
    """Where each group starts: request i starts one unless it began more than gin's 1 s before
    the latest end of the group so far and that group holds fewer than `cap` (_Requests.add).
    First by array operations: the bounds under the running maximum of all ends before are true
    bounds, and bounds are added until the rule holds (a fixed point); a group longer than `cap`
    is then cut every `cap` requests, and the whole is checked against the rule, each request
    against the group before it. Where that does not hold (a cut moved a bound further on) the
    bounds are found one request at a time."""
    n = s.size
    uniq, rank = np.unique(e, return_inverse=True)  # (ranks: an exact running maximum per group)
    rank = rank.reshape(-1).astype(np.int64)
    width = int(uniq.size) + 1

    def latest(bound):
        seg = np.cumsum(bound) - 1
        return seg, uniq[np.maximum.accumulate(seg * width + rank) - seg * width]

    bound = np.zeros(n, bool)
    bound[0] = True
    while True:
        _, top = latest(bound)
        new = bound.copy()
        new[1:] |= s[1:] >= top[:-1] - 1.0
        if (new == bound).all():
            break
        bound = new
    first = np.flatnonzero(bound)
    size = np.diff(np.append(first, n))
    if not (size > cap).any():
        return bound
    for f, k in zip(first[size > cap].tolist(), size[size > cap].tolist()):
        bound[f + cap:f + k:cap] = True
    seg, top = latest(bound)
    pos = np.arange(n) - np.flatnonzero(bound)[seg]  # each request's place in its group
    rule = np.ones(n, bool)
    rule[1:] = (s[1:] >= top[:-1] - 1.0) | (pos[:-1] + 1 >= cap)
    if (rule == bound).all():
        return bound
    sl, el = s.tolist(), e.tolist()
    bound = [True] * n
    end, size = el[0], 1
    for i in range(1, n):
        if sl[i] < end - 1.0 and size < cap:
            bound[i] = False
            size += 1
            if el[i] > end:
                end = el[i]
        else:
            end, size = el[i], 1
    return np.array(bound)


def _close(req, s, e, first, size, ex, L) -> None:
    """req._close() on each group given by first/size, in order."""
    gap_grid, share_grid, typical_grid = _grids(L)
    single = size == 1
    # the answers alone, and how many came before each larger group
    alone_new = (e[first[single]] - s[first[single]])
    before = np.cumsum(single) - single  # alone among the groups before each
    multi = np.flatnonzero(~single)
    old = list(req.alone)
    if multi.size:
        x = np.concatenate((np.array(old, float), alone_new))
        avail = len(old) + before[multi]  # answers alone available at each larger group's close
        typical = np.full(multi.size, np.nan)
        keep = req.alone.maxlen  # (the median of the last `keep` answers alone)
        full = avail >= keep
        if full.any():
            ua, inv = np.unique(avail[full], return_inverse=True)
            win = np.lib.stride_tricks.sliding_window_view(x, keep)[ua - keep]
            typical[full] = np.partition(win, keep // 2, axis=1)[:, keep // 2][inv.reshape(-1)]
        for j in np.flatnonzero(~full).tolist():
            t = int(avail[j])
            if t:
                vals = sorted(x[max(0, t - keep):t].tolist())
                typical[j] = vals[len(vals) // 2]
        _file(req, s, e, first[multi], size[multi], typical, ex, gap_grid, share_grid, typical_grid, L)
    req.alone.extend(alone_new.tolist())
    req.alone_added += int(single.sum())


def _file(req, s, e, first, size, typical, ex, gap_grid, share_grid, typical_grid, L) -> None:
    g = first.size
    seg = np.repeat(np.arange(g), size)
    members = _ranges(first, size)
    me = e[members]
    order = np.lexsort((members, me, seg))  # by end within each group, stable
    members, me, ms = members[order], me[order], s[members[order]]
    starts_at = np.concatenate(([0], np.cumsum(size)[:-1]))
    # gaps between consecutive ends
    gap = np.diff(me)
    inner = np.ones(members.size, bool)
    inner[starts_at] = False
    gaps = gap[inner[1:]]
    gstart = starts_at - np.arange(g)  # where each group's gaps begin in `gaps`
    low = np.minimum.reduceat(gaps, gstart)
    # the typical answer where none had the server alone yet: what each took once the one before ended
    for j in np.flatnonzero(np.isnan(typical) | (typical == 0)).tolist():
        a, k = int(starts_at[j]), int(size[j])
        typical[j] = L.served_median(ms[a:a + k].tolist(), me[a:a + k].tolist())
    # peak: in flight together beyond gin's 1 s
    long_ = (me - ms) > 1.0
    if long_.any():
        es = seg[long_]
        t = np.concatenate((ms[long_] + 1.0, me[long_]))
        step = np.concatenate((np.ones(es.size, np.int64), -np.ones(es.size, np.int64)))
        eseg = np.concatenate((es, es))
        o = np.lexsort((step, t, eseg))
        eseg, step = eseg[o], step[o]
        run = np.cumsum(step)
        head = np.flatnonzero(np.r_[True, eseg[1:] != eseg[:-1]])
        base = np.r_[0, run[head[1:] - 1]] if head.size > 1 else np.array([0])
        run = run - np.repeat(base, np.diff(np.append(head, eseg.size)))
        peak = np.ones(g, np.int64)
        peak[eseg[head]] = np.maximum(np.maximum.reduceat(run, head), 1)
    else:
        peak = np.ones(g, np.int64)
    if int(peak.max()) > req.peak:
        req.peak = int(peak.max())
    # pairs that overlapped beyond gin's resolution and still ended within it
    pair = (gap <= 1.0) & (ms[1:] < me[:-1] - 1.0) & inner[1:]
    pairs = np.bincount(seg[1:][pair], minlength=g)
    if pairs.any():
        has = pairs > 0
        grid = np.where(typical > 0, typical_grid[np.searchsorted(typical_grid, typical, "right") - 1], 0.0)[has]
        points, inv = np.unique(grid, return_inverse=True)
        for t, n in zip(points.tolist(), np.bincount(inv.reshape(-1), weights=pairs[has]).tolist()):
            req.pairs[t] = req.pairs.get(t, 0) + int(n)
    # the cell of each group, each distinct one decided once (in the order met: a new cell only
    # while the grid has room), then the counts and best examples per cell at once
    cap = L.SERIAL_CAP
    n_cap, p_cap = np.minimum(size, cap), np.minimum(peak, cap)
    gi = np.searchsorted(gap_grid, low, "right") - 1
    si = _share_index(low, typical, share_grid)
    code = ((n_cap * (cap + 1) + p_cap) * gap_grid.size + gi) * share_grid.size + si
    codes, first_at, inv = np.unique(code, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    order0 = req.groups
    req.groups += g
    cells = req.cells
    targets: list[tuple] = []
    tid: dict[tuple, int] = {}
    of_code = np.zeros(codes.size, np.int64)
    for u in np.argsort(first_at, kind="stable").tolist():
        j = int(first_at[u])
        key = (int(n_cap[j]), int(p_cap[j]), int(gi[j]), int(si[j]))
        if key not in cells:
            if len(cells) >= L.MAX_SERIAL_CELLS:
                step = L.COARSE_STEP
                key = (key[0], key[1], key[2] // step * step, key[3] // step * step)
            if key not in cells:
                cells[key] = [0, 0, 0, "", ()]
        if key not in tid:
            tid[key] = len(targets)
            targets.append(key)
        of_code[u] = tid[key]
    t = of_code[inv]
    counts = np.bincount(t, minlength=len(targets))
    top = np.lexsort((np.arange(g), -peak, t))  # per cell: the highest peak, the first of equals
    lead = top[np.r_[True, t[top][1:] != t[top][:-1]]]
    for j in lead.tolist():
        key = targets[int(t[j])]
        cell = cells[key]
        cell[0] += int(counts[t[j]])
        if int(peak[j]) <= cell[1]:
            continue
        a, k = int(starts_at[j]), int(size[j])
        sj, ej, mj = ms[a:a + k].tolist(), me[a:a + k].tolist(), members[a:a + k].tolist()
        gj = [ej[i] - ej[i - 1] for i in range(1, k)]
        figures = L.group_figures(sj, ej, k, int(peak[j]), min(gj), max(gj))
        cell[1:] = [int(peak[j]), order0 + j + 1, figures, tuple(ex(i) for i in mj[:5])]


def _ranges(first, size):
    """The concatenated ranges first[i] .. first[i] + size[i]."""
    total = int(size.sum())
    out = np.ones(total, np.int64)
    heads = np.concatenate(([0], np.cumsum(size)[:-1]))
    out[heads] = first - np.concatenate(([0], (first + size - 1)[:-1]))
    out[0] = first[0]
    return np.cumsum(out)


def _share_index(low, typical, share_grid):
    """log.share_index for each (low, typical)."""
    top = share_grid.size - 1
    steps = round(1 / float(share_grid[1]))
    with np.errstate(divide="ignore", invalid="ignore"):
        j = np.minimum(low / typical * steps, top)
    j = np.where(typical > 0, j, top).astype(np.int64)
    up = (j < top) & (share_grid[np.minimum(j + 1, top)] * typical <= low)
    down = ~up & (share_grid[j] * typical > low)
    out = np.where(up, j + 1, np.where(down, j - 1, j))
    return np.where(typical > 0, out, top)

