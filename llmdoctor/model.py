"""The result model: what a diagnosis says, as frozen values with a stable JSON form.

Other tools parse the JSON (see README "JSON contract"), so field names and the
closed set of causes change only with a version bump.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum, IntEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llmdoctor.model_extras import Change, Figure


def __getattr__(name: str) -> Any:
    """Change and Figure, from model_extras.py on first use (most runs make neither)."""
    if name in ("Change", "Figure"):
        from llmdoctor import model_extras

        return getattr(model_extras, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Cause(str, Enum):
    """The closed set of reasons a self-hosted model gets slow."""

    QUEUEING = "QUEUEING"
    QUEUE_FULL = "QUEUE_FULL"
    PREFILL = "PREFILL"
    SWAP = "SWAP"
    PREEMPTION = "PREEMPTION"
    MODEL_UNLOAD = "MODEL_UNLOAD"
    CPU_SPILL = "CPU_SPILL"
    CONFIG_NOT_APPLIED = "CONFIG_NOT_APPLIED"
    CONTEXT_TRUNCATION = "CONTEXT_TRUNCATION"
    KV_CAPACITY = "KV_CAPACITY"
    BANDWIDTH_LIMIT = "BANDWIDTH_LIMIT"
    ENGINE_STALLED = "ENGINE_STALLED"
    CPU_CONTENTION = "CPU_CONTENTION"
    GPU_DEGRADED = "GPU_DEGRADED"
    HEALTHY = "HEALTHY"


class Severity(str, Enum):
    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"critical": 2, "warning": 1, "info": 0}[self.value]


class Confidence(str, Enum):
    """How sure a finding is: high when the evidence line names the cause itself, lower when
    the cause is inferred from figures or from settings alone."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        return {"high": 0, "medium": 1, "low": 2}[self.value]


UNREACHABLE = "unreachable"  # the engine label of a target that could not be examined at all


class ExitCode(IntEnum):
    """Exit codes as monitoring plugins use them (Nagios convention)."""

    OK = 0
    WARNING = 1
    CRITICAL = 2
    UNKNOWN = 3  # could not diagnose


@dataclass(frozen=True)
class Evidence:
    """One line or figure that proves a finding, and where it came from."""

    source: str
    text: str


@dataclass(frozen=True)
class Fix:
    """What to do about a finding: a summary, the commands to run, the file to write."""

    summary: str
    commands: tuple[str, ...] = ()
    config: str = ""


@dataclass(frozen=True)
class Finding:
    """One diagnosed cause: how bad, the evidence that proves it and its fix."""

    cause: Cause
    severity: Severity
    title: str
    evidence: tuple[Evidence, ...]
    fix: Fix
    check: str = ""  # filled in by the check runner from the check's id
    confidence: Confidence = Confidence.HIGH
    instance: str = ""  # which engine instance it is about, where a host runs several ("llamacpp pid 3100 :8081")
    caused_by: str = ""  # the check id of the finding this one follows from (judge/chains.py), listed before it

    def __post_init__(self) -> None:
        if not self.evidence:
            raise ValueError(f"finding {self.title!r} has no evidence")
        object.__setattr__(self, "confidence", Confidence(self.confidence))  # site checks may pass "medium"
        # Accept lists from check authors; keep the value hashable and frozen.
        object.__setattr__(self, "evidence", tuple(self.evidence))

    def with_check(self, check_id: str) -> "Finding":
        return replace(self, check=check_id)


class Record:
    """A record's ==, hash and repr over its __slots__, in order, as a frozen dataclass has them.

    For the records a diagnosis defines on every start (a plain class with __slots__ and a
    written __init__): defining a frozen dataclass costs ~1 ms of start-up, a plain class next
    to nothing. Only for records that are never replace()d, copied field by field or pickled;
    what check authors build (Evidence, Fix, Finding) stays a dataclass."""

    __slots__ = ()

    def _key(self) -> tuple:
        return tuple(getattr(self, n) for n in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.__slots__)})"


class Unavailable(Record):
    """A fact that could not be examined, and why (shown at the end of a report)."""

    __slots__ = ("fact", "reason")

    def __init__(self, fact: str, reason: str) -> None:
        self.fact = fact
        self.reason = reason


class TargetReport(Record):
    """The diagnosis of one host or evidence directory."""

    __slots__ = ("target", "engine", "findings", "unavailable", "errors", "summary", "examined", "not_diagnosed",
                 "reachable", "figures", "probe", "changes", "withheld")

    def __init__(
        self,
        target: str,
        engine: str,
        findings: tuple[Finding, ...] = (),
        unavailable: tuple[Unavailable, ...] = (),
        errors: tuple[str, ...] = (),
        summary: tuple[tuple[str, str], ...] = (),
        examined: tuple[str, ...] = (),
        not_diagnosed: str = "",
        reachable: bool = True,
        figures: tuple[Figure, ...] = (),
        probe: tuple[dict[str, Any], ...] = (),
        changes: tuple[Change, ...] = (),
        withheld: int = 0,
    ) -> None:
        self.target = target
        self.engine = engine
        self.findings = findings
        self.unavailable = unavailable
        self.errors = errors
        self.summary = summary  # (label, value) facts shown above findings
        self.examined = examined  # what was read: "no problems found" is said about these only
        self.not_diagnosed = not_diagnosed  # why nothing could be diagnosed (nothing engine-relevant was read)
        self.reachable = reachable  # False: the target could not be examined at all (errors say why)
        self.figures = figures  # measured numbers (the probe's latencies), for monitors
        self.probe = probe  # the probe's own measurements, as `probe --format json` has them
        self.changes = changes  # "What to change": the findings' settings merged per place
        self.withheld = withheld  # distinct values the keep-list redaction withheld from this report

    @property
    def diagnosed(self) -> bool:
        return not self.not_diagnosed and self.reachable

    @property
    def could_not_diagnose(self) -> str:
        """Why this target has no diagnosis ("" when it has one): the one reason every output
        gives, so text never says "No findings." where JSON says "could not diagnose"."""
        if self.diagnosed:
            return ""
        return self.not_diagnosed or (self.errors[0] if self.errors else "the target could not be examined")

    @property
    def worst(self) -> Severity | None:
        ranked = sorted((f.severity for f in self.findings), key=lambda s: s.rank)
        return ranked[-1] if ranked else None


class Report(Record):
    """One run's diagnosis: a report per target, and the exit code they make together."""

    __slots__ = ("version", "targets")

    def __init__(self, version: str, targets: tuple[TargetReport, ...] = ()) -> None:
        self.version = version
        self.targets = targets

    def exit_code(self) -> int:
        """Worst across targets: critical (2) > could not diagnose (3) > warning (1) > ok (0)."""
        worst = [t.worst for t in self.targets]
        if Severity.CRITICAL in worst:
            return ExitCode.CRITICAL
        if not self.targets or any(not t.diagnosed for t in self.targets):
            return ExitCode.UNKNOWN
        if Severity.WARNING in worst:
            return ExitCode.WARNING
        return ExitCode.OK


def finding_to_dict(f: Finding) -> dict[str, Any]:
    return {
        "check": f.check,
        "cause": f.cause.value,
        "severity": f.severity.value,
        "confidence": f.confidence.value,
        "title": f.title,
        "evidence": [{"source": e.source, "text": e.text} for e in f.evidence],
        "fix": {"summary": f.fix.summary, "commands": list(f.fix.commands), "config": f.fix.config},
        **({"instance": f.instance} if f.instance else {}),
        **({"caused_by": f.caused_by} if f.caused_by else {}),
    }


def change_to_dict(c: Change) -> dict[str, Any]:
    return {"place": c.place, "settings": dict(c.settings), "commands": list(c.commands), "config": c.config,
            "checks": list(c.checks), "notes": list(c.notes), "held_back": list(c.held_back)}


def report_to_dict(r: Report) -> dict[str, Any]:
    """The JSON contract: stable keys, documented in the README."""
    return {
        "version": r.version,
        "targets": [
            {
                "target": t.target,
                "engine": t.engine,
                "status": "diagnosed" if t.diagnosed else "could not diagnose",
                "could_not_diagnose": t.could_not_diagnose,
                "examined": list(t.examined),
                "findings": [finding_to_dict(f) for f in t.findings],
                "unavailable": [{"fact": u.fact, "reason": u.reason} for u in t.unavailable],
                "errors": list(t.errors),
                "summary": {k: v for k, v in t.summary},
                "figures": [{"name": f.name, "value": f.value, "unit": f.unit, "warn": f.warn, "crit": f.crit}
                            for f in t.figures],
                "probe": list(t.probe),
                "what_to_change": [change_to_dict(c) for c in t.changes],
                "withheld": t.withheld,
            }
            for t in r.targets
        ],
    }
