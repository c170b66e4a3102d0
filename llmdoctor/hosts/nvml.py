"""GPUs and their compute processes read through NVML (nvidia-ml-py), on this machine.

Drivers differ: memory info v2 (used excludes driver-reserved memory) only where the
driver has it, and the compute-process call in two versions; every NVML failure becomes
GpuUnavailable with the line the report shows.
"""
from __future__ import annotations

from llmdoctor.knowledge.nvidia import GpuDevice, GpuFact, GpuProcess, GpuUnavailable


def _str(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _nvml_error_reason(pynvml, error: Exception) -> str:
    code = getattr(error, "value", None)
    if code == getattr(pynvml, "NVML_ERROR_LIBRARY_NOT_FOUND", 12):
        return "NVML library not found: no NVIDIA driver"
    if code == getattr(pynvml, "NVML_ERROR_DRIVER_NOT_LOADED", 9):
        return "NVIDIA kernel driver not loaded"
    if code == getattr(pynvml, "NVML_ERROR_NO_PERMISSION", 4):
        return "NVML: no permission to the NVIDIA devices"
    return f"NVML: {error}"


def _memory(pynvml, handle):
    """Memory info, v2 (used excludes driver-reserved memory) where the driver has it."""
    v2 = getattr(pynvml, "nvmlMemory_v2", None)
    if v2 is not None:
        try:
            return pynvml.nvmlDeviceGetMemoryInfo(handle, version=v2)
        except (pynvml.NVMLError, TypeError):
            pass  # FunctionNotFound on old drivers, or an old binding without `version`
    return pynvml.nvmlDeviceGetMemoryInfo(handle)


def _processes(pynvml, handle) -> list:
    try:
        return list(pynvml.nvmlDeviceGetComputeRunningProcesses(handle))
    except pynvml.NVMLError as e:
        fallback = getattr(pynvml, "nvmlDeviceGetComputeRunningProcesses_v2", None)
        if fallback is None:
            raise
        try:
            return list(fallback(handle))
        except pynvml.NVMLError:
            raise e
    except Exception as e:  # NVMLLibraryMismatchError from @throwOnVersionMismatch
        fallback = getattr(pynvml, "nvmlDeviceGetComputeRunningProcesses_v2", None)
        if fallback is None or "Mismatch" not in type(e).__name__:
            raise
        return list(fallback(handle))


def read_nvml(pynvml=None) -> GpuFact:
    """GPUs and compute processes from NVML. Raises GpuUnavailable with the report line."""
    if pynvml is None:
        try:
            import pynvml  # nvidia-ml-py; heavy, so imported only here
        except ImportError:
            raise GpuUnavailable("nvidia-ml-py is not installed") from None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as e:
        raise GpuUnavailable(_nvml_error_reason(pynvml, e)) from None
    try:
        notes: list[str] = []
        driver = _str(pynvml.nvmlSystemGetDriverVersion())
        gpus, procs = [], []
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            mem = _memory(pynvml, h)
            try:
                uuid = _str(pynvml.nvmlDeviceGetUUID(h))
            except pynvml.NVMLError:
                uuid = None
            gpus.append(GpuDevice(i, _str(pynvml.nvmlDeviceGetName(h)), int(mem.total), int(mem.used), int(mem.free), driver, uuid))
            try:
                for p in _processes(pynvml, h):
                    used = getattr(p, "usedGpuMemory", None)
                    procs.append(GpuProcess(int(p.pid), "", None if used is None else int(used), i, uuid))
            except pynvml.NVMLError as e:
                notes.append(f"GPU {i} processes: {e}")
        return GpuFact("NVML", tuple(gpus), tuple(procs), driver, tuple(notes))
    except pynvml.NVMLError as e:
        raise GpuUnavailable(_nvml_error_reason(pynvml, e)) from None
    finally:
        try:
            pynvml.nvmlShutdown()
        except pynvml.NVMLError:
            pass
