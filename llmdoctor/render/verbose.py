"""`diagnose -v`: what was read on each target and how long each fact took, for stderr.

The report says what the findings rest on; this says what the run did, so a slow or an
empty diagnosis can be traced to the fact that cost the time or could not be read."""
from __future__ import annotations

from typing import Any, Iterable


def what_was_read(results: Iterable[Any]) -> str:
    """One block per target: every fact collected (seconds), then every fact that could not be."""
    out: list[str] = []
    for r in results:
        out.append(f"llmdoctor: {r.report.target}: facts, slowest first")
        names = sorted(set(r.timings) | set(r.missing), key=lambda n: -r.timings.get(n, 0.0))
        for name in names:
            took = f"{r.timings[name] * 1000:8.1f} ms" if name in r.timings else f"{'-':>8}   "
            state = f"not read: {r.missing[name]}" if name in r.missing else "read"
            out.append(f"  {took}  {name:<22} {state}")
        out += [f"  examined: {line}" for line in r.report.examined]
    return "\n".join(out) + ("\n" if out else "")
