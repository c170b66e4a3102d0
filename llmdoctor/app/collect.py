"""`llmdoctor collect`: write what a diagnosis would look at as an evidence directory.

Each answer is written through hosts/bundle.py's EvidenceWriter under the name an evidence
directory answers the same question from (hosts/evidence.py), so `diagnose --evidence` reads
them back and a person can compare them with what they would paste into a ticket. Everything
written passes through the secret redactor.
"""
from __future__ import annotations

import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from llmdoctor import __version__
from llmdoctor.knowledge.engines import DEFAULT_PORTS, LLAMACPP, OLLAMA, SGLANG, VLLM, EngineInstance
from llmdoctor.facts import Context, FactStore, RunOptions
from llmdoctor.facts.engines import engine_of_unit
from llmdoctor.app.collect_gpu import collect_amd
from llmdoctor.hosts.base import Host, HostError
from llmdoctor.hosts.bundle import EvidenceWriter
from llmdoctor.knowledge.systemd.show import PROPERTIES as SHOW_PROPERTIES
from llmdoctor.knowledge.systemd.names import check_unit

VMSTAT = ["vmstat", "1", "3"]  # swap activity over two seconds (memory's offline answer reads it)

LOG_LIMIT = 32 * 1024 * 1024  # newest part of the journal kept, per unit


def _shorten_head(data: str, limit: int) -> str:
    """Keep the newest `limit` bytes of a log, at a line boundary."""
    if len(data) <= limit:
        return data
    cut = data[-limit:]
    return cut[cut.find("\n") + 1 :]


def collect_evidence(
    host: Host,
    out: Path,
    units: tuple[str, ...] = (),
    since_seconds: float = 86400.0,
    engines: tuple[EngineInstance, ...] | None = None,
    probe: bool = False,
    withheld=None,
    probe_deadline: float = 60.0,
) -> tuple[list[str], list[str]]:
    """Write evidence files; return (files written, notes on what could not be collected).
    meta.json counts the values the bundle withholds (distinct values, in every file): into
    `withheld`, a redact_struct.Withheld the caller opened before the host connected (a pod's
    spec is redacted as it is read), else into one opened here."""
    if withheld is not None:
        return _collect(host, out, units, since_seconds, engines, probe, withheld, probe_deadline)
    from llmdoctor.redact_struct import Withheld

    with Withheld() as tally:
        return _collect(host, out, units, since_seconds, engines, probe, tally, probe_deadline)


def _collect(host: Host, out: Path, units, since_seconds: float, engines, probe: bool, tally,
             probe_deadline: float = 60.0) -> tuple[list[str], list[str]]:
    bundle = EvidenceWriter(out)
    notes: list[str] = []

    def attempt(what: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except (HostError, OSError, ValueError) as e:
            notes.append(str(e) if str(e).startswith(what.split()[0]) else f"{what}: {e}")

    store = FactStore(
        Context(host=host, units=units, since_seconds=since_seconds, options=RunOptions(probe=probe, probe_deadline=probe_deadline)),
        preset={"engines": engines} if engines else None,
    )
    engines = store.optional("engines", ()) or ()
    primary = engines[0] if engines else None
    engines_meta: dict = {}

    for e in engines:
        port = e.port or DEFAULT_PORTS[e.kind]
        if e.kind == OLLAMA:
            attempt("ollama ps", lambda: _run_to(host, ["ollama", "ps"], bundle))
            attempt("GET /api/ps", lambda: _http_to(host, "GET", port, "/api/ps", bundle))
            attempt("POST /api/show", lambda: _api_show(host, port, bundle))
        if e.kind == VLLM:
            attempt("GET /metrics", lambda: _http_to(host, "GET", port, "/metrics", bundle))
        if e.kind == SGLANG:
            from llmdoctor.hosts.evidence import SGLANG_ENDPOINTS

            for path in SGLANG_ENDPOINTS:  # /metrics answers only with --enable-metrics
                attempt(f"GET {path}", lambda: _http_to(host, "GET", port, path, bundle))
        if e.kind == LLAMACPP:
            from llmdoctor.hosts.evidence import LLAMACPP_ENDPOINTS

            for path in LLAMACPP_ENDPOINTS:
                # /health answers 503 "Loading model" while loading: that is evidence too
                ok = (200, 503) if path == "/health" else (200,)
                attempt(f"GET {path}", lambda: _http_to(host, "GET", port, path, bundle, ok=ok))
        if e.pid:
            cmdline = f"/proc/{e.pid}/cmdline"
            attempt("cmdline", lambda: bundle.read(cmdline, host.read(cmdline).replace(b"\0", b" ").decode("utf-8", "replace").strip() + "\n"))

    for e in engines:
        if e.kind == OLLAMA:
            attempt("GET /api/version", lambda: _version(host, e.port or DEFAULT_PORTS[OLLAMA], engines_meta))
    unit_names = [e.unit for e in engines if e.unit] + [u if u.endswith(".service") else f"{u}.service" for u in units]
    for unit in dict.fromkeys(unit_names):
        attempt(
            f"systemctl show {unit}",
            lambda: _run_to(host, ["systemctl", "show", "-p", ",".join(SHOW_PROPERTIES), "--", check_unit(unit)], bundle),
        )
        attempt(f"systemctl cat {unit}", lambda: _run_to(host, ["systemctl", "cat", "--", check_unit(unit)], bundle))
        attempt(f"journal of {unit}", lambda: _journal(host, unit, since_seconds, bundle, engine_of_unit(unit)))
        break  # one engine unit per evidence directory: the file names are singular
    attempt("unit files on disk", lambda: _unit_files(host, store, bundle))
    _container(host, since_seconds, bundle, attempt)
    # `vmstat 1 3` (two seconds) runs beside the sampling window instead of after it
    pool = ThreadPoolExecutor(1)
    vmstat = pool.submit(host.run, VMSTAT, timeout=10)
    pool.shutdown(wait=False)  # (the command still runs; the thread ends with it)
    if engines:  # both over one window (each asked in turn took a window of its own)
        store.collect_together(("engine_progress", "cpu_load"))
    if any(e.kind in (VLLM, SGLANG, LLAMACPP) for e in engines):
        attempt("engine progress", lambda: _progress(store, bundle))
    if engines:
        attempt("CPU use", lambda: _cpu(store, bundle))
    if probe:
        attempt("live probe", lambda: _probe(store, bundle))
    attempt("vmstat", lambda: _ran_to(VMSTAT, vmstat.result(), bundle))
    attempt("/proc/meminfo", lambda: bundle.read("/proc/meminfo", host.read("/proc/meminfo").decode()))
    attempt("nvidia-smi", lambda: _run_to(host, ["nvidia-smi"], bundle))
    if bundle.has("nvidia-smi"):  # an NVIDIA GPU answers: its health and the driver's XIDs (GPU_DEGRADED)
        attempt("nvidia-smi -q", lambda: _run_to(host, ["nvidia-smi", "-q"], bundle, timeout=30))
        attempt("kernel XIDs", lambda: _xids(store, bundle))
    attempt("AMD GPUs", lambda: collect_amd(host, bundle))
    attempt("who runs the fixes", lambda: _whoami(host, bundle))
    meta = {
        "host": host.name or socket.gethostname(),
        "engine": primary.kind if primary else None,
        "unit": primary.unit if primary else None,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "collected_by": f"llmdoctor {__version__}",
        **engines_meta,
    }
    if notes:
        meta["notes"] = notes
    meta["withheld"] = tally.count
    bundle.record("meta", json.dumps(meta, indent=2) + "\n")
    return bundle.written, notes


def _container(host: Host, since_seconds: float, bundle: EvidenceWriter, attempt) -> None:
    """docker_inspect.json and container.log, where the engine runs in a container; pod.json,
    kubectl_describe.txt, events.json and pod.log where it runs in a Kubernetes pod."""
    from llmdoctor.hosts.base import Unanswerable

    try:
        res = host.container_inspect()
    except Unanswerable:
        return
    except HostError as e:
        attempt("docker inspect", lambda: (_ for _ in ()).throw(e))
        return
    from llmdoctor.knowledge.containers.pod import looks_like_pod

    pod = looks_like_pod(res.stdout)
    bundle.record("pod" if pod else "docker inspect", res.stdout)
    if pod:  # a Kubernetes pod: its describe text and events as well (hosts/kube.py)
        for what, ask in (("describe", host.pod_describe), ("events", host.pod_events)):
            attempt(f"kubectl {what}", lambda w=what, a=ask: bundle.record(f"pod {w}", a().stdout))

    def log() -> None:
        source = host.container_log(None, since_seconds)
        text = "\n".join(source.lines())
        if source.error:
            raise HostError(source.error)
        bundle.record("pod log" if pod else "container log", _shorten_head(text + "\n", LOG_LIMIT))

    attempt("container log", log)


def _unit_files(host: Host, store: FactStore, bundle: EvidenceWriter) -> None:
    """Copies of the unit files, drop-ins and environments under files/<path>: only the files
    on disk show a forgotten daemon-reload (systemctl cat shows what systemd loaded)."""
    from llmdoctor.app.collect_systemd import evidence_files

    states = store.optional("systemd_units", ()) or ()
    if not states:
        reason = store.missing.get("systemd_units")
        raise HostError(reason.reason if reason else "no engine unit")
    for path, text in evidence_files(host, states, store.optional("shell_exports", ()) or ()).items():
        bundle.copy(path, text)


def _whoami(host: Host, bundle: EvidenceWriter) -> None:
    """whoami.txt: the user who will paste the fixes (the reader fact's evidence), where the host
    knows it; its `id` output kept only where it names that user (through --sudo it says root)."""
    reader = host.reader()
    if reader is None:  # a container or pod: who pastes the fixes is not known here, sudo stays
        return
    res = host.run(["id"], timeout=5)
    bundle.whoami(reader, res.stdout if res.ok else "")


def _progress(store: FactStore, bundle: EvidenceWriter) -> None:
    """Each engine's health answer and counters across the sampling window (ENGINE_STALLED)."""
    watched = store.optional("engine_progress")
    if watched is None:
        missing = store.missing.get("engine_progress")
        raise HostError(missing.reason if missing else "no result")
    bundle.record("progress", json.dumps([p.to_dict() for p in watched], indent=1) + "\n")


def _cpu(store: FactStore, bundle: EvidenceWriter) -> None:
    """Who used the CPUs over the sampling window (CPU_CONTENTION)."""
    sample = store.optional("cpu_load")
    if sample is None:
        missing = store.missing.get("cpu_load")
        raise HostError(missing.reason if missing else "no result")
    bundle.record("cpu", json.dumps(sample.to_dict(), indent=1) + "\n")


def _xids(store: FactStore, bundle: EvidenceWriter) -> None:
    """The XID lines of the kernel log (journalctl -k, else dmesg), only those: an empty
    kernel_xid.log records that the log was read and had none."""
    found = store.optional("gpu_xid")
    if found is None:
        missing = store.missing.get("gpu_xid")
        raise HostError(missing.reason if missing else "no result")
    bundle.command(["journalctl", "-k"], "".join(e.line + "\n" for e in found.events))


def _probe(store: FactStore, bundle: EvidenceWriter) -> None:
    runs = store.optional("probe")
    if runs is None:
        missing = store.missing.get("probe")
        raise HostError(missing.reason if missing else "no result")
    bundle.record("probe", json.dumps(runs.to_dict(), indent=2) + "\n")


def _run_to(host: Host, argv: list[str], bundle: EvidenceWriter, timeout: float = 15.0) -> None:
    _ran_to(argv, host.run(argv, timeout=timeout), bundle)


def _ran_to(argv: list[str], res, bundle: EvidenceWriter) -> None:
    """A command's answer into the bundle; a failure raised, for `attempt`'s note."""
    if not res.ok:
        raise HostError(f"exit {res.returncode}: {(res.stderr or res.stdout).strip()[:200]}")
    bundle.command(argv, res.stdout)


def _http_to(host: Host, method: str, port: int, path: str, bundle: EvidenceWriter, body: bytes | None = None,
             ok: tuple[int, ...] = (200,)) -> None:
    resp = host.http(method, port, path, body=body, timeout=10)
    if resp.status not in ok:
        raise HostError(f"HTTP {resp.status}")
    bundle.response(method, path, resp.text)


def _api_show(host: Host, port: int, bundle: EvidenceWriter) -> None:
    resp = host.http("GET", port, "/api/ps", timeout=10)
    models = (resp.json() or {}).get("models") or []
    if not models:
        raise HostError("no model loaded, nothing to show")
    body = json.dumps({"model": models[0].get("name") or models[0].get("model")}).encode()
    _http_to(host, "POST", port, "/api/show", bundle, body=body)


def _version(host: Host, port: int, meta: dict) -> None:
    resp = host.http("GET", port, "/api/version", timeout=5)
    meta["version"] = (resp.json() or {}).get("version")


def _journal(host: Host, unit: str, since_seconds: float, bundle: EvidenceWriter, engine: str | None) -> None:
    res = host.run(
        ["journalctl", f"--unit={check_unit(unit)}", "--no-pager", "-o", "short-iso", f"--since=-{int(since_seconds)}s"], timeout=60
    )
    if not res.ok and not res.stdout:
        raise HostError(res.stderr.strip()[:200] or f"journalctl exit {res.returncode}")
    bundle.journal(engine, _shorten_head(res.stdout, LOG_LIMIT))
