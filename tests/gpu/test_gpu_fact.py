"""Fact "gpu" on this machine, on an evidence directory, and over a remote host's nvidia-smi."""
from __future__ import annotations

from llmdoctor.hosts.live import BaseHost
from pathlib import Path

import pytest

from llmdoctor.facts import Context, FactUnavailable
from llmdoctor.facts.gpu import gpu
from llmdoctor.hosts.base import CommandNotFound, CommandResult
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.hosts.local import LocalHost
from llmdoctor.facts.gpu import QUERY_APPS_FIELDS, QUERY_GPU_FIELDS
from llmdoctor.knowledge.nvidia import MIB

from .test_nvidia import fixture, noheader_nounits

EVIDENCE = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"


def test_local_without_driver_is_unavailable_with_reason():
    try:
        fact = gpu(Context(host=LocalHost()))
    except FactUnavailable as e:
        assert not e.quiet and "NVIDIA" in e.reason
    else:
        assert fact.source == "NVML"


def test_evidence_table():
    fact = gpu(Context(host=EvidenceHost(EVIDENCE / "gpu-table-595")))
    assert fact.source == "nvidia_smi.txt" and fact.gpus[0].total_bytes == 16376 * MIB


def test_evidence_without_nvidia_smi_is_quiet(tmp_path):
    (tmp_path / "meta.json").write_text("{}")
    with pytest.raises(FactUnavailable) as e:
        gpu(Context(host=EvidenceHost(tmp_path)))
    assert e.value.quiet


def test_evidence_garbage_is_named(tmp_path):
    (tmp_path / "nvidia_smi.txt").write_text("bash: nvidia-smi: command not found\n")
    with pytest.raises(FactUnavailable) as e:
        gpu(Context(host=EvidenceHost(tmp_path)))
    assert e.value.reason.startswith("unparseable nvidia_smi.txt:")


class RemoteHost(BaseHost):
    """A remote host's nvidia-smi, answering with the recorded capture in the
    `noheader,nounits` form the collector asks for."""

    kind, name = "ssh", "gpubox"

    def __init__(self, installed=True):
        self.installed = installed
        self.full = fixture("query-gpu-full-595-rtx4080.csv")

    def run(self, argv, timeout=10):
        if not self.installed:
            raise CommandNotFound("nvidia-smi: command not found")
        if argv[1].startswith("--query-gpu="):
            return CommandResult(tuple(argv), 0, noheader_nounits(self.full, QUERY_GPU_FIELDS))
        apps = fixture("compute-apps-595-rtx4080.csv")
        return CommandResult(tuple(argv), 0, noheader_nounits(apps, QUERY_APPS_FIELDS))

    def listdir(self, path):
        raise FileNotFoundError(path)

    def read(self, path, limit=4096):
        if path == "/proc/2165/comm":
            return b"kwin_wayland\n"
        raise FileNotFoundError(path)


def test_remote_nvidia_smi_csv():
    fact = gpu(Context(host=RemoteHost()))
    assert fact.source == "nvidia-smi" and fact.driver == "595.71.05"
    (proc,) = fact.processes
    assert proc.gpu_index == 0 and proc.used_bytes == 25 * MIB and proc.name == "/usr/bin/kwin_wayland"


def test_remote_without_nvidia_smi():
    with pytest.raises(FactUnavailable) as e:
        gpu(Context(host=RemoteHost(installed=False)))
    assert e.value.reason == ("nvidia-smi not found: no NVIDIA driver; "
                              "no AMD GPU: amd-smi not found, rocm-smi not found, no /sys/class/drm")
