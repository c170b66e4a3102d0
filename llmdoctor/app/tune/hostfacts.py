"""Gather `HostFacts` for a proposal from the fact store (facts of the other collectors:
"ollama_version", "ollama_config", "ollama_ps", "ollama_show", "ollama_log", "gpu"),
plus the unit files under the tuner's root to know which values llmdoctor set itself.

Every fact is optional: what is missing is left None and the proposal says what to
give instead. Attribute access is defensive because a fact's shape may grow.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from llmdoctor.facts import FactStore
from llmdoctor.app.tune import dropin
from llmdoctor.judge.proposal import TUNED, Current, HostFacts, LoadedModel

UNLOAD_IDLE_SECONDS = 60.0  # a load after this long without requests is an unload-then-reload


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    for n in names:
        if isinstance(obj, dict) and n in obj:
            return obj[n]
        if hasattr(obj, n):
            return getattr(obj, n)
    return default


def gpu_total(gpu: Any) -> int | None:
    """Summed total memory of the GPUs in a "gpu" fact (a list of devices or an object
    holding one), whatever the field is called."""
    if gpu is None:
        return None
    devices = _get(gpu, "gpus", "devices", default=gpu)
    if not isinstance(devices, (list, tuple)):
        devices = [devices]
    total = 0
    for d in devices:
        v = _get(d, "memory_total", "total_bytes", "memory_total_bytes", "total", "mem_total")
        if isinstance(v, (int, float)) and v > 0:
            total += int(v)
    return total or None


def collect(store: FactStore, root: Path, unit: str, model: str | None = None,
            show_for: Any = None) -> tuple[HostFacts, list[str]]:
    """(facts, gaps): gaps are one-line reasons for facts that could not be had.
    `show_for(name) -> dict` fetches /api/show for a named model that is not loaded."""
    gaps: list[str] = []

    def opt(name: str) -> Any:
        try:
            return store.get(name)
        except Exception as e:  # FactUnavailable; a collector bug must not stop the tuner
            reason = getattr(e, "reason", str(e))
            if not getattr(e, "quiet", False):
                gaps.append(f"{name}: {reason}")
            return None

    version = opt("ollama_version")
    config = opt("ollama_config")
    ps = opt("ollama_ps") or ()
    log = opt("ollama_log")
    gpu = opt("gpu")
    version = version or _get(config, "version")

    # Which values llmdoctor's own drop-in set (they are re-decided, not treated as the operator's).
    names = set(TUNED)
    prec = dropin.check_precedence(root, unit, names)
    ours = dropin.inside(Path(root), dropin.dropin_path(root, unit))
    env: dict[str, Current] = {}
    values = _get(config, "values", default=None)
    origins = _get(config, "origins", default={}) or {}
    for name in TUNED:
        file_val = prec.file_env.get(name)
        mine = file_val is not None and file_val[1] == ours
        if isinstance(values, dict) and name in values:
            origin = origins.get(name, "effective configuration")
            raw = values[name]
            if str(origin).startswith("default"):
                env[name] = Current(None, f"{origin} ({raw or 'empty'})")
            else:
                env[name] = Current(raw, f"{origin}" + (f" ({ours})" if mine and ours not in origin else ""), mine)
        elif file_val is not None:
            env[name] = Current(file_val[0], f"unit file {file_val[1]}", mine)

    loaded = tuple(LoadedModel(str(_get(m, "name", default="")), _get(m, "size"), _get(m, "size_vram"),
                               _get(m, "context_length")) for m in ps)
    info = None
    chosen = model
    if model:
        show = None
        if show_for is not None:
            try:
                show = show_for(model)
            except Exception as e:
                gaps.append(f"/api/show {model}: {e}")
        info = (show or {}).get("model_info") if isinstance(show, dict) else None
    else:
        show = opt("ollama_show")
        if isinstance(show, dict):
            info = show.get("model_info")
            chosen = show.get("_model") or (loaded[0].name if loaded else None)

    file_size = None
    if chosen and not any(m.name == chosen and m.size for m in loaded):
        for t in opt("ollama_tags") or ():
            if _get(t, "name") in (chosen, f"{chosen}:latest") and isinstance(_get(t, "size"), int):
                file_size = int(_get(t, "size"))
    gpu_bytes = gpu_total(gpu)
    gpu_source = str(_get(gpu, "source", default="NVML")) if gpu_bytes else ""
    if not gpu_bytes and log is not None:
        starts = _get(log, "startups", default=()) or ()
        for s in reversed(starts):
            b = _get(s, "gpu_total_bytes", default=0)
            if b:
                gpu_bytes, gpu_source = int(b), "Ollama's `inference compute` log line"
                break

    longest, longest_ev, unload_ev = None, "", ""
    logged_weights, logged_ev, logged_ctx = None, "", None
    if log is not None:
        for load in reversed(_get(log, "loads", default=()) or ()):
            mib = _get(load, "model_buffer_mib", default=0) or 0
            go_engine = (_get(load, "gpu_weights_bytes", default=0) or 0) + (_get(load, "host_weights_bytes", default=0) or 0)
            ctx, par = _get(load, "ctx_size"), _get(load, "parallel")
            if logged_ctx is None and isinstance(ctx, int) and ctx > 0:
                logged_ctx = ctx // par if isinstance(par, int) and par > 0 else ctx
            if mib or go_engine:
                logged_weights = int(mib * 2**20) if mib else int(go_engine)
                logged_ev = f"{len(_get(log, 'sources', default=()) or ()) and _get(log, 'sources')[0] or 'log'}"
                break
        m = _get(log, "truncation_max_prompt", default=0) or 0
        if m:
            longest = int(m)
            ex = _get(_get(log, "truncations"), "examples", default=()) or ()
            if ex:
                longest_ev = f"{_get(ex[-1], 'source', default='log')}: {_get(ex[-1], 'line', default='').strip()}"
        for load in reversed(_get(log, "loads", default=()) or ()):
            idle = _get(load, "idle_before_s")
            if idle is not None and idle >= UNLOAD_IDLE_SECONDS:
                ex = _get(load, "examples", default=()) or ()
                line = _get(ex[-1], "line", default="").strip() if ex else ""
                unload_ev = f"a load {idle:.0f} s after the previous request" + (f": {line}" if line else "")
                break
    for m in ps:
        if getattr(m, "stopping", False) is True:
            unload_ev = unload_ev or f"ollama ps: {_get(m, 'line', default=m.name)}"
    facts = HostFacts(
        version=version, env=env, model=chosen, model_info=info, loaded=loaded,
        gpu_total=gpu_bytes, gpu_source=gpu_source, model_file_size=file_size, logged_weights=logged_weights,
        logged_weights_evidence=logged_ev, logged_context=logged_ctx, longest_prompt=longest,
        longest_prompt_evidence=longest_ev, unload_evidence=unload_ev,
    )
    return facts, gaps
