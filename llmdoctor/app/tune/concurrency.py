"""After a restart with more slots: do two requests really run at the same time?

Two short streaming requests are released together (the probe's client, a barrier
after connecting); with one slot the second's first token arrives only after the
first stream ended (measured on llama-server), with two or more slots
both start before either ends.
"""
from __future__ import annotations

import threading
import time

MAX_TOKENS = 16
TIMEOUT_S = 180.0  # after a restart the first request also loads the model


def two_requests_start_together(base_url: str, model: str, timeout_s: float = TIMEOUT_S) -> tuple[bool, str]:
    from llmdoctor.knowledge.engines import OLLAMA
    from llmdoctor.knowledge.probe import prompts
    from llmdoctor.knowledge.probe import streams
    from llmdoctor.hosts.stream_client import Interrupt, StreamRequest, stream

    stop = Interrupt()
    barrier = threading.Barrier(2)
    results: list = [None, None]
    t0 = time.monotonic()

    def one(i: int) -> None:
        path, body = prompts.request(OLLAMA, model, prompts.short_prompt(), MAX_TOKENS)
        req = StreamRequest(f"tune-{i}", "tune-verify", base_url, path, body, streams.OLLAMA,
                            timeout_s=timeout_s, read_timeout_s=timeout_s)
        results[i] = stream(req, t0, stop, barrier)

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout_s + 5)
    if any(t.is_alive() for t in threads):
        stop.set()
        return False, f"the two requests did not finish within {timeout_s:g} s"
    a, b = results
    if not (a and b and a.ok and b.ok):
        errors = "; ".join(s.error for s in (a, b) if s is not None and not s.ok)
        return False, f"a request failed: {errors or 'no result'}"
    firsts = [s.first_token_at for s in (a, b)]
    ends = [s.last_token_at for s in (a, b)]
    if None in firsts or None in ends:
        return False, "a stream returned no tokens"
    later_start = max(firsts)
    earlier_end = min(ends)
    ok = later_start < earlier_end
    return ok, (f"first tokens at {firsts[0]:.2f} s and {firsts[1]:.2f} s; the first stream ended at "
                f"{earlier_end:.2f} s" + ("" if ok else " - the second waited for it (one slot)"))
