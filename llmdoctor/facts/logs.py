"""Fact "log_sources": where the engines' log lines can be read.

One journal source per engine unit (an engine found only as a process or a port
has no journal to read), plus the files the user named (ctx.options["log_files"]),
plus, on an evidence host, its log files. Options: "state_dir" (remember positions,
so a scheduled run reads only new lines), "journal_directory" (read journal files
from a directory instead of the system journal).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from llmdoctor.engines import LLAMACPP, OLLAMA, VLLM, EngineInstance
from llmdoctor.facts import Context, FactUnavailable, provider

if TYPE_CHECKING:  # llmdoctor.logs is imported where used, once there are logs to read (start-up time)
    from llmdoctor.logs import ResumeState

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
        return lines


def _state(ctx: Context) -> ResumeState | None:
    directory = ctx.options.get("state_dir")
    if not directory:
        return None
    from llmdoctor.logs import ResumeState

    return ResumeState(Path(directory) / STATE_FILE)


def _single_engine(engines: tuple[EngineInstance, ...]) -> str | None:
    kinds = {e.kind for e in engines}
    return kinds.pop() if len(kinds) == 1 else None


def _sniff_file(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return sniff_engine(f.read(64 * 1024).decode("utf-8", "replace"))
    except OSError:
        return None


@provider("log_sources")
def log_sources(ctx: Context, engines=(), evidence_recognition=None) -> LogSources:
    host = ctx.host
    engines = tuple(engines or ())
    state = _state(ctx)
    sources: list = []
    problems: list[str] = []
    if host.kind == "evidence":
        log_files = host.log_files()
        if not log_files:
            raise FactUnavailable("no log files in the evidence (journal.log, server.log, vllm.log, *.log)", quiet=True)
        from llmdoctor.logs import EvidenceFileSource, engine_from_name

        only = _single_engine(engines)
        kinds = {e.kind for e in engines}
        per_file = evidence_recognition.files if evidence_recognition is not None else {}
        for name in log_files:
            path = str(host.path(name))
            engine = per_file.get(name)
            if engine not in kinds:  # meta.json named the engine: its logs are that engine's
                engine = None
            engine = engine or engine_from_name(name) or only or _sniff_file(path)
            sources.append(EvidenceFileSource(host, name, engine, ctx.since_seconds))
        return LogSources(sources)

    from llmdoctor.logs import FileSource, JournalSource, RemoteFileSource, engine_from_name

    units = dict.fromkeys(e.unit for e in engines if e.unit)
    kinds = {e.unit: e.kind for e in engines if e.unit}
    for unit in units:
        source = JournalSource(
            host, unit, kinds.get(unit), ctx.since_seconds, state, ctx.options.get("journal_directory")
        )
        reason = source.probe()
        if reason:
            problems.append(f"{source.name}: {reason}")
        else:
            sources.append(source)
    for path in ctx.options.get("log_files") or ():
        if host.kind == "local":
            if not os.access(path, os.R_OK):
                problems.append(f"{path}: not readable")
                continue
            engine = engine_from_name(path) or _sniff_file(path) or _single_engine(engines)
            sources.append(FileSource(path, engine=engine, since_seconds=ctx.since_seconds, state=state,
                                      state_key=f"{host.name}|file:{os.path.abspath(path)}"))
        else:
            sources.append(RemoteFileSource(host, path, engine_from_name(path) or _single_engine(engines),
                                            ctx.since_seconds, state))
    if not sources:
        if problems:
            raise FactUnavailable("; ".join(problems))
        raise FactUnavailable("no log sources (no engine runs as a systemd unit; name files with --log)", quiet=True)
    return LogSources(sources, problems)
