"""`llmdoctor plan`: the sizing, as text (with a memory bar to scale) or JSON."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

BAR_WIDTH = 60


@dataclass(frozen=True)
class PlanView:
    plan: Any  # judge.sizing.Plan
    label: str  # the model, as the user named it
    width: int | None = None  # None: the terminal's, $COLUMNS, else 80; 0: never wrap


def plan_json(view: PlanView) -> str:
    return json.dumps({"model": view.label, **view.plan.to_dict()}, indent=2) + "\n"


def plan_text(view: PlanView) -> str:
    """The sizing at the terminal's width (or --width): prose wraps under its indent, the
    memory bar shrinks to fit."""
    import sys

    from llmdoctor.render.layout import PROSE, fit_lines, output_width

    width = output_width(sys.stdout) if view.width is None else view.width
    bar = min(BAR_WIDTH, width - 4) if width else BAR_WIDTH  # "  [" and "]" around it
    text = render_plan_text(view.plan, view.label, bar)
    return fit_lines([(line, PROSE) for line in text.splitlines()], width)


def memory_bar(plan, width: int = BAR_WIDTH) -> list[str]:
    """weights | KV | headroom, to scale of the GPU's memory."""
    from llmdoctor.judge.sizing import gb

    m = plan.memory
    kv = plan.kv_bytes_recommended
    total = max(m.total, m.weights + kv + m.headroom)
    def cells(n: int) -> int:
        return max(0, round(n / total * width))
    w = min(width, cells(m.weights))
    k = min(width - w, cells(kv))
    rest = width - w - k
    over = m.weights + kv + m.headroom > m.total
    bar = "█" * w + "▓" * k + "░" * rest
    left = m.total - m.weights - kv
    return [
        f"[{bar}]",
        f" █ weights {gb(m.weights)} | ▓ KV {plan.recommended.parallel} × {gb(kv // max(1, plan.recommended.parallel))}"
        f" = {gb(kv)} | ░ left {gb(left)} (headroom {gb(m.headroom)})" + ("  ← over the GPU's memory" if over else ""),
    ]


def render_plan_text(plan, model_label: str, bar_width: int = BAR_WIDTH) -> str:
    from llmdoctor.knowledge.capacity import format_bytes
    from llmdoctor.judge.sizing import gb

    s = plan.shape
    r = plan.recommended
    trained = f", trained context {s.context_length:,}" if s.context_length else ""
    window = f", sliding window {s.sliding_window:,} (sized as full attention)" if s.sliding_window else ""
    out = [f"Model: {model_label} ({s.layers} KV layers{trained}{window})", ""]
    out += [
        f"  KV per token         {plan.kv_bytes_per_token:,} B ({format_bytes(plan.kv_bytes_per_token)}, {plan.cache_type})",
        f"  KV per conversation  {plan.kv_bytes_per_conversation:,} B ({gb(plan.kv_bytes_per_conversation)}) at {plan.context:,} tokens",
        f"  KV budget            {gb(plan.memory.kv_budget)} ({gb(plan.memory.total)} GPU − {gb(plan.memory.weights)} weights − {gb(plan.memory.headroom)} headroom)",
        f"  Conversations fit    {plan.conversations_fit}",
        f"  In flight            " + (f"{plan.in_flight:.1f}" if plan.in_flight is not None else "(no workload given)"),
        "",
        "How:",
    ]
    out += [f"  {i}. {step}" for i, step in enumerate(plan.steps, 1)]
    out += ["", "Recommended:",
            f"  parallel slots       {r.parallel}",
            f"  context length       {r.context_length:,}",
            f"  KV cache type        {r.kv_cache_type}" + (" (with flash attention on)" if r.flash_attention else ""),
            f"  max queue            {r.max_queue}",
            "", "Memory:"]
    out += [f"  {line}" for line in memory_bar(plan, bar_width)]
    if plan.warnings:
        out += ["", "Warnings:"] + [f"  ! {w}" for w in plan.warnings]
    out += ["", "For Ollama: OLLAMA_NUM_PARALLEL=%d OLLAMA_CONTEXT_LENGTH=%d OLLAMA_MAX_QUEUE=%d%s" % (
        r.parallel, r.context_length, r.max_queue,
        f" OLLAMA_KV_CACHE_TYPE={r.kv_cache_type} OLLAMA_FLASH_ATTENTION=1" if r.kv_cache_type != "f16" else ""),
        "  (llmdoctor tune ollama writes these to a systemd drop-in and verifies them)"]
    return "\n".join(out) + "\n"
