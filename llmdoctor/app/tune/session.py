"""One `llmdoctor tune ollama` run: facts -> proposal -> drop-in and diff -> (apply).

Kept apart from the CLI so tests drive it with a host of their choosing (a container,
a fake) and so the CLI stays thin.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from llmdoctor.knowledge.engines import OLLAMA, EngineInstance
from llmdoctor.facts import Context, FactStore
from llmdoctor.app.tune import dropin
from llmdoctor.hosts import system_files
from llmdoctor.app.tune.apply import ApplyError, Outcome, Transaction
from llmdoctor.judge.sizing import DEFAULT_HEADROOM, DEFAULT_MAX_PARALLEL, Workload
from llmdoctor.judge.proposal import Proposal, ProposalError, make_proposal
from llmdoctor.app.tune import hostfacts
from llmdoctor.judge.tune_merge import TunePlan, combine


@dataclass
class TuneOptions:
    unit: str = "ollama.service"
    root: Path = Path("/")
    port: int | None = None
    model: str | None = None
    workload: Workload = field(default_factory=Workload)
    context: int | None = None
    max_parallel: int = DEFAULT_MAX_PARALLEL
    weights: int | None = None
    gpu_memory: int | None = None
    headroom: int = DEFAULT_HEADROOM
    ready_timeout: float = 30.0
    restart_timeout: float = 90.0
    since_seconds: float = 24 * 3600.0


@dataclass
class Prepared:
    proposal: Proposal | None  # tune's own sizing; None when it could not size (diagnose's change alone)
    values: dict[str, str]  # what the drop-in will hold
    old: str | None  # llmdoctor's drop-in now (None = absent)
    new: str
    diff: str
    path: str  # the drop-in as the system names it
    wins_over: tuple[str, ...]
    conflicts: tuple[str, ...]
    gaps: list[str]
    version: str | None
    port: int
    plan: TunePlan | None = None  # what is written and where each value comes from

    @property
    def nothing_to_change(self) -> bool:
        return self.old == self.new

    def commands(self, unit: str) -> list[str]:
        return [
            f"install -m 0644 /dev/stdin {self.path}   # written atomically: temporary file, fsync, rename",
            f"systemd-analyze verify {unit}",
            "systemctl daemon-reload",
            f"systemctl restart {unit}",
            f"systemctl show -p Environment {unit}",
            f"cat /proc/$(systemctl show -p MainPID --value {unit})/environ | tr '\\0' '\\n' | grep ^OLLAMA_",
            f"curl -fsS --max-time 5 http://127.0.0.1:{self.port}/api/version",
        ]


def _store(host: Any, opts: TuneOptions) -> FactStore:
    preset: dict[str, Any] = {}
    if opts.port is not None:
        preset["engines"] = (EngineInstance(OLLAMA, unit=opts.unit, port=opts.port, found_by="--port"),)
    return FactStore(Context(host, units=(opts.unit,), since_seconds=opts.since_seconds), preset)


def ollama_port(store: FactStore, opts: TuneOptions) -> int:
    if opts.port is not None:
        return opts.port
    for e in store.optional("engines") or ():
        if getattr(e, "kind", None) == OLLAMA and getattr(e, "port", None):
            return int(e.port)
    return 11434


def diagnosed_change(host: Any, opts: TuneOptions, store: FactStore) -> tuple[Any, str, str]:
    """(diagnose's What to change for the unit or None, the memory findings that stand ("" when
    none), a gap line when diagnose could not run) from the same facts tune sizes from."""
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
    from llmdoctor.judge.remedy import MEMORY

    try:
        report = diagnose_target(host, DiagnoseOptions(units=(opts.unit,), since_seconds=opts.since_seconds),
                                 store=store).report
    except Exception as e:  # tune still sizes on its own; the gap says why diagnose's change is absent
        return None, "", f"diagnose: {e}"
    memory = "; ".join(f"{f.cause.value}, {f.check}" for f in report.findings if f.cause in MEMORY)
    place = f"systemd {opts.unit}"
    return next((c for c in report.changes if c.place == place), None), memory, ""


def _size(facts: Any, gaps: list[str], opts: TuneOptions, port: int) -> Proposal:
    """tune's own bounded sizing. Raises ProposalError on bad or missing input."""
    if facts.version is None and not facts.loaded and not facts.model_info:
        why = next((g for g in gaps if g.startswith(("ollama_version", "ollama_ps", "engines"))), "no answer")
        raise ProposalError(f"Ollama does not answer on port {port} ({why}); start it, or give --port "
                            f"if it listens elsewhere")
    if opts.model and not facts.model_info:
        raise ProposalError(f"Ollama does not know model {opts.model!r}: " + ("; ".join(g for g in gaps if "/api/show" in g) or "no /api/show answer"))
    return make_proposal(facts, opts.workload, context=opts.context, max_parallel=opts.max_parallel,
                         weights=opts.weights, gpu_memory=opts.gpu_memory, headroom=opts.headroom)


def prepare(host: Any, opts: TuneOptions, store: FactStore | None = None) -> Prepared:
    """Everything a dry run shows: diagnose's What to change for the unit, plus tune's sizing where
    that change sets nothing (judge/tune_merge). Raises ProposalError / ApplyError on bad input."""
    store = store or _store(host, opts)
    port = ollama_port(store, opts)
    from llmdoctor.app.diagnose import sample_together

    sample_together(store)  # (sizing reads memory, the diagnosis the rest: one window for all)

    def show_for(name: str) -> dict:
        from llmdoctor.facts.ollama_api import get_show

        return get_show(host, port, name)

    facts, gaps = hostfacts.collect(store, opts.root, opts.unit, opts.model, show_for)
    diagnosed, memory, gap = diagnosed_change(host, opts, store)
    gaps += [gap] if gap else []
    asked = (opts.workload.given or opts.context is not None or opts.model is not None
             or opts.weights is not None or opts.gpu_memory is not None)
    proposal = None
    try:
        proposal = _size(facts, gaps, opts, port)
    except ProposalError as e:
        if asked or diagnosed is None:  # sizing was asked for, or there is nothing else to propose
            raise
        gaps.append(f"sizing: {e}")
    path = dropin.dropin_path(opts.root, opts.unit)
    old = system_files.read_text(path)
    if old is not None and not dropin.is_ours(old):
        raise ApplyError(f"{dropin.inside(opts.root, path)} exists and was not written by llmdoctor; not touching it")
    own = {line.name: line.value for line in dropin.parse_env_lines(old or "") if line.kind == "set"}
    plan = combine(f"systemd {opts.unit}", diagnosed, proposal.changes if proposal else (), own,
                   dropin.provenance_of(old or ""), memory)
    values = plan.values()
    new = dropin.render(values, plan.provenance())
    if not values and old is None:
        new = None  # type: ignore[assignment]
    prec = dropin.check_precedence(opts.root, opts.unit, set(values))
    shown = dropin.inside(opts.root, path)
    diff = dropin.unified_diff(old, new, shown) if new is not None else ""
    return Prepared(proposal, values, old, new if new is not None else old, diff, shown, prec.wins_over,
                    prec.conflicts, gaps, facts.version, port, plan)


def transaction(host: Any, opts: TuneOptions, port: int, http_host: Any = None,
                concurrency_check: Callable[[], tuple[bool, str]] | None = None, live: bool = True) -> Transaction:
    web = http_host or host

    def http_get(path: str, timeout: float):
        return web.http("GET", port, path, None, timeout)

    return Transaction(opts.unit, opts.root, host, http_get if live else None, live=live,
                       restart_timeout=opts.restart_timeout, ready_timeout=opts.ready_timeout,
                       concurrency_check=concurrency_check)


def apply(prepared: Prepared, txn: Transaction) -> Outcome:
    if prepared.conflicts:
        raise ApplyError("another file would override llmdoctor's values: " + "; ".join(prepared.conflicts))
    if not prepared.values and prepared.old is None:
        return Outcome(True, False, "nothing to change: the running configuration already matches the proposal")
    return txn.apply(prepared.new, prepared.values)


# -- the run's decisions, kept out of the command line -----------------------------------

class Refused(Exception):
    """This run cannot go on (bad input or missing rights); nothing was written."""


def from_evidence(directory: Path, applying: bool) -> tuple[Any, Path]:
    """(host, root) for a proposal from an evidence directory: dry runs only, the unit files
    read from its files/ copies (an empty root when it has none)."""
    from llmdoctor.hosts.evidence import EvidenceHost

    if applying:
        raise Refused("--evidence proposes only (a dry run); apply on the host itself")
    try:
        host = EvidenceHost(directory)
    except NotADirectoryError as e:
        raise Refused(str(e)) from None
    mirror = Path(directory) / "files"  # copies of host files under their absolute paths
    return host, mirror if mirror.is_dir() else Path(directory) / "files-absent"


def needs_root(live: bool, euid: int, what: str) -> None:
    """A live change writes /etc/systemd/system and restarts the service: root only."""
    if live and euid != 0:
        raise Refused(what)


def rollback(host: Any, opts: TuneOptions, live: bool) -> Outcome:
    """Restore the state before the last tune (the transaction's backup)."""
    return transaction(host, opts, opts.port or 11434, live=live).rollback()


def concurrency_check(prepared: Prepared, live: bool) -> Callable[[], tuple[bool, str]] | None:
    """After a restart with two or more slots: do two requests really start together?"""
    slots = int(prepared.values.get("OLLAMA_NUM_PARALLEL", "1") or 1)
    if not (live and slots >= 2 and prepared.proposal and prepared.proposal.model):
        return None
    from llmdoctor.app.tune.concurrency import two_requests_start_together

    base, model = f"http://127.0.0.1:{prepared.port}", prepared.proposal.model  # type: ignore[union-attr]
    return lambda: two_requests_start_together(base, model)


def apply_live(host: Any, opts: TuneOptions, prepared: Prepared, live: bool) -> Outcome:
    """Write, restart and verify, with the concurrency check where it applies; any failure
    restores the previous state."""
    if prepared.conflicts:
        raise Refused("another file would override llmdoctor's values: " + "; ".join(prepared.conflicts))
    txn = transaction(host, opts, prepared.port, live=live, concurrency_check=concurrency_check(prepared, live))
    return apply(prepared, txn)
