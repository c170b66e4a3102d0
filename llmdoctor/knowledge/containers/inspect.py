"""`docker inspect NAME` (and `podman inspect`) JSON: what a container really runs with.

Why: in a container the engine's configuration is the container's, not a unit's. Its
environment (`Config.Env`), its command (`Path` + `Args`, or `Config.Entrypoint` +
`Config.Cmd`), whether a GPU was passed in (`HostConfig.DeviceRequests` from `--gpus`,
`HostConfig.Runtime` "nvidia", CDI names in `HostConfig.Devices`) and how it has been
dying (`State.OOMKilled`, `RestartCount`, `State.ExitCode`) are all in this one output.

Accepted: the JSON array `docker inspect` prints, one object of it, or the `"Env": [...]`
fragment people paste from it. Keys that are absent stay unknown (None), never guessed.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from llmdoctor.knowledge.containers.looks import looks_like_inspect  # noqa: F401 - (re-exported)
from llmdoctor.parsing import LazyPattern, ParseError

MAX_TEXT = 16 * 1024 * 1024
_ENV_NAME = LazyPattern(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")


@dataclass(frozen=True)
class ContainerSpec:
    """One container as `inspect` shows it; None is "not in the output"."""

    source: str
    name: str | None = None
    image: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    argv: tuple[str, ...] = ()  # the process it runs: entrypoint/path, then args
    runtime: str | None = None  # HostConfig.Runtime: "runc", "nvidia", "oci", ...
    device_requests: tuple[dict, ...] | None = None  # HostConfig.DeviceRequests (None: null or absent)
    devices: tuple[str, ...] | None = None  # HostConfig.Devices (CDI names under Podman)
    status: str | None = None
    oom_killed: bool | None = None
    restarting: bool | None = None
    restart_count: int | None = None
    exit_code: int | None = None
    ports: tuple[str, ...] = ()  # "8000/tcp -> :8000"
    mounts: tuple[str, ...] = ()  # "source -> destination"
    log_driver: str | None = None
    keys: frozenset[str] = frozenset()  # top-level keys present, to tell "absent" from "empty"
    host_keys: frozenset[str] = frozenset()
    form: str = "inspect"  # "inspect" (docker/podman inspect) or "compose" (a compose file's service)

    @property
    def gpu_requested(self) -> bool | None:
        """A GPU was passed in (`--gpus`, `--runtime nvidia`, a CDI device); None when the
        output does not show HostConfig at all (a fragment)."""
        for r in self.device_requests or ():
            caps = [c for group in _list(r.get("Capabilities")) if isinstance(group, list) for c in group]
            if "gpu" in caps or str(r.get("Driver") or "").lower() in ("nvidia", "cdi") or r.get("DeviceIDs"):
                return True
        if (self.runtime or "").lower() == "nvidia":
            return True
        if any("nvidia.com/gpu" in d or "/dev/nvidia" in d or "/dev/dri" in d or "/dev/kfd" in d
               for d in self.devices or ()):
            return True
        if "DeviceRequests" in self.host_keys or "Runtime" in self.host_keys or "Devices" in self.host_keys:
            return False
        return None

    def gpu_lines(self) -> list[str]:
        """The inspect fields that show how (or that no) GPU was passed in, as evidence text."""
        out = []
        if self.form == "compose":
            gpu = (self.device_requests or ({},))[0].get("Line")
            return [f"service {self.name or self.image}: {gpu}" if gpu else
                    f"service {self.name or self.image}: no GPU reserved (no deploy.resources.reservations.devices, "
                    "no runtime: nvidia, no nvidia.com/gpu device)"]
        if "DeviceRequests" in self.host_keys:
            out.append(f"HostConfig.DeviceRequests: {json.dumps(list(self.device_requests)) if self.device_requests else 'null'}")
        if "Runtime" in self.host_keys:
            out.append(f"HostConfig.Runtime: {self.runtime}")
        if "Devices" in self.host_keys and (self.devices or not out):
            out.append(f"HostConfig.Devices: {json.dumps(list(self.devices or ()))}")
        return out

    def state_lines(self) -> list[str]:
        """OOM kills, restarts and a non-zero exit: how the container has been dying."""
        out = []
        if self.oom_killed:
            out.append("State.OOMKilled: true (the kernel killed the engine for memory)")
        if self.restarting:
            out.append("State.Restarting: true")
        if self.restart_count:
            out.append(f"RestartCount: {self.restart_count}")
        if self.exit_code not in (None, 0):
            out.append(f"State.ExitCode: {self.exit_code}" + (" (137: killed, often for memory)" if self.exit_code == 137 else ""))
        return out


def _load(text: str) -> dict:
    text = text[:MAX_TEXT].strip()
    try:
        data = json.loads(text)
    except ValueError as first:
        try:  # the `"Env": [...],` fragment as pasted
            data = json.loads("{" + text.rstrip(",") + "}")
        except ValueError:
            raise ParseError(f"not docker inspect JSON ({first})") from None
    if isinstance(data, list):
        if data and all(isinstance(d, dict) and "Capabilities" in d for d in data):
            return {"DeviceRequests": data}  # `jq '.[0].HostConfig.DeviceRequests'` output
        objs = [d for d in data if isinstance(d, dict)]
        if not objs:
            raise ParseError("docker inspect JSON holds no container object")
        data = objs[0]
    if not isinstance(data, dict):
        raise ParseError("docker inspect JSON is not an object or an array of objects")
    return data


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _strs(value) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value else ()
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _env(value) -> dict[str, str]:
    env = {}
    for item in _strs(value):
        name, eq, val = item.partition("=")
        if eq and _ENV_NAME.match(name):
            env[name] = val
    return env


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bool(value) -> bool | None:
    return value if isinstance(value, bool) else None


def _argv(data: dict, config: dict) -> tuple[str, ...]:
    if "Path" in data:
        return _strs(data.get("Path")) + _strs(data.get("Args"))
    return _strs(config.get("Entrypoint")) + _strs(config.get("Cmd"))


def _ports(host: dict, data: dict) -> tuple[str, ...]:
    bindings = _dict(host.get("PortBindings")) or _dict(_dict(data.get("NetworkSettings")).get("Ports"))
    out = []
    for port, binds in sorted(bindings.items(), key=lambda kv: str(kv[0])):
        for b in binds if isinstance(binds, list) else []:
            b = _dict(b)
            out.append(f"{port} -> {b.get('HostIp') or ''}:{b.get('HostPort') or ''}")
    return tuple(out)


def _mounts(data: dict, host: dict) -> tuple[str, ...]:
    out = [f"{_dict(m).get('Source', '')} -> {_dict(m).get('Destination', '')}" for m in _list(data.get("Mounts"))
           if isinstance(m, dict)]
    return tuple(out or _strs(host.get("Binds")))


def parse_inspect(text: str, source: str = "docker_inspect.json") -> ContainerSpec:
    """The container in `docker inspect`/`podman inspect` output; ParseError for anything else."""
    data = _load(text)
    config, host, state = _dict(data.get("Config")), _dict(data.get("HostConfig")), _dict(data.get("State"))
    if "Env" in data and not config:  # the fragment
        config = {"Env": data["Env"]}
    if not (config or host or state or "Id" in data or "Path" in data or "DeviceRequests" in data):
        raise ParseError("no Config, HostConfig or State in this JSON: not docker inspect output")
    requests = host.get("DeviceRequests")
    if "DeviceRequests" in data and not host:  # `jq '.[0].HostConfig.DeviceRequests'` pasted alone
        requests, host = data["DeviceRequests"], {"DeviceRequests": data["DeviceRequests"]}
    devices = host.get("Devices")
    return ContainerSpec(
        source=source,
        name=str(data.get("Name") or "").lstrip("/") or None,
        image=str(config.get("Image") or data.get("ImageName") or "") or None,
        env=_env(config.get("Env")),
        argv=_argv(data, config),
        runtime=host.get("Runtime") if isinstance(host.get("Runtime"), str) else None,
        device_requests=tuple(r for r in requests if isinstance(r, dict)) if isinstance(requests, list) else None,
        devices=tuple(d if isinstance(d, str) else str(_dict(d).get("PathOnHost") or _dict(d).get("path") or d)
                      for d in devices) if isinstance(devices, list) else None,
        status=state.get("Status") if isinstance(state.get("Status"), str) else None,
        oom_killed=_bool(state.get("OOMKilled")),
        restarting=_bool(state.get("Restarting")),
        restart_count=_int(data.get("RestartCount")),
        exit_code=_int(state.get("ExitCode")),
        ports=_ports(host, data),
        mounts=_mounts(data, host),
        log_driver=_dict(host.get("LogConfig")).get("Type") if isinstance(_dict(host.get("LogConfig")).get("Type"), str) else None,
        keys=frozenset(data),
        host_keys=frozenset(host),
    )


_ENGINE_WORDS = (("ollama", re.compile(r"(?:^|/)ollama(?:[:@]|$)|^ollama$|(?:^|/)ollama serve")),
                 ("vllm", re.compile(r"vllm(?:[/-]|\.entrypoints|\s+serve\b)")),
                 ("llamacpp", re.compile(r"llama-server|llama\.cpp|ggml-org/llama")))


def engine_of(spec: ContainerSpec) -> str | None:
    """The engine a container runs, from its image and command (None when neither names one)."""
    text = " ".join((spec.image or "",) + spec.argv[:4])
    for engine, pattern in _ENGINE_WORDS:
        if any(pattern.search(w) for w in [spec.image or "", *spec.argv[:4], " ".join(spec.argv[:2])]) or pattern.search(text):
            return engine
    if "serve" in spec.argv[:2] and any(k.startswith("OLLAMA_") for k in spec.env):
        return "ollama"
    return None
