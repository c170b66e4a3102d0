"""AMD GPUs in the "gpu" fact: amd-smi and rocm-smi JSON (recorded outputs in tests/fixtures/amd/,
sources in its README), the amdgpu sysfs counters in a tree built with the real file formats,
stand-in tools on PATH replaying the recordings, evidence, and a check seeing the card's memory."""
from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.app.collect_gpu import collect_amd
from llmdoctor.facts import Context, FactStore, FactUnavailable
from llmdoctor.facts import gpu_amd
from llmdoctor.facts.gpu import gpu
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.hosts.local import LocalHost
from llmdoctor.knowledge import amd
from llmdoctor.parsing import ParseError
from llmdoctor.plugins import load_checks, run_check

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
AMD = FIXTURES / "amd"
MIB, GIB = 2**20, 2**30


def text(name: str) -> str:
    return (AMD / name).read_text()


# -- parsers on the recorded outputs -------------------------------------------------------------

def test_amd_smi_list_form_with_names_from_static():
    static = amd.parse_amd_smi_static(text("amd_smi_static_rx6600.json"))
    assert static == {0: ("Navi 23 [Radeon RX 6600/6600 XT", "7.0.0-3-pve")}
    (card,) = amd.parse_amd_smi_metric(text("amd_smi_metric_rx6600.json"), static)
    assert (card.vram_total, card.vram_used, card.gtt_total) == (8176 * MIB, 202 * MIB, 64357 * MIB)
    (dev,) = amd.fact([card], "amd-smi").gpus
    # a discrete card: its 63 GiB GTT is host RAM over PCIe, not counted
    assert dev.total_bytes == 8176 * MIB and dev.free_bytes == 7974 * MIB and dev.memory == "VRAM"


def test_amd_smi_gpu_data_envelope():
    (card,) = amd.parse_amd_smi_metric(text("amd_smi_metric_gpu_data.json"))
    assert card.index == 0 and card.vram_total == 30576 * MIB and card.vram_used == 20450 * MIB and card.name == ""


def test_rocm_smi_bytes_and_card_series():
    (card,) = amd.parse_rocm_smi(text("rocm_smi_rx7900xt.json"))
    assert card.name == "Radeon RX 7900 XT" and card.vram_total == 21458059264 and card.vram_used == 27856896
    assert card.gtt_total is None and not card.unified


def test_rocm_smi_without_meminfo_is_named():
    with pytest.raises(ParseError, match="VRAM Total Memory"):
        amd.parse_rocm_smi(text("rocm_smi_allinfo_rx6600.json"))


def test_rocm_smi_warning_before_the_json():
    # rocm-smi prints its warnings (e.g. the low-power one of signerless/llm-checker#75) on stdout
    out = "WARNING: AMD GPU device(s) is/are in a low-power state. Check power control/runtime_status\n" + text("rocm_smi_rx7900xt.json")
    assert amd.parse_rocm_smi(out)[0].vram_total == 21458059264


def test_rocm_smi_no_json_data():
    with pytest.raises(ParseError, match="No JSON data"):
        amd.parse_rocm_smi("WARNING: No JSON data to report\n")  # rocm_smi.py's line when nothing was asked


def test_strix_halo_sysfs_counts_gtt_and_says_so():
    card = amd.parse_sysfs_card("card1", {"vendor": "0x1002\n", "device": "0x1586\n",
                                          "mem_info_vram_total": "4294967296\n", "mem_info_gtt_total": "103079215104\n"})
    assert card.unified
    dev = card.device()
    assert dev.total_bytes == 103079215104 and dev.used_bytes is None
    assert dev.memory.startswith("GTT (unified memory") and "4.0 GiB VRAM carve-out is not added" in dev.memory


def test_discrete_sysfs_counts_vram():
    card = amd.parse_sysfs_card("card1", {"vendor": "0x1002", "mem_info_vram_total": "4294967296",
                                          "mem_info_gtt_total": "4294967296", "mem_info_vram_used": "1048576"})
    assert not card.unified and card.device().total_bytes == 4294967296 and card.device().used_bytes == MIB


def test_sysfs_other_vendor_or_connector_is_none():
    assert amd.parse_sysfs_card("card0", {"vendor": "0x8086", "mem_info_vram_total": "1"}) is None
    assert amd.parse_sysfs_card("card0-DP-1", {"vendor": "0x1002", "mem_info_vram_total": "1"}) is None


# -- garbage never escapes as anything but ParseError --------------------------------------------

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["gpu", "gpu_data", "mem_usage", "total_vram", "used_vram", "total_gtt", "value", "unit",
                         "card0", "VRAM Total Memory (B)", "GTT Total Memory (B)", "asic", "market_name", "x"]),
        inner, max_size=5),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), JSONISH.map(lambda d: json.dumps(d, allow_nan=True))))
def test_parsers_on_garbage(raw):
    for parse in (amd.parse_amd_smi_metric, amd.parse_amd_smi_static, amd.parse_rocm_smi):
        try:
            result = parse(raw)
        except ParseError:
            continue
        for card in (result if isinstance(result, list) else []):
            dev = card.device()
            assert dev.total_bytes is None or dev.total_bytes >= 0


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(amd.SYSFS_FILES), st.text(max_size=30), max_size=6), st.text(max_size=10))
def test_sysfs_on_garbage(files, card):
    found = amd.parse_sysfs_card(card, files)
    assert found is None or found.vram_total is not None


# -- stand-in tools on PATH and a sysfs tree -------------------------------------------------------

def tool(bin_dir: Path, name: str, replies: dict[str, str], otherwise: str = "exit 2") -> None:
    """A stand-in that prints a recording for the exact argv it expects, and fails on any other."""
    lines = ["#!/bin/sh", 'case "$*" in']
    for argv, fixture in replies.items():
        lines.append(f'  "{argv}") cat "{AMD / fixture}" ;;' if not fixture.startswith("!") else f'  "{argv}") {fixture[1:]} ;;')
    lines += [f"  *) echo \"unexpected argv: $*\" >&2; {otherwise} ;;", "esac"]
    path = bin_dir / name
    path.write_text("\n".join(lines) + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


AMD_SMI = {" ".join(gpu_amd.AMD_SMI_METRIC[1:]): "amd_smi_metric_rx6600.json",
           " ".join(gpu_amd.AMD_SMI_STATIC[1:]): "amd_smi_static_rx6600.json"}
ROCM_SMI = {" ".join(gpu_amd.ROCM_SMI[1:]): "rocm_smi_rx7900xt.json"}


@pytest.fixture
def path_only(tmp_path, monkeypatch):
    """PATH with the stand-ins and the basic tools the stand-ins need, no nvidia-smi."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("sh", "cat", "sleep", "echo"):
        found = shutil.which(name)
        if found:
            os.symlink(found, bin_dir / name)
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def sysfs(root: Path, card: str, **files) -> None:
    d = root / card / "device"
    d.mkdir(parents=True)
    for name, value in files.items():
        (d / name).write_text(f"{value}\n")


def test_fake_amd_smi_through_the_fact(path_only, tmp_path):
    tool(path_only, "amd-smi", AMD_SMI)
    fact = gpu(Context(host=LocalHost()))
    assert fact.source == "amd-smi" and fact.driver == "7.0.0-3-pve"
    assert fact.total_bytes == 8176 * MIB and fact.gpus[0].name.startswith("Navi 23")
    assert dict(fact.summary())["GPU"].startswith("Navi 23 [Radeon RX 6600/6600 XT, 8.0 GiB total VRAM")


def test_amd_smi_garbage_falls_to_rocm_smi(path_only):
    tool(path_only, "amd-smi", {" ".join(gpu_amd.AMD_SMI_METRIC[1:]): "!echo 'Segmentation fault'"})
    tool(path_only, "rocm-smi", ROCM_SMI)
    fact = gpu(Context(host=LocalHost()))
    assert fact.source == "rocm-smi" and fact.gpus[0].total_bytes == 21458059264


def test_timeout_then_sysfs(path_only, tmp_path, monkeypatch):
    monkeypatch.setattr(gpu_amd, "TIMEOUT", 0.5)
    tool(path_only, "amd-smi", {" ".join(gpu_amd.AMD_SMI_METRIC[1:]): "!sleep 5"})
    tool(path_only, "rocm-smi", {}, otherwise="echo 'ERROR:root:Driver not initialized (amdgpu not found in modules)'; exit 1")
    root = tmp_path / "drm"
    sysfs(root, "card0", vendor="0x8086", mem_info_vram_total=0)  # an Intel iGPU next to it
    (root / "card1-DP-1").mkdir()
    sysfs(root, "card1", vendor="0x1002", device="0x1586", mem_info_vram_total=4294967296, mem_info_vram_used=480116736,
          mem_info_gtt_total=103079215104, mem_info_gtt_used=67645734912)
    fact = gpu_amd.read_amd(LocalHost(), sysfs_root=str(root))
    (dev,) = fact.gpus
    assert fact.source == "amdgpu sysfs" and dev.name == "AMD GPU 0x1586 (card1)" and dev.index == 0
    assert dev.total_bytes == 103079215104 and dev.used_bytes == 67645734912 and dev.memory.startswith("GTT")


def test_nothing_amd_is_one_line(path_only, tmp_path):
    with pytest.raises(FactUnavailable) as e:
        gpu_amd.read_amd(LocalHost(), sysfs_root=str(tmp_path / "none"))
    assert not e.value.quiet
    assert e.value.reason == f"no AMD GPU: amd-smi not found, rocm-smi not found, no {tmp_path / 'none'}"


def test_no_gpu_at_all_names_both(path_only, monkeypatch, tmp_path):
    monkeypatch.setattr(gpu_amd, "SYSFS_ROOT", str(tmp_path / "none"))
    monkeypatch.setattr(gpu_amd.read_amd, "__defaults__", (str(tmp_path / "none"),))
    with pytest.raises(FactUnavailable) as e:
        gpu(Context(host=LocalHost()))
    assert "no AMD GPU: amd-smi not found" in e.value.reason and ";" in e.value.reason


# -- evidence: collect writes it, diagnose reads it ------------------------------------------------

def test_collect_then_evidence(path_only, tmp_path, monkeypatch):
    tool(path_only, "amd-smi", AMD_SMI)
    from llmdoctor.hosts.bundle import EvidenceWriter

    out = tmp_path / "evidence"
    bundle = EvidenceWriter(out)
    collect_amd(LocalHost(), bundle)
    assert set(bundle.written) == {"amd_smi_metric.json", "amd_smi_static.json"}  # rocm-smi not asked once amd-smi answered
    fact = gpu(Context(host=EvidenceHost(out)))
    assert fact.source == "amd_smi_metric.json" and fact.total_bytes == 8176 * MIB and fact.gpus[0].name.startswith("Navi 23")


def test_sysfs_copies_in_evidence(tmp_path):
    d = tmp_path / "evidence" / "files" / "sys" / "class" / "drm" / "card1" / "device"
    d.mkdir(parents=True)
    for name, value in {"vendor": "0x1002", "mem_info_vram_total": 4294967296, "mem_info_gtt_total": 103079215104}.items():
        (d / name).write_text(f"{value}\n")
    fact = gpu(Context(host=EvidenceHost(tmp_path / "evidence")))
    assert fact.source == "files/sys/class/drm" and fact.total_bytes == 103079215104


def test_evidence_with_no_gpu_file_stays_quiet(tmp_path):
    (tmp_path / "meta.json").write_text("{}")
    with pytest.raises(FactUnavailable) as e:
        gpu(Context(host=EvidenceHost(tmp_path)))
    assert e.value.quiet


def test_unparseable_evidence_is_named(tmp_path):
    (tmp_path / "rocm_smi.json").write_text("bash: rocm-smi: command not found\n")
    with pytest.raises(FactUnavailable) as e:
        gpu(Context(host=EvidenceHost(tmp_path)))
    assert "unparseable rocm_smi.json output" in e.value.reason


# -- the fact reaching a check -------------------------------------------------------------------

def test_kv_capacity_sees_the_radeon_memory(tmp_path):
    """ollama-kv-capacity's directory (24 GiB card in its log) with a 20 GiB RX 7900 XT's rocm-smi:
    the check's budget is the AMD card's memory, not the log's."""
    d = tmp_path / "ollama-amd"
    shutil.copytree(FIXTURES / "evidence" / "ollama-kv-capacity", d)
    (d / "rocm_smi.json").write_text(text("rocm_smi_rx7900xt.json"))
    specs, errors = load_checks(site_dir=None, entry_points=False)
    spec = next(s for s in specs if s.id == "ollama-kv-capacity")
    store = FactStore(Context(EvidenceHost(d), sample_seconds=0))
    assert store.optional("gpu").source == "rocm_smi.json"
    (finding,) = run_check(spec, store).findings
    left = 21458059264 - 16 * GIB  # the card minus the 16 GiB model buffer of the fixture's log
    assert f"only {left / GIB:.1f} GiB is left after the weights" in finding.title


def test_ticket_pieces_are_named():
    from llmdoctor.knowledge.ticket import split_ticket

    ticket = ("user@strix:~$ rocm-smi --showproductname --showuse --showmeminfo vram --json\n" + text("rocm_smi_rx7900xt.json")
            + "user@strix:~$ amd-smi metric --json\n" + text("amd_smi_metric_rx6600.json"))
    files = split_ticket(ticket)
    assert json.loads(files["rocm_smi.json"])["card0"]["Card Series"] == "Radeon RX 7900 XT"
    assert json.loads(files["amd_smi_metric.json"])[0]["mem_usage"]["total_vram"]["value"] == 8176


def test_container_without_the_amd_devices_gets_the_rocm_fix(tmp_path):
    """An Ollama container started without devices on a Radeon host: the fix passes /dev/kfd and
    /dev/dri and the ROCm image (Ollama's docs/docker.md), not NVIDIA's --gpus."""
    d = tmp_path / "ev"
    shutil.copytree(FIXTURES / "containers" / "evidence" / "ollama-no-gpu-request", d)
    (d / "rocm_smi.json").write_text(text("rocm_smi_rx7900xt.json"))
    specs, _ = load_checks(site_dir=None, entry_points=False)
    spec = next(s for s in specs if s.id == "container-gpu-hidden")
    (f,) = run_check(spec, FactStore(Context(EvidenceHost(d), sample_seconds=0))).findings
    assert any(e.text == "the host has 1 GPU(s): Radeon RX 7900 XT" for e in f.evidence)
    assert any("--device /dev/kfd --device /dev/dri ... ollama/ollama:rocm" in c for c in f.fix.commands)
    assert not any("--gpus" in c or "nvidia" in c for c in f.fix.commands) and "/dev/kfd" in f.fix.config
