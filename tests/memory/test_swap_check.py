"""The swap-activity check and the memory fact, on evidence, on this machine, and (as root)
during a real burst of swap traffic."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from llmdoctor.facts import Context, FactUnavailable
from llmdoctor.facts.memory import MemoryFact, memory
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.hosts.local import LocalHost
from llmdoctor.judge.summaries import summary_of
from llmdoctor.knowledge.memory import SwapInterval, parse_meminfo
from llmdoctor.model import Cause, Severity
from llmdoctor.plugins import load_checks

from . import realswap

FIX = Path(__file__).resolve().parent.parent / "fixtures"
EVIDENCE = FIX / "evidence"


@pytest.fixture(scope="module")
def swap_check():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    (spec,) = [s for s in specs if s.id == "swap-activity"]
    assert spec.cause is Cause.SWAP
    return spec.func


def evidence_fact(name: str) -> MemoryFact:
    return memory(Context(host=EvidenceHost(EVIDENCE / name), sample_seconds=0))


def test_pathological_evidence_is_critical_with_rows_as_evidence(swap_check):
    fact = evidence_fact("swap-active")
    (finding,) = list(swap_check(fact))
    assert finding.cause is Cause.SWAP and finding.severity is Severity.CRITICAL
    texts = [e.text for e in finding.evidence]
    assert texts[0].split()[:4] == ["r", "b", "swpd", "free"]
    assert any(t.startswith("2  0 199460 23466664   8768 1021388 180996 182368") for t in texts)
    assert all(e.source in ("vmstat.txt", "meminfo.txt") for e in finding.evidence)
    assert "smaller model" in finding.fix.summary and "more RAM" in finding.fix.summary
    # half the RAM free while swapping: a cgroup limit is named as the squeeze
    assert "MemoryMax" in finding.fix.summary


def test_healthy_evidence_yields_nothing(swap_check):
    fact = evidence_fact("swap-healthy")
    assert fact.vmstat is not None and fact.vmstat.rows[0].values["si"] > 0  # only the since-boot row
    assert list(swap_check(fact)) == []
    assert ("Swap", "none configured") in summary_of("memory", fact)


def test_single_active_interval_is_a_warning(swap_check):
    busy = SwapInterval(2 * 1024 * 1024, 0, 1.0, text="pswpin +512, pswpout +0 in 1.0 s")
    idle = SwapInterval(0, 0, 1.0, text="pswpin +0, pswpout +0 in 1.0 s")
    fact = MemoryFact(intervals=(busy, idle, idle), intervals_source="/proc/vmstat")
    (finding,) = list(swap_check(fact))
    assert finding.severity is Severity.WARNING
    assert [e.text for e in finding.evidence] == [busy.text]


def test_evidence_without_memory_files_is_quietly_unavailable(tmp_path):
    (tmp_path / "meta.json").write_text("{}")
    with pytest.raises(FactUnavailable) as e:
        memory(Context(host=EvidenceHost(tmp_path)))
    assert e.value.quiet


def test_unparseable_vmstat_is_named(tmp_path):
    (tmp_path / "vmstat.txt").write_text("this is not vmstat\n")
    with pytest.raises(FactUnavailable) as e:
        memory(Context(host=EvidenceHost(tmp_path)))
    assert e.value.reason.startswith("unparseable vmstat.txt:")


def test_live_sample_on_this_machine():
    start = time.monotonic()
    fact = memory(Context(host=LocalHost(), sample_seconds=1.0))
    assert time.monotonic() - start < 5
    assert fact.meminfo is not None and fact.meminfo.mem_total > 0
    assert len(fact.intervals) == 2 and all(i.seconds and i.seconds > 0.2 for i in fact.intervals)
    labels = [k for k, _ in summary_of("memory", fact)]
    assert labels[:1] == ["RAM"] and "Swap activity" in labels


def test_no_sampling_when_sample_seconds_is_zero():
    fact = memory(Context(host=LocalHost(), sample_seconds=0))
    assert fact.intervals == () and fact.meminfo is not None


@pytest.mark.root
@pytest.mark.real
def test_real_swap_activity_is_found_and_undone(swap_check):
    reason = realswap.skip_reason()
    if reason:
        pytest.skip(reason)
    with realswap.swapping(seconds=5.0):
        time.sleep(1.0)
        fact = memory(Context(host=LocalHost(), sample_seconds=2.0))
    findings = list(swap_check(fact))
    assert [f.cause for f in findings] == [Cause.SWAP]
    assert findings[0].severity is Severity.CRITICAL, fact.intervals
    assert all(e.source in ("/proc/vmstat", "/proc/meminfo") for e in findings[0].evidence)
    # everything was undone: no swap file active from this test, no cgroup left
    assert "llmdoctor-swap-" not in Path("/proc/swaps").read_text()
    assert not list(Path(realswap.CGROUP_ROOT).glob("llmdoctor-swaptest-*"))
