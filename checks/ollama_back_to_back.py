"""QUEUEING in Ollama shown by requests served back to back while their clients gave up at one deadline.

No two spans need overlap: a client or proxy that holds requests back sends them one at a
time, and the access log then shows each starting as the previous one ends. That alone is
also one user working through a list, so the check speaks only when several of the chain's
requests failed at the same round duration (knowledge/concurrency.py says why that sign; judge/deadlines.py decides).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import BACK_TO_BACK_MIN_REQUESTS, HTTP_ERROR_STATUS

if TYPE_CHECKING:
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-back-to-back-queue", cause=Cause.QUEUEING,
       purpose="Requests served back to back (each starts as the previous ends) while clients hit one deadline again and again",
       engines=("ollama",))
def back_to_back_queue(ollama_log: OllamaLogSummary, ollama_deployment: str | None = None):
    spans = ollama_log.requests.spans
    if len(spans) < BACK_TO_BACK_MIN_REQUESTS:
        return
    from llmdoctor.knowledge.concurrency import chains
    from llmdoctor.judge.deadlines import deadline
    from llmdoctor.judge.fixes import env, remedy_fix

    found = [(hit, c) for c in chains(spans, min_len=BACK_TO_BACK_MIN_REQUESTS) if (hit := deadline(c))]
    if not found:
        return
    (deadline_s, hits), c = max(found, key=lambda f: (f[0][1], len(f[1].spans)))
    durs = ", ".join(f"{s.seconds:.1f}" for s in c.spans[:8])
    figures = (f"{len(c.spans)} requests served back to back (each started within 1 s, the log's resolution, of "
               f"the previous end); {hits} failed at exactly {deadline_s:.0f} s, a client deadline; "
               f"durations {durs} s; if they were sent together the last waited {c.waited_s:.0f} s before its turn")
    failed = [Evidence(s.example.source, s.example.line) for s in c.spans
              if s.status >= HTTP_ERROR_STATUS and s.example][:3]
    yield Finding(
        Cause.QUEUEING, Severity.WARNING,
        f"Requests were served one at a time without a pause while clients gave up at {deadline_s:.0f} s: "
        f"the last of {len(c.spans)}, if sent with the first, waited about {c.waited_s:.0f} s",
        [Evidence("ollama access log", figures)] + failed,
        remedy_fix("The server never idled between these requests and clients timed out behind each other: serve more "
            "at once (raise OLLAMA_NUM_PARALLEL, or check the client or proxy does not send one request at a "
            "time), or raise the client's timeout above the wait.", env(ollama_deployment, OLLAMA_NUM_PARALLEL=4)),
        confidence=Confidence.MEDIUM,
    )
