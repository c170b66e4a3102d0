"""Running one check: its trigger first, then its facts injected, and a crash kept as a line."""
from __future__ import annotations

from llmdoctor.facts import FactStore, FactUnavailable
from llmdoctor.model import Finding, Record, record
from llmdoctor.plugins.check import CheckSpec


@record
class CheckOutcome(Record):
    """What running one check gave: its findings, or why it did not run, or its crash. (A
    record, never copied or pickled: defining a frozen dataclass costs ~1.5 ms of every run's start.)"""

    findings: tuple[Finding, ...] = ()
    skipped_for: str = ""  # the missing fact, when the check could not run
    crash: str = ""


def _available(store: FactStore, name: str) -> bool:
    try:
        store.get(name)
        return True
    except FactUnavailable:
        return False


def trigger_unmet(spec: CheckSpec, store: FactStore) -> str:
    """Why the check does not apply here ("" when it does): its engine was not found, or
    none of the facts it needs could be collected."""
    if spec.engines:
        try:
            found = {e.kind for e in store.get("engines")}
        except FactUnavailable:
            found = set()
        if not found & set(spec.engines):
            return f"no {' or '.join(spec.engines)} server here"
    if spec.needs and not any(_available(store, n) for n in spec.needs):
        return f"none of {', '.join(spec.needs)} is available"
    return ""


def run_check(spec: CheckSpec, store: FactStore) -> CheckOutcome:
    """Run one check with its facts injected; a crash becomes a line, not an exception."""
    unmet = trigger_unmet(spec, store)
    if unmet:
        return CheckOutcome(skipped_for=unmet)
    try:
        kwargs = store.resolve(spec.params, spec.optional)
    except FactUnavailable as e:
        return CheckOutcome(skipped_for=e.reason)
    try:
        result = spec.func(**kwargs)
        items = [] if result is None else ([result] if isinstance(result, Finding) else list(result))
        findings = []
        for f in items:
            if not isinstance(f, Finding):
                raise TypeError(f"yielded {type(f).__name__}, not Finding")
            findings.append(f.with_check(spec.id))
        return CheckOutcome(findings=tuple(findings))
    except Exception as e:
        return CheckOutcome(crash=f"check crashed: {spec.id}: {type(e).__name__}: {e}")
