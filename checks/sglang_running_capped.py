"""KV_CAPACITY in SGLang: fewer requests run at once than --max-running-requests asks for, and inputs
refused below --context-length because the KV pool is smaller than one full-length request.

SGLang sizes its running-request cap at start-up from the KV pool (at most max_total_num_tokens / 2,
and the request table sized from pool / context length), so a larger --max-running-requests is
quietly cut: 0.5.14 and later say so ("max_running_requests was reduced from the requested 128 to 50",
kv_cache_configurator.py), every build prints the cap in effect on its start-up summary line
(`max_total_num_tokens=..., max_running_requests=N`). Requests beyond it queue, and raising the
flag changes nothing; the pool (or what one request may hold of it) has to change."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.sglang import memory_fix
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import SGLANG_INPUT_LIMIT_MARGIN
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


def _requested(scan, sglang_cmdline):
    """(requested per worker, where) from the reduction line, else from the command line when the
    start-up summary gave the cap in effect (and no data parallelism splits it per worker)."""
    said = scan.settings.get("max_running_requests_requested")
    if isinstance(said, int):
        return said, scan.source
    if sglang_cmdline is None or "max_total_num_tokens" not in scan.settings:
        return None, ""
    asked = sglang_cmdline.get("max_running_requests")
    if not isinstance(asked, int):
        return None, ""
    dp = sglang_cmdline.get("dp_size")
    if isinstance(dp, int) and dp > 1:
        return None, ""  # with --enable-dp-attention the summary's cap is per worker: not comparable as written
    return asked, "command line"


@check(id="sglang-running-capped", cause=Cause.KV_CAPACITY,
       purpose="SGLang runs fewer requests at once than --max-running-requests asks: its KV pool caps them",
       engines=("sglang",))
def running_capped(sglang_log: SglangLog, sglang_cmdline: SglangCmdline | None = None,
                   sglang_server_info: dict | None = None):
    for scan in sglang_log.scans:
        effective = scan.settings.get("max_running_requests")
        asked, where = _requested(scan, sglang_cmdline)
        if not isinstance(effective, int) or asked is None or effective >= asked:
            continue
        ev = [Evidence(where, f"--max-running-requests {asked} requested"),
              Evidence(scan.source, f"max_running_requests {effective} in effect")]
        pool, context = scan.settings.get("max_total_num_tokens"), scan.settings.get("context_len")
        if isinstance(pool, int) and isinstance(context, int) and context > 0:
            ev.append(Evidence(scan.source, f"KV pool {pool:,} tokens / context {context:,} = "
                                            f"{pool / context:.1f} full-length requests"))
        yield Finding(
            Cause.KV_CAPACITY, Severity.WARNING,
            f"SGLang runs at most {effective} requests at once, not the {asked} asked for: its KV pool caps them",
            ev,
            memory_fix(f"SGLang cut the running-request cap to {effective} at start-up to fit its KV pool, so "
                       f"requests beyond it queue; raising --max-running-requests changes nothing.",
                       sglang_cmdline, sglang_server_info, sglang_log),
            confidence=Confidence.HIGH)
        return


@check(id="sglang-input-capped", cause=Cause.KV_CAPACITY,
       purpose="SGLang refuses inputs above a limit its KV pool sets, below --context-length",
       engines=("sglang",))
def input_capped(sglang_log: SglangLog, sglang_cmdline: SglangCmdline | None = None,
                 sglang_server_info: dict | None = None):
    """The scheduler allows one request min(context_len - 1, max_total_num_tokens - 1) - 5 tokens of
    input (tp_worker.py, 0.4-0.5.10): a refusal limit under context_len - 6 is the pool's, so the
    pool, not the prompt or the context setting, is what has to change."""
    from llmdoctor.judge.sglang import setting

    scans = [s for s in sglang_log.scans if s.refusal_max  # the scheduler's own wording carries its limit
             and any("exceeds the maximum allowed length" in t for t in s.refusal_examples)]
    context, where = setting("context_length", sglang_cmdline, sglang_server_info, sglang_log)
    if not scans or not isinstance(context, int):
        return
    prompt, limit = max(s.refusal_max for s in scans)
    if limit >= context - SGLANG_INPUT_LIMIT_MARGIN:
        return
    scan = next(s for s in scans if s.refusal_max == (prompt, limit))
    ev = [Evidence(scan.source, t) for t in scan.refusal_examples[:1]] + [
        Evidence(where, f"context_length {context:,}"),
        Evidence(scan.source, f"limit {limit:,} < context_length {context:,} - 6: the KV pool holds about "
                              f"{limit + 6:,} tokens, less than one full-length request")]
    yield Finding(
        Cause.KV_CAPACITY, Severity.WARNING,
        f"SGLang's KV pool holds fewer tokens ({limit + 6:,}) than one request of its context ({context:,}), so it "
        f"refuses inputs above {limit:,}",
        ev,
        memory_fix(f"A {prompt:,}-token prompt needs a KV pool that holds it: SGLang caps each request's input at what "
                   "the pool can store, below --context-length.", sglang_cmdline, sglang_server_info, sglang_log,
                   cap_context=False),
        confidence=Confidence.HIGH)
