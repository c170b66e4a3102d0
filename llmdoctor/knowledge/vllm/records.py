"""What a vLLM log scan found, as frozen values (produced by llmdoctor.knowledge.vllm.log)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StatsLine:
    """One periodic stats record. `waiting` is V1 Waiting or V0 Pending."""

    engine_version: str  # "v0" (Pending/Swapped form) or "v1"
    running: int
    waiting: int
    kv_usage_pct: float
    kv_device: str = "GPU"
    swapped: int | None = None
    deferred: int | None = None
    preemptions: int | None = None  # V1 >= 0.12: preemptions during this interval
    cpu_kv_usage_pct: float | None = None
    prefix_hit_pct: float | None = None
    prompt_tps: float | None = None
    generation_tps: float | None = None
    engines_aggregated: int | None = None
    time: str | None = None  # "MM-DD HH:MM:SS" from the log prefix
    text: str = ""


@dataclass(frozen=True)
class KvCapacity:
    """What vLLM printed about its KV cache at one start-up."""

    gpu_blocks: int | None = None
    cpu_blocks: int | None = None
    kv_tokens: int | None = None
    available_gib: float | None = None
    max_concurrency: float | None = None
    tokens_per_request: int | None = None  # max_model_len the concurrency refers to
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class MaxSeqLenError:
    max_seq_len: int
    kv_tokens: int | None = None  # V0 wording
    needed_gib: float | None = None  # V1 wording
    available_gib: float | None = None
    estimated_max_len: int | None = None
    text: str = ""


@dataclass(frozen=True)
class Run:
    """A stretch of consecutive stats lines that all met a condition."""

    length: int
    first: StatsLine
    last: StatsLine
    peak: float


@dataclass(frozen=True)
class VllmLogSummary:
    source: str
    preemption_warnings: int
    preemptions_at_least: int  # from cumulative counts (every 50th is logged)
    preemption_modes: tuple[tuple[str, int], ...]
    first_preemption: str | None
    last_preemption: str | None
    last_cumulative: int | None
    max_cumulative: int | None  # highest total_num_cumulative_preemption seen (since that start-up)
    stats_lines: int
    recent_stats: tuple[StatsLine, ...]  # the last ones, oldest first
    v1_preemptions: int  # sum of `Preemptions: N` over all stats lines
    stats_with_preemptions: int
    first_stats_preemption: StatsLine | None
    last_stats_preemption: StatsLine | None
    longest_waiting_run: Run | None
    longest_kv_full_run: Run | None
    max_running: int
    max_waiting: int
    max_in_flight: int  # max Running + Waiting on one line
    prompt_heavy_waiting_lines: int  # Waiting > 0 while prompt tokens/s >> generation tokens/s
    waiting_lines: int
    kv_capacity: KvCapacity | None  # the last start-up
    startups: int
    max_seq_len_error: MaxSeqLenError | None
    queue_overflows: int
    queue_overflow_example: str | None
    engine_version: str | None  # "v0" / "v1" / None when unknown
    prompts_too_long: int = 0  # requests refused: the prompt exceeds max_model_len
    prompt_too_long_examples: tuple[str, ...] = ()
    prompt_too_long_max: tuple[int, int] | None = None  # (prompt tokens, limit)
    output_too_long: int = 0  # of prompts_too_long: refused for max_tokens beyond the room left
    settings: dict = field(default_factory=dict)  # from `non-default args: {...}` / V0 `with config:`
    lines: int = field(default=0, compare=False)  # lines read (the feeding paths count a final empty line apart)

    @property
    def empty(self) -> bool:
        return not (self.preemption_warnings or self.stats_lines or self.kv_capacity
                    or self.max_seq_len_error or self.queue_overflows or self.prompts_too_long or self.settings)

    def summary(self) -> list[tuple[str, str]]:
        out = []
        if self.kv_capacity and self.kv_capacity.max_concurrency is not None:
            out.append(("vLLM max concurrency (start-up)", f"{self.kv_capacity.max_concurrency:.2f}x"))
        if self.stats_lines:
            last = self.recent_stats[-1]
            out.append(("vLLM last stats", f"Running {last.running}, Waiting {last.waiting}, "
                                           f"KV {last.kv_usage_pct:.1f}%"))
        return out
