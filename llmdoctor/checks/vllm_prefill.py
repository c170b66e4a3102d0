"""PREFILL in vLLM: prompt processing crowds out generation, or shared prompt prefixes are recomputed."""
from llmdoctor.plugins import check
from llmdoctor.judge.vllm import classify_waiting, decode_starved
from llmdoctor.judge.fixes import serve_flags_text
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

LOW_HIT_PCT = 10.0


@check(id="vllm-prefill-interference", cause=Cause.PREFILL,
       purpose="Long prompts stall vLLM: waiting requests while prefill dwarfs generation")
def prefill_interference(vllm_log=None, vllm_metrics=None, vllm_cmdline=None):
    kind, ev = None, []
    for scan in (vllm_log.scans if vllm_log is not None else ()):
        kind, ev = classify_waiting(scan=scan)
        if kind:
            break
    if not kind:
        kind, ev = classify_waiting(metrics=vllm_metrics)
    starved = None
    if kind is None:
        starved = next((x for x in map(decode_starved, vllm_log.scans if vllm_log is not None else ()) if x), None)
    if kind != "prefill" and starved is None:
        return
    if starved is not None:
        slow, busy = starved
        src = vllm_log.scans[0].source
        ev = [Evidence(src, slow.text), Evidence(src, busy.text),
              Evidence(src, f"{slow.running} requests running, generation {slow.generation_tps:g} tokens/s in all; "
                            f"next to it {busy.prompt_tps:g} prompt tokens/s: a long prefill took the engine's steps")]
    budget = vllm_cmdline.get("max_num_batched_tokens") if vllm_cmdline is not None else None
    target = max(512, (budget or 8192) // 4)
    yield Finding(
        Cause.PREFILL, Severity.WARNING,
        ("Streaming answers stall while vLLM prefills another request's long prompt" if starved is not None else
         "Prefill of long prompts is crowding out generation in vLLM while requests wait"),
        ev,
        Fix("Long prompts take most of each scheduler step, so waiting requests and running streams both "
            "slow down. Lower the chunked-prefill budget so decode steps interleave with prefill "
            f"(--max-num-batched-tokens {target}), limit concurrent long prefills "
            "(--max-num-partial-prefills, --long-prefill-token-threshold), keep prefix caching on for shared "
            "prompt heads, and shorten prompts where you can.",
            (serve_flags_text(vllm_cmdline, max_num_batched_tokens=target),)),
        confidence="medium" if starved is not None else "high")


@check(id="vllm-prefix-caching-off", cause=Cause.PREFILL,
       purpose="vLLM runs with prefix caching off (cache_config_info, command line, or V0 default)")
def prefix_caching_off(vllm_metrics=None, vllm_cmdline=None, vllm_log=None):
    ev = []
    if vllm_metrics is not None and vllm_metrics.latest.prefix_caching_enabled is False:
        ev.append(Evidence(vllm_metrics.source, 'vllm:cache_config_info{enable_prefix_caching="False"}'))
    if vllm_cmdline is not None and vllm_cmdline.get("enable_prefix_caching") is False:
        ev.append(Evidence("command line", "--no-enable-prefix-caching"))
    for scan in (vllm_log.scans if vllm_log is not None else ()):
        v0 = [s for s in scan.recent_stats if s.engine_version == "v0"]
        if len(v0) >= 3 and all(s.prefix_hit_pct is None for s in v0):
            ev.append(Evidence(scan.source, v0[-1].text))
            ev.append(Evidence(scan.source, "V0 stats lines without a 'Prefix cache hit rate' line: prefix "
                                            "caching is off (the V0 default)"))
            break
    if not ev:
        return
    yield Finding(
        Cause.PREFILL, Severity.INFO,
        "vLLM prefix caching is off: a shared system prompt is recomputed for every request",
        ev,
        Fix("Turn prefix caching on (the V1 default) so requests that share a prompt head skip its prefill.",
            (serve_flags_text(vllm_cmdline, enable_prefix_caching=""),)),
        confidence="medium")


@check(id="vllm-prefix-cache-low", cause=Cause.PREFILL,
       purpose="vLLM prefix-cache hit rate is low while it processes many prompt tokens")
def prefix_cache_low(vllm_log=None, vllm_metrics=None):
    for scan in (vllm_log.scans if vllm_log is not None else ()):
        busy = [s for s in scan.recent_stats if s.prefix_hit_pct is not None and (s.prompt_tps or 0) > 0]
        if len(busy) >= 3:
            mean = sum(s.prefix_hit_pct for s in busy) / len(busy)
            prompt = sum(s.prompt_tps for s in busy) / len(busy)
            gen = sum(s.generation_tps or 0 for s in busy) / len(busy)
            if mean < LOW_HIT_PCT and prompt > gen:
                yield _low(mean, [Evidence(scan.source, busy[-1].text),
                                  Evidence(scan.source, f"mean prefix cache hit rate {mean:.1f} % over {len(busy)} "
                                                        f"stats lines; prompt {prompt:.0f} tokens/s vs generation "
                                                        f"{gen:.0f} tokens/s")])
                return
    if vllm_metrics is not None and vllm_metrics.second is not None:
        from llmdoctor.knowledge.vllm.metrics import prefix_hit_rate_between

        rate = prefix_hit_rate_between(vllm_metrics.first, vllm_metrics.second)
        dq = (vllm_metrics.second.prefix_queries or 0) - (vllm_metrics.first.prefix_queries or 0)
        if rate is not None and rate * 100 < LOW_HIT_PCT and dq >= 10000:
            yield _low(rate * 100, [Evidence(vllm_metrics.source, f"prefix cache hits/queries {rate * 100:.1f} % "
                                                                   f"over {dq:g} queried tokens")])


def _low(pct, ev):
    return Finding(
        Cause.PREFILL, Severity.INFO, f"vLLM's prefix cache hits only {pct:.1f} % of prompt tokens", ev,
        Fix("Prompts rarely share a cached head. Put the long, fixed part (system prompt, tools, documents) first "
            "and keep it byte-identical across requests - no timestamps or user ids before it - so vLLM reuses "
            "its KV blocks instead of recomputing them."),
        confidence="low")
