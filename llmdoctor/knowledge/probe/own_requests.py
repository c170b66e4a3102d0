"""Which lines of a server's log the probe's own requests left, so log analysis leaves them out
(a probe's long prompt must not read as the user's CONTEXT_TRUNCATION, its warm-up as a load).

The probe marks every request (a `User-Agent: llmdoctor-probe/VERSION` header, an
`X-Request-Id: llmdoctor-probe-...` header, a prompt starting `[llmdoctor probe ...]`), but
what the engines log does not carry those marks at their default verbosity:
- llama-server logs no access lines, no user agent and no prompt text, only `task N` per
  request (`slot launch_slot_: id  0 | task 11 | ...`, `send_error: task id = 11, ...`,
  `cancel task, id_task = 11`) with a time since its own start. So the probe reads `/slots`
  (the highest `id_task`) before its first request and after its last, and the task ids in
  between are left out: a user's request that arrived while the probe ran is left out too;
  a log holding several server starts may hold an older run's tasks with the same ids (ids
  start again at 0), which are then left out as well;
- Ollama's gin access lines (`[GIN] 2025/03/06 - 11:42:21 | 503 | ... | POST "/api/generate"`)
  and its slog lines carry a time but neither the user agent nor the prompt: the lines timed
  within the probe's run (a second either side) are left out, the user's with them;
- vLLM's uvicorn access lines carry no time and no agent; its own lines (`INFO 08-01 07:02:33`)
  a time: as for Ollama. A line naming the probe's marker (vLLM with --enable-log-requests
  logs the prompt and the request id) is always left out.
Lines with no time and no task id are kept: nothing tells whose they were.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from llmdoctor.knowledge.engines import LLAMACPP
from llmdoctor.knowledge.logtime import line_time

KEEP_S = 24 * 3600.0       # how long a probe run is remembered (diagnose reads a day of log)
MARGIN_S = 1.0             # log stamps have whole seconds
MARKERS = ("llmdoctor probe ", "llmdoctor-probe")
_TASK = re.compile(r"\btask (?:id = )?(\d+)\b|\bid_task = (\d+)\b")


@dataclass(frozen=True)
class ProbeWindow:
    url: str
    engine: str
    started: float                          # epoch seconds
    ended: float
    tasks: tuple[int, int] | None = None    # llama-server: task ids in (lo, hi] were the probe's

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "engine": self.engine, "started": round(self.started, 3),
                "ended": round(self.ended, 3), "tasks": list(self.tasks) if self.tasks else None}

    @classmethod
    def from_dict(cls, d: Any) -> "ProbeWindow | None":
        """None for anything that is not a record written by to_dict."""
        if not isinstance(d, dict) or not isinstance(d.get("url"), str) or not isinstance(d.get("engine"), str):
            return None
        a, b = d.get("started"), d.get("ended")
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in (a, b)):
            return None
        tasks = d.get("tasks")
        if not (isinstance(tasks, list) and len(tasks) == 2 and all(isinstance(t, int) and not isinstance(t, bool)
                                                                  for t in tasks)):
            tasks = None
        return cls(d["url"], d["engine"], float(a), float(b), tuple(tasks) if tasks else None)


class OwnRequests:
    """Decides, line by line, whether a line was left by the probe's requests."""

    def __init__(self, windows: Iterable[ProbeWindow], engine: str | None) -> None:
        ws = [w for w in windows if engine is None or w.engine == engine]
        self.spans = [(math.floor(w.started) - MARGIN_S, w.ended + MARGIN_S) for w in ws]
        self.tasks = [w.tasks for w in ws if w.tasks and w.engine == LLAMACPP]
        self.key = tuple(self.spans) + tuple(self.tasks)  # what decides which lines go
        self.left_out = 0

    def __bool__(self) -> bool:
        return bool(self.spans)

    def own(self, line: str) -> bool:
        if any(m in line for m in MARKERS):
            return True
        if self.tasks and "task" in line:
            m = _TASK.search(line)
            if m:
                n = int(m.group(1) or m.group(2))
                if any(lo < n <= hi for lo, hi in self.tasks):
                    return True
        t = line_time(line) if line[:1] not in (" ", "\t") else None
        return t is not None and any(a <= t <= b for a, b in self.spans)

    def filter(self, lines: Iterable[str]) -> Iterator[str]:
        for line in lines:
            if self.own(line):
                self.left_out += 1
            else:
                yield line
