"""The Ollama log scanner's serial-service rule as it was before issue 26 moved it to judge/
(llmdoctor/knowledge/ollama/log.py _Requests._close at c802c72), kept as the reference that
tests/engines/ollama/test_ollama_serial_reference.py holds the scanner's table plus
judge.ollama.serial_service to: same requests in, same counts, best burst, figures and examples.

Only the grouping and the decision are kept (timed/spans and the caches are not the rule); the five
numbers are parameters (the shipped ones by default) so a site's override can be compared too."""
from __future__ import annotations

from collections import deque
from operator import itemgetter

MAX_CLUSTER = 64
_BY_END = itemgetter(1)


class OldRequests:
    def __init__(self, min_requests=3, min_peak=3, min_gap=1.5, gap_share=0.25, pair_typical=3.0) -> None:
        self.rule = (min_requests, min_peak, min_gap, gap_share, pair_typical)
        self.groups = 0
        self.serial = 0
        self.parallel_pairs = 0
        self.peak = 0
        self.alone: deque[float] = deque(maxlen=101)
        self.cluster: list = []
        self.cluster_end = float("-inf")
        self.best: tuple = (0, (), "")

    def _typical(self):
        vals = sorted(self.alone)
        return vals[len(vals) // 2] if vals else None

    def add(self, end: float, seconds: float, ex) -> None:
        start = end - seconds
        cluster = self.cluster
        if cluster and start < self.cluster_end - 1.0 and len(cluster) < MAX_CLUSTER:
            cluster.append((start, end, ex))
            if end > self.cluster_end:
                self.cluster_end = end
        else:
            self._close()
            self.cluster = [(start, end, ex)]
            self.cluster_end = end

    def _close(self) -> None:
        c = self.cluster
        self.cluster = []
        if len(c) == 1:
            self.alone.append(c[0][1] - c[0][0])
            return
        if not c:
            return
        c.sort(key=_BY_END)
        self.groups += 1
        events = []
        for s, e, _ in c:
            if e - s > 1.0:
                events += ((s + 1.0, 1), (e, -1))
        events.sort()
        peak, cur = 1, 0
        for _, step in events:
            cur += step
            if cur > peak:
                peak = cur
        if peak > self.peak:
            self.peak = peak
        gaps = [c[i][1] - c[i - 1][1] for i in range(1, len(c))]
        services = [c[0][1] - c[0][0]] + [c[i][1] - max(c[i][0], c[i - 1][1]) for i in range(1, len(c))]
        typical = self._typical() or sorted(services)[len(services) // 2]
        min_requests, min_peak, min_gap, gap_share, pair_typical = self.rule
        if typical >= pair_typical:
            self.parallel_pairs += sum(1 for i, gap in enumerate(gaps, 1)
                                       if gap <= 1.0 and c[i][0] < c[i - 1][1] - 1.0)
        if len(c) >= min_requests and peak >= min_peak and all(g >= max(min_gap, gap_share * typical) for g in gaps):
            self.serial += 1
            if peak > self.best[0]:
                durs = ", ".join(f"{e - s:.1f}" for s, e, _ in c[:6])
                figures = (f"{len(c)} requests in flight together (up to {peak} at once) finished one after "
                           f"another, {min(gaps):.1f}-{max(gaps):.1f} s apart; durations {durs} s")
                self.best = (peak, tuple(ex for _, _, ex in c[:5]), figures)

    def fragment(self) -> None:
        self._close()
        self.cluster_end = float("-inf")

    def decision(self) -> tuple:
        """(serial bursts, parallel pairs, the best burst's raw examples, its figures)."""
        self._close()
        return self.serial, self.parallel_pairs, self.best[1], self.best[2]
