"""CONTEXT_TRUNCATION in llama-server: prompts refused for the slot's context, and contexts shifted or cut."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.fixes import llama, remedy_fix
from llmdoctor.model import Cause, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.llamacpp import LlamaLog

def _errors(log):
    for scan in (log.scans if log is not None else ()):
        if scan.context_exceeded:
            return scan
    return None


@check(id="llamacpp-context-exceeded", cause=Cause.CONTEXT_TRUNCATION,
       purpose="llama-server rejected or skipped prompts longer than the slot's context",
       engines=("llamacpp",))
def context_exceeded(llamacpp_log: LlamaLog):
    scan = _errors(llamacpp_log)
    if scan is None:
        return
    ex = scan.context_exceeded_examples
    biggest, ctx = scan.cpp.exceeded_max or (0, 0)
    ev = [Evidence(scan.source, e.text) for e in ex]
    fit = next((s for s in llamacpp_log.scans if s.fit_ctx and s.fit_ctx[1] < s.fit_ctx[0]), None)
    why = ""
    if fit is not None:  # no -c given: --fit chose the context to fit free memory, smaller than the model's
        ev.append(Evidence(fit.source, fit.fit_line))
        why = (f" No -c was given, so --fit picked {fit.fit_ctx[1]:,} tokens (the model allows {fit.fit_ctx[0]:,}) to "
               f"fit the free GPU memory: set -c to what the requests need and make room for it (a quantised KV cache, "
               f"-ctk q8_0 -ctv q8_0 with -fa on), or accept layers on the CPU.")
    yield Finding(
        Cause.CONTEXT_TRUNCATION, Severity.WARNING,
        f"llama-server refused {scan.context_exceeded} prompt(s) longer than its context"
        + (f" ({biggest:,} tokens > {ctx:,})" if biggest and ctx else ""),
        ev,
        remedy_fix("The prompt does not fit the slot's context. Raise -c (with an explicit -np it is split between slots: "
            "-c = slots x context), or use --kv-unified, or send shorter prompts." + why,
            llama({"-c": max(8192, (biggest or 4096) * 2)})))


@check(id="llamacpp-context-shift", cause=Cause.CONTEXT_TRUNCATION,
       purpose="llama-server shifted a full slot context or cut a prompt to fit it: the model lost tokens",
       engines=("llamacpp",))
def context_shift(llamacpp_log: LlamaLog):
    scan = next((s for s in llamacpp_log.scans if s.cpp.shift_count), None)
    if scan is None:
        return
    c = scan.cpp
    shifts = [s for s in c.shifts if s.kind != "released"]  # a release with truncated = 1 repeats a shift or cut
    count = c.shift_count - (len(c.shifts) - len(shifts)) if shifts else c.shift_count
    cut = [s for s in shifts if s.kind == "truncated"]
    ctx = next((s.n_ctx for s in shifts if s.n_ctx), None)
    dropped = max((s.dropped or 0 for s in shifts), default=0)
    what = ("prompt(s) were cut to fit" if cut else "time(s) the context filled and llama-server threw half of it away"
            if shifts else "request(s) ended with their context shifted or their prompt cut (truncated = 1)")
    yield Finding(
        Cause.CONTEXT_TRUNCATION, Severity.WARNING,
        f"{count} {what} the slot's {ctx:,}-token context" if ctx else f"{count} {what}" + ("" if not shifts else
                                                                                             " the slot's context")
        + (f" (up to {dropped:,} tokens dropped)" if dropped else ""),
        [Evidence(scan.source, s.text) for s in (shifts or c.shifts)],
        remedy_fix("The conversation outgrew the slot: older tokens were discarded (a context shift) or the prompt was cut, "
            "so the model no longer sees the start. Give each slot more context (-c is split between explicit -np "
            "slots: raise -c or lower -np), cap the answer length (n_predict / max_tokens), and start with "
            "--no-context-shift if a refused request is better than a silently shortened one. Models with MLA "
            "attention (DeepSeek V2/V3) cannot be shifted at all and produce garbage after a shift.",
            _bigger_slots(scan.n_slots, max(8192, (ctx or 4096) * 2))))


def _bigger_slots(slots, per_slot: int):
    """More context per slot without fewer slots (-np 1 would trade the shift for queueing)."""
    if slots and slots > 1:
        return llama({"-np": slots, "-c": slots * per_slot, "--no-context-shift": ""})
    return llama({"-c": per_slot, "--no-context-shift": ""})
