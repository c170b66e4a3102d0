"""Prometheus text exposition -> flat samples, tolerant of what real scrapes look like.

Scrapes pasted into tickets are cut off mid-line (`# TYPE vllm:num_preemptions_total coun`),
mix in shell prompts, or carry HTML from a proxy. prometheus_client's parser rejects the
whole text on the first bad line, so on failure we fall back to parsing line by line and
keep every sample that parses. prometheus_client is imported lazily (start-up time).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Iterable

from ..parsing import ParseError


@dataclass(frozen=True)
class Sample:
    name: str  # exposition name, e.g. "vllm:num_preemptions_total"
    labels: tuple[tuple[str, str], ...]
    value: float

    def label(self, key: str, default: str = "") -> str:
        return dict(self.labels).get(key, default)


@dataclass(frozen=True)
class Exposition:
    samples: tuple[Sample, ...]
    skipped_lines: int = 0  # lines that did not parse (truncation, garbage)
    names: frozenset[str] = field(default=frozenset())

    def get(self, name: str) -> tuple[Sample, ...]:
        return tuple(s for s in self.samples if s.name == name)

    def first_present(self, *names: str) -> str | None:
        """The first of several names (a metric renamed across versions) that is present."""
        for n in names:
            if n in self.names:
                return n
        return None

    def total(self, *names: str) -> float | None:
        """Sum over all label sets of the first present name (engines, models)."""
        n = self.first_present(*names)
        if n is None:
            return None
        return sum(s.value for s in self.get(n) if not math.isnan(s.value))


_SAMPLE_LINE = re.compile(r'^\s*([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)')


# The plain exposition real servers write (HELP/TYPE comments, `name{label="value",...} value
# [timestamp]` samples, legacy names, no escapes) is read here without prometheus_client,
# whose import costs ~25 ms of start-up; _fast_samples() mirrors what its parser
# (text_fd_to_metric_families) makes of such text, counter "_total" naming included, and
# returns None for anything else, which then goes to prometheus_client as before.
# tests/engines/test_prom_fast.py holds the two to the same result.
_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="[^"\\{}]*"'
_FAST_SAMPLE = re.compile(
    rf"({_NAME})(?:\{{((?:{_LABEL}(?:,{_LABEL})*)?)\}})? "
    r"([-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|Inf|inf|NaN|nan))(?: -?\d+)?"
)
_FAST_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"')
_FAST_TYPE = re.compile(rf"# TYPE ({_NAME}) (counter|gauge|histogram|summary|untyped)")
_FAST_HELP = re.compile(rf"# HELP ({_NAME})(?: .*)?")
_ALLOWED_SUFFIXES = {"counter": ("",), "gauge": ("",), "summary": ("_count", "_sum", ""),
                     "histogram": ("_count", "_sum", "_bucket")}


def _fast_samples(text: str) -> list[Sample] | None:
    out: list[Sample] = []
    name, typ, allowed, family = "", "untyped", (), []

    def flush() -> bool:
        if typ == "counter" and not name.endswith("_total"):
            family[:] = [Sample(s.name + "_total", s.labels, s.value) for s in family]
        out.extend(family)
        return name != "_total"  # prometheus_client: an empty family name raises

    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        if not (line.isascii() and line.isprintable()) or "\\" in line:
            return None
        if line.startswith("#"):
            words = line.split()
            if '"' in line:
                return None
            if len(words) < 3 or words[1] not in ("HELP", "TYPE"):
                if len(words) >= 2 and words[1] in ("HELP", "TYPE"):
                    return None
                continue  # a plain comment
            m = (_FAST_TYPE if words[1] == "TYPE" else _FAST_HELP).fullmatch(line)
            if m is None:
                return None
            candidate = m.group(1)
            if candidate != name:
                if name and not flush():
                    return None
                name, family = candidate, []
                if words[1] == "HELP":
                    typ = "untyped"
                    allowed = (candidate,)
            if words[1] == "TYPE":
                typ = m.group(2)
                allowed = tuple(name + s for s in _ALLOWED_SUFFIXES.get(typ, ("",)))
            continue
        m = _FAST_SAMPLE.fullmatch(line)
        if m is None:
            return None
        labels = _FAST_LABEL.findall(m.group(2) or "")
        keys = [k for k, _ in labels]
        if len(set(keys)) != len(keys) or any(k.startswith("__") for k in keys):
            return None
        try:
            value = float(int(m.group(3)))  # as prometheus_client: int() first ("-0" is 0.0)
        except ValueError:
            value = float(m.group(3))
        sample = Sample(m.group(1), tuple(sorted(labels)), value)
        if sample.name in allowed:
            family.append(sample)
            continue
        if name and not flush():
            return None
        name, typ, allowed, family = "", "untyped", (), []
        out.append(sample)
    if name and not flush():
        return None
    return out


def _families_to_samples(text: str) -> list[Sample]:
    fast = _fast_samples(text)
    return fast if fast is not None else _prometheus_client_samples(text)


def _prometheus_client_samples(text: str) -> list[Sample]:
    from prometheus_client.parser import text_string_to_metric_families

    out = []
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.append(Sample(s.name, tuple(sorted(s.labels.items())), float(s.value)))
    return out


def parse_exposition(text: str) -> Exposition:
    """All samples in a /metrics text. Raises ParseError when nothing in it is a sample."""
    if not isinstance(text, str):
        raise ParseError("metrics text is not text")
    samples: list[Sample]
    skipped = 0
    try:
        samples = _families_to_samples(text if text.endswith("\n") else text + "\n")
    except Exception:
        samples = []
        for line in text.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not _SAMPLE_LINE.match(line):
                skipped += 1
                continue
            try:
                samples.extend(_families_to_samples(line.strip() + "\n"))
            except Exception:
                skipped += 1
    if not samples:
        if text.strip() and not all(l.lstrip().startswith("#") for l in text.splitlines() if l.strip()):
            raise ParseError("no Prometheus samples found")
    return Exposition(tuple(samples), skipped, frozenset(s.name for s in samples))


def iter_metric_names(exp: Exposition, prefix: str) -> Iterable[str]:
    return sorted(n for n in exp.names if n.startswith(prefix))
