"""The recorded probe runs in tests/fixtures/evidence/probe-*/probe.json (real servers:
tests/probe/record_evidence.py), loaded as the probe fact holds them."""
from __future__ import annotations

import json
from pathlib import Path

from llmdoctor.knowledge.probe.result import ProbeResult, ProbeRuns

EVIDENCE = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
PROBE_DIRS = sorted(p.parent for p in EVIDENCE.glob("probe-*/probe.json"))


def runs_of(directory: Path) -> ProbeRuns:
    data = json.loads((directory / "probe.json").read_text())
    return ProbeRuns(tuple(ProbeResult.from_dict(d) for d in (data if isinstance(data, list) else [data])))
