"""PREFILL in llama-server: prompt evaluation takes most of each request (print_timing lines)."""
from llmdoctor.checks import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

MIN_REQUESTS = 3
PROMPT_SHARE = 0.5


@check(id="llamacpp-prefill", cause=Cause.PREFILL,
       purpose="llama-server spends most of each request evaluating the prompt")
def prefill(llamacpp_log):
    for scan in llamacpp_log.scans:
        total = scan.prompt_ms_total + scan.eval_ms_total
        if scan.requests_timed < MIN_REQUESTS or total <= 0:
            continue
        share = scan.prompt_ms_total / total
        if share < PROMPT_SHARE:
            continue
        worst = max(scan.timings, key=lambda t: t.prompt_ms)
        yield Finding(
            Cause.PREFILL, Severity.WARNING,
            f"Prompt evaluation takes {share:.0%} of llama-server's request time ({scan.requests_timed} requests)",
            [Evidence(scan.source, worst.text),
             Evidence(scan.source, f"prompt eval {scan.prompt_ms_total / 1000:.1f} s vs generation "
                                   f"{scan.eval_ms_total / 1000:.1f} s over {scan.requests_timed} requests")],
            Fix("Long prompts dominate. Reuse what is cached: keep the fixed part of the prompt first and identical "
                "so the slot's prompt cache serves it (cache_prompt is on by default; pin a client to a slot with "
                "id_slot), raise the batch sizes for prompt processing (-b 2048 -ub 512, or higher on GPU), "
                "offload all layers to the GPU (-ngl 999), and trim prompts. Engine timings are hints: time the "
                "client side too (USERS.md #15).",
                ("llama-server -m MODEL -ngl 999 -b 2048 -ub 512",)),
            confidence="medium")
        return
