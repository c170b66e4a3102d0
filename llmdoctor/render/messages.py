"""`llmdoctor messages`: the message catalogue as text (one block per message, wrapped at
the output's width) or JSON."""
from __future__ import annotations

import json

from llmdoctor.render.layout import wrap


def messages_json(rows) -> str:
    return json.dumps([{"id": m.id, "engine": m.engine, "versions": m.versions, "source": m.source,
                        "pattern": m.pattern, "facts": list(m.facts), "causes": list(m.causes),
                        "examples": [{"line": e.line, "origin": e.origin} for e in m.examples],
                        "note": m.note} for m in rows], indent=2) + "\n"


def _lines(text: str, width: int, hang: int = 2) -> list[str]:
    return ["".join(t for t, _ in line).rstrip() for line in wrap(((text, ""),), width, hang)]


def messages_text(rows, coverage: dict[str, tuple[int, int]], width: int) -> str:
    out: list[str] = []
    for m in rows:
        out += _lines(f"{m.id}  [{m.engine} {m.versions}]", width)
        out += _lines(f"    printed by: {m.source}", width, 4)
        if m.facts:
            out += _lines(f"    tells: {', '.join(m.facts)}", width, 4)
        if m.causes:
            out += _lines(f"    supports: {', '.join(m.causes)}", width, 4)
        ex = next((e for e in m.examples if e.real), m.examples[0] if m.examples else None)
        if ex is not None:
            out += _lines(f"    e.g. {ex.line}", width, 4)
            out += _lines(f"         ({ex.origin})", width, 9)
    engines = sorted({m.engine for m in rows})
    cov = ", ".join(f"{e} {coverage[e][0]}/{coverage[e][1]}" for e in engines if e in coverage)
    out.append(f"{len(rows)} messages; with a real line: {cov or 'none'}")
    return "\n".join(out) + "\n"
