"""A diagnosis reads each engine log once (issue 28): the engine's scanner takes every line in
one pass, and whatever else looks at the log reads a bounded head of it. A fact that walked the
whole log again (the vLLM release once did, through `lines()`) doubled a 1 GiB log's time; here
the bytes every reader drew from the log are counted and held to one pass plus the heads."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.hosts.logs.files import FileSource
from llmdoctor.hosts.logs.source import CHUNK, MAX_LINE
from llmdoctor.knowledge.containers.no_gpu import MAX_LINES
from llmdoctor.plugins import load_checks

ROOT = Path(__file__).resolve().parents[2]
LINES = 4 * MAX_LINES  # a log much longer than any bounded head


def _generator(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _counting(monkeypatch) -> list:
    """Count the bytes FileSource hands out: every reader (regions, blocks, lines) draws them
    from raw_regions."""
    drawn = [0]
    regions = FileSource.raw_regions

    def counted_regions(self, *a, **k):
        for buf, begin, end in regions(self, *a, **k):
            drawn[0] += end - begin + 1
            yield buf, begin, end

    monkeypatch.setattr(FileSource, "raw_regions", counted_regions)
    return drawn


@pytest.mark.parametrize("engine, gen, name, density", [
    ("vLLM", "vllm_log_gen", "vllm.log", 0.05),
    ("SGLang", "sglang_log_gen", "sglang.log", 0.05),
    ("Ollama", "ollama_log_gen", "ollama.log", 0.2),
])
def test_each_log_is_read_once(tmp_path, monkeypatch, engine, gen, name, density):
    ev = tmp_path / "ev"
    ev.mkdir()
    log = ev / name
    module = _generator(gen)
    if gen == "ollama_log_gen":
        module.generate(log, lines=LINES, density=density)
    else:
        per_line = 200 if gen == "vllm_log_gen" else 100
        module.generate(log, LINES * per_line, density=density)
    size = log.stat().st_size
    drawn = _counting(monkeypatch)
    result = diagnose_target(EvidenceHost(ev), DiagnoseOptions(sample_seconds=0),
                             load_checks(site_dir=None, entry_points=False)[0])
    assert any(e.startswith(f"{engine} log {name}") for e in result.report.examined), result.report.examined
    # one pass, plus two heads bounded in lines (recognition, the no-GPU line) and the chunk each
    # head's last read runs into; a second pass would be twice the size
    assert drawn[0] <= size * (1 + 2 * MAX_LINES / LINES) + 2 * (CHUNK + MAX_LINE), (drawn, size)
