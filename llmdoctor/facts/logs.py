"""Fact "log_sources": where the engines' log lines can be read.

One journal source per engine unit (an engine found only as a process or a port
has no journal to read), plus the files the user named (ctx.options.log_files),
plus the logs a recording holds (host.recorded_logs()). Options: "state_dir" (remember positions,
so a scheduled run reads only new lines), "journal_directory" (read journal files
from a directory instead of the system journal).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from llmdoctor.knowledge.engines import EngineInstance
from llmdoctor.facts import Context, FactUnavailable, provider

if TYPE_CHECKING:  # llmdoctor.hosts.logs is imported where used, once there are logs to read (start-up time)
    from llmdoctor.hosts.logs import ResumeState

STATE_FILE = "log-state.json"


def sniff_engine(text: str) -> str | None:
    """The engine whose signs `text` carries (knowledge.recognize); None when there are none."""
    from llmdoctor.knowledge.recognize import engine_of_text

    return engine_of_text(text)


class LogSources(tuple):
    """The sources, plus the ones that could not be opened and why."""

    problems: tuple[str, ...] = ()

    def __new__(cls, sources, problems=()):
        obj = super().__new__(cls, sources)
        obj.problems = tuple(problems)
        return obj

    def summary(self) -> list[tuple[str, str]]:
        lines = []
        if self:
            lines.append(("Logs", ", ".join(s.name for s in self)))
        for p in self.problems:
            lines.append(("Logs not read", p))
        for s in self:
            own = getattr(s, "_own", None)
            if own is not None and own.left_out:
                lines.append(("Logs left out", f"{own.left_out:,} lines of {s.name}: the requests of llmdoctor's "
                              "own probe runs (probe-runs.json)"))
        return lines


def _state(ctx: Context) -> ResumeState | None:
    directory = ctx.options.state_dir
    if not directory:
        return None
    from llmdoctor.hosts.logs import ResumeState

    return ResumeState(Path(directory) / STATE_FILE)


def _single_engine(engines: tuple[EngineInstance, ...]) -> str | None:
    kinds = {e.kind for e in engines}
    return kinds.pop() if len(kinds) == 1 else None


def _sniff_file(host, path: str) -> str | None:
    """The engine whose lines the head of a log file carries."""
    from llmdoctor.hosts.base import HostError

    try:
        return sniff_engine(host.read(path, 64 * 1024).decode("utf-8", "replace"))
    except (OSError, HostError):
        return None


@provider("log_sources")
def log_sources(ctx: Context, engines=(), evidence_recognition=None) -> LogSources:
    """The engines' journals, the files named with --log, and the logs a recording holds."""
    from llmdoctor.hosts.base import HostError, Unanswerable
    from llmdoctor.knowledge.recognize import engine_from_name

    host = ctx.host
    engines = tuple(engines or ())
    state = _state(ctx)
    only = _single_engine(engines)
    kinds = {e.kind for e in engines}
    per_file = evidence_recognition.files if evidence_recognition is not None else {}
    sources: list = []
    problems: list[str] = []
    for name in host.recorded_logs():
        engine = per_file.get(name)
        if engine not in kinds:  # meta.json named the engine: its logs are that engine's
            engine = None
        sources.append(host.log_file(name, engine or engine_from_name(name) or only, ctx.since_seconds, state))
    kinds_by_unit = {e.unit: e.kind for e in engines if e.unit}
    for unit, kind in kinds_by_unit.items():
        try:
            source = host.journal(unit, kind, ctx.since_seconds, state, ctx.options.journal_directory)
        except Unanswerable:
            continue
        reason = source.probe()
        if reason:
            problems.append(f"{source.name}: {reason}")
        else:
            sources.append(source)
    try:  # a container's own log (`docker logs`): a container target has no journal
        source = host.container_log(only, ctx.since_seconds, state)
        reason = source.probe()
        (problems.append(f"{source.name}: {reason}") if reason else sources.append(source))
    except Unanswerable:
        pass
    for path in ctx.options.log_files:
        try:
            sources.append(host.log_file(path, engine_from_name(path) or _sniff_file(host, path) or only,
                                         ctx.since_seconds, state))
        except HostError as e:
            problems.append(f"{path}: {e}")
    sources = host.observe(lambda: _without_probe(sources), lambda: sources)  # a recording ran no probe of ours
    if not sources:
        if problems:
            raise FactUnavailable("; ".join(problems))
        raise FactUnavailable("no log sources (no engine runs as a systemd unit; name files with --log)",
                              quiet=True)
    return LogSources(sources, problems)


class _ProbeFiltered:
    """A log source less the lines the probe's own requests left (knowledge/probe/own_requests.py).
    Only lines(): the block readers would bypass the filter. Its snapshot key adds the probe's
    runs, so an unchanged log is still scanned once while the runs stay the same."""

    _BYPASS = frozenset({"raw_regions", "raw_blocks", "blocks"})

    def __init__(self, inner, own) -> None:
        self._inner, self._own = inner, own

    def __getattr__(self, name: str):
        if name in self._BYPASS:
            raise AttributeError(name)
        return getattr(self._inner, name)

    def snapshot_key(self):
        key_of = getattr(self._inner, "snapshot_key", None)
        key = key_of() if callable(key_of) else None
        return None if key is None else tuple(key) + ("probe-runs",) + self._own.key

    def lines(self):
        return self._own.filter(self._inner.lines())


def _without_probe(sources: list) -> list:
    """Wrap each source whose engine the probe ran against within the last day."""
    from llmdoctor.facts.probe_runs import load_windows

    windows = load_windows()
    if not windows:
        return sources
    from llmdoctor.knowledge.probe.own_requests import OwnRequests

    out = []
    for s in sources:
        own = OwnRequests(windows, getattr(s, "engine", None))
        out.append(_ProbeFiltered(s, own) if own else s)
    return out
