"""GPUs and their compute processes read through NVML (nvidia-ml-py), on this machine.

Drivers differ: memory info v2 (used excludes driver-reserved memory) only where the
driver has it, and the compute-process call in two versions; every NVML failure becomes
GpuUnavailable with the line the report shows.
"""
from __future__ import annotations

from llmdoctor.knowledge.nvidia import GpuDevice, GpuFact, GpuProcess, GpuUnavailable
from llmdoctor.knowledge.nvidia_query import GpuHealth, reasons_from_mask


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


def _ask(pynvml, call: str, *args):
    """One NVML reading, None where this driver or card lacks it (NotSupported,
    FunctionNotFound, an old binding without the function)."""
    func = getattr(pynvml, call, None)
    if func is None:
        return None
    try:
        return func(*args)
    except pynvml.NVMLError:
        return None
    except Exception as e:  # NVMLLibraryMismatchError and the like: a reading, never the run
        if "NVML" in type(e).__name__:
            return None
        raise


def _health(pynvml, h, index: int, name: str) -> GpuHealth:
    """Clocks and what holds them, power, temperature, PCIe link, ECC and remap state."""
    sm = getattr(pynvml, "NVML_CLOCK_SM", 1)
    mask = _ask(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", h)
    if mask is None:
        mask = _ask(pynvml, "nvmlDeviceGetCurrentClocksThrottleReasons", h)  # the pre-535 name
    util = _ask(pynvml, "nvmlDeviceGetUtilizationRates", h)
    power, limit, default = (_ask(pynvml, c, h) for c in (
        "nvmlDeviceGetPowerUsage", "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementDefaultLimit"))
    persistence = _ask(pynvml, "nvmlDeviceGetPersistenceMode", h)
    ecc = _ask(pynvml, "nvmlDeviceGetTotalEccErrors", h, getattr(pynvml, "NVML_MEMORY_ERROR_TYPE_UNCORRECTED", 1),
               getattr(pynvml, "NVML_VOLATILE_ECC", 0))
    remap = _ask(pynvml, "nvmlDeviceGetRemappedRows", h)  # (correctable, uncorrectable, pending, failure)
    retire = _ask(pynvml, "nvmlDeviceGetRetiredPagesPendingStatus", h)
    pstate = _ask(pynvml, "nvmlDeviceGetPerformanceState", h)
    return GpuHealth(
        index=index, name=name,
        persistence=None if persistence is None else bool(persistence),
        util_pct=None if util is None else int(util.gpu),
        sm_mhz=_ask(pynvml, "nvmlDeviceGetClockInfo", h, sm), sm_max_mhz=_ask(pynvml, "nvmlDeviceGetMaxClockInfo", h, sm),
        reasons=None if mask is None else reasons_from_mask(int(mask)),
        power_w=None if power is None else power / 1000, power_limit_w=None if limit is None else limit / 1000,
        power_default_w=None if default is None else default / 1000,
        temp_c=_ask(pynvml, "nvmlDeviceGetTemperature", h, getattr(pynvml, "NVML_TEMPERATURE_GPU", 0)),
        slowdown_temp_c=_ask(pynvml, "nvmlDeviceGetTemperatureThreshold", h,
                             getattr(pynvml, "NVML_TEMPERATURE_THRESHOLD_SLOWDOWN", 1)),
        pcie_gen=_ask(pynvml, "nvmlDeviceGetCurrPcieLinkGeneration", h),
        pcie_gen_max=_ask(pynvml, "nvmlDeviceGetMaxPcieLinkGeneration", h),
        pcie_width=_ask(pynvml, "nvmlDeviceGetCurrPcieLinkWidth", h),
        pcie_width_max=_ask(pynvml, "nvmlDeviceGetMaxPcieLinkWidth", h),
        ecc_uncorrected=None if ecc is None else int(ecc),
        remap_pending=None if remap is None else bool(remap[2]),
        remap_failure=None if remap is None else bool(remap[3]),
        retire_pending=None if retire is None else bool(retire),
        pstate=None if pstate is None or int(pstate) > 15 else f"P{int(pstate)}",  # 32: NVML_PSTATE_UNKNOWN
    )


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
        gpus, procs, health = [], [], []
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            mem = _memory(pynvml, h)
            try:
                uuid = _str(pynvml.nvmlDeviceGetUUID(h))
            except pynvml.NVMLError:
                uuid = None
            gpus.append(GpuDevice(i, _str(pynvml.nvmlDeviceGetName(h)), int(mem.total), int(mem.used), int(mem.free), driver, uuid))
            health.append(_health(pynvml, h, i, gpus[-1].name))
            try:
                for p in _processes(pynvml, h):
                    used = getattr(p, "usedGpuMemory", None)
                    procs.append(GpuProcess(int(p.pid), "", None if used is None else int(used), i, uuid))
            except pynvml.NVMLError as e:
                notes.append(f"GPU {i} processes: {e}")
        return GpuFact("NVML", tuple(gpus), tuple(procs), driver, tuple(notes), health=tuple(health))
    except pynvml.NVMLError as e:
        raise GpuUnavailable(_nvml_error_reason(pynvml, e)) from None
    finally:
        try:
            pynvml.nvmlShutdown()
        except pynvml.NVMLError:
            pass


def watch_xids(seconds: float, pynvml=None) -> list[tuple[int, int]]:
    """(GPU index, XID code) of every critical XID event NVML delivers within `seconds`: for a
    machine whose kernel log cannot be read (a container without dmesg rights). Only events from
    now on: the kernel log is the history. Raises GpuUnavailable where NVML cannot watch."""
    if pynvml is None:
        try:
            import pynvml
        except ImportError:
            raise GpuUnavailable("nvidia-ml-py is not installed") from None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as e:
        raise GpuUnavailable(_nvml_error_reason(pynvml, e)) from None
    found: list[tuple[int, int]] = []
    try:
        events = pynvml.nvmlEventSetCreate()
        xid = getattr(pynvml, "nvmlEventTypeXidCriticalError", 0x8)
        handles = {}
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            try:
                pynvml.nvmlDeviceRegisterEvents(h, xid, events)
                handles[i] = h
            except pynvml.NVMLError:
                pass  # NotSupported on this card (GeForce before Pascal, some vGPUs)
        if not handles:
            raise GpuUnavailable("NVML: no GPU here delivers XID events")
        import time

        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                data = pynvml.nvmlEventSetWait(events, max(1, int(left * 1000)))
            except pynvml.NVMLError:  # Timeout: nothing happened
                break
            index = next((i for i, h in handles.items() if h == data.device), -1)
            found.append((index, int(data.eventData)))
        pynvml.nvmlEventSetFree(events)
        return found
    except pynvml.NVMLError as e:
        raise GpuUnavailable(_nvml_error_reason(pynvml, e)) from None
    finally:
        try:
            pynvml.nvmlShutdown()
        except pynvml.NVMLError:
            pass
