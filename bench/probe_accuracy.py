#!/usr/bin/env python3
"""Probe accuracy against llama-server's own `timings`, and the probe's own cost.

Starts the real llama.cpp server (xllamacpp) with the tiny medium test model and:
  - accuracy: N single streams, one at a time, each with a ~300-token prompt and 64
    output tokens; per request, the relative error of the probe's TTFT (minus the
    round trip) against `prompt_ms` and of its ITL against `predicted_per_token_ms`
    (llmdoctor/knowledge/probe/accuracy.py); prints the medians (target: <= 10 %);
  - cost: the light probe R times on a 1-slot and a 4-slot server: requests sent,
    tokens generated, wall time (median), and the verdict it reached.
Usage: bench/probe_accuracy.py [--requests N] [--runs R]
Exit status 1 when a median error is above 10 % or a verdict is wrong.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llmdoctor.facts.live_probe import prompts  # noqa: E402
from llmdoctor.knowledge.probe.accuracy import agreement, relative_errors  # noqa: E402
from llmdoctor.facts.live_probe.detect import detect  # noqa: E402
from llmdoctor.facts.live_probe.scenarios import ProbeRunner  # noqa: E402
from llmdoctor.judge.probe.verdicts import queueing  # noqa: E402
from tests.support.llamaserver import running_llama_server  # noqa: E402
from tests.support.tinymodel import tiny_gguf  # noqa: E402


def accuracy(url: str, n: int) -> tuple[float, float, object]:
    target = detect(url)
    runner = ProbeRunner(target, deadline_s=600)
    samples = [runner.run([runner.request(f"acc-{i}", "single", prompts.long_prompt(300), 64)])[0]
               for i in range(n)]
    ttft, itl = relative_errors(samples, target.rtt_s)
    return statistics.median(ttft), statistics.median(itl), agreement(samples, target.rtt_s)


def cost(url: str, runs: int) -> list:
    return [ProbeRunner(detect(url)).light() for _ in range(runs)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    model = tiny_gguf("medium")
    ok = True
    with running_llama_server(model, n_parallel=4, n_ctx=8192) as url:
        e_ttft, e_itl, agg = accuracy(url, args.requests)
        print(f"accuracy over {args.requests} requests (llama-server -np 4, idle between requests):")
        print(f"  TTFT median relative error {e_ttft:.1%}  (client {agg.ttft_client_ms:.1f} ms - round trip "
              f"vs server prompt_ms {agg.ttft_server_ms:.1f} ms)")
        print(f"  ITL  median relative error {e_itl:.1%}  (client {agg.itl_client_ms:.2f} ms vs server "
              f"predicted_per_token_ms {agg.itl_server_ms:.2f} ms; client median gap {agg.itl_client_p50_ms:.2f} ms)")
        ok &= e_ttft <= 0.10 and e_itl <= 0.10
        four = cost(url, args.runs)
    with running_llama_server(model, n_parallel=1, n_ctx=2048) as url:
        one = cost(url, args.runs)
    print(f"cost of the light probe ({args.runs} runs each):")
    for label, results, want in (("-np 1", one, "problem"), ("-np 4", four, "healthy")):
        kinds = [queueing(r).kind if queueing(r) else "none" for r in results]
        print(f"  {label}: requests {statistics.median(r.requests_sent for r in results):.0f}, tokens generated "
              f"{statistics.median(r.tokens_generated for r in results):.0f}, wall "
              f"{statistics.median(r.wall_s for r in results):.2f} s median "
              f"(max {max(r.wall_s for r in results):.2f} s); queueing verdicts {kinds}")
        ok &= kinds.count(want) > len(kinds) // 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
