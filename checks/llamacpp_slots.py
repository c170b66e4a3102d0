"""QUEUEING in llama-server: every slot busy, requests deferred, or a single slot."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.fixes import llama, remedy_fix
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import (LLAMACPP_BACK_TO_BACK_S, LLAMACPP_DEFERRED_SHOWN, LLAMACPP_QUEUED_LAUNCHES,
                                        LLAMACPP_SMALL_SLOT_TOKENS, LLAMACPP_WAITED_LINES)

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.llamacpp import LlamaLog
    from llmdoctor.knowledge.llamacpp.cmdline import LlamaCmdline
    from llmdoctor.knowledge.llamacpp.endpoints import LlamaState


def _slots(state, log, cmdline):
    """(slot count, evidence) from /props, /slots, the start-up log or the command line."""
    if state is not None and state.slot_count:
        src = state.sources.get("props") or state.sources.get("slots") or "llama-server"
        return state.slot_count, Evidence(src, f"total_slots {state.slot_count}")
    for scan in (log.scans if log is not None else ()):
        if scan.n_slots:
            return scan.n_slots, Evidence(scan.source, scan.slots_line or f"n_slots = {scan.n_slots}")
    if cmdline is not None and cmdline.n_parallel:
        return cmdline.slots, Evidence("command line", f"-np {cmdline.n_parallel}")
    return None, None


@check(id="llamacpp-queueing", cause=Cause.QUEUEING,
       purpose="llama-server requests wait: requests_deferred > 0, all slots busy, or a single slot",
       engines=("llamacpp",), needs=("llamacpp_state", "llamacpp_log", "llamacpp_cmdline"))
def queueing(
    llamacpp_state: LlamaState | None = None,
    llamacpp_log: LlamaLog | None = None,
    llamacpp_cmdline: LlamaCmdline | None = None,
):
    n, slot_ev = _slots(llamacpp_state, llamacpp_log, llamacpp_cmdline)
    ev = []
    m = llamacpp_state.metrics if llamacpp_state is not None else None
    if m is not None and (m.requests_deferred or 0) > 0:
        ev.append(Evidence(llamacpp_state.sources.get("metrics", "/metrics"),
                           f"{m.prefix}requests_deferred {m.requests_deferred:g}, "
                           f"{m.prefix}requests_processing {m.requests_processing or 0:g}"))
    from llmdoctor.judge.llamacpp import queued_launches, slot_context, slot_tokens_for

    waited = next(((sc, q) for sc in (llamacpp_log.scans if llamacpp_log is not None else ())
                   if (q := queued_launches(sc))[0] >= LLAMACPP_QUEUED_LAUNCHES), None)
    if waited is not None:
        (sc, (times, lines)) = waited
        ev += [Evidence(sc.source, line) for line in lines]
        ev.append(Evidence(sc.source, f"{times} times a request took a slot within "
                                      f"{int(LLAMACPP_BACK_TO_BACK_S * 1000)} ms of it being freed, every other slot "
                                      f"busy: it was waiting (or its client sends the next request the moment one ends)"))
    deferred = next((sc for sc in (llamacpp_log.scans if llamacpp_log is not None else ()) if sc.cpp.deferred), None)
    if deferred is not None:  # the server's own word that a request waited (debug level since b3761)
        ev += [Evidence(deferred.source, line) for line in deferred.cpp.deferred_lines[:LLAMACPP_DEFERRED_SHOWN]]
        if deferred.cpp.deferred > LLAMACPP_DEFERRED_SHOWN:
            ev.append(Evidence(deferred.source, f"{deferred.cpp.deferred} requests deferred: no slot was free"))
    busy = llamacpp_state.busy_slots if llamacpp_state is not None else None
    if busy and llamacpp_state.slots and busy == len(llamacpp_state.slots):
        ev.append(Evidence(llamacpp_state.sources.get("slots", "/slots"),
                           f"{busy} of {len(llamacpp_state.slots)} slots is_processing"))
    more = max(4, (n or 1) * 2)
    per_slot, train = slot_context(llamacpp_log, llamacpp_cmdline, llamacpp_state)
    # each new slot gets what a slot has now, at least what llamacpp-slot-context calls enough (so
    # that following this fix raises no finding of its own), never more than the model was trained for
    per_slot = slot_tokens_for(max(per_slot or 0, LLAMACPP_SMALL_SLOT_TOKENS), train)
    fix = remedy_fix(f"Each slot serves one request at a time; the rest wait. Start llama-server with more slots "
              f"(-np {more}); with an explicit -np the context -c is split between slots, so raise -c by the same "
              f"factor ({per_slot:,} tokens each{', the most the model was trained for' if per_slot == train else ''})."
              f" (--kv-unified shares one pool instead, but overlapping long requests can then run it dry.) Each "
              f"slot's KV cache costs memory: check it still fits on the GPU.",
              llama({"-np": more, "-c": more * per_slot, "--metrics": ""}))
    if ev:
        if slot_ev is not None:
            ev.append(slot_ev)
        yield Finding(Cause.QUEUEING, Severity.WARNING,
                      f"llama-server requests are queueing: all {n or '?'} slot(s) busy", ev, fix,
                      confidence=Confidence.HIGH if len(ev) > (LLAMACPP_WAITED_LINES if waited else 0) or waited is None
                      else Confidence.MEDIUM)
    elif n == 1 and slot_ev is not None:
        yield Finding(Cause.QUEUEING, Severity.INFO,
                      "llama-server has a single slot: concurrent requests run one after another", [slot_ev], fix,
                      confidence=Confidence.MEDIUM)
