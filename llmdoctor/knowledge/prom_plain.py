"""Plain Prometheus text, parsed without prometheus_client (importing it costs ~50 ms of start-up).

Real /metrics scrapes are plain: `# HELP` / `# TYPE` lines and `name{label="value",...} value
[timestamp]` samples with simple label values. For such text `parse_plain` gives exactly the
samples prometheus_client's text parser gives (including its renaming of a counter's samples
to `<name>_total`); for anything else - escapes, quoted names, odd spacing, a line that does
not parse - it returns None and the caller uses prometheus_client, which knows every corner.
"""
from __future__ import annotations

from llmdoctor.parsing import LazyPattern

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_VALUE = r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|Inf|inf|NaN|nan)"
_PAIR = r'[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*"'
_SAMPLE = LazyPattern(rf"({_NAME})(?:\{{((?:{_PAIR}(?:,{_PAIR})*,?)?)\}})? ({_VALUE})(?: ({_VALUE}))?")
_LABEL = LazyPattern(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"\\]*)"')
_NAME_ONLY = LazyPattern(_NAME)
_TYPES = frozenset({"counter", "gauge", "summary", "histogram", "gaugehistogram", "unknown", "info", "stateset",
                    "untyped"})  # what prometheus_client accepts
_ALLOWED = {"counter": ("",), "gauge": ("",), "summary": ("_count", "_sum", ""),
            "histogram": ("_count", "_sum", "_bucket")}


def parse_plain(text: str) -> list[tuple[str, tuple[tuple[str, str], ...], float]] | None:
    """(name, sorted labels, value) of every sample, in order, or None when the text is not plain."""
    out: list = []
    family: list = []  # indexes into out of the current family's samples
    name, typ, allowed = "", "untyped", ()

    def close() -> None:
        if typ == "counter" and not name.endswith("_total"):
            for i in family:
                s = out[i]
                out[i] = (s[0] + "_total", s[1], s[2])

    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) < 3 or parts[1] not in ("TYPE", "HELP"):
                if len(parts) == 2 and parts[1] in ("TYPE", "HELP"):
                    return None
                continue
            candidate = parts[2]
            if not _NAME_ONLY.fullmatch(candidate):
                return None
            if parts[1] == "HELP":
                if candidate != name:
                    close()
                    name, typ, allowed, family = candidate, "untyped", (candidate,), []
                continue
            if len(parts) < 4 or parts[3] not in _TYPES or candidate == "_total":
                return None
            if candidate != name:
                close()
                name, family = candidate, []
            typ = parts[3]
            allowed = tuple(name + suffix for suffix in _ALLOWED.get(typ, ("",)))
            continue
        m = _SAMPLE.fullmatch(line)
        if m is None:
            return None
        labels: dict[str, str] = {}
        if m.group(2):
            for key, value in _LABEL.findall(m.group(2)):
                if key in labels or key.startswith("__"):
                    return None
                labels[key] = value
        sample = (m.group(1), tuple(sorted(labels.items())), float(m.group(3)))
        if sample[0] in allowed:
            family.append(len(out))
            out.append(sample)
        else:  # prometheus_client yields it as an untyped family of its own
            close()
            name, typ, allowed, family = "", "untyped", (), []
            out.append(sample)
    close()
    return out
