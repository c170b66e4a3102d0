#!/usr/bin/env python3
"""Builds dashboard.json (the Grafana dashboard for llmdoctor's exporter).

Edit the panels here and run `python3 packaging/grafana/dashboard.py`; `--check`
says whether dashboard.json matches (the tests run it). Standard library only.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

DS = {"type": "prometheus", "uid": "${datasource}"}
# Every query filters by both variables; with a single target the exporter adds no
# `target` label, and the variable's "All" (.*) matches the empty value too.
SEL = 'instance=~"$instance", target=~"$target"'
STEADY = ("How to read it: a steady climb across the day means too little capacity for the load "
          "(add slots, memory or a server); a sawtooth that returns to its floor means bursts the "
          "queue absorbs (usually fine, unless the peaks hurt users).")
panels: list[dict] = []


def panel(title, desc, targets, x, y, w=12, h=8, kind="timeseries", unit=None, extra=None):
    """Append one panel; every target queries Prometheus through the chosen data source."""
    p = {"id": len(panels) + 1, "type": kind, "title": title, "description": desc, "datasource": DS,
         "gridPos": {"x": x, "y": y, "w": w, "h": h},
         "targets": [dict({"refId": chr(65 + i), "datasource": DS}, **t) for i, t in enumerate(targets)],
         "fieldConfig": {"defaults": {}, "overrides": []}, "options": {}}
    if unit:
        p["fieldConfig"]["defaults"]["unit"] = unit
    if extra:
        for k, v in extra.items():
            p[k] = v
    panels.append(p)


panel("Active findings",
      "Checks that currently report a cause, by severity. Each row is one llmdoctor check; run `llmdoctor diagnose` on the host for the evidence line and the fix.",
      [{"expr": f'llmdoctor_finding{{{SEL}}} == 1', "instant": True, "format": "table", "legendFormat": "{{check}} {{target}}"}],
      0, 0, 12, 7, kind="table")
panel("Findings by severity",
      "Number of active findings. Critical ones need action now; warnings degrade latency under load.",
      [{"expr": f'sum by (target, severity) (llmdoctor_findings_active{{{SEL}}})', "legendFormat": "{{severity}} {{target}}"}],
      12, 0, 6, 7, kind="stat")
panel("Exporter health",
      "llmdoctor_up is 1 when the last diagnosis examined the target. Age of results should stay below a few intervals; the LLMDoctorStale alert fires at three.",
      [{"expr": f'llmdoctor_up{{{SEL}}}', "legendFormat": "up {{instance}} {{target}}"},
       {"expr": f'time() - llmdoctor_last_run_timestamp_seconds{{{SEL}}}', "legendFormat": "age {{instance}} {{target}}"},
       {"expr": f'llmdoctor_run_duration_seconds{{{SEL}}}', "legendFormat": "run {{instance}} {{target}}"}],
      18, 0, 6, 7, kind="stat")
panel("Time to first token (probe)",
      "Time to first token measured by llmdoctor's live probe (p50 and p95; needs --probe-interval). " + STEADY,
      [{"expr": f'llmdoctor_probe_ttft_seconds{{{SEL}}}', "legendFormat": "{{engine}} {{instance}} p{{percentile}} {{target}}"}],
      0, 7, unit="s")
panel("Inter-token latency (probe)",
      "Time between streamed tokens in the probe (p50 and p95). It rises when slots share the GPU or layers run on the CPU. " + STEADY,
      [{"expr": f'llmdoctor_probe_itl_seconds{{{SEL}}}', "legendFormat": "{{engine}} {{instance}} p{{percentile}} {{target}}"}],
      12, 7, unit="s")
panel("Queue depth",
      "Requests waiting for a slot (vLLM waiting, llama-server deferred) next to requests being served. " + STEADY,
      [{"expr": f'llmdoctor_queue_depth_requests{{{SEL}}}', "legendFormat": "waiting {{engine}} {{instance}} {{target}}"},
       {"expr": f'llmdoctor_requests_running{{{SEL}}}', "legendFormat": "running {{engine}} {{instance}} {{target}}"}],
      0, 15, unit="short")
panel("KV cache: demand vs capacity",
      "Tokens of KV cache the configured concurrency x context needs, against what the server has room for. Demand above capacity means requests queue, get preempted or truncated when all slots are busy. A usage ratio that climbs steadily to 1 is too little capacity; a sawtooth is bursts.",
      [{"expr": f'llmdoctor_kv_demand_tokens{{{SEL}}}', "legendFormat": "demand {{instance}} {{target}}"},
       {"expr": f'llmdoctor_kv_capacity_tokens{{{SEL}}}', "legendFormat": "capacity {{instance}} {{target}}"}],
      12, 15, unit="short")
panel("KV cache usage",
      "Fraction of the KV cache in use as the engine reports it (vLLM). Touching 1 together with preemptions means the cache is too small.",
      [{"expr": f'llmdoctor_kv_usage_ratio{{{SEL}}}', "legendFormat": "{{engine}} {{instance}} {{target}}"}],
      0, 23, unit="percentunit")
panel("Preemptions per minute",
      "Requests vLLM preempted for lack of KV cache (rate of a counter that never decreases). Any sustained rate costs recomputation; raise --gpu-memory-utilization or lower --max-num-seqs.",
      [{"expr": f'rate(llmdoctor_preemptions_total{{{SEL}}}[$__rate_interval]) * 60', "legendFormat": "{{engine}} {{instance}} {{target}}"}],
      12, 23, unit="short")
panel("Model memory placement",
      "Bytes of each loaded model on the GPU and in system memory. Any CPU share next to a GPU share means a spill: tokens come out several times slower.",
      [{"expr": f'llmdoctor_model_memory_bytes{{{SEL}}}', "legendFormat": "{{model}} {{device}} {{target}}"}],
      0, 31, unit="bytes", extra={"fieldConfig": {"defaults": {"unit": "bytes", "custom": {"stacking": {"mode": "normal"}}}, "overrides": []}})
panel("GPU memory",
      "GPU memory in use against installed. A steady climb toward the total precedes spills and out-of-memory reloads; a sawtooth follows models loading and unloading.",
      [{"expr": f'llmdoctor_gpu_memory_used_bytes{{{SEL}}}', "legendFormat": "used gpu{{gpu}} {{instance}} {{target}}"},
       {"expr": f'llmdoctor_gpu_memory_total_bytes{{{SEL}}}', "legendFormat": "total gpu{{gpu}} {{instance}} {{target}}"}],
      12, 31, unit="bytes")
panel("Swap traffic",
      "Bytes per second moved to (out) and from (in) swap during each diagnosis sample. Sustained swap-in means weights or the server are paged out: latency becomes erratic.",
      [{"expr": f'llmdoctor_swap_in_bytes_per_second{{{SEL}}}', "legendFormat": "in {{instance}} {{target}}"},
       {"expr": f'llmdoctor_swap_out_bytes_per_second{{{SEL}}}', "legendFormat": "out {{instance}} {{target}}"}],
      0, 39, unit="Bps")
panel("Model loads per hour",
      "Model loads seen in the Ollama log. A steady rate means keep-alive is shorter than the gaps between requests or models evict each other; each load makes a request wait for the weights.",
      [{"expr": f'increase(llmdoctor_model_loads_total{{{SEL}}}[1h])', "legendFormat": "{{engine}} {{instance}} {{target}}"}],
      12, 39, unit="short")
panel("Ollama effective settings",
      "Settings the running Ollama actually uses (from its startup log, process or unit environment, or the version's default): parallel slots, queue length, default context, keep-alive.",
      [{"expr": f'llmdoctor_ollama_num_parallel{{{SEL}}}', "legendFormat": "parallel {{target}}"},
       {"expr": f'llmdoctor_ollama_max_queue{{{SEL}}}', "legendFormat": "max queue {{target}}"},
       {"expr": f'llmdoctor_ollama_context_length_tokens{{{SEL}}}', "legendFormat": "context length {{target}}"},
       {"expr": f'llmdoctor_ollama_keep_alive_seconds{{{SEL}}}', "legendFormat": "keep-alive (s) {{target}}"}],
      0, 47, kind="stat")
panel("Engines",
      "LLM servers llmdoctor found on each target, with their versions.",
      [{"expr": f'llmdoctor_engine_info{{{SEL}}}', "instant": True, "format": "table", "legendFormat": "{{engine}} {{version}} {{target}}"}],
      12, 47, kind="table")

dash = {
    "__inputs": [],
    "title": "llmdoctor: LLM server saturation",
    "uid": "llmdoctor-overview",
    "description": "Saturation signals of self-hosted LLM servers (Ollama, vLLM, llama.cpp) as diagnosed by llmdoctor. Watch TTFT and queue depth across the day: a steady climb means too little capacity, a sawtooth means bursts the queue absorbs.",
    "tags": ["llmdoctor", "llm"],
    "timezone": "browser",
    "schemaVersion": 39,
    "version": 1,
    "editable": True,
    "refresh": "1m",
    "time": {"from": "now-24h", "to": "now"},
    "templating": {"list": [
        {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus", "current": {}, "hide": 0},
        {"name": "instance", "label": "Instance", "type": "query", "datasource": DS,
         "query": {"query": "label_values(llmdoctor_up, instance)", "refId": "instances"},
         "definition": "label_values(llmdoctor_up, instance)", "refresh": 2, "multi": True, "includeAll": True,
         "allValue": ".*", "current": {}, "hide": 0, "sort": 1},
        {"name": "target", "label": "Target", "type": "query", "datasource": DS,
         "description": "The host an exporter diagnoses; several --host/--evidence targets of one exporter each get a target label.",
         "query": {"query": 'label_values(llmdoctor_up{instance=~"$instance"}, target)', "refId": "targets"},
         "definition": 'label_values(llmdoctor_up{instance=~"$instance"}, target)', "refresh": 2, "multi": True,
         "includeAll": True, "allValue": ".*", "current": {}, "hide": 0, "sort": 1},
    ]},
    # A setting changed on a target (the exporter's history: `llmdoctor history` tells what and where).
    # The gauge holds the change's time: it marks the three minutes after it (`changes()` would
    # miss a setting's first change, when its series appears).
    "annotations": {"list": [
        {"name": "Settings changed", "datasource": DS, "enable": True, "hide": False, "iconColor": "orange",
         "expr": 'llmdoctor_setting_changed_timestamp_seconds{instance=~"$instance", target=~"$target"} > time() - 180'},
    ]},
    "panels": panels,
}


def render() -> str:
    return json.dumps(dash, indent=2)


def main() -> int:
    out = Path(__file__).with_name("dashboard.json")
    if "--check" in sys.argv[1:]:
        same = out.exists() and out.read_text() == render()
        print("dashboard.json is up to date" if same else "dashboard.json differs: run packaging/grafana/dashboard.py")
        return 0 if same else 1
    out.write_text(render())
    print(f"wrote {out} ({len(panels)} panels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
