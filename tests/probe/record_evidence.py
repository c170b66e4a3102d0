"""Regenerate the probe evidence fixtures (tests/fixtures/evidence/probe-*/).

    .venv/bin/python -m tests.probe.record_evidence

Each directory holds a probe.json recorded by the real probe: against the real
llama-server (xllamacpp, tiny medium model) or against the Ollama replay
(tests/support/ollama_replay.py: recorded Ollama chunk shapes, simulated pacing).
expected.json lists exactly the probe checks that fire on it.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from llmdoctor.app.diagnose import judge_probe as judge
from llmdoctor.facts.live_probe.detect import detect
from llmdoctor.knowledge.probe.result import ProbeRuns
from llmdoctor.facts.live_probe.scenarios import ProbeRunner
from tests.support.llamaserver import running_llama_server
from tests.support.ollama_replay import ollama_replay
from tests.support.tinymodel import tiny_gguf

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
REPLAY = ("recorded by tests/probe/record_evidence.py: llmdoctor's light probe against the Ollama replay "
          "(tests/support/ollama_replay.py; chunk shapes from ollama/ollama#5843 and docs/api.md) with {what}")
REAL = ("recorded by tests/probe/record_evidence.py: llmdoctor's light probe against the real llama.cpp "
        "server (xllamacpp wheel) with the tiny test model (tests/support/tinymodel.py, medium), {what}")


def write(name: str, result, engine: str, source: str, notes: str) -> list[str]:
    d = OUT / name
    d.mkdir(parents=True, exist_ok=True)
    runs = ProbeRuns((result,))
    fired = sorted({f.check for f in judge(runs).targets[0].findings})
    (d / "probe.json").write_text(json.dumps(runs.to_dict(), indent=1) + "\n")
    (d / "meta.json").write_text(json.dumps({"host": "probe-fixture", "engine": engine, "notes": notes},
                                            indent=1) + "\n")
    (d / "expected.json").write_text(json.dumps({"checks": fired, "source": source}, indent=1) + "\n")
    print(name, fired)
    return fired


def main() -> int:
    cases = [
        ("probe-ollama-healthy", dict(slots=4, share=0.0), "4 slots, free batching", []),
        ("probe-ollama-shared", dict(slots=4, share=1.0), "4 slots sharing one stream's bandwidth",
         ["probe-bandwidth-limit"]),
        ("probe-ollama-unload", dict(slots=4, load_s=1.5), "a 1.5 s model load on the first request",
         ["probe-model-unload"]),
        ("probe-ollama-prefill", dict(slots=4, prefill_s_per_token=0.003), "prompt processing at ~330 tokens/s",
         ["probe-prefill"]),
        ("probe-ollama-queue-full", dict(busy=True), "every request refused with Ollama's queue-full 503",
         ["probe-queue-full"]),
    ]
    bad = 0
    for name, cfg, what, want in cases:
        with ollama_replay(**cfg) as srv:
            r = ProbeRunner(detect(srv.url)).light()
        bad += write(name, r, "ollama", REPLAY.format(what=what), what) != want
    with running_llama_server(tiny_gguf("medium"), n_parallel=1, n_ctx=2048) as url:
        r = ProbeRunner(detect(url)).light()
    bad += write("probe-llamacpp-one-slot", r, "llamacpp", REAL.format(what="-np 1 -c 2048"),
                 "llama-server with one slot") != ["probe-queueing"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
