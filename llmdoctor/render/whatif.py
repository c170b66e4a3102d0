"""`llmdoctor plan --what-if ... --from sweep.json`: the headroom now and with the setting, as
text or JSON (the JSON carries both fitted models, the backtest and the notes)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WhatIfView:
    what_ifs: tuple[Any, ...]   # judge.probe.whatif.WhatIf, one per sweep in the file
    source: str                 # the sweep file, as named


def _slots(n: int | None) -> str:
    return "no slot limit seen" if n is None else f"{n} slot{'s' if n != 1 else ''}"


def whatif_lines(w) -> list[str]:
    from llmdoctor.render.sweep import backtest_line, headroom_lines

    change = ", ".join(s.describe() for s in w.settings)
    out = [f"What if {change} · {w.engine or 'server'}"]
    now = headroom_lines(w.before, f"Now, {_slots(w.slots_before)}")
    out += [line for line in now if not line.startswith(("Backtest:", "Model:"))]
    if w.after is None:
        out.append(f"With {change}: not predicted: {w.why}.")
        out += [f"Note: {n}" for n in w.notes]
    else:
        after = headroom_lines(w.after, f"With {change}, {_slots(w.slots_after)}")
        out += [line for line in after if not line.startswith("Backtest:")]
    if w.before.backtest:
        out.append(backtest_line(w.before.backtest))
    return out


def whatif_text(view: WhatIfView) -> str:
    import sys

    from llmdoctor.render.layout import output_width, paint, wrap

    width = output_width(sys.stdout)
    lines = []
    for w in view.what_ifs:
        for text in whatif_lines(w):
            lines += [paint(x, False) for x in wrap(((text, ""),), width)]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def whatif_json(view: WhatIfView) -> str:
    return json.dumps({"from": view.source, "what_if": [w.to_dict() for w in view.what_ifs]}, indent=2) + "\n"
