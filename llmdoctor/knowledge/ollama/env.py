"""Ollama's server environment variables: their types, the default each version used,
and how Ollama reads a value it cannot parse (`envconfig/config.go`).

Defaults changed across releases (OLLAMA_NUM_PARALLEL was "auto" before v0.10.0,
OLLAMA_CONTEXT_LENGTH became VRAM-tiered in v0.15.5), so every question here takes the
server's version and never assumes the newest behaviour.
"""
from __future__ import annotations

import re

from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern

UINT, BOOL, DURATION, STRING, HOST, LEVEL = "uint", "bool", "duration", "string", "host", "level"

# Go's time.Duration max (math.MaxInt64 ns); Ollama prints it for a negative keep-alive.
FOREVER_NS = 9223372036854775807
FOREVER_TEXT = "2562047h47m16.854775807s"


@record
class Variable(Record):
    """One OLLAMA_* variable: its kind and its default in each version. (A record,
    llmdoctor.model.record, never replace()d: a frozen dataclass costs ~1.5 ms of start-up.)"""

    name: str
    kind: str
    defaults: tuple[tuple[str, str], ...]  # (first version, default from then on) in ascending order; "" = unset/empty.
    added: str | None = None  # first version that reads it (None = as old as we know)
    removed: str | None = None  # first version that no longer reads it
    note: str = ""


def _v(name, kind, defaults, added=None, removed=None, note=""):
    if isinstance(defaults, str):
        defaults = (("0.0.0", defaults),)
    return Variable(name, kind, tuple(defaults), added, removed, note)


VARIABLES: dict[str, Variable] = {v.name: v for v in (
    _v("OLLAMA_HOST", HOST, "http://127.0.0.1:11434", note="with an http:// scheme and no port Ollama binds port 80"),
    _v("OLLAMA_NUM_PARALLEL", UINT, (("0.0.0", "1"), ("0.2.0", "0"), ("0.10.0", "1")),
       note="slots per loaded model; 0 = auto before v0.10.0 (4 then 1 until v0.6.6, 2 then 1 until v0.9.6)"),
    _v("OLLAMA_MAX_QUEUE", UINT, (("0.0.0", "10"), ("0.1.34", "512")),
       note="scheduler queue; requests to an already-loaded model bypass it and wait unbounded"),
    _v("OLLAMA_KEEP_ALIVE", DURATION, "5m", note="Go duration or integer seconds; negative = forever"),
    _v("OLLAMA_CONTEXT_LENGTH", UINT, (("0.0.0", "2048"), ("0.6.7", "4096"), ("0.15.5", "0")), added="0.5.13",
       note="0 = VRAM tier since v0.15.5: <23 GiB 4096, >=23 GiB 32768, >=47 GiB 262144"),
    _v("OLLAMA_MAX_LOADED_MODELS", UINT, "0", note="0 = 3 per GPU (3 on CPU)"),
    _v("OLLAMA_FLASH_ATTENTION", BOOL, (("0.0.0", "false"), ("0.12.4", "auto")),
       note="unset = auto since v0.12.4; any unparseable value reads as true"),
    _v("OLLAMA_KV_CACHE_TYPE", STRING, "", added="0.5.0", note="empty = f16; q8_0/q4_0 need flash attention"),
    _v("OLLAMA_SCHED_SPREAD", BOOL, "false"),
    _v("OLLAMA_GPU_OVERHEAD", UINT, "0", added="0.3.10", note="bytes of VRAM reserved per GPU"),
    _v("OLLAMA_LOAD_TIMEOUT", DURATION, "5m", added="0.3.10", note="<=0 = infinite"),
    _v("OLLAMA_DEBUG", LEVEL, "0", note="0/false INFO, 1/true DEBUG, 2 TRACE"),
    _v("OLLAMA_MODELS", STRING, "", note="empty = $HOME/.ollama/models (/usr/share/ollama for the systemd user)"),
    _v("OLLAMA_ORIGINS", STRING, ""),
    _v("OLLAMA_NOPRUNE", BOOL, "false"),
    _v("OLLAMA_NOHISTORY", BOOL, "false"),
    _v("OLLAMA_LLM_LIBRARY", STRING, ""),
    _v("OLLAMA_NEW_ENGINE", BOOL, "false", added="0.5.12", removed="0.30.0"),
    _v("OLLAMA_MULTIUSER_CACHE", BOOL, "false", added="0.3.13", removed="0.30.0"),
    _v("OLLAMA_INTEL_GPU", BOOL, "false", removed="0.12.11"),
    _v("OLLAMA_MAX_VRAM", UINT, "0", removed="0.7.0"),
    _v("OLLAMA_RUNNERS_DIR", STRING, "", removed="0.6.0", note="removed during v0.5.x"),
    _v("OLLAMA_TMPDIR", STRING, "", removed="0.6.0", note="removed during v0.5.x"),
    _v("OLLAMA_REMOTES", STRING, "ollama.com"),
    _v("OLLAMA_NO_CLOUD", BOOL, "false"),
    _v("OLLAMA_MAX_TRANSFER_STREAMS", UINT, "4"),
    _v("OLLAMA_DEBUG_LOG_REQUESTS", BOOL, "false"),
    _v("OLLAMA_GO_TEMPLATE", STRING, ""),
    _v("OLLAMA_EDITOR", STRING, ""),
    _v("OLLAMA_IGPU_ENABLE", BOOL, "false", added="0.30.0"),
    _v("OLLAMA_VULKAN", BOOL, (("0.0.0", "false"), ("0.30.0", "true")), added="0.12.11"),
    _v("LLAMA_ARG_FIT", STRING, "on", added="0.30.0"),
    _v("LLAMA_ARG_FIT_TARGET", STRING, "", added="0.30.0"),
    _v("CUDA_VISIBLE_DEVICES", STRING, ""),
    _v("HIP_VISIBLE_DEVICES", STRING, ""),
    _v("ROCR_VISIBLE_DEVICES", STRING, ""),
    _v("GGML_VK_VISIBLE_DEVICES", STRING, ""),
    _v("GPU_DEVICE_ORDINAL", STRING, ""),
    _v("HSA_OVERRIDE_GFX_VERSION", STRING, ""),
)}


# -- versions -------------------------------------------------------------------------

def version_tuple(version: str | None) -> tuple[int, int, int] | None:
    """'0.6.7' / 'v0.33.0-rc2' / '0.5.4-rc1-1-gabc' -> (0, 6, 7); None when unreadable.
    A pre-release counts as its release (close enough for default ranges)."""
    if not version:
        return None
    m = re.match(r"\s*v?(\d+)\.(\d+)(?:\.(\d+))?", str(version))
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def at_least(version: str | None, floor: str) -> bool | None:
    v = version_tuple(version)
    return None if v is None else v >= version_tuple(floor)  # type: ignore[operator]


def exists(name: str, version: str | None) -> bool | None:
    """Does this Ollama version read the variable? None when the version is unknown."""
    var = VARIABLES.get(name)
    if var is None:
        return None
    v = version_tuple(version)
    if v is None:
        return None
    if var.added and v < version_tuple(var.added):  # type: ignore[operator]
        return False
    if var.removed and v >= version_tuple(var.removed):  # type: ignore[operator]
        return False
    return True


def default(name: str, version: str | None) -> str:
    """The value Ollama `version` uses when the variable is unset (newest when unknown).

    Raw values as envconfig holds them: OLLAMA_NUM_PARALLEL is "0" (auto) in
    v0.2.0-v0.9.6; see `auto_parallel` for what auto meant."""
    var = VARIABLES.get(name)
    if var is None:
        raise KeyError(name)
    v = version_tuple(version)
    chosen = var.defaults[-1][1]
    if v is not None:
        for since, value in var.defaults:
            if v >= version_tuple(since):  # type: ignore[operator]
                chosen = value
    return chosen


def auto_parallel(version: str | None) -> int | None:
    """Slots the "auto" OLLAMA_NUM_PARALLEL=0 tried first (it fell back to 1 when memory
    was short). None when that version had no auto."""
    v = version_tuple(version)
    if v is None or v < (0, 2, 0) or v >= (0, 10, 0):
        return None
    return 4 if v < (0, 6, 7) else 2


# Every default num_ctx Ollama shipped (envconfig.ContextLength: 2048 to v0.6.6, 4096 to v0.15.4, then
# 4096/32768/262144 by VRAM, context_tier), and num_keep as requests carry it (api/types.go DefaultOptions:
# 4 from v0.2.0; +1 where the tokenizer adds a BOS token, llm/llama_server.go:306 @ v0.33.0-rc2).
DEFAULT_CONTEXTS = (2048, 4096, 32768, 262144)
NUM_KEEP = (4, 5)


def context_tier(total_vram_bytes: int, gpu_overhead_bytes: int = 0) -> int:
    """Default num_ctx of OLLAMA_CONTEXT_LENGTH=0 (v0.15.5+), from summed VRAM."""
    gib = (total_vram_bytes - gpu_overhead_bytes) / 2**30
    if gib >= 47:
        return 262144
    if gib >= 23:
        return 32768
    return 4096


# -- reading values as envconfig does ----------------------------------------------------

def strip_value(value: str) -> str:
    """envconfig.Var: surrounding whitespace, then any leading/trailing " and ' removed."""
    return value.strip().strip("\"'")


_GO_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000,
             "s": 1_000_000_000, "m": 60_000_000_000, "h": 3_600_000_000_000}
_GO_PART = LazyPattern(r"(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)")


def parse_go_duration(text: str) -> int:
    """Go's time.ParseDuration -> nanoseconds ('1h24m39s', '42.044125ms', '-1m', '0').
    Raises ValueError like Go does (missing unit, overflow, empty)."""
    s = text.strip()
    if not s:
        raise ValueError("empty duration")
    sign = 1
    if s[0] in "+-":
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise ValueError(f"invalid duration {text!r}")
    total = 0
    pos = 0
    while pos < len(s):
        m = _GO_PART.match(s, pos)
        if not m or (not m.group(1) and not m.group(2)):
            raise ValueError(f"invalid duration {text!r}")
        whole, frac, unit = m.group(1) or "0", m.group(2) or "", m.group(3)
        scale = _GO_UNITS[unit]
        total += int(whole) * scale
        if frac:
            total += int(frac) * scale // 10 ** len(frac)
        if total > FOREVER_NS:
            raise ValueError(f"invalid duration {text!r} (overflow)")
        pos = m.end()
    return sign * total


def keep_alive_seconds(value: str) -> float | None:
    """OLLAMA_KEEP_ALIVE as Ollama reads it: a Go duration or integer seconds; negative
    (or the printed max) = forever -> inf. None when Ollama would ignore it (default 5m)."""
    s = strip_value(value)
    if not s:
        return None
    try:
        ns = parse_go_duration(s)
    except ValueError:
        if re.fullmatch(r"[+-]?\d+", s):
            ns = int(s) * 1_000_000_000
        else:
            return None
    if ns < 0 or ns >= FOREVER_NS:
        return float("inf")
    return ns / 1e9


def format_seconds(seconds: float) -> str:
    if seconds == float("inf"):
        return "forever"
    seconds = float(seconds)
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"


_GO_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_GO_FALSE = {"0", "f", "F", "FALSE", "false", "False"}
_NEGATIVE_WORDS = {"no", "off", "disable", "disabled", "n", "none", "never"}


def read_bool(value: str) -> bool | None:
    """strconv.ParseBool as Ollama applies it: unparseable -> True; empty -> None (default)."""
    s = strip_value(value)
    if not s:
        return None
    if s in _GO_TRUE:
        return True
    if s in _GO_FALSE:
        return False
    return True


def host_port(value: str) -> tuple[str, int]:
    """OLLAMA_HOST -> (host, port) as envconfig.Host resolves it (TestHost table)."""
    s = strip_value(value)
    scheme, port = "http", 11434
    m = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://(.*)$", s)
    if m:
        scheme, s = m.group(1).lower(), m.group(2)
        port = 443 if scheme == "https" else 80
    s = s.split("/", 1)[0]
    host = s or "127.0.0.1"
    hm = re.match(r"^\[?([^\]]*?)\]?:(\d+)$", s) if s.count(":") == 1 or s.startswith("[") else None
    if hm:
        host, port = hm.group(1) or "0.0.0.0", int(hm.group(2))
    return host, port


_KV_TYPES_PRE_030 = {"", "f16", "q8_0", "q4_0"}
_KV_TYPES_LLAMACPP = {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"}


def parse_problem(name: str, value: str, version: str | None = None) -> str | None:
    """Why Ollama will not do what this value says, or None when it reads it as written."""
    var = VARIABLES.get(name)
    if var is None:
        return None
    raw = value
    s = strip_value(value)
    if var.removed and exists(name, version) is False and version_tuple(version) >= version_tuple(var.removed):  # type: ignore[operator]
        return f"{name} no longer exists in Ollama {version} (removed in v{var.removed}); it is ignored"
    if not s:
        return None
    if var.kind == UINT:
        if not re.fullmatch(r"\d+", s) or int(s) >= 2**64:
            d = default(name, version)
            return (f"{name}={raw!r} is not a whole number >= 0; Ollama logs `WARN invalid environment "
                    f"variable, using default` and uses the default {d!r}")
    elif var.kind == BOOL:
        if s not in _GO_TRUE and s not in _GO_FALSE:
            hint = " - the opposite of what it says" if s.lower() in _NEGATIVE_WORDS else ""
            return (f"{name}={raw!r} is not a boolean Go understands (1/0/true/false); "
                    f"Ollama reads it as true{hint}")
    elif var.kind == LEVEL:
        if not re.fullmatch(r"-?\d+", s) and s not in _GO_TRUE and s not in _GO_FALSE:
            return f"{name}={raw!r} is not a level (0, 1, 2, true, false); Ollama turns debug logging on"
    elif var.kind == DURATION:
        if keep_alive_seconds(s) is None:
            return (f"{name}={raw!r} is neither a Go duration (10m, 24h, -1m) nor integer seconds; "
                    f"Ollama silently keeps the default {default(name, version)}")
    elif var.kind == HOST:
        if re.match(r"^https?://", s, re.I):
            host, port = host_port(s)
            rest = s.split("://", 1)[1].split("/", 1)[0]
            if not re.search(r":\d+$", rest):
                return (f"{name}={raw!r} has a scheme but no port, so Ollama binds port {port}, "
                        f"not 11434; clients on 11434 find nothing")
    elif name == "OLLAMA_KV_CACHE_TYPE":
        if at_least(version, "0.30.0"):
            if s not in _KV_TYPES_LLAMACPP:
                return f"{name}={raw!r} is not a cache type llama-server accepts ({', '.join(sorted(_KV_TYPES_LLAMACPP))})"
        elif s not in _KV_TYPES_PRE_030:
            return f"{name}={raw!r} is unsupported before v0.30 (f16, q8_0, q4_0); Ollama falls back to f16"
    return None


def effective_parallel(value: str | None, version: str | None) -> tuple[int | None, str]:
    """(slots, how) for a raw OLLAMA_NUM_PARALLEL value (None = unset) in `version`.
    slots is None when it was auto (decided at load time)."""
    raw = strip_value(value) if value is not None else ""
    if raw and not re.fullmatch(r"\d+", raw):
        raw = ""  # Ollama falls back to the default
    if not raw:
        raw = default("OLLAMA_NUM_PARALLEL", version)
        how = f"default of Ollama {version}" if version else "default of current Ollama"
    else:
        how = "set"
    n = int(raw)
    if n == 0:
        auto = auto_parallel(version)
        if auto is None and version_tuple(version) is not None and version_tuple(version) >= (0, 10, 0):
            return 1, how
        return None, how + (f" (auto: {auto} slots, or 1 when memory is short)" if auto else " (auto)")
    return n, how
