"""CONTEXT_TRUNCATION in llama-server: -c split across explicit -np slots, and prompts over the context."""
from llmdoctor.checks import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

SMALL_SLOT = 8192


def _split(log, cmdline, state):
    """(slots, per-slot ctx, unified, evidence) from the richest source."""
    for scan in (log.scans if log is not None else ()):
        if scan.n_slots and scan.slot_n_ctx:
            ev = [Evidence(scan.source, scan.slots_line)]
            if scan.ctx_warning:
                ev.append(Evidence(scan.source, scan.ctx_warning))
            unified = scan.kv_unified
            return scan.n_slots, scan.slot_n_ctx, unified, ev, scan.n_ctx_train
    if cmdline is not None and cmdline.n_parallel and cmdline.ctx_size:
        return (cmdline.slots, cmdline.per_slot_ctx, cmdline.unified,
                [Evidence("command line", f"-c {cmdline.ctx_size} -np {cmdline.n_parallel}"
                          + (" --kv-unified" if cmdline.kv_unified else ""))], None)
    if state is not None and state.props and state.props.total_slots and state.props.n_ctx:
        return (state.props.total_slots, state.props.n_ctx, None,
                [Evidence(state.sources.get("props", "/props"),
                          f"total_slots {state.props.total_slots}, n_ctx {state.props.n_ctx} per slot")], None)
    return None, None, None, [], None


def _errors(log):
    for scan in (log.scans if log is not None else ()):
        if scan.context_exceeded:
            return scan
    return None


@check(id="llamacpp-slot-context", cause=Cause.CONTEXT_TRUNCATION,
       purpose="llama-server splits -c across explicit -np slots, leaving each conversation a small context")
def slot_context(llamacpp_log=None, llamacpp_cmdline=None, llamacpp_state=None):
    n, per_slot, unified, ev, train = _split(llamacpp_log, llamacpp_cmdline, llamacpp_state)
    if not n or n < 2 or not per_slot or unified:
        return
    errors = _errors(llamacpp_log)
    if per_slot >= SMALL_SLOT and errors is None:
        return
    if train and per_slot >= train:
        return
    if errors is not None:
        ev.append(Evidence(errors.source, errors.context_exceeded_examples[-1].text))
    total = n * per_slot
    want = max(SMALL_SLOT, per_slot * 4)
    yield Finding(
        Cause.CONTEXT_TRUNCATION, Severity.WARNING,
        f"llama-server gives each of its {n} slots only {per_slot:,} tokens of context (-c {total:,} split {n} ways)",
        ev,
        Fix(f"With an explicit -np, llama-server divides -c between the slots. Either size -c as slots x wanted "
            f"context (-c {n * want}), or share one pool with --kv-unified so any slot can use the whole -c.",
            (f"llama-server -m MODEL -np {n} -c {n * want}", f"llama-server -m MODEL -np {n} -c {total} --kv-unified")),
        confidence="high" if errors is not None or unified is False else "medium")


@check(id="llamacpp-context-exceeded", cause=Cause.CONTEXT_TRUNCATION,
       purpose="llama-server rejected or skipped prompts longer than the slot's context")
def context_exceeded(llamacpp_log):
    scan = _errors(llamacpp_log)
    if scan is None:
        return
    ex = scan.context_exceeded_examples
    biggest = max((e.request_tokens for e in ex), default=0)
    ctx = max((e.context_tokens for e in ex), default=0)
    yield Finding(
        Cause.CONTEXT_TRUNCATION, Severity.WARNING,
        f"llama-server refused {scan.context_exceeded} prompt(s) longer than its context"
        + (f" ({biggest:,} tokens > {ctx:,})" if biggest and ctx else ""),
        [Evidence(scan.source, e.text) for e in ex],
        Fix("The prompt does not fit the slot's context. Raise -c (with an explicit -np it is split between slots: "
            "-c = slots x context), or use --kv-unified, or send shorter prompts.",
            (f"llama-server -m MODEL -c {max(8192, (biggest or 4096) * 2)}",)))
