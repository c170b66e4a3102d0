"""Secrets in free text by a maintained rule set: gitleaks' rules, as data
(redact_rules_data.py, derived by bench/gitleaks_rules.py), next to redact.py's name rules.

Why: a private list of token shapes trails every new provider's prefix; gitleaks' rules are
kept by many hands. A rule runs only on the lines that hold one of its keywords (a literal
test on the lower-cased line), and its secret is withheld only when it is as random as the
rule asks (its entropy), as gitleaks does, so an ordinary word a loose rule matches stays.
The few rules that span lines (`(?s...)`) run on the whole text.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache

from llmdoctor.redact_rules_data import RULES

_LINES = re.compile(r"(\r?\n|\\n)")


@cache
def _keywords() -> tuple[tuple[tuple[str, tuple[int, ...]], ...], tuple[int, ...]]:
    """((keyword, line rules that name it), ...), and the rules that span lines."""
    index: dict[str, list[int]] = {}
    spanning = []
    for i, (_id, keywords, rx, _group, _entropy) in enumerate(RULES):
        if "(?s" in rx:
            spanning.append(i)
            continue
        for k in keywords or ("",):
            index.setdefault(k, []).append(i)
    return tuple((k, tuple(v)) for k, v in index.items()), tuple(spanning)


@cache
def _rule(i: int) -> re.Pattern:
    return re.compile(RULES[i][2])


def entropy(s: str) -> float:
    """Shannon entropy of `s` in bits per character."""
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def rules_for(lower: str) -> list[int]:
    """The line rules whose keywords occur in `lower` (a line in lower case)."""
    hit: set[int] = set()
    for k, rules in _keywords()[0]:
        if k in lower:
            hit.update(rules)
    return sorted(hit)


def _apply(text: str, rules, marker: str) -> str:
    for i in rules:
        rx, group, least = _rule(i), RULES[i][3], RULES[i][4]
        if not rx.search(text):
            continue

        def repl(m: re.Match[str]) -> str:
            g = group if group <= rx.groups and m.group(group) is not None else 0
            secret = m.group(g)
            if not secret or marker in secret or entropy(secret) < least:
                return m.group()
            a, b = m.start(g) - m.start(), m.end(g) - m.start()
            return m.group()[:a] + marker + m.group()[b:]

        text = rx.sub(repl, text)
    return text


def apply_rules(text: str, marker: str) -> str:
    """`text` with every secret a rule finds (its secret group) replaced by `marker`."""
    lower = text.lower()
    spanning = [i for i in _keywords()[1] if any(k in lower for k in RULES[i][1])]
    if spanning:
        text = _apply(text, spanning, marker)
    if not rules_for(lower):
        return text
    parts = _LINES.split(text)
    for n in range(0, len(parts), 2):
        rules = rules_for(parts[n].lower())
        if rules:
            parts[n] = _apply(parts[n], rules, marker)
    return "".join(parts)
