"""One chain, root first: findings that are consequences of another finding are linked to it.

Some causes produce others: slots that split the context make prompts exceed a slot (refused
or truncated); a context raised past what fits makes the KV cache spill to the CPU; a setting
that never reached the server leaves the default whose effect another check reports. Listed
side by side, the consequence (the symptom the user saw) tends to come first; the thing to
change is the root. `link` puts each root just before its first consequence, raises it to
that consequence's severity (it is as urgent as what it causes) and marks each consequence
`caused_by` the root's check id, so the first line a user reads is the thing to change.

A root is linked only where changing it would end the consequence: a context that was not
applied is the root of the truncation only if the value meant to be set holds the prompts
that were cut (ollama#9452: 32768 exported, a 91,541-token prompt: both need fixing).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from llmdoctor.model import Finding

# (root check ids, the check ids of its consequences)
CHAINS: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    # slots split the context -> prompts exceed the slot -> refused or truncated
    (frozenset({"llamacpp-slot-context", "llamacpp-kv-overcommit"}),
     frozenset({"llamacpp-context-exceeded", "llamacpp-context-shift"})),
    # context (x slots) past what fits next to the weights -> the KV cache and layers go to the CPU
    (frozenset({"ollama-kv-capacity", "ollama-reload-churn", "ollama-ps-reloaded-other-options",
                "ollama-kv-type-not-applied"}),  # (an f16 cache where a quantized one was planned)
     frozenset({"ollama-cpu-spill", "ollama-ps-moved-to-cpu"})),
    # a context cut to the trained length -> the prompts longer than it are truncated whatever is raised
    (frozenset({"ollama-context-above-trained"}), frozenset({"ollama-context-truncation", "ollama-history-truncated",
                                                           "ollama-answer-truncated"})),
    # a KV cache that holds fewer sequences than asked for -> requests wait, or are preempted
    (frozenset({"vllm-kv-concurrency"}),
     frozenset({"vllm-queueing", "vllm-preemption", "vllm-preemption-rate", "vllm-kv-pinned"})),
    (frozenset({"sglang-kv-full"}), frozenset({"sglang-retraction"})),
    # a client's keep_alive -> reloads after idle
    (frozenset({"ollama-ps-keepalive-shortened"}), frozenset({"ollama-keepalive-unload", "ollama-slow-after-idle",
                                                            "ollama-evicted-by-count"})),
)

# A setting that never reached the server: the checks whose finding its default explains.
CONFIG_ROOTS = frozenset({"config-set-outside-server", "config-assignment-ignored", "ollama-unparseable-value",
                          "systemd-env-outside-unit", "systemd-dropin-ignored", "systemd-reload-pending",
                          "systemd-restart-pending", "systemd-env-in-unit-file"})
CONFIG_CONSEQUENCES: dict[str, frozenset[str]] = {
    "OLLAMA_CONTEXT_LENGTH": frozenset({"ollama-context-truncation", "ollama-answer-truncated"}),
    "OLLAMA_NUM_PARALLEL": frozenset({"ollama-one-slot", "ollama-serialized-requests", "ollama-back-to-back-queue"}),
    "OLLAMA_KEEP_ALIVE": frozenset({"ollama-keepalive-unload", "ollama-slow-after-idle"}),
    "OLLAMA_MAX_QUEUE": frozenset({"ollama-queue-full", "ollama-rejected-burst"}),
}


def _text(f: Finding) -> str:
    return f.title + "\n" + "\n".join(e.text for e in f.evidence)


def _intended(facts: Mapping[str, Any], name: str) -> int | None:
    """The value the user meant to give `name` (declared settings), as a number."""
    declared = facts.get("declared_settings")
    for a in getattr(declared, "assignments", ()) or ():
        if getattr(a, "name", None) == name:
            try:
                return int(str(a.value).strip().strip("'\""))
            except (TypeError, ValueError):
                return None
    return None


def _would_fix(name: str, facts: Mapping[str, Any]) -> bool:
    """Would the value meant for `name` have ended the consequence? Only the context is
    checked against a figure (the longest prompt cut); other settings are taken as meant."""
    if name != "OLLAMA_CONTEXT_LENGTH":
        return True
    longest = getattr(facts.get("ollama_log"), "truncation_max_prompt", 0) or 0
    meant = _intended(facts, name)
    return not longest or meant is None or meant >= longest


def _roots(f: Finding, facts: Mapping[str, Any]) -> frozenset[str]:
    """The consequence checks this finding is the root of."""
    out: set[str] = set()
    for roots, consequences in CHAINS:
        if f.check in roots:
            out |= consequences
    if f.check in CONFIG_ROOTS:
        text = _text(f)
        for name, consequences in CONFIG_CONSEQUENCES.items():
            if name in text and _would_fix(name, facts):
                out |= consequences
    return frozenset(out)


def link(findings: list[Finding] | tuple[Finding, ...], facts: Mapping[str, Any] | None = None) -> list[Finding]:
    """The findings with each consequence's `caused_by` set, each root at its consequences'
    severity at least, and placed before them (`root_first`). Findings in no chain keep their order."""
    facts = facts or {}
    out = list(findings)
    for at, root in enumerate(out):
        kids = _roots(root, facts)
        idx = [i for i, f in enumerate(out) if kids and f.check in kids and f.instance == root.instance
               and not f.caused_by and i != at]
        if not idx:
            continue
        for i in idx:
            out[i] = replace(out[i], caused_by=root.check)
        worst = max((out[i].severity for i in idx), key=lambda s: s.rank)
        if worst.rank > out[at].severity.rank:
            out[at] = replace(out[at], severity=worst)
    return root_first(out)


def root_first(findings: list[Finding]) -> list[Finding]:
    """Each root moved just before its first consequence where it came after it (a sort by
    severity and check id, as the per-instance merge does, may have put it there)."""
    out = list(findings)
    roots = [(f.caused_by, f.instance) for f in out if f.caused_by]
    for check, instance in dict.fromkeys(roots):
        at = next((i for i, f in enumerate(out) if f.check == check and f.instance == instance), None)
        if at is None:
            continue
        first = min(i for i, f in enumerate(out) if f.caused_by == check and f.instance == instance)
        if first < at:
            out.insert(first, out.pop(at))
    return out
