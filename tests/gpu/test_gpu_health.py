"""GPU health beyond memory: `nvidia-smi -q` recorded on real cards (tests/fixtures/nvidia_smi/
README.md), XID lines from public reports (tests/fixtures/nvidia_xid/README.md), NVML through a
stand-in that replays the H100 load capture's figures, the facts on evidence directories, and
the GPU_DEGRADED judgements (idle cards and GPU-less hosts give no finding)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.facts import Context, FactStore, FactUnavailable
from llmdoctor.facts.gpu_health import gpu_health, gpu_xid
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.hosts.nvml import read_nvml
from llmdoctor.judge.gpu import busy, link_degraded, throttled_by
from llmdoctor.knowledge.nvidia import MIB, parse_nvidia_smi
from llmdoctor.knowledge.nvidia_query import GpuHealth, parse_query, reasons_from_mask
from llmdoctor.knowledge.nvidia_xid import describe, parse_xid_line, parse_xids
from llmdoctor.parsing import ParseError

FIX = Path(__file__).resolve().parent.parent / "fixtures"
EVIDENCE = FIX / "evidence"


def q(name: str):
    return parse_query((FIX / "nvidia_smi" / name).read_text())


def xid(name: str):
    return parse_xids((FIX / "nvidia_xid" / name).read_text())


# -- nvidia-smi -q on recorded cards ------------------------------------------------------------

def test_h100_under_load():
    fact = q("query-590-h100-load.txt")
    (g,) = fact.gpus
    assert fact.driver == "590.48.01" and g.name == "NVIDIA H100 80GB HBM3" and g.bus_id == "00000000:00:09.0"
    assert (g.util_pct, g.sm_mhz, g.sm_max_mhz, g.reasons) == (100, 1980, 1980, ())
    assert (g.power_w, g.power_limit_w, g.power_default_w) == (588.39, 700.0, 700.0)
    assert (g.pcie_gen, g.pcie_gen_max, g.pcie_width, g.pcie_width_max) == (5, 5, 16, 16)
    assert (g.persistence, g.ecc_uncorrected, g.remap_pending, g.remap_failure) == (True, 0, False, False)
    assert g.temp_c == 59 and g.slowdown_temp_c is None  # Hopper reports T.Limit headroom, not a slowdown temperature
    assert busy(g) and not throttled_by(g) and not link_degraded(g)


def test_idle_card_drops_its_link_generation_and_that_is_no_finding():
    (g,) = q("query-595-rtx4080-idle.txt").gpus
    assert g.reasons == ("idle",) and (g.pcie_gen, g.pcie_gen_max) == (1, 4) and g.sm_mhz == 210
    assert busy(g) is False and link_degraded(g) == ("generation",) and not throttled_by(g)
    assert g.slowdown_temp_c == 96 and g.persistence is False


def test_driver_610_ceiling_power_limit_and_deprecated_driver_line():
    fact = q("query-610-rtx2080-load.txt")
    (g,) = fact.gpus
    assert fact.driver == "610.57.04"
    assert (g.power_w, g.power_limit_w, g.power_default_w) == (97.75, 250.0, 250.0)
    assert g.reasons == () and busy(g)  # 8% utilization, but not Idle: a memory-bound load


def test_mig_card_without_whole_gpu_utilization():
    (g,) = q("query-590-h200-mig-load.txt").gpus
    assert g.util_pct is None and g.reasons == () and busy(g) is True


def test_counters_after_the_flags_are_not_flags():
    """"Clocks Event Reasons Counters" repeats the reason names with times in us."""
    (g,) = q("query-590-h100-idle.txt").gpus
    assert g.reasons == ("idle",)


def test_query_saved_as_nvidia_smi_txt_gives_the_memory():
    fact = parse_nvidia_smi((FIX / "nvidia_smi" / "query-590-h100-load.txt").read_text())
    assert fact.gpus[0].total_bytes == 81559 * MIB and fact.gpus[0].used_bytes == 19818 * MIB


def test_the_table_is_not_query_output():
    with pytest.raises(ParseError):
        parse_query((FIX / "nvidia_smi" / "table-595-rtx4080-load.txt").read_text())


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_garbage_never_tracebacks(text):
    try:
        parse_query("==============NVSMI LOG==============\n" + text)
    except ParseError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([
    "GPU 00000000:01:00.0", "    Clocks Event Reasons", "        HW Slowdown : Active", "    Clocks", "        SM : x MHz",
    "    Max Clocks", "        SM : 99999999999999999999 MHz", "            Max : 16x", "    PCI", "        GPU Link Info",
    "            Link Width", "                Current : ", "    Persistence Mode : Maybe", ": :", "\t\tSM : 1 MHz",
]), max_size=30))
def test_line_soup(lines):
    try:
        fact = parse_query("Attached GPUs : 1\n" + "\n".join(lines))
    except ParseError:
        return
    for g in fact.gpus:
        throttled_by(g), link_degraded(g), busy(g)


# -- XID lines ----------------------------------------------------------------------------------

def test_xid_lines_of_real_reports():
    events = xid("dmesg-31-62-45.log")
    assert [e.code for e in events] == [31, 62, 45, 45, 45, 45, 45]
    assert (events[0].pci, events[0].pid, events[0].process) == ("0000:0a:00", 13332, "cuda_plot_k32_v")
    assert events[1].pid is None and events[1].process == "<unknown>"
    assert [e.code for e in xid("dmesg-13-109-ctime.log")] == [13, 13, 13, 109]
    assert xid("dmesg-13-109-ctime.log")[-1].process == "pt_main_thread"
    assert [e.code for e in xid("journal-45-149.log")] == [45, 45, 45]
    (old,) = xid("dmesg-31-old-driver.log")
    assert (old.code, old.pid, old.process) == (31, 2708, "")
    assert len(xid("dmesg-13-a800.log")) == 3


def test_xid_meanings():
    assert describe(79)[1] == "hardware" and "fallen off the bus" in describe(79)[0]
    assert describe(13)[1] == "application"
    assert "catalogue" in describe(9999)[2]


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_xid_garbage(text):
    parse_xid_line("NVRM: Xid (" + text)
    parse_xids(text)


# -- NVML through a stand-in --------------------------------------------------------------------

class StandInNVML:
    """The NVML calls hosts/nvml.py makes, answering with the H100 load capture's figures."""

    NVML_CLOCK_SM = 1

    class NVMLError(Exception):
        def __init__(self, value=3):
            self.value = value

    def __init__(self, mask=0, link=(5, 5, 16, 16), old=False):
        self.mask, self.link, self.old = mask, link, old

    def nvmlInit(self): pass
    def nvmlShutdown(self): pass
    def nvmlSystemGetDriverVersion(self): return b"590.48.01"
    def nvmlDeviceGetCount(self): return 1
    def nvmlDeviceGetHandleByIndex(self, i): return i
    def nvmlDeviceGetName(self, h): return "NVIDIA H100 80GB HBM3"
    def nvmlDeviceGetUUID(self, h): return "GPU-00000000-0000-0000-0000-000000000000"

    def nvmlDeviceGetMemoryInfo(self, h, version=None):
        from types import SimpleNamespace
        return SimpleNamespace(total=81559 * MIB, used=19818 * MIB, free=61263 * MIB)

    def nvmlDeviceGetComputeRunningProcesses(self, h): return []

    def nvmlDeviceGetCurrentClocksEventReasons(self, h):
        if self.old:
            raise self.NVMLError(13)  # FunctionNotFound: a pre-535 driver
        return self.mask

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h): return self.mask

    def nvmlDeviceGetUtilizationRates(self, h):
        from types import SimpleNamespace
        return SimpleNamespace(gpu=100, memory=11)

    def nvmlDeviceGetClockInfo(self, h, clock): return 382 if self.mask & 0x8 else 1980
    def nvmlDeviceGetMaxClockInfo(self, h, clock): return 1980
    def nvmlDeviceGetPowerUsage(self, h): return 588390
    def nvmlDeviceGetEnforcedPowerLimit(self, h): return 700000
    def nvmlDeviceGetPowerManagementDefaultLimit(self, h): return 700000
    def nvmlDeviceGetPersistenceMode(self, h): return 1
    def nvmlDeviceGetTotalEccErrors(self, h, kind, counter): return 0
    def nvmlDeviceGetRemappedRows(self, h): return (0, 0, 0, 0)
    def nvmlDeviceGetRetiredPagesPendingStatus(self, h): raise self.NVMLError(3)  # NotSupported on Hopper
    def nvmlDeviceGetPerformanceState(self, h): return 0
    def nvmlDeviceGetTemperature(self, h, sensor): return 59
    def nvmlDeviceGetTemperatureThreshold(self, h, kind): raise self.NVMLError(3)
    def nvmlDeviceGetCurrPcieLinkGeneration(self, h): return self.link[0]
    def nvmlDeviceGetMaxPcieLinkGeneration(self, h): return self.link[1]
    def nvmlDeviceGetCurrPcieLinkWidth(self, h): return self.link[2]
    def nvmlDeviceGetMaxPcieLinkWidth(self, h): return self.link[3]


def test_nvml_gives_the_same_record_as_the_query():
    (g,) = read_nvml(StandInNVML()).health
    (r,) = q("query-590-h100-load.txt").gpus
    for field in ("util_pct", "sm_mhz", "sm_max_mhz", "reasons", "power_w", "power_limit_w", "power_default_w",
                  "temp_c", "pcie_gen", "pcie_gen_max", "pcie_width", "pcie_width_max", "persistence",
                  "ecc_uncorrected", "remap_pending", "remap_failure", "pstate"):
        assert getattr(g, field) == getattr(r, field), field
    assert g.retire_pending is None and g.slowdown_temp_c is None


def test_nvml_throttle_mask_and_the_old_call():
    (g,) = read_nvml(StandInNVML(mask=0x8 | 0x80, old=True)).health
    assert g.reasons == ("hw_slowdown", "hw_power_brake") and throttled_by(g) == ("hw_slowdown", "hw_power_brake")
    assert reasons_from_mask(0x1 | 0x4) == ("idle", "sw_power_cap")


def test_nvml_without_health_calls_still_reads_memory():
    class Bare(StandInNVML):
        pass

    for name in [n for n in dir(StandInNVML) if n.startswith("nvmlDeviceGet") and n not in (
            "nvmlDeviceGetCount", "nvmlDeviceGetHandleByIndex", "nvmlDeviceGetName", "nvmlDeviceGetUUID",
            "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetComputeRunningProcesses")]:
        setattr(Bare, name, None)
    fact = read_nvml(Bare())
    assert fact.gpus[0].total_bytes == 81559 * MIB
    assert fact.health[0].reasons is None and busy(fact.health[0]) is None


# -- judgements ---------------------------------------------------------------------------------

def test_sw_power_cap_is_normal_at_full_clock_and_a_finding_when_held():
    at_cap = GpuHealth(0, util_pct=100, sm_mhz=1755, sm_max_mhz=1980, reasons=("sw_power_cap",))
    held = GpuHealth(0, util_pct=100, sm_mhz=900, sm_max_mhz=1980, reasons=("sw_power_cap",))
    idle_held = GpuHealth(0, util_pct=0, sm_mhz=345, sm_max_mhz=1980, reasons=("idle", "sw_power_cap"))
    assert not throttled_by(at_cap) and throttled_by(held) == ("sw_power_cap",) and not throttled_by(idle_held)


# -- facts on evidence directories --------------------------------------------------------------

def ctx(name: str) -> Context:
    return Context(host=EvidenceHost(EVIDENCE / name), sample_seconds=0)


def test_facts_from_evidence():
    fact = gpu_health(ctx("gpu-h100-load"))
    assert fact.source == "nvidia_smi_q.txt" and fact.gpus[0].util_pct == 100
    assert gpu_xid(ctx("gpu-h100-load")).events == ()
    xids = gpu_xid(ctx("gpu-xid"))
    assert xids.source == "kernel_xid.log" and {e.code for e in xids.events} == {31, 62, 45}


def test_no_gpu_evidence_is_quiet(tmp_path):
    (tmp_path / "meta.json").write_text("{}")
    for provider in (gpu_health, gpu_xid):
        with pytest.raises(FactUnavailable) as e:
            provider(Context(host=EvidenceHost(tmp_path)))
        assert e.value.quiet


def test_the_table_in_nvidia_smi_txt_is_not_query_output():
    with pytest.raises(FactUnavailable) as e:
        gpu_health(ctx("gpu-table-595"))
    assert e.value.quiet


def test_a_gpu_less_host_has_no_gpu_finding(tmp_path):
    from llmdoctor.plugins import load_checks, run_check

    (tmp_path / "meta.json").write_text("{}")
    store = FactStore(Context(host=EvidenceHost(tmp_path), sample_seconds=0))
    for spec in load_checks(site_dir=None, entry_points=False)[0]:
        if spec.id.startswith("gpu-"):
            got = run_check(spec, store)
            assert not got.findings and not got.crash


def test_an_idle_healthy_card_has_no_finding_but_persistence():
    from llmdoctor.plugins import load_checks, run_check

    store = FactStore(Context(host=EvidenceHost(EVIDENCE / "gpu-rtx4080-idle"), sample_seconds=0))
    fired = [spec.id for spec in load_checks(site_dir=None, entry_points=False)[0]
             if spec.id.startswith("gpu-") and run_check(spec, store).findings]
    assert fired == ["gpu-persistence-off"]


# -- collect ------------------------------------------------------------------------------------

def test_collect_writes_query_and_xid_lines_where_nvidia_smi_answers(tmp_path):
    from llmdoctor.app.collect import collect_evidence
    from llmdoctor.hosts.base import CommandNotFound, CommandResult
    from llmdoctor.hosts.live import BaseHost

    table = (FIX / "nvidia_smi" / "table-595-rtx4080-load.txt").read_text()
    query = (FIX / "nvidia_smi" / "query-595-rtx4080-load.txt").read_text()
    kernel = "Jul 14 08:00:00 gpubox kernel: usb 1-1: new device\n" + (FIX / "nvidia_xid" / "journal-45-149.log").read_text()

    class GpuBox(BaseHost):
        kind, name = "ssh", "gpubox"

        def __init__(self, gpu=True):
            self.gpu = gpu

        def run(self, argv, timeout=10):
            if argv[0] == "nvidia-smi" and self.gpu:
                return CommandResult(tuple(argv), 0, query if argv[1:2] == ["-q"] else table)
            if argv[0] == "journalctl" and "-k" in argv:
                return CommandResult(tuple(argv), 0, kernel)
            raise CommandNotFound(f"{argv[0]}: command not found")

        def exists(self, path):
            return self.gpu and path == "/proc/driver/nvidia/version"

        def read(self, path, limit=4096):
            raise FileNotFoundError(path)

        def listdir(self, path):
            raise FileNotFoundError(path)

    written, _ = collect_evidence(GpuBox(), tmp_path / "gpu")
    assert {"nvidia_smi.txt", "nvidia_smi_q.txt", "kernel_xid.log"} <= set(written)
    assert (tmp_path / "gpu" / "kernel_xid.log").read_text().count("NVRM: Xid") == 3
    assert gpu_health(ctx_of(tmp_path / "gpu")).gpus[0].sm_mhz == 2805
    written, notes = collect_evidence(GpuBox(gpu=False), tmp_path / "none")
    assert not {"nvidia_smi_q.txt", "kernel_xid.log"} & set(written)
    assert not [n for n in notes if "-q" in n or "XID" in n]


def ctx_of(path: Path) -> Context:
    return Context(host=EvidenceHost(path), sample_seconds=0)


@pytest.mark.parametrize("readings, says", [("gpu-throttled", "throttled"), ("gpu-h100-load", "at its clocks"),
                                            (None, None)])
def test_bandwidth_limit_says_whether_the_card_ran_at_its_clocks(tmp_path, readings, says):
    import shutil

    from llmdoctor.plugins import load_checks, run_check

    shutil.copytree(EVIDENCE / "probe-ollama-shared", tmp_path / "e")
    if readings:
        shutil.copy(EVIDENCE / readings / "nvidia_smi_q.txt", tmp_path / "e")
    (spec,) = [s for s in load_checks(site_dir=None, entry_points=False)[0] if s.id == "probe-bandwidth-limit"]
    (finding,) = run_check(spec, FactStore(ctx_of(tmp_path / "e"))).findings
    gpu_lines = [e.text for e in finding.evidence if e.source == "nvidia_smi_q.txt"]
    assert (says in gpu_lines[0]) if says else not gpu_lines


# -- AMD: the amdgpu power-management files -----------------------------------------------------

def amd_file(name: str) -> str:
    return (FIX / "amd_health" / name).read_text()


def test_amdgpu_levels_of_real_cards():
    from llmdoctor.knowledge.amd import parse_sysfs_health

    g = parse_sysfs_health(0, "AMD GPU (card1)", {"pp_dpm_sclk": amd_file("pp_dpm_sclk-polaris.txt"),
                                                  "pp_dpm_pcie": amd_file("pp_dpm_pcie-polaris.txt")})
    assert (g.sm_mhz, g.sm_max_mhz, g.pcie_gen, g.pcie_width, g.pcie_gen_max, g.pcie_width_max) == (1233, 1268, 3, 16, 3, 16)
    assert g.reasons is None and busy(g) is None and not link_degraded(g)
    g = parse_sysfs_health(0, "x", {"pp_dpm_pcie": amd_file("pp_dpm_pcie-x8-slot.txt"), "gpu_busy_percent": "99\n"})
    assert (g.pcie_gen, g.pcie_width, g.pcie_gen_max, g.pcie_width_max, g.util_pct) == (4, 8, 4, 8, 99)
    g = parse_sysfs_health(0, "x", {"pp_dpm_pcie": amd_file("pp_dpm_pcie-rx6800-gen3-board.txt")})
    assert (g.pcie_gen, g.pcie_width) == (3, 16) and not link_degraded(g)
    assert parse_sysfs_health(0, "x", {"pp_dpm_sclk": "garbage", "gpu_busy_percent": "n/a"}) is None


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["pp_dpm_sclk", "pp_dpm_pcie", "gpu_busy_percent"]), st.text(max_size=80)))
def test_amdgpu_garbage(files):
    from llmdoctor.knowledge.amd import parse_sysfs_health

    g = parse_sysfs_health(0, "x", files)
    if g is not None:
        busy(g), link_degraded(g), throttled_by(g)


@pytest.mark.parametrize("busy_pct, fires", [("97", True), ("0", False)])
def test_amdgpu_link_held_low_under_load(tmp_path, busy_pct, fires):
    from llmdoctor.plugins import load_checks, run_check

    d = tmp_path / "e" / "files" / "sys" / "class" / "drm" / "card1" / "device"
    d.mkdir(parents=True)
    (tmp_path / "e" / "meta.json").write_text("{}")
    for name, value in {"vendor": "0x1002", "mem_info_vram_total": "4294967296", "gpu_busy_percent": busy_pct,
                        "pp_dpm_pcie": "0: 2.5GT/s, x8 250Mhz *\n1: 16.0GT/s, x16 1143Mhz\n",
                        "pp_dpm_sclk": amd_file("pp_dpm_sclk-polaris.txt")}.items():
        (d / name).write_text(value if value.endswith("\n") else value + "\n")
    store = FactStore(ctx_of(tmp_path / "e"))
    assert store.get("gpu_health").gpus[0].pcie_gen == 1
    (spec,) = [s for s in load_checks(site_dir=None, entry_points=False)[0] if s.id == "gpu-pcie-degraded"]
    found = run_check(spec, store).findings
    assert bool(found) == fires
    if fires:
        assert "pp_dpm_pcie" in found[0].fix.commands[0] and "Gen1 x8" in found[0].evidence[0].text


def test_nvml_xid_events_where_the_kernel_log_is_closed():
    from types import SimpleNamespace

    from llmdoctor.hosts.nvml import watch_xids
    from llmdoctor.knowledge.nvidia import GpuUnavailable

    class Events(StandInNVML):
        nvmlEventTypeXidCriticalError = 0x8

        def __init__(self, codes, supported=True):
            super().__init__()
            self.codes, self.supported, self.freed = list(codes), supported, False

        def nvmlEventSetCreate(self): return "set"
        def nvmlEventSetFree(self, s): self.freed = True

        def nvmlDeviceRegisterEvents(self, h, kind, s):
            if not self.supported:
                raise self.NVMLError(3)

        def nvmlEventSetWait(self, s, ms):
            if not self.codes:
                raise self.NVMLError(10)  # NVML_ERROR_TIMEOUT
            return SimpleNamespace(device=0, eventData=self.codes.pop(0), eventType=0x8)

    nvml = Events([79, 48])
    assert watch_xids(0.5, nvml) == [(0, 79), (0, 48)] and nvml.freed
    assert watch_xids(0.2, Events([])) == []
    with pytest.raises(GpuUnavailable):
        watch_xids(0.1, Events([], supported=False))


def test_a_power_limit_lowered_below_the_default_makes_the_cap_a_finding():
    from llmdoctor.judge.gpu import clocks_line

    lowered = GpuHealth(0, util_pct=100, sm_mhz=1650, sm_max_mhz=1980, reasons=("sw_power_cap",), power_w=399.0,
                        power_limit_w=400.0, power_default_w=700.0)
    default = GpuHealth(0, util_pct=100, sm_mhz=1650, sm_max_mhz=1980, reasons=("sw_power_cap",), power_w=699.0,
                        power_limit_w=700.0, power_default_w=700.0)
    assert throttled_by(lowered) == ("sw_power_cap",) and not throttled_by(default)
    assert "of limit 400 W (default 700 W)" in clocks_line(lowered)


# Excerpts of public reports, verbatim below the first two lines (which a paste had cut off and
# nvidia-smi always prints): the pre-535 "Clocks Throttle Reasons" block from
# https://github.com/NVIDIA/nvidia-docker/issues/1090, and the Windows driver model lines of
# https://github.com/Jesse3692/MultiLanguageLearning/blob/46c9289fab118c5fabceaa15f11a0d44101cef43/cuda-c/docs/nvidia-smi.md
OLD_THROTTLE_BLOCK = """Attached GPUs                       : 1
GPU 00000000:01:00.0
    Performance State               : P8
    Clocks Throttle Reasons
        Idle                        : Not Active
        Applications Clocks Setting : Not Active
        SW Power Cap                : Not Active
        HW Slowdown                 : Not Active
            HW Thermal Slowdown     : N/A
            HW Power Brake Slowdown : N/A
        Sync Boost                  : Not Active
        SW Thermal Slowdown         : Not Active
        Display Clock Setting       : Not Active
    FB Memory Usage
        Total                       : 4046 MiB
        Used                        : 523 MiB
        Free                        : 3523 MiB
"""
WINDOWS_LINES = """Attached GPUs                             : 1
GPU 00000000:01:00.0
    Product Name                          : NVIDIA GeForce RTX 4070 Laptop GPU
    Persistence Mode                      : Enabled
    Driver Model
        Current                           : WDDM
        Pending                           : WDDM
"""


def test_the_pre_535_throttle_block_and_the_windows_driver_model():
    (g,) = parse_query(OLD_THROTTLE_BLOCK).gpus
    assert g.reasons == () and g.pstate == "P8" and busy(g) is False  # not Idle, but in a deep power state
    (w,) = parse_query(WINDOWS_LINES).gpus
    assert w.driver_model == "WDDM" and w.persistence is True


def test_gpu_fact_from_a_recorded_query_alone():
    from llmdoctor.facts.gpu import gpu

    fact = gpu(ctx("gpu-h100-load"))
    assert fact.source == "nvidia_smi_q.txt" and fact.gpus[0].total_bytes == 81559 * MIB


def test_garbage_query_file_is_named(tmp_path):
    (tmp_path / "nvidia_smi_q.txt").write_text("bash: nvidia-smi: command not found\n")
    with pytest.raises(FactUnavailable) as e:
        gpu_health(Context(host=EvidenceHost(tmp_path)))
    assert not e.value.quiet and e.value.reason.startswith("unparseable nvidia_smi_q.txt")
