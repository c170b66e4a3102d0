"""Which LLM servers run here: systemd units, processes, and answering default ports.

An evidence directory names its engine in meta.json, or the files give it away.
"""
from __future__ import annotations

import re

from llmdoctor.knowledge.engines import DEFAULT_PORTS, LLAMACPP, OLLAMA, SGLANG, VLLM, EngineInstance
from llmdoctor.hosts.base import HostError, Unanswerable
from llmdoctor.facts import Context, FactUnavailable, provider

UNIT_PATTERNS = ((OLLAMA, re.compile(r"^ollama")), (VLLM, re.compile(r"^vllm")), (SGLANG, re.compile(r"^sglang")),
                 (LLAMACPP, re.compile(r"^llama")))
PROCESS_PATTERNS = (
    (OLLAMA, re.compile(r"(?:^|/)ollama(?:\s+serve|$)")),
    (VLLM, re.compile(r"(?:^|/|\s)vllm\s+serve\b|vllm\.entrypoints")),
    (LLAMACPP, re.compile(r"(?:^|/)llama-server\b")),
    (SGLANG, re.compile(r"\bsglang\.launch_server\b|(?:^|/|\s)sglang\s+serve\b")),
)
PORT_PROBES = ((OLLAMA, "/api/version"), (VLLM, "/v1/models"), (LLAMACPP, "/health"), (SGLANG, "/get_server_info"))
LOOKED_FOR = (
    "systemd units ollama*, vllm*, llama*, sglang*; processes `ollama serve`, `vllm serve`, `llama-server`, "
    "`python -m sglang.launch_server`/`sglang serve`; ports 11434, 8000, 8080, 30000 on 127.0.0.1"
)


def first_instance(engines, kind: str, what: str) -> EngineInstance:
    """The first instance of `kind` the "engines" fact names (`what`: how the report calls it)."""
    for e in engines or ():
        if e.kind == kind:
            return e
    raise FactUnavailable(f"no {what} here", quiet=True)


def engine_of_unit(unit: str) -> str | None:
    for kind, pattern in UNIT_PATTERNS:
        if pattern.search(unit):
            return kind
    return None


def parse_unit_list(text: str) -> list[str]:
    """Service names from `systemctl list-units --type=service --all --no-legend --plain`."""
    units = []
    for line in text.splitlines():
        fields = line.strip().lstrip("●*").split()
        if fields and fields[0].endswith(".service"):
            units.append(fields[0])
    return units


def parse_process_list(text: str) -> list[tuple[int, str, str]]:
    """(pid, kind, args) for engine processes in `ps -eo pid=,args=` output."""
    found = []
    for line in text.splitlines():
        m = re.match(r"\s*(\d+)\s+(.*)", line)
        if not m:
            continue
        args = m.group(2)
        if "blobs/sha256-" in args:  # Ollama's own runner / llama-server child, not a separate engine
            continue
        for kind, pattern in PROCESS_PATTERNS:
            if pattern.search(args.split(" --", 1)[0]) or (kind in (VLLM, SGLANG) and pattern.search(args)):
                found.append((int(m.group(1)), kind, args))
                break
    return found


def kind_of_answer(asked: str, body: str) -> str | None:
    """The engine that answered a default port's probe, from what it answered (never from the
    port alone: a llama-server started with --port 8000 answers /v1/models too, "owned_by":
    "llamacpp"); None when the answer is no engine's."""
    if asked == OLLAMA:
        return OLLAMA if '"version"' in body else None
    if asked == VLLM:
        owners = set(re.findall(r'"owned_by"\s*:\s*"([^"]*)"', body))
        if owners & {"llamacpp", "llama.cpp"}:
            return LLAMACPP
        return VLLM if "vllm" in owners or ('"object"' in body and not owners) else None
    if asked == SGLANG:
        return SGLANG if '"model_path"' in body and '"tp_size"' in body else None
    return LLAMACPP if "status" in body or "Loading model" in body else None


def port_from_args(args: str) -> int | None:
    m = re.search(r"--port[=\s]+(\d+)", args)
    return int(m.group(1)) if m else None


# Both print llama.cpp's lines; a file's own words naming just one of them hint more than its name
# (a pasted ticket's unnamed pieces land in journal.log: llama.cpp#9016's `./srvr -np 4` log did).
NAMED_IN_TEXT = ((OLLAMA, r"(?i)\bollama\b"), (LLAMACPP, r"(?i)\bllama[.-]?cpp\b|\bllama-server\b"))


def _named_in(text: str) -> str | None:
    named = [engine for engine, pattern in NAMED_IN_TEXT if re.search(pattern, text)]
    return named[0] if len(named) == 1 else None


def _head(source, limit: int = 256 * 1024) -> str:
    """The first lines of a log source, up to about `limit` characters."""
    out, size = [], 0
    for line in source.lines():
        out.append(line)
        size += len(line) + 1
        if size >= limit:
            break
    return "\n".join(out)


def recognize_evidence(host):
    """knowledge.recognize.Recognition of every file a recording holds: its logs (as the
    log sources read them, paste repaired, with the identifiers the repair took off) and its
    configuration files."""
    from llmdoctor.knowledge.recognize import decide, engine_from_name, ident_engines, signs_in

    files = {}
    strong, file_hints, weak, named = {}, {}, {}, {}
    texts: dict[str, str] = {}
    for name in host.recorded_logs():
        try:
            source = host.log_file(name, None, None)
            texts[name] = _head(source)
        except (OSError, HostError):
            continue
        idents = ident_engines(getattr(source, "idents", ()))
        (strong if "journald" in getattr(source, "prefixes", ()) else weak).update(idents)
        own = engine_from_name(name)
        if own and own not in named and _log_like(texts[name]):
            named[own] = name
    for name in [n for n in host.kept("config") + host.kept("answers") if n not in texts] + list(host.kept("dropins")):
        try:
            texts[name] = host.read(name, 256 * 1024).decode("utf-8", "replace")
        except (OSError, HostError):
            continue
    for name, text in texts.items():
        files[name] = signs_in(text)
        hint = engine_from_name(name) or _named_in(text) or _log_hint(host, name)
        if hint and hint not in file_hints:
            file_hints[hint] = name
    # the evidence format's file names before the user's container names
    return decide(files, strong, {**file_hints, **{e: i for e, i in weak.items() if e not in file_hints}}, named)


def _log_hint(host, name: str) -> str | None:
    """The engine whose log the evidence format names `name` (a hint for llama.cpp lines that nothing else places)."""
    return next((k for k in (OLLAMA, LLAMACPP, VLLM, SGLANG) if name in host.kept(f"{k} log")), None)


def _log_like(text: str) -> bool:
    """Some line of it is a log record or an exception (not random bytes, not an empty paste)."""
    from llmdoctor.knowledge.logtime import line_time

    lines = [l for l in text.split("\n")[:200] if l.strip()]
    return any(line_time(l) is not None or re.match(r"^\s*(?:\[rank\d+\]:\s*)?[\w.]*(?:Error|Exception):", l)
               for l in lines)


@provider("evidence_recognition")
def evidence_recognition(ctx: Context):
    """Which engine each recorded file speaks of (a host holding recorded files only)."""
    def live():
        raise FactUnavailable("a live host: its engines are found running, not recognised in files", quiet=True)

    return ctx.host.observe(live, lambda: recognize_evidence(ctx.host))


def sniff_evidence(host, rec=None) -> list[EngineInstance]:
    """Engines an evidence directory speaks of: meta.json's "engine", else the signs its files carry."""
    named = str(host.meta.get("engine") or "").lower().replace(".", "").replace("-", "")
    aliases = {"ollama": OLLAMA, "vllm": VLLM, "llamacpp": LLAMACPP, "llamaserver": LLAMACPP, "sglang": SGLANG}
    version = host.meta.get("version")
    unit = host.meta.get("unit")
    if named in aliases:
        kind = aliases[named]
        return [EngineInstance(kind, unit=unit or evidence_unit(host, kind, 0), version=version, found_by="meta.json")]
    rec = rec if rec is not None else recognize_evidence(host)
    return [
        EngineInstance(k, unit=unit or evidence_unit(host, k, i), version=version,
                       found_by=f"evidence ({rec.reasons.get(k, 'files')})")
        for i, k in enumerate(rec.engines)
    ]


DEFAULT_UNITS = {OLLAMA: "ollama.service", VLLM: "vllm.service", LLAMACPP: "llama-server.service",
                 SGLANG: "sglang.service"}


def evidence_unit(host, kind: str, index: int) -> str | None:
    """The unit an evidence directory's unit files belong to (first engine only)."""
    if index:
        return None
    for name in host.kept("systemctl cat"):
        m = re.search(rb"^# /\S+/([^/\s]+\.service)\s*$", host.read(name, 64 * 1024), re.M)
        if m:
            return m.group(1).decode()
    if host.kept("unit") or host.kept("dropins") or _systemctl_show(host):
        return DEFAULT_UNITS[kind]
    return None


def _systemctl_show(host) -> bool:
    """env.txt is `systemctl show` output (systemd runs the engine), not a list of variables a user typed."""
    names = host.kept("listing")
    if not names:
        return False
    text = host.read(names[0], 64 * 1024).decode("utf-8", "replace")
    return bool(re.search(r"^(?:Environment|MainPID|ExecStart|FragmentPath|NeedDaemonReload|User)=", text, re.M))


def discover_live(ctx: Context) -> tuple[list[EngineInstance], list[str]]:
    host = ctx.host
    found: dict[tuple[str, str | None], EngineInstance] = {}
    notes: list[str] = []
    units = list(ctx.units)
    try:
        res = host.run(["systemctl", "list-units", "--type=service", "--all", "--no-legend", "--plain"], timeout=10)
        if res.ok:
            units += [u for u in parse_unit_list(res.stdout) if engine_of_unit(u)]
        else:
            first = (res.stderr.strip().splitlines() or [f"exit {res.returncode}"])[0]
            notes.append(f"systemd units not listed: {first[:160]}")
    except HostError as e:
        notes.append(f"systemd: {e}")
    for unit in dict.fromkeys(u if u.endswith(".service") else f"{u}.service" for u in units):
        kind = engine_of_unit(unit) or OLLAMA
        found[(kind, unit)] = EngineInstance(kind, unit=unit, port=DEFAULT_PORTS[kind], found_by="systemd unit")
    try:
        res = host.run(["ps", "-eo", "pid=,args="], timeout=10)
        for pid, kind, args in parse_process_list(res.stdout):
            # a process joins a unit of its kind that has no process yet; every other one is an
            # instance of its own (three llama-servers on one box are three, each its pid and port)
            free = [k for k, e in found.items() if k[0] == kind and e.unit and not e.pid]
            port = port_from_args(args) or DEFAULT_PORTS[kind]
            if free:
                old = found[free[0]]
                found[free[0]] = EngineInstance(kind, old.unit, pid, port, old.version, old.found_by)
            else:
                found[(kind, f"pid:{pid}")] = EngineInstance(kind, pid=pid, port=port, found_by="process")
    except HostError as e:
        notes.append(f"processes: {e}")
    taken = {e.port for e in found.values() if e.pid or e.unit}
    for kind, path in PORT_PROBES:
        port = DEFAULT_PORTS[kind]
        if any(k[0] == kind for k in found) or port in taken:
            continue
        try:
            resp = host.http("GET", port, path, timeout=1.0)
        except HostError:
            continue
        if resp.status < 500 or kind == LLAMACPP:
            answered = kind_of_answer(kind, resp.text)
            if answered is not None and not any(k[0] == answered for k in found):
                found[(answered, "port")] = EngineInstance(answered, port=port, found_by=f"port ({path})")
    return list(found.values()), notes


def instance_at(ctx: Context, found: list[EngineInstance], port: int) -> EngineInstance:
    """The instance `--url` names: the one found listening on its port, else whatever engine
    answers there, named by its answer (never by the port number)."""
    for e in found:
        if e.port == port:
            return e
    from llmdoctor.hosts.http import HttpTimeout

    silent = False
    for kind, path in PORT_PROBES:
        try:
            resp = ctx.host.http("GET", port, path, timeout=2.0)
        except HttpTimeout:
            silent = True
            continue
        except HostError:
            continue
        answered = kind_of_answer(kind, resp.text) if resp.status < 500 or kind == LLAMACPP else None
        if answered is not None:
            return EngineInstance(answered, port=port, found_by=f"--url ({path})")
    if silent:  # a stopped or wedged engine: the kernel still takes the connection
        raise FactUnavailable(f"port {port} takes connections but gave no answer within 2 s: whatever serves "
                              f"there is stalled or overloaded (`llmdoctor ready` tells which)")
    raise FactUnavailable(f"nothing on port {port} answered as Ollama, vLLM, llama-server or SGLang "
                          f"(asked {', '.join(p for _, p in PORT_PROBES)})")


def engines_from_log_files(ctx: Context) -> list[EngineInstance]:
    """Engines named by `--log FILE` when none runs here: the file name, else its first lines."""
    found = []
    for path in ctx.options.log_files:
        name = path.rsplit("/", 1)[-1].lower()
        kind = next((k for k, word in ((VLLM, "vllm"), (SGLANG, "sglang"), (OLLAMA, "ollama"), (LLAMACPP, "llama"))
                     if word in name), None)
        if kind is None:
            try:
                head = ctx.host.read(path, 64 * 1024).decode("utf-8", "replace")
            except (OSError, HostError):
                continue
            from llmdoctor.knowledge.recognize import engine_of_text

            kind = engine_of_text(head)
        if kind and all(e.kind != kind for e in found):
            found.append(EngineInstance(kind, found_by=f"log file {path}"))
    return found


def read_cmdline(ctx: Context, inst: EngineInstance, what: str, container=None) -> bytes:
    """The engine process's command line: the container's command when it runs in one (docker
    inspect), else /proc/PID/cmdline of its process, else the recorded cmdline.txt (a recording
    knows no PID; a live host has no recorded files)."""
    if container is not None and container.argv and container_engine(container) == inst.kind:
        return "\0".join(container.argv).encode()
    host = ctx.host
    paths = ([f"/proc/{inst.pid}/cmdline"] if inst.pid else []) + list(host.kept("cmdline"))
    reason = f"{what} process id unknown: command line not read"
    for path in paths:
        try:
            return host.read(path, 256 * 1024)
        except Unanswerable:
            continue
        except (OSError, HostError) as e:
            reason = f"{what} command line: {e}"
    raise FactUnavailable(reason, quiet=host.partial)


def container_engine(container) -> str | None:
    from llmdoctor.knowledge.containers.inspect import engine_of

    return engine_of(getattr(container, "spec", container))


def _with_container(found: list[EngineInstance], container) -> list[EngineInstance]:
    """The engine a container's image or command names, when nothing else found it."""
    kind = container_engine(container) if container is not None else None
    if kind is None or any(e.kind == kind for e in found):
        return found
    return found + [EngineInstance(kind, port=getattr(container, "engine_port", None) or DEFAULT_PORTS[kind],
                                   found_by=f"container ({container.image or container.source})")]


@provider("engines")
def engines(ctx: Context, evidence_recognition=None, container=None) -> tuple[EngineInstance, ...]:
    return ctx.host.observe(lambda: _running(ctx, container), lambda: _recalled(ctx, evidence_recognition, container))


def _recalled(ctx: Context, evidence_recognition, container) -> tuple[EngineInstance, ...]:
    """The engines a recording speaks of."""
    found = _with_container(sniff_evidence(ctx.host, evidence_recognition), container)
    if not found:
        files = list(ctx.host.kept("shown"))
        shown = ", ".join(files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
        raise FactUnavailable(
            f"no LLM engine in the evidence: {shown or 'the directory is empty'} "
            f"{'hold' if len(files) != 1 else 'holds'} no line or setting of Ollama, vLLM, llama-server or SGLang "
            "(name the engine in meta.json, or add its logs)" if files else
            "no LLM engine in the evidence: the directory is empty (add the engine's logs, or meta.json)")
    return tuple(found)


def _running(ctx: Context, container) -> tuple[EngineInstance, ...]:
    """The engines running on a live host (systemd units, processes, --log files)."""
    found, notes = discover_live(ctx)
    found = _with_container(found, container)
    if ctx.options.instance_port:
        return (instance_at(ctx, found, ctx.options.instance_port),)
    if not found:
        found = engines_from_log_files(ctx)
    if not found:
        extra = f"; {'; '.join(notes)}" if notes else ""
        raise FactUnavailable(f"no LLM engine found (looked for {LOOKED_FOR}){extra}")
    return tuple(found)
