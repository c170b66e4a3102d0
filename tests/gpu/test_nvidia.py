"""nvidia-smi parsers on recorded outputs (tests/fixtures/nvidia_smi/README.md), NVML through
a stand-in that replays the same recorded figures (no GPU here), and the clean
"not available" path of this machine."""
from __future__ import annotations

import csv
import io
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.nvidia import (
    MIB,
    GpuDevice,
    GpuFact,
    GpuUnavailable,
    parse_compute_apps_csv,
    parse_nvidia_smi,
    parse_query_gpu_csv,
    parse_smi_table,
)
from llmdoctor.hosts.nvml import read_nvml
from llmdoctor.parsing import ParseError

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "nvidia_smi"


def fixture(name: str) -> str:
    return (FIX / name).read_text()


def noheader_nounits(text: str, fields: tuple[str, ...]) -> str:
    """What `--format=csv,noheader,nounits` prints for FIELDS, made from a recorded
    `--format=csv` output: drop the header line and the units."""
    rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    header = [h.split(" [")[0] for h in rows[0]]
    aliases = {"used_memory": "used_gpu_memory"}  # nvidia-smi --help-query-compute-apps
    out = []
    for row in rows[1:]:
        cells = dict(zip(header, row))
        out.append(", ".join(cells[aliases.get(f, f)].replace(" MiB", "") for f in fields))
    return "\n".join(out) + "\n"


def test_wide_table_595_under_load():
    fact = parse_smi_table(fixture("table-595-rtx4080-load.txt"))
    (gpu,) = fact.gpus
    assert fact.driver == "595.71.05" and gpu.index == 0
    assert gpu.name == "NVIDIA GeForce RTX 4080 ..."  # nvidia-smi cuts long names
    assert (gpu.used_bytes, gpu.total_bytes) == (1474 * MIB, 16376 * MIB)
    assert [(p.pid, p.name, p.used_bytes // MIB) for p in fact.processes][-2:] == [(5021, "ffmpeg", 360), (5022, "ffmpeg", 503)]
    assert len(fact.processes) == 7 and fact.process_memory(2496) == 200 * MIB


def test_narrow_table_418_eight_gpus():
    fact = parse_nvidia_smi(fixture("table-418-8gpu.txt"))
    assert [g.index for g in fact.gpus] == list(range(8))
    assert fact.gpus[6].used_bytes == 8852 * MIB and fact.gpus[7].total_bytes == 10989 * MIB  # "ERR%" fan
    assert [(p.gpu_index, p.pid) for p in fact.processes] == [(0, 34882), (2, 4561), (6, 27944), (7, 15752)]
    assert fact.summary()[0] == ("GPU 0", "GeForce RTX 208..., 10.7 GiB total, 6.6 GiB used, driver 418.87.01")


def test_query_gpu_csv_keyed_by_header_with_every_field():
    (gpu,) = parse_query_gpu_csv(fixture("query-gpu-full-595-rtx4080.csv"))
    assert gpu.name == "NVIDIA GeForce RTX 4080 SUPER" and gpu.driver == "595.71.05"
    assert (gpu.total_bytes, gpu.used_bytes, gpu.free_bytes) == (16376 * MIB, 596 * MIB, 15348 * MIB)
    assert gpu.uuid == "GPU-00000000-0000-0000-0000-000000000000"


def test_query_gpu_noheader_nounits_with_field_list():
    fields = ("index", "name", "memory.total", "memory.used", "memory.free", "driver_version")
    text = noheader_nounits(fixture("query-gpu-full-595-rtx4080.csv"), fields)
    assert text.startswith("0, NVIDIA GeForce RTX 4080 SUPER, 16376, 596, 15348, 595.71.05")
    (gpu,) = parse_query_gpu_csv(text, fields)
    assert gpu.total_bytes == 16376 * MIB and gpu.driver == "595.71.05"
    with pytest.raises(ParseError):
        parse_query_gpu_csv(text)  # no header and no field list


def test_compute_apps_csv_and_its_gpu():
    gpus = parse_query_gpu_csv(fixture("query-gpu-full-595-rtx4080.csv"))
    (proc,) = parse_compute_apps_csv(fixture("compute-apps-595-rtx4080.csv"), gpus=gpus)
    assert (proc.pid, proc.name, proc.used_bytes, proc.gpu_index) == (2165, "/usr/bin/kwin_wayland", 25 * MIB, 0)
    header_only = fixture("compute-apps-595-rtx4080.csv").splitlines()[0]
    assert parse_compute_apps_csv(header_only) == ()  # no compute process: header and nothing else


def test_evidence_with_both_csvs():
    text = fixture("query-gpu-full-595-rtx4080.csv") + "\n" + fixture("compute-apps-595-rtx4080.csv")
    fact = parse_nvidia_smi(text)
    assert len(fact.gpus) == 1 and fact.processes[0].gpu_index == 0 and fact.driver == "595.71.05"


def test_total_bytes_sums_the_gpus_that_report_it():
    assert GpuFact("NVML", (GpuDevice(0, "A", 24 * MIB), GpuDevice(1, "B", None), GpuDevice(2, "C", 8 * MIB))).total_bytes == 32 * MIB
    assert GpuFact("NVML").total_bytes is None


def test_summary_line_shape():
    fact = parse_nvidia_smi(fixture("query-gpu-full-595-rtx4080.csv"))
    assert fact.summary() == [("GPU", "NVIDIA GeForce RTX 4080 SUPER, 16.0 GiB total, 596.0 MiB used, driver 595.71.05")]


@pytest.mark.parametrize("text", ["", "hello", "index, name\n0, x", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."])
def test_not_nvidia_smi_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_nvidia_smi(text)


@pytest.mark.parametrize("text", ["pid,process_name,used_memory\n\u00b2,x,10\n", "memory.total,index\n10,\u00b2\n"])
def test_superscript_digit_is_not_an_int(text):
    """'\u00b2'.isdigit() is true but int() rejects it: a ParseError or no value, never a ValueError."""
    try:
        fact = parse_nvidia_smi(text)
    except ParseError:
        return
    assert fact.gpus[0].index == 0


def test_a_size_too_long_for_a_float_is_a_parse_error():
    with pytest.raises(ParseError):
        parse_query_gpu_csv("memory.total\n" + "9" * 400 + "\n")


def test_csv_field_over_the_csv_module_limit_is_a_parse_error():
    with pytest.raises(ParseError):
        parse_nvidia_smi('memory.total\n"' + "x" * 200_000 + '"\n')


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_garbage_never_tracebacks(text):
    for parse in (parse_nvidia_smi, parse_query_gpu_csv, parse_compute_apps_csv, parse_smi_table):
        try:
            parse(text)
        except ParseError as e:
            assert str(e)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(fixture("table-595-rtx4080-load.txt").splitlines() + ["|  x  |", "garbage"]), max_size=30))
def test_table_line_soup(lines):
    try:
        fact = parse_smi_table("\n".join(lines))
    except ParseError:
        return
    assert all(g.total_bytes is None or g.total_bytes >= 0 for g in fact.gpus)


# -- NVML -----------------------------------------------------------------------------------------


def test_this_machine_without_driver_gives_the_clean_reason():
    try:
        fact = read_nvml()
    except GpuUnavailable as e:
        assert str(e) in ("NVML library not found: no NVIDIA driver", "NVIDIA kernel driver not loaded")
    else:  # a machine with a GPU
        assert fact.source == "NVML" and fact.gpus


class StandInNVML:
    """Replays the recorded RTX 4080 SUPER capture (driver 595.71.05) through the
    nvidia-ml-py API shape (FACTS.md §8), with switches for the quirks we handle."""

    NVML_ERROR_LIBRARY_NOT_FOUND, NVML_ERROR_DRIVER_NOT_LOADED, NVML_ERROR_FUNCTION_NOT_FOUND = 12, 9, 13
    nvmlMemory_v2 = 0x02000028

    class NVMLError(Exception):
        def __init__(self, value):
            super().__init__({12: "NVML Shared Library Not Found", 9: "Driver Not Loaded", 13: "Function Not Found"}.get(value, "Unknown Error"))
            self.value = value

    class NVMLLibraryMismatchError(Exception):
        pass

    def __init__(self, init_error=None, bytes_names=False, v2=True, mismatch=False, used_none=False):
        self.init_error, self.bytes_names, self.v2, self.mismatch, self.used_none = init_error, bytes_names, v2, mismatch, used_none
        self.shutdowns = 0

    def nvmlInit(self):
        if self.init_error:
            raise self.NVMLError(self.init_error)

    def nvmlShutdown(self):
        self.shutdowns += 1

    def _s(self, s):
        return s.encode() if self.bytes_names else s

    def nvmlSystemGetDriverVersion(self):
        return self._s("595.71.05")

    def nvmlDeviceGetCount(self):
        return 1

    def nvmlDeviceGetHandleByIndex(self, i):
        return ("handle", i)

    def nvmlDeviceGetName(self, h):
        return self._s("NVIDIA GeForce RTX 4080 SUPER")

    def nvmlDeviceGetUUID(self, h):
        return self._s("GPU-00000000-0000-0000-0000-000000000000")

    def nvmlDeviceGetMemoryInfo(self, h, version=None):
        if version is not None:
            if not self.v2:
                raise self.NVMLError(13)
            return SimpleNamespace(total=16376 * MIB, reserved=434 * MIB, used=596 * MIB, free=15348 * MIB)
        return SimpleNamespace(total=16376 * MIB, used=(596 + 434) * MIB, free=15348 * MIB)

    def nvmlDeviceGetComputeRunningProcesses(self, h):
        if self.mismatch:
            raise self.NVMLLibraryMismatchError("version mismatch")
        return self.nvmlDeviceGetComputeRunningProcesses_v2(h)

    def nvmlDeviceGetComputeRunningProcesses_v2(self, h):
        return [SimpleNamespace(pid=2165, usedGpuMemory=None if self.used_none else 25 * MIB)]


def test_nvml_reads_gpus_and_processes_and_shuts_down():
    nvml = StandInNVML(bytes_names=True)
    fact = read_nvml(nvml)
    (gpu,) = fact.gpus
    assert (gpu.name, gpu.driver, gpu.used_bytes) == ("NVIDIA GeForce RTX 4080 SUPER", "595.71.05", 596 * MIB)
    assert fact.processes[0].pid == 2165 and fact.process_memory(2165) == 25 * MIB
    assert nvml.shutdowns == 1


def test_nvml_v1_memory_fallback_and_process_quirks():
    fact = read_nvml(StandInNVML(v2=False, mismatch=True, used_none=True))
    assert fact.gpus[0].used_bytes == (596 + 434) * MIB  # v1 counts reserved memory as used
    assert fact.processes[0].used_bytes is None and fact.process_memory(2165) is None


@pytest.mark.parametrize("code, reason", [
    (12, "NVML library not found: no NVIDIA driver"),
    (9, "NVIDIA kernel driver not loaded"),
])
def test_nvml_init_errors_are_clean_reasons(code, reason):
    with pytest.raises(GpuUnavailable) as e:
        read_nvml(StandInNVML(init_error=code))
    assert str(e.value) == reason
