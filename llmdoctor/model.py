"""The result model: what a diagnosis says, as frozen values with a stable JSON form.

Other tools parse the JSON (see README "JSON contract"), so field names and the
closed set of causes change only with a version bump.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum, IntEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llmdoctor.model_extras import Change, Figure, Remedy


def __getattr__(name: str) -> Any:
    """Change, Figure, Remedy and Setting, from model_extras.py on first use (most runs make none)."""
    if name in ("Change", "Figure", "Remedy", "Setting", "REMOVE"):
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
    """What to do about a finding: a summary, the commands to run, the file to write (rendered
    from `remedy` where the fix is a change of settings)."""

    summary: str
    commands: tuple[str, ...] = ()
    config: str = ""
    remedy: Remedy | None = None  # the change as values; commands and config are its rendering (judge/fixes.py)


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

    @property
    def remedy(self) -> Remedy | None:
        """What the finding asks to change, as values (None: its fix is not a setting)."""
        return self.fix.remedy

    def with_check(self, check_id: str) -> "Finding":
        return replace(self, check=check_id)


class Record:
    """A record's ==, hash and repr over its __slots__, in order, as a frozen dataclass has them.

    For the records a diagnosis defines on every start (@record below, or a plain class with
    __slots__ and a written __init__ where a default is mutable): defining a frozen dataclass
    costs ~1.5 ms of start-up, a record ~0.1 ms. Only for records that are never replace()d,
    copied field by field or pickled; what check authors build (Evidence, Fix, Finding) stays a
    dataclass."""

    __slots__ = ()

    def _key(self) -> tuple:
        return tuple(getattr(self, n) for n in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.__slots__)})"


_INIT_CODE: dict[int, Any] = {}  # arity -> the code of `def __init__(self, f0, ...): self.f0 = f0 ...`


def _init_code(fields: tuple[str, ...]) -> Any:
    """The code of an __init__ that stores its arguments as these attributes: one compiled per
    arity, renamed for each record (a compile costs ~10x what the rest of a record does)."""
    code = _INIT_CODE.get(len(fields))
    if code is None:
        names = [f"f{i}" for i in range(len(fields))]
        ns: dict[str, Any] = {}
        exec(f"def __init__(self{''.join(', ' + n for n in names)}):\n"
             + ("".join(f"    self.{n} = {n}\n" for n in names) or "    pass\n"), ns)
        code = _INIT_CODE[len(fields)] = ns["__init__"].__code__
    return code.replace(co_varnames=("self",) + fields, co_names=fields)


def record(cls: type) -> type:
    """A Record from a class that lists its fields as annotations, defaults where wanted: its
    __slots__ and an __init__ that stores them, which is what the hand-written records write out.

    Measured (bench/record_cost.py, 8 fields): a hand-written class defines in ~0.01-0.02 ms,
    this in ~0.04-0.07 ms, `@dataclass(slots=True)` in ~0.55-1.2 ms, `@dataclass(slots=True,
    frozen=True)` in ~1.2-2.2 ms. A `diagnose --evidence` of one engine's fixture defines 10-20
    of these (24-32 records in all) in ~120 ms of process CPU: 0.7-1.5 ms of it (under 1.5 %),
    where frozen dataclasses would add 12-40 ms. Objects build as fast as a hand-written record's (a frozen dataclass's take 4-8x
    as long). Like a slots dataclass, the class is made anew: no zero-argument super() in its
    methods. Defaults are shared between instances: a mutable one ({}, []) needs a hand-written
    __init__."""
    from types import FunctionType

    own = cls.__dict__
    fields = tuple(own.get("__annotations__", {}))
    defaults = []
    for name in fields:
        if name in own:
            defaults.append(own[name])
        elif defaults:
            raise TypeError(f"{cls.__name__}: field {name} without a default follows one with a default")
    init = FunctionType(_init_code(fields), {"__name__": cls.__module__}, "__init__", tuple(defaults) or None)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    attrs = {k: v for k, v in own.items() if k not in fields and k not in ("__dict__", "__weakref__")}
    attrs.update(__slots__=fields, __init__=init, __qualname__=cls.__qualname__)
    return type(cls)(cls.__name__, cls.__bases__, attrs)


@record
class Unavailable(Record):
    """A fact that could not be examined, and why (shown at the end of a report)."""

    fact: str
    reason: str


@record
class TargetReport(Record):
    """The diagnosis of one host or evidence directory."""

    target: str
    engine: str
    findings: tuple[Finding, ...] = ()
    unavailable: tuple[Unavailable, ...] = ()
    errors: tuple[str, ...] = ()
    summary: tuple[tuple[str, str], ...] = ()  # (label, value) facts shown above findings
    examined: tuple[str, ...] = ()  # what was read: "no problems found" is said about these only
    not_diagnosed: str = ""  # why nothing could be diagnosed (nothing engine-relevant was read)
    reachable: bool = True  # False: the target could not be examined at all (errors say why)
    figures: tuple[Figure, ...] = ()  # measured numbers (the probe's latencies), for monitors
    probe: tuple[dict[str, Any], ...] = ()  # the probe's own measurements, as `probe --format json` has them
    changes: tuple[Change, ...] = ()  # "What to change": the findings' settings merged per place
    withheld: int = 0  # distinct values the keep-list redaction withheld from this report

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


@record
class Report(Record):
    """One run's diagnosis: a report per target, and the exit code they make together."""

    version: str
    targets: tuple[TargetReport, ...] = ()

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
        **({"remedy": remedy_to_dict(f.remedy)} if f.remedy is not None else {}),
    }


def remedy_to_dict(r: Remedy) -> dict[str, Any]:
    """A finding's change as values, as the merge and the renderer read it (the fix is its text)."""
    from llmdoctor.model_extras import REMOVE

    return {
        "server": r.server,
        "where": str(r.where) if r.where is not None else "",
        "settings": [{"name": s.name, "value": "" if s.value is True or s.value is REMOVE else str(s.value),
                      "remove": s.value is REMOVE, "why": s.why} for s in r.settings],
        "restart": r.restart if not r.server else "",
        "before": list(r.before),
        "verify": list(r.verify),
        "notes": list(r.notes),
        "alternatives": [remedy_to_dict(a) for a in r.alternatives],
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
