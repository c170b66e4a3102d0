"""Ollama facts: version, loaded models, /api/show, effective configuration, log scan.

Each is quiet-unavailable when the "engines" fact names no Ollama. On an evidence
directory the same questions map to api_ps.json, api_show.json, ollama_ps.txt and the
log files (hosts/evidence.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from llmdoctor.knowledge.engines import DEFAULT_PORTS, OLLAMA
from llmdoctor.hosts.base import HostError, NotInEvidence
from llmdoctor.parsing import ParseError
from llmdoctor.facts import Context, FactUnavailable, provider

if TYPE_CHECKING:  # the parsers are imported where used: only when Ollama is here (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
    from llmdoctor.knowledge.ollama.ps import LoadedModel
    from llmdoctor.facts.ollama_config import OllamaConfig

SNIFF_LINES = 2000


def __getattr__(name: str) -> Any:
    """OllamaConfig, from ollama_config.py on first use: a run with no Ollama never defines it."""
    if name == "OllamaConfig":
        from llmdoctor.facts.ollama_config import OllamaConfig

        return OllamaConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def ollama_engine(engines) -> Any:
    for e in engines or ():
        if getattr(e, "kind", None) == OLLAMA:
            return e
    raise FactUnavailable("no Ollama on this host", quiet=True)


def _port(engine) -> int:
    return getattr(engine, "port", None) or DEFAULT_PORTS[OLLAMA]


@provider("ollama_version")
def ollama_version(ctx: Context, engines=None, ollama_log=None) -> str:
    engine = ollama_engine(engines)
    from llmdoctor.facts.ollama_api import OllamaApiError, get_version

    try:
        return get_version(ctx.host, _port(engine))
    except OllamaApiError as e:
        reason = str(e)
    if getattr(engine, "version", None):
        return str(engine.version)
    if ollama_log is not None and ollama_log.version:
        return ollama_log.version
    raise FactUnavailable(f"Ollama version unknown ({reason}; no `Listening on ... (version X)` log line)")


@provider("ollama_ps")
def ollama_ps(ctx: Context, engines=None) -> tuple[LoadedModel, ...]:
    """Loaded models: /api/ps for exact sizes, `ollama ps` for UNTIL (`Stopping...`)."""
    engine = ollama_engine(engines)
    from llmdoctor.facts.ollama_api import OllamaApiError, get_ps_with_source

    api: tuple[LoadedModel, ...] | None = None
    text: tuple[LoadedModel, ...] | None = None
    reasons = []
    missing = 0
    api_src = "/api/ps"
    try:
        data, api_src = get_ps_with_source(ctx.host, _port(engine))
        from llmdoctor.knowledge.ollama.ps import parse_api_ps  # (once there is an answer to parse: start-up time)

        api = parse_api_ps(data, api_src)
    except OllamaApiError as e:
        reasons.append(str(e))
        missing += e.missing
    except ParseError as e:
        reasons.append(f"unparseable {api_src}: {e}")
    text_src = "ollama ps"
    try:
        res = ctx.host.run(["ollama", "ps"], timeout=10)
        text_src = res.source or text_src
        if res.ok:
            from llmdoctor.knowledge.ollama.ps import parse_ps_text

            text = parse_ps_text(res.stdout, text_src)
        else:
            reasons.append(f"`ollama ps` exited {res.returncode}: {res.stderr.strip()[:160]}")
    except HostError as e:
        reasons.append(f"`ollama ps`: {e}")
        missing += isinstance(e, NotInEvidence)
    except ParseError as e:
        reasons.append(f"unparseable {text_src}: {e}")
    if api is None and text is None:
        raise FactUnavailable("; ".join(reasons), quiet=missing == 2)
    from llmdoctor.knowledge.ollama.ps import merge

    return merge(api or (), text or ())


@provider("ollama_show")
def ollama_show(ctx: Context, engines=None, ollama_ps=None) -> dict:
    """/api/show of the first loaded model (the evidence file answers for any model)."""
    engine = ollama_engine(engines)
    name = ollama_ps[0].name if ollama_ps else ""
    if not name and not ctx.host.partial:  # (a recording answers for whatever model it showed)
        raise FactUnavailable("no model loaded, so none to show")
    from llmdoctor.facts.ollama_api import OllamaApiError, get_show_with_source

    try:
        show, source = get_show_with_source(ctx.host, _port(engine), name)
    except OllamaApiError as e:
        printed = _printed_parameters(ctx.host)
        if not printed:
            raise FactUnavailable(str(e), quiet=e.missing) from None
        return {"_model": name, "_source": printed[0].source, "_printouts": printed}
    return {**show, "_model": name, "_source": source}


PRINTOUT_LIMIT = 256 * 1024


def _printed_parameters(host) -> tuple:
    """Model parameters a recording holds as printed (`/show parameters`, `ollama show` pasted
    into a file of their own): the evidence of a Modelfile's num_ctx when no /api/show is there."""
    from llmdoctor.knowledge.ollama.show import looks_like_parameters, parse_parameters

    out: list = []
    for name in host.kept("printouts"):
        try:  # as written (paste repair drops the `ollama show NAME` line that names the model)
            text = host.as_written(name, PRINTOUT_LIMIT)
        except (OSError, HostError, ValueError):
            continue
        if looks_like_parameters(text):
            out += parse_parameters(text, name)
    return tuple(out)


@provider("ollama_tags")
def ollama_tags(ctx: Context, engines=None) -> tuple[dict, ...]:
    engine = ollama_engine(engines)
    from llmdoctor.facts.ollama_api import OllamaApiError, get_tags

    try:
        return get_tags(ctx.host, _port(engine))
    except OllamaApiError as e:
        raise FactUnavailable(str(e), quiet=e.missing) from None


# -- effective configuration --------------------------------------------------------------

def _unit_for(engine, systemd_units) -> Any:
    units = list(systemd_units or ())
    for u in units:
        if engine is not None and getattr(engine, "unit", None) and u.unit == engine.unit:
            return u
    for u in units:
        if getattr(u, "engine", None) == OLLAMA:
            return u
    return None


def effective_config(version: str | None, log: OllamaLogSummary | None, unit: Any, declared: Any = None,
                     container: Any = None) -> OllamaConfig:
    """Pure: merge the sources into one OllamaConfig. A container's environment (docker
    inspect, or its compose service) is what the server runs with, as a unit's would be."""
    from llmdoctor.knowledge.ollama import env as envdef
    values: dict[str, str] = {}
    origins: dict[str, str] = {}
    assigned: dict[str, tuple[str, str]] = {}
    for a in (declared.assignments if declared is not None else ()):
        if a.name.startswith("OLLAMA_") and declared.reaches_server(a):
            assigned[a.name] = (a.value, f"{a.source}:{a.lineno} ({a.form})")
    if unit is not None:
        for env, where in ((getattr(unit, "file_env", None), "unit files"),
                           (getattr(unit, "loaded_env", None), "unit environment (systemctl show)"),
                           (getattr(unit, "process_env", None), "process environment")):
            for k, v in (env or {}).items():
                if k.startswith(("OLLAMA_", "LLAMA_ARG_")) or k in envdef.VARIABLES:
                    origin = where
                    if where == "unit files":
                        origin = f"unit file {unit.file_env_origin.get(k, '')}".strip()
                    assigned[k] = (v, origin)
    if container is not None:
        where = ("container environment (docker inspect)" if container.form == "inspect"
                 else f"pod environment ({container.source})" if container.form == "pod"
                 else f"container environment ({container.source})")
        for k, v in container.env.items():
            if k.startswith(("OLLAMA_", "LLAMA_ARG_")) or k in envdef.VARIABLES:
                assigned[k] = (v, f"{where}")
    config_line = log.server_config if log is not None else None
    for name in envdef.VARIABLES:
        if config_line is not None and name in config_line:
            values[name], origins[name] = config_line[name], "server config log line"
        elif name in assigned:
            values[name], origins[name] = envdef.strip_value(assigned[name][0]), assigned[name][1]
        else:
            if envdef.exists(name, version) is False:
                continue
            values[name] = envdef.default(name, version)
            origins[name] = f"default of Ollama {version}" if version else "default (Ollama version unknown)"
    for k, (v, where) in assigned.items():
        values.setdefault(k, envdef.strip_value(v))
        origins.setdefault(k, where)
    ex = log.server_config_example if log is not None else None
    from llmdoctor.facts.ollama_config import OllamaConfig

    return OllamaConfig(version, values, origins, assigned, ex)


@provider("ollama_config")
def ollama_config(ctx: Context, engines=None, ollama_version=None, ollama_log=None, systemd_units=None,
                  declared_settings=None, container=None) -> OllamaConfig:
    engine = ollama_engine(engines)
    version = ollama_version or (ollama_log.version if ollama_log is not None else None)
    unit = _unit_for(engine, systemd_units)
    if unit is None and container is None and getattr(engine, "pid", None):  # (a recording knows no process id)
        unit = _process_env(ctx, engine.pid)
    return effective_config(version, ollama_log, unit, declared_settings, container)


def _process_env(ctx: Context, pid: int):
    """An Ollama started from a shell, nohup or a script: its environment is its process's
    (/proc/PID/environ), shaped as effective_config() reads a unit's; None where unreadable."""
    from types import SimpleNamespace

    from llmdoctor.knowledge.systemd.environ import parse_proc_environ

    try:
        env = parse_proc_environ(ctx.host.read(f"/proc/{pid}/environ", 1024 * 1024))
    except (OSError, HostError):
        return None  # another user's process without root: the defaults and the log line stand
    return SimpleNamespace(unit=None, file_env={}, file_env_origin={}, loaded_env=None, process_env=env)


# -- log scan -------------------------------------------------------------------------------

def _sniff(source) -> bool:
    """Does a source of unknown origin hold Ollama's lines (knowledge.recognize)?"""
    from itertools import islice

    from llmdoctor.knowledge.recognize import OLLAMA as OLLAMA_SIGNS, signs_in

    return OLLAMA_SIGNS in signs_in("\n".join(islice(source.lines(), SNIFF_LINES)))


def scan_sources(sources: Iterable[Any]) -> OllamaLogSummary | None:
    """Scan the sources that are Ollama's (named so, or sniffed when unknown)."""
    from llmdoctor.knowledge.ollama.log import OllamaLogScanner
    from llmdoctor.knowledge.wordscan import available as fast_words

    scanner = OllamaLogScanner()
    used = 0
    for src in sources:
        engine = getattr(src, "engine", None)
        if engine not in (OLLAMA, None):
            continue
        if engine is None and not _sniff(src):
            continue
        regions = getattr(src, "raw_regions", None)  # whole lines, undecoded: only the lines that matter are read
        if callable(regions) and fast_words():
            scanner.feed_regions(regions(), src.name)
        else:
            scanner.feed_all(src.lines(), src.name)
        used += 1
    return scanner.summary() if used else None


@provider("ollama_log")
def ollama_log(ctx: Context, engines=None, log_sources=None) -> OllamaLogSummary:
    ollama_engine(engines)
    sources = list(log_sources or ())
    host = ctx.host
    names = {str(getattr(s, "name", "")) for s in sources}
    for name in host.kept("client errors"):  # what clients received
        if name not in names:
            sources.append(host.log_file(name, OLLAMA, None))
    for name in host.kept("answers"):  # API answers kept as JSON: read when they look like Ollama's (sniffed)
        if name not in names:
            sources.append(host.log_file(name, None, None))
    if not sources:
        raise FactUnavailable("no Ollama log to read (journal or server.log)", quiet=host.partial)
    summary = scan_sources(sources)
    if summary is None:
        raise FactUnavailable("none of the logs found looks like Ollama's")
    if not summary.lines:
        raise FactUnavailable(f"{', '.join(summary.sources)}: no line inside the log window ({_window(ctx)})")
    return summary


def _window(ctx: Context) -> str:
    from llmdoctor.knowledge.ollama.env import format_seconds

    return f"--since {format_seconds(ctx.since_seconds)}" if ctx.since_seconds else "the whole log"


@provider("ollama_deployment")
def ollama_deployment(ctx: Context, engines=None, ollama_log=None, declared_settings=None, systemd_units=None,
                      container=None) -> str:
    """How Ollama runs here ("systemd", "windows", "macos", "container", "kubernetes"), so that a
    fix is given in the form that applies; unavailable when nothing tells. A container that
    docker inspect or a compose file shows running Ollama decides it."""
    engine = ollama_engine(engines)
    from llmdoctor.facts.engines import container_engine

    from llmdoctor.knowledge.ollama.deployment import Deployment, deployment

    if container is not None and container_engine(container) in (OLLAMA, None):
        return Deployment("kubernetes" if container.form == "pod" else "container", getattr(container, "name", None))

    unit = _unit_for(engine, systemd_units)
    where = deployment(ollama_log, declared_settings, systemd=unit is not None)
    if where is None:  # a live engine found as a unit runs under systemd; a recording's unit may be only a name
        where = ctx.host.observe(lambda: "systemd" if getattr(engine, "unit", None) else None, lambda: None)
    if where is None:
        raise FactUnavailable("how Ollama runs is not known", quiet=True)
    if where == "systemd":  # the unit found, so a drop-in is written for it (not for `ollama` by habit)
        return Deployment("systemd", getattr(unit, "unit", None) or getattr(engine, "unit", None))
    return where
