"""llama-server splits -c across explicit -np slots, leaving each conversation a small KV cache."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.thresholds import LLAMACPP_SMALL_SLOT_TOKENS
from llmdoctor.plugins import check
from llmdoctor.judge.fixes import llama, remedy_fix
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.llamacpp import LlamaLog
    from llmdoctor.knowledge.llamacpp.cmdline import LlamaCmdline
    from llmdoctor.knowledge.llamacpp.endpoints import LlamaState


def _split(log, cmdline, state):
    """(slots, per-slot ctx, unified, evidence, n_ctx_train) from the richest source."""
    from llmdoctor.judge.llamacpp import slot_scan, kv_unified

    scan = slot_scan(log)
    if scan is not None:
        ev = [Evidence(scan.source, scan.slots_line)]
        if scan.ctx_warning:
            ev.append(Evidence(scan.source, scan.ctx_warning))
        return scan.n_slots, scan.slot_n_ctx, kv_unified(scan, cmdline)[0], ev, scan.n_ctx_train
    if cmdline is not None and cmdline.n_parallel and cmdline.ctx_size:
        return (cmdline.slots, cmdline.per_slot_ctx, cmdline.unified,
                [Evidence("command line", f"-c {cmdline.ctx_size} -np {cmdline.n_parallel}"
                          + (" --kv-unified" if cmdline.kv_unified else ""))], None)
    if state is not None and state.props and state.props.total_slots and state.props.n_ctx:
        return (state.props.total_slots, state.props.n_ctx, None,
                [Evidence(state.sources.get("props", "/props"),
                          f"total_slots {state.props.total_slots}, n_ctx {state.props.n_ctx} per slot")], None)
    return None, None, None, [], None


@check(id="llamacpp-slot-context", cause=Cause.KV_CAPACITY,
       purpose="llama-server splits -c across explicit -np slots, leaving each conversation a small KV cache",
       engines=("llamacpp",), needs=("llamacpp_log", "llamacpp_cmdline", "llamacpp_state"))
def slot_context(
    llamacpp_log: LlamaLog | None = None,
    llamacpp_cmdline: LlamaCmdline | None = None,
    llamacpp_state: LlamaState | None = None,
):
    from llmdoctor.judge.llamacpp import slot_context

    n, per_slot, unified, ev, train = _split(llamacpp_log, llamacpp_cmdline, llamacpp_state)
    train = train or slot_context(llamacpp_log, llamacpp_cmdline, llamacpp_state)[1]
    if not n or n <= 1 or not per_slot or unified:
        return
    errors = next((s for s in (llamacpp_log.scans if llamacpp_log is not None else ()) if s.context_exceeded), None)
    if per_slot >= LLAMACPP_SMALL_SLOT_TOKENS and errors is None:
        return
    if train and per_slot >= train:
        return
    if errors is not None:
        ev.append(Evidence(errors.source, errors.context_exceeded_examples[-1].text))
    from llmdoctor.judge.llamacpp import slot_tokens_for

    total = n * per_slot
    want = slot_tokens_for(max(LLAMACPP_SMALL_SLOT_TOKENS, per_slot * 4), train)
    yield Finding(
        Cause.KV_CAPACITY, Severity.WARNING,
        f"llama-server gives each of its {n} slots only {per_slot:,} tokens of KV cache (-c {total:,} split {n} ways)",
        ev,
        remedy_fix(f"With an explicit -np, llama-server divides -c between the slots, so a request longer than "
            f"{per_slot:,} tokens is refused or shifted. Size -c as slots x the longest request (-c {n * want}), "
            f"or run fewer slots; --kv-unified lets any slot use the whole -c instead (then watch for the pool "
            f"running dry under load).",
            llama({"-np": n, "-c": n * want}, alternatives=(llama({"-np": n, "-c": total, "--kv-unified": ""}),))),
        confidence=Confidence.HIGH if errors is not None or unified is False else Confidence.MEDIUM)
