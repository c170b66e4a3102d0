"""Prometheus text exposition -> flat samples, tolerant of what real scrapes look like.

Scrapes pasted into tickets are cut off mid-line (`# TYPE vllm:num_preemptions_total coun`),
mix in shell prompts, or carry HTML from a proxy. prometheus_client's parser rejects the
whole text on the first bad line, so on failure we fall back to parsing line by line and
keep every sample that parses. prometheus_client is imported only for text that is not plain
(knowledge.prom_plain parses the usual scrape itself: start-up time).
"""
from __future__ import annotations

import math

from llmdoctor.model import Record, record
from llmdoctor.knowledge.prom_plain import parse_plain
from llmdoctor.parsing import LazyPattern, ParseError


# The records here are plain classes (llmdoctor.model.Record: a dataclass's ==, hash and repr),
# never replace()d or copied: a frozen dataclass costs ~1 ms of start-up to define.
@record
class Sample(Record):
    """One sample of an exposition: name, labels, value."""

    name: str  # exposition name, e.g. "vllm:num_preemptions_total"
    labels: tuple[tuple[str, str], ...]
    value: float

    def label(self, key: str, default: str = "") -> str:
        return dict(self.labels).get(key, default)


@record
class Exposition(Record):
    """A parsed Prometheus text exposition: its samples, and how many lines did not parse."""

    samples: tuple[Sample, ...]
    skipped_lines: int = 0  # lines that did not parse (truncation, garbage)
    names: frozenset[str] = frozenset()

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


@record
class Histo(Record):
    """A histogram's running totals (sum and count over every label set)."""

    sum: float
    count: float

    @property
    def mean(self) -> float | None:
        return self.sum / self.count if self.count > 0 else None

    def minus(self, earlier: "Histo | None") -> "Histo":
        if earlier is None or self.count < earlier.count:  # restart: counters reset
            return self
        return Histo(self.sum - earlier.sum, self.count - earlier.count)


def histo(exp: Exposition, *names: str) -> tuple[Histo | None, str | None]:
    """The first histogram of several names (renamed across versions) present, and its name."""
    for n in names:
        s, c = exp.total(n + "_sum"), exp.total(n + "_count")
        if s is not None and c is not None:
            return Histo(s, c), n
    return None, None


_SAMPLE_LINE = LazyPattern(r'^\s*([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)')


def _families_to_samples(text: str) -> list[Sample]:
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
    plain = parse_plain(text)
    try:
        if plain is not None:  # the usual scrape: no prometheus_client needed
            samples = [Sample(*s) for s in plain]
        else:
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
