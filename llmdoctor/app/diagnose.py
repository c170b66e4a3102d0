"""Orchestration: run the checks against one host or many, and build the report.

Facts are collected lazily: only what an enabled check asks for, once per run.
Hosts are diagnosed in a thread pool so one slow or unreachable box never
stalls the others; each host's failure is a line in its own section.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable

from llmdoctor import __version__
from llmdoctor.plugins import CheckSpec, load_checks, run_check
from llmdoctor.facts import Context, FactStore, FactUnavailable, RunOptions
from llmdoctor.hosts.base import Host, HostError
from llmdoctor.model import UNREACHABLE, Evidence, Finding, Fix, Record, Report, TargetReport, Unavailable, record
from llmdoctor.redact import REDACTED, redact_fix, redact_text

if TYPE_CHECKING:
    from llmdoctor.model_extras import Change, Figure

# Facts every report summarises, whether or not a check needed them.
ALWAYS = ("engines", "gpu", "memory")
# the facts that sample a live host over the run's window (--sample-seconds), collected together
SAMPLED = ("cpu_load", "memory", "vllm_metrics", "engine_progress")


class UnknownCheck(ValueError):
    """--only names no check id and no cause."""


def _lines(n: int) -> str:
    return f"{n:,} line{'s' if n != 1 else ''}"


# What each engine-relevant fact says it read, or None when it read nothing (a log with no
# line inside --since). A diagnosis is only as good as these: "no problems found" is said
# about them, and with none of them the answer is "could not diagnose".
EXAMINED: dict[str, Callable[[Any], str | None]] = {
    "ollama_log": lambda v: f"Ollama log {', '.join(v.sources)} ({_lines(v.lines)})" if v.lines else None,
    "ollama_ps": lambda v: f"loaded models ({len(v)}, `ollama ps` / /api/ps)",
    "vllm_log": lambda v: "; ".join(f"vLLM log {s.source} ({_lines(s.lines)})" for s in v.scans if s.lines) or None,
    "vllm_metrics": lambda v: f"vLLM metrics ({v.source})",
    "vllm_cmdline": lambda v: "vLLM command line",
    "llamacpp_log": lambda v: "; ".join(f"llama-server log {s.source} ({_lines(s.lines)})" for s in v.scans if s.lines) or None,
    "llamacpp_state": lambda v: "llama-server " + ", ".join(sorted(v.sources) or ["endpoints"]),
    "llamacpp_cmdline": lambda v: "llama-server command line",
    "sglang_log": lambda v: "; ".join(f"SGLang log {s.source} ({_lines(s.lines)})" for s in v.scans if s.lines) or None,
    "sglang_metrics": lambda v: f"SGLang metrics ({v.source})",
    "sglang_server_info": lambda v: f"SGLang server info ({v.get('_source', '/get_server_info')})",
    "sglang_cmdline": lambda v: "SGLang command line",
    "systemd_units": lambda v: "systemd " + ", ".join(u.unit for u in v),
    "declared_settings": lambda v: "settings as written in " + ", ".join(dict.fromkeys(a.source for a in v.assignments)),
    "container": lambda v: (f"{'pod' if v.form == 'pod' else 'container'} {v.name or v.image or ''} ({v.source})".replace("  ", " ")
                            if v.speaks_of_an_engine() else None),
    "cpu_load": lambda v: f"CPU use over {v.seconds:g} s" if v.engine is not None else None,
    "engine_progress": lambda v: "; ".join(dict.fromkeys(
        f"{p.kind} :{p.port} progress ({len(p.readings)} reading{'s' if len(p.readings) != 1 else ''})"
        for p in v if p.health in ("ok", "timeout", "loading"))) or None,
    # a probe whose every request timed out measured nothing: it is not "examined"
    "probe": lambda v: "live probe" if any(s.ok for r in v.results for s in r.samples) else None,
    "prom_window": lambda v: f"{v.source}: {v.kind} series of {v.key} over the window ({len(v.series) + len(v.host)} quantities)",
}

@dataclass(frozen=True)
class DiagnoseOptions:
    """What a diagnosis is asked to do, the same for every target."""

    units: tuple[str, ...] = ()
    since_seconds: float = 24 * 3600.0
    sample_seconds: float = 2.0
    only: tuple[str, ...] = ()  # check ids (or causes) to run; empty = all
    checks_dirs: tuple[str, ...] = ()
    options: RunOptions = field(default_factory=RunOptions)

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", RunOptions.of(self.options))


class TargetResult(Record):
    """One target's report, with the facts behind it (for --verbose, probe views and tests).
    (Plain, only ever read: a frozen dataclass costs ~1 ms of every run's start to define.)"""

    __slots__ = ("report", "facts", "timings", "missing")

    def __init__(self, report: TargetReport, facts: dict[str, Any], timings: dict[str, float] | None = None,
                 missing: dict[str, str] | None = None) -> None:
        self.report = report
        self.facts = facts
        self.timings = {} if timings is None else timings  # seconds per fact collected
        self.missing = {} if missing is None else missing  # fact -> why it could not be read


def select(specs: Iterable[CheckSpec], only: Iterable[str]) -> list[CheckSpec]:
    """The checks --only names (by id or cause); UnknownCheck for a name that is neither."""
    wanted = {o.lower() for o in only}
    specs = list(specs)
    if not wanted:
        return specs
    known = {s.id.lower() for s in specs} | {s.cause.value.lower() for s in specs}
    unknown = sorted(wanted - known)
    if unknown:
        raise UnknownCheck(f"--only {', '.join(unknown)}: no check or cause of that name (`llmdoctor checks` lists them)")
    return [s for s in specs if s.id.lower() in wanted or s.cause.value.lower() in wanted]


def examined_lines(values: dict[str, Any]) -> tuple[str, ...]:
    out = []
    for name, describe in EXAMINED.items():
        if name in values and values[name] is not None:
            try:
                text = describe(values[name])
            except Exception:  # a description must never end a report
                text = name
            if text:
                out.append(text)
    return tuple(out)


# "Could not diagnose" for a live probe alone (`llmdoctor probe`: no host was read) and a sweep
PROBE_MEASURED_NOTHING = "no probe request got a complete answer (timed out, stalled or failed): nothing was measured"
SWEEP_MEASURED_NOTHING = "no sweep request got a complete answer: nothing was measured"


def not_diagnosed_reason(store: FactStore, examined: tuple[str, ...], findings) -> str:
    """Why nothing could be diagnosed, or "" when something engine-relevant was read (or a
    problem was found regardless, such as a host that swaps)."""
    if examined or any(f.severity.rank >= 1 for f in findings):
        return ""
    missing = store.missing.get("engines")
    if missing is not None:
        return missing.reason
    if "engines" not in store.values and "probe" in store.values:
        return PROBE_MEASURED_NOTHING  # a probe's store: a URL measured, no host looked at
    kinds = engine_label(store.values)
    return (f"found {kinds}, but read none of its logs, metrics, endpoints, command line or configuration "
            f"(see Could not examine)")


def engine_label(facts: dict[str, Any]) -> str:
    engines = facts.get("engines") or ()
    kinds = sorted({e.kind for e in engines})
    return ",".join(kinds) if kinds else "none"


def _summary(store: FactStore) -> tuple[tuple[str, str], ...]:
    from llmdoctor.judge.summaries import summary_of

    lines: list[tuple[str, str]] = []
    for name, value in store.values.items():
        try:
            lines.extend((str(k), str(v)) for k, v in summary_of(name, value))
        except Exception as e:  # a summary must never end a report
            lines.append((name, f"summary failed: {e}"))
    return tuple(lines)


def redact_finding(f: Finding) -> Finding:
    """Secrets never leave the host, whatever a check put into its evidence or fix. A fix whose
    rendering carried one is rendered again from its redacted remedy (a command line with a
    secret in it becomes the template, not a comment)."""
    commands, config = tuple(redact_fix(c) for c in f.fix.commands), redact_fix(f.fix.config)
    remedy = redact_remedy(f.fix.remedy) if f.fix.remedy is not None else None
    if remedy is not None and (commands != f.fix.commands or config != f.fix.config):
        from llmdoctor.judge.fixes import render

        commands, config = render(remedy)
        commands, config = tuple(redact_fix(c) for c in commands), redact_fix(config)
    return replace(
        f,
        evidence=tuple(Evidence(e.source, redact_text(e.text)) for e in f.evidence),
        fix=Fix(redact_text(f.fix.summary), commands, config, remedy=remedy),
    )


def _reference(word: str) -> bool:
    """`$(VAR)` (a pod's reference to its env) or `$VAR` / `${VAR}`: the name of a secret, not its value."""
    return bool(re.fullmatch(r"\$\([A-Za-z_][A-Za-z0-9_]*\)|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", word))


def redact_remedy(r):
    """A remedy whose settings and running command line carry no secret: a secret's value becomes
    REDACTED, which every renderer writes as "keep it as it is set now", never as a value."""
    from llmdoctor.redact import is_secret_name, redact_value

    def value(name: str, v):
        return redact_value(name.lstrip("-").replace("-", "_").upper(), v) if isinstance(v, str) and v else v

    argv, after_secret = [], False
    for word in r.argv:
        flag = word.split("=", 1)[0]
        secret = flag.startswith("-") and is_secret_name(flag.lstrip("-").replace("-", "_").upper())
        argv.append(word if _reference(word) else REDACTED if after_secret and not word.startswith("-") else
                    f"{flag}={REDACTED}" if secret and "=" in word else redact_text(word))
        after_secret = secret and "=" not in word
    return replace(r, settings=tuple(replace(s, value=value(s.name, s.value)) for s in r.settings), argv=tuple(argv),
                   alternatives=tuple(redact_remedy(a) for a in r.alternatives))


def diagnose_target(
    host: Host,
    opts: DiagnoseOptions,
    specs: list[CheckSpec] | None = None,
    load_errors: Iterable[str] = (),
    store: FactStore | None = None,
    withheld=None,
) -> TargetResult:
    """`store`: facts already collected for this host (tune diagnoses the facts it sized from).
    `withheld`: a redact_struct.Withheld the caller opened before the host connected (a pod's
    spec is redacted as it is read), else one is opened here."""
    if withheld is not None:
        return _diagnose_target(host, opts, specs, load_errors, store, withheld)
    from llmdoctor.redact_struct import Withheld

    with Withheld() as tally:  # what the report withholds (its values, not how often they appear)
        return _diagnose_target(host, opts, specs, load_errors, store, tally)


def _diagnose_target(host: Host, opts: DiagnoseOptions, specs, load_errors, store, tally) -> TargetResult:
    if specs is None:
        specs, errs = load_checks(opts.checks_dirs, deferred=True)
        load_errors = list(load_errors) + errs
    specs = select(specs, opts.only)
    ctx = Context(
        host=host,
        units=opts.units,
        since_seconds=opts.since_seconds,
        sample_seconds=opts.sample_seconds,
        options=opts.options,
    )
    store = store if store is not None else FactStore(ctx)
    errors: list[str] = list(load_errors) + [redact_text(p) for p in host.problems]
    store.optional("engines")
    sample_together(store, specs)
    for name in ALWAYS:
        store.optional(name)
    instances = several_instances(store.values.get("engines"))
    if instances:
        return _per_instance(host, ctx, store, instances, specs, errors, tally)
    part = _diagnose_store(store, specs, errors)
    audience = Audience(store)
    findings = fitted(part.findings, audience)
    changes = what_to_change(findings, store.values, audience)
    pod = store.values.get("container")
    if getattr(pod, "form", None) == "pod":  # a Kubernetes pod: every fix goes to its Deployment's spec
        from llmdoctor.judge.pod_fixes import change_in_pod, in_pod

        findings = tuple(replace(f, fix=in_pod(f.fix, pod.spec)) for f in findings)
        changes = tuple(change_in_pod(c, pod.spec) for c in changes)
    findings = sudo_where_needed(findings, audience)
    figures, measurements = _probe_parts(store.values.get("probe"))
    report = TargetReport(
        target=redact_text(host.name),
        engine=engine_label(store.values),
        findings=findings,
        unavailable=part.unavailable,
        errors=tuple(errors),
        summary=tuple((k, redact_text(v)) for k, v in _summary(store)),
        examined=tuple(redact_text(e) for e in part.examined),
        not_diagnosed=redact_text(not_diagnosed_reason(store, part.examined, findings)),
        figures=figures,
        probe=measurements,
        changes=changes,
        withheld=tally.count,
    )
    missing = {name: redact_text(e.reason) for name, e in store.missing.items()}
    return TargetResult(report, dict(store.values), dict(store.timings), missing)


def sample_together(store: FactStore, specs=None) -> None:
    """On a live host, the sampled facts the checks `specs` will ask for (None: every check) and
    memory (always) in one window: asked in turn, each took a window of its own (a run asked for
    2 s waited 4, 6 with vLLM)."""
    ctx = store.ctx
    if ctx.sample_seconds > 0 and ctx.host.observe(lambda: True, lambda: False):
        wanted = set(SAMPLED) if specs is None else store.needed({p for spec in specs for p in spec.params} | set(ALWAYS))
        store.collect_together(name for name in SAMPLED if name in wanted)


@record
class _Part(Record):
    """One store's findings, gaps and what was read. (A record: a frozen dataclass costs ~1.5 ms to define.)"""

    findings: tuple[Finding, ...]
    unavailable: tuple[Unavailable, ...]
    examined: tuple[str, ...]


def _diagnose_store(store: FactStore, specs: list[CheckSpec], errors: list[str]) -> _Part:
    """Run the checks on one store: its findings (worst first), what could not be read, what was."""
    findings = []
    wanted: set[str] = set(ALWAYS)
    for spec in specs:
        wanted.update(p for p in spec.params if store.known(p))
        outcome = run_check(spec, store)
        findings.extend(redact_finding(f) for f in outcome.findings)
        if outcome.crash:
            errors.append(outcome.crash)
    unavailable = []
    shown: set[int] = set()  # a fact missing because another is missing shares its exception: say it once
    for name in list(ALWAYS) + sorted(store.missing):
        e = store.missing.get(name)
        if e is None or e.quiet or name not in wanted or id(e) in shown:
            continue
        shown.add(id(e))
        unavailable.append(Unavailable(name, e.reason))
    findings.sort(key=lambda f: (-f.severity.rank, f.confidence.rank, f.check))
    if len(findings) > 1:
        from llmdoctor.judge.chains import link

        findings = link(findings, store.values)
    return _Part(tuple(findings), tuple(unavailable), examined_lines(store.values))


def judge_probe(runs: Any, specs: list[CheckSpec] | None = None, load_errors: Iterable[str] = ()) -> Report:
    """`llmdoctor probe`: the probe_* checks on each URL's measurements through the same steps as a
    diagnosis (the same ranking, redaction, chains and "could not diagnose"); one TargetReport per URL.
    The probe's own summary lines stand for the facts' summary (the only fact is the probe)."""
    from llmdoctor.knowledge.probe.result import ProbeRuns
    from llmdoctor.judge.probe.verdicts import summary_lines

    if specs is None:
        specs, errs = load_checks(site_dir=None, entry_points=False)
        load_errors = list(load_errors) + errs
    specs = [s for s in specs if s.id.startswith("probe-")]
    targets = []
    for r in runs.results:
        store = FactStore(Context(host=None), preset={"probe": ProbeRuns((r,))})  # type: ignore[arg-type]
        errors = list(load_errors)
        part = _diagnose_store(store, specs, errors)
        findings = sudo_where_needed(part.findings, Audience(None))  # the reader of a probe is not known
        targets.append(TargetReport(target=r.url, engine=r.engine, findings=findings,
                                    errors=tuple(errors) + r.errors,
                                    not_diagnosed=not_diagnosed_reason(store, part.examined, part.findings),
                                    summary=tuple(summary_lines(r)) + tuple(("probe note", n) for n in r.notes)))
    return Report(__version__, tuple(targets))


def sweep_target(url: str, engine: str, verdict: Any) -> TargetReport:
    """`llmdoctor probe --sweep`: one engine's judged sweep (judge/probe/sweep.py) as a report
    target: its figures, its failed requests, its summary lines, or why it says nothing."""
    from llmdoctor.judge.probe.sweep import summary_lines, sweep_figures

    measured = any(s.ok for s in verdict.levels)
    return TargetReport(
        target=url, engine=engine, figures=sweep_figures(verdict),
        errors=tuple(f"{s.id}: {s.error}" for level in verdict.result.levels for s in level.samples
                     if not s.ok and s.status != "interrupted"),
        not_diagnosed="" if measured else SWEEP_MEASURED_NOTHING,
        summary=summary_lines(verdict))


def with_unreachable(report: Report, failures: Iterable[str]) -> Report:
    """`URL: why` lines of targets that could not be probed, as unreachable targets after the others."""
    return Report(report.version, report.targets + tuple(
        TargetReport(target=f.split(": ", 1)[0], engine=UNREACHABLE, errors=(f,), reachable=False) for f in failures))


def several_instances(engines) -> tuple:
    """The instances to diagnose one by one: all of them, where some engine runs more than once
    here (two llama-servers are two configurations, two APIs, two sets of findings); () otherwise."""
    by_port: dict = {}
    for e in engines or ():  # a server's forked workers show its command line too: one port, one server
        by_port.setdefault((e.kind, e.port) if e.port else (e.kind, id(e)), e)
    kinds = [e.kind for e in by_port.values()]
    return tuple(by_port.values()) if len(set(kinds)) < len(kinds) else ()


def instance_label(e) -> str:
    """`llamacpp pid 3100 :8081`, `ollama unit ollama.service :11434`: what tells this instance apart."""
    parts = [e.kind] + ([f"unit {e.unit}"] if e.unit else []) + ([f"pid {e.pid}"] if e.pid else [])
    return " ".join(parts + ([f":{e.port}"] if e.port else []))


def _per_instance(host: Host, ctx: Context, store: FactStore, instances, specs, errors, tally) -> TargetResult:
    """Each instance in a store of its own (its config, its API answers, its logs), sharing the
    host's facts (GPU, memory); findings, summary lines, gaps and changes say which instance."""
    shared = {k: v for k, v in store.values.items() if k in ALWAYS and k != "engines"}
    findings, unavailable, examined, summary, changes, figures, measured = [], [], [], [], [], [], []
    summary.extend((k, v) for k, v in _summary(store))
    values, timings, missing = dict(store.values), dict(store.timings), {}
    for inst in instances:
        label = instance_label(inst)
        sub = FactStore(ctx, preset={"engines": (inst,), **shared})
        sample_together(sub, specs)
        part = _diagnose_store(sub, specs, errors)
        audience = Audience(sub)
        own = [replace(f, instance=label) for f in fitted(part.findings, audience)]
        findings += sudo_where_needed(own, audience)
        unavailable += [Unavailable(f"{u.fact} ({label})", u.reason) for u in part.unavailable
                        if u.fact not in shared]
        examined += [f"{label}: {e}" for e in part.examined]
        summary += [(f"{k} ({label})", v) for k, v in _summary(sub) if not any(k == s for s, _ in summary)]
        changes += [replace(c, place=f"{c.place} ({label})") for c in what_to_change(own, sub.values, audience)]
        figs, runs = _probe_parts(sub.values.get("probe"))
        figures += [replace(f, name=f"{f.name}_{inst.port or len(figures)}") for f in figs]  # one name per instance
        measured += runs
        values.update({f"{k} ({label})": v for k, v in sub.values.items() if k not in shared})
        missing.update({f"{k} ({label})": redact_text(e.reason) for k, e in sub.missing.items()})
    findings.sort(key=lambda f: (-f.severity.rank, f.confidence.rank, f.check, f.instance))
    if any(f.caused_by for f in findings):
        from llmdoctor.judge.chains import root_first

        findings = root_first(findings)
    report = TargetReport(
        target=redact_text(host.name),
        engine=engine_label(store.values),
        findings=tuple(findings),
        unavailable=tuple(unavailable),
        errors=tuple(errors),
        summary=tuple((k, redact_text(v)) for k, v in summary),
        examined=tuple(redact_text(e) for e in examined),
        not_diagnosed=redact_text(not_diagnosed_reason(store, tuple(examined), findings)),
        figures=tuple(figures),
        probe=tuple(measured),
        changes=tuple(changes),
        withheld=tally.count,
    )
    return TargetResult(report, values, timings, missing)


class Audience:
    """Who pastes the fixes, on what (judge/fixes.for_audience), from the store's facts: each fact is
    asked for only when a fix needs it (the reader for a command that needs root, the GPU for a GPU
    setting, the vLLM release for a vLLM command line), and an unavailable one is None (unknown)."""

    def __init__(self, store: FactStore | None) -> None:
        self._store = store

    def _fact(self, name: str):
        return self._store.optional(name) if self._store is not None else None

    @property
    def root(self):
        return getattr(self._fact("reader"), "root", None)

    @property
    def journal(self):
        return getattr(self._fact("reader"), "journal", None)

    @property
    def gpu(self):
        found = self._fact("host_gpu")
        return found[0] if found else None

    @property
    def vllm_version(self):
        return self._fact("vllm_version")


def fitted(findings, audience: Audience) -> tuple[Finding, ...]:
    """The findings' fixes without what the host cannot take (before they are merged)."""
    from llmdoctor.judge.fixes import fit_host

    return tuple(replace(f, fix=fit_host(f.fix, audience)) if f.fix.remedy is not None else f for f in findings)


def sudo_where_needed(findings, audience: Audience) -> tuple[Finding, ...]:
    """The findings' commands with `sudo` where this reader needs it (after a pod's rewrite)."""
    from llmdoctor.judge.fixes import with_sudo

    return tuple(replace(f, fix=with_sudo(f.fix, audience)) if f.fix.commands else f for f in findings)


def what_to_change(findings, facts: dict[str, Any], audience: Audience | None = None) -> tuple[Change, ...]:
    """The findings' settings merged into one change per place, with secrets left out."""
    if not findings:
        return ()  # (nothing to merge: the merging rules are not even imported)
    from llmdoctor.judge.remedy import merge

    argv = {}
    for fact, place in (("llamacpp_cmdline", "llama-server command line"), ("vllm_cmdline", "vllm serve command line"),
                        ("sglang_cmdline", "SGLang command line")):
        value = facts.get(fact)
        if value is not None and getattr(value, "argv", None) and redact_text(" ".join(value.argv)) == " ".join(value.argv):
            argv[place] = tuple(value.argv)  # a command line with a secret in it is not rewritten
    try:
        changes = merge(findings, argv, audience if audience is not None else Audience(None))
    except Exception:  # the merged change is a convenience; the findings' own fixes stand
        return ()
    return tuple(replace(c, commands=tuple(redact_text(x) for x in c.commands), config=redact_text(c.config))
                 for c in changes)


def _probe_parts(runs: Any) -> tuple[tuple[Figure, ...], tuple[dict[str, Any], ...]]:
    """The probe's figures (performance data) and its measurements, with URLs redacted."""
    if runs is None:
        return (), ()
    from llmdoctor.judge.probe.figures import probe_figures
    from llmdoctor.judge.probe.verdicts import runs_with_verdicts

    return probe_figures(runs), tuple(_redacted(r) for r in runs_with_verdicts(runs))


def _redacted(value: Any) -> Any:
    """Every string inside a JSON-shaped value redacted (keys included), the shape kept."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {redact_text(str(k)): _redacted(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redacted(v) for v in value]
    return value


def unreachable(target: str, reason: str) -> TargetResult:
    return TargetResult(TargetReport(target=redact_text(target), engine=UNREACHABLE, errors=(redact_text(reason),),
                                     reachable=False), {})


def diagnose(
    hosts: Iterable[Host | Callable[[], Host]],
    opts: DiagnoseOptions,
    forks: int = 10,
    names: Iterable[str] | None = None,
) -> tuple[Report, list[TargetResult]]:
    """Diagnose every host concurrently. A host may be given as a factory, so that
    connecting (which can fail) happens inside its own worker."""
    specs, load_errors = load_checks(opts.checks_dirs, deferred=True)
    select(specs, opts.only)  # an unknown --only name is an error before anything runs
    hosts = list(hosts)
    labels = list(names) if names is not None else [getattr(h, "name", str(h)) for h in hosts]

    def one(item: tuple[str, Host | Callable[[], Host]]) -> TargetResult:
        label, h = item
        host = None
        from llmdoctor.redact_struct import Withheld

        try:
            with Withheld() as tally:  # (open while connecting: a host may redact what it reads then)
                host = h() if callable(h) and not hasattr(h, "run") else h
                return diagnose_target(host, opts, specs, load_errors, withheld=tally)
        except (HostError, OSError) as e:
            return unreachable(label, str(e) or type(e).__name__)
        except FactUnavailable as e:
            return unreachable(label, e.reason)
        finally:
            if host is not None:
                try:
                    host.close()
                except Exception:
                    pass

    if len(hosts) <= 1:  # one target (the common case): no worker thread, no concurrent.futures import
        results = [one(item) for item in zip(labels, hosts)]
    else:
        from concurrent.futures import ThreadPoolExecutor

        import threading
        import time

        from llmdoctor.steps import say

        started, finished, lock = time.monotonic(), [], threading.Lock()

        def told(item):  # one line as each host ends: which, how many are left
            result = one(item)
            with lock:
                finished.append(item[0])
                n = len(finished)
            say(f"{item[0]} done ({n} of {len(hosts)} hosts, {time.monotonic() - started:.0f} s"
                + (f"; {len(hosts) - n} left)" if n < len(hosts) else ")"))
            return result

        with ThreadPoolExecutor(max_workers=max(1, min(forks, len(hosts)))) as pool:
            results = list(pool.map(told, zip(labels, hosts)))
    return Report(__version__, tuple(r.report for r in results)), results
