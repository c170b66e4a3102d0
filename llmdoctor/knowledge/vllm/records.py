"""What a vLLM log scan found (produced by llmdoctor.knowledge.vllm.log), as plain records
(llmdoctor.model.Record: a dataclass's ==, hash and repr; never replace()d or copied, and a
frozen dataclass costs ~1 ms of start-up each to define)."""
from __future__ import annotations

from llmdoctor.model import Record


class StatsLine(Record):
    """One periodic stats record. `waiting` is V1 Waiting or V0 Pending."""

    __slots__ = ("engine_version", "running", "waiting", "kv_usage_pct", "kv_device", "swapped", "deferred",
                 "preemptions", "cpu_kv_usage_pct", "prefix_hit_pct", "prompt_tps", "generation_tps",
                 "engines_aggregated", "time", "text")

    def __init__(
        self,
        engine_version: str,
        running: int,
        waiting: int,
        kv_usage_pct: float,
        kv_device: str = "GPU",
        swapped: int | None = None,
        deferred: int | None = None,
        preemptions: int | None = None,
        cpu_kv_usage_pct: float | None = None,
        prefix_hit_pct: float | None = None,
        prompt_tps: float | None = None,
        generation_tps: float | None = None,
        engines_aggregated: int | None = None,
        time: str | None = None,
        text: str = "",
    ) -> None:
        self.engine_version = engine_version  # "v0" (Pending/Swapped form) or "v1"
        self.running = running
        self.waiting = waiting
        self.kv_usage_pct = kv_usage_pct
        self.kv_device = kv_device
        self.swapped = swapped
        self.deferred = deferred
        self.preemptions = preemptions  # V1 >= 0.12: preemptions during this interval
        self.cpu_kv_usage_pct = cpu_kv_usage_pct
        self.prefix_hit_pct = prefix_hit_pct
        self.prompt_tps = prompt_tps
        self.generation_tps = generation_tps
        self.engines_aggregated = engines_aggregated
        self.time = time  # "MM-DD HH:MM:SS" from the log prefix
        self.text = text


class KvCapacity(Record):
    """What vLLM printed about its KV cache at one start-up."""

    __slots__ = ("gpu_blocks", "cpu_blocks", "kv_tokens", "available_gib", "max_concurrency",
                 "tokens_per_request", "lines")

    def __init__(
        self,
        gpu_blocks: int | None = None,
        cpu_blocks: int | None = None,
        kv_tokens: int | None = None,
        available_gib: float | None = None,
        max_concurrency: float | None = None,
        tokens_per_request: int | None = None,
        lines: tuple[str, ...] = (),
    ) -> None:
        self.gpu_blocks = gpu_blocks
        self.cpu_blocks = cpu_blocks
        self.kv_tokens = kv_tokens
        self.available_gib = available_gib
        self.max_concurrency = max_concurrency
        self.tokens_per_request = tokens_per_request  # max_model_len the concurrency refers to
        self.lines = lines


class MaxSeqLenError(Record):
    """vLLM refused to start: max_model_len does not fit in the KV cache (V0 or V1 wording)."""

    __slots__ = ("max_seq_len", "kv_tokens", "needed_gib", "available_gib", "estimated_max_len", "text")

    def __init__(
        self,
        max_seq_len: int,
        kv_tokens: int | None = None,
        needed_gib: float | None = None,
        available_gib: float | None = None,
        estimated_max_len: int | None = None,
        text: str = "",
    ) -> None:
        self.max_seq_len = max_seq_len
        self.kv_tokens = kv_tokens  # V0 wording
        self.needed_gib = needed_gib  # V1 wording
        self.available_gib = available_gib
        self.estimated_max_len = estimated_max_len
        self.text = text


class MemoryShort(Record):
    """vLLM refused to start: the GPU had less free memory than gpu_memory_utilization asks for
    (another process holds it, or the share is set too high). V1, 0.9 on."""

    __slots__ = ("free_gib", "total_gib", "utilization", "requested_gib", "text")

    def __init__(self, free_gib: float, total_gib: float, utilization: float, requested_gib: float,
                 text: str = "") -> None:
        self.free_gib = free_gib
        self.total_gib = total_gib
        self.utilization = utilization
        self.requested_gib = requested_gib
        self.text = text


class Run(Record):
    """A stretch of consecutive stats lines that all met a condition."""

    __slots__ = ("length", "first", "last", "peak")

    def __init__(
        self,
        length: int,
        first: StatsLine,
        last: StatsLine,
        peak: float,
    ) -> None:
        self.length = length
        self.first = first
        self.last = last
        self.peak = peak


class VllmLogSummary(Record):
    """What one vLLM log held: preemptions, stats, KV capacity, refusals, settings."""

    __slots__ = ("source", "preemption_warnings", "preemptions_at_least", "preemption_modes",
                 "first_preemption", "last_preemption", "last_cumulative", "max_cumulative", "stats_lines",
                 "recent_stats", "v1_preemptions", "stats_with_preemptions", "first_stats_preemption",
                 "last_stats_preemption", "longest_waiting_run", "kv_high_runs", "max_running",
                 "max_waiting", "max_in_flight", "waiting_prompt_ratios", "waiting_lines", "kv_capacity",
                 "startups", "max_seq_len_error", "queue_overflows", "queue_overflow_example",
                 "engine_version", "prompts_too_long", "prompt_too_long_examples", "prompt_too_long_max",
                 "output_too_long", "prompts_over_kv_capacity", "no_kv_memory", "gpu_memory_short",
                 "max_model_len_over_model", "settings", "kv_alone", "release", "lines")

    def __init__(
        self,
        source: str,
        preemption_warnings: int,
        preemptions_at_least: int,
        preemption_modes: tuple[tuple[str, int], ...],
        first_preemption: str | None,
        last_preemption: str | None,
        last_cumulative: int | None,
        max_cumulative: int | None,
        stats_lines: int,
        recent_stats: tuple[StatsLine, ...],
        v1_preemptions: int,
        stats_with_preemptions: int,
        first_stats_preemption: StatsLine | None,
        last_stats_preemption: StatsLine | None,
        longest_waiting_run: Run | None,
        kv_high_runs: tuple[tuple[int, Run], ...],
        max_running: int,
        max_waiting: int,
        max_in_flight: int,
        waiting_prompt_ratios: tuple[tuple[int, int], ...],
        waiting_lines: int,
        kv_capacity: KvCapacity | None,
        startups: int,
        max_seq_len_error: MaxSeqLenError | None,
        queue_overflows: int,
        queue_overflow_example: str | None,
        engine_version: str | None,
        prompts_too_long: int = 0,
        prompt_too_long_examples: tuple[str, ...] = (),
        prompt_too_long_max: tuple[int, int] | None = None,
        output_too_long: int = 0,
        prompts_over_kv_capacity: int = 0,
        no_kv_memory: str | None = None,
        gpu_memory_short: MemoryShort | None = None,
        max_model_len_over_model: tuple[int, int | None] | None = None,
        settings: dict | None = None,
        lines: int = 0,
        kv_alone: StatsLine | None = None,
        release: str | None = None,
    ) -> None:
        self.source = source
        self.preemption_warnings = preemption_warnings
        self.preemptions_at_least = preemptions_at_least  # from cumulative counts (every 50th is logged)
        self.preemption_modes = preemption_modes
        self.first_preemption = first_preemption
        self.last_preemption = last_preemption
        self.last_cumulative = last_cumulative
        self.max_cumulative = max_cumulative  # highest total_num_cumulative_preemption seen (since that start-up)
        self.stats_lines = stats_lines
        self.recent_stats = recent_stats  # the last ones, oldest first
        self.v1_preemptions = v1_preemptions  # sum of `Preemptions: N` over all stats lines
        self.stats_with_preemptions = stats_with_preemptions
        self.first_stats_preemption = first_stats_preemption
        self.last_stats_preemption = last_stats_preemption
        self.longest_waiting_run = longest_waiting_run
        # (level, the longest run of consecutive stats lines with KV usage >= level %) for each whole
        # level from the scanner's floor (log.KV_RUN_FLOOR_PCT) up to 100 that such a line reached;
        # which level is "full" is the judge's (judge/vllm.py kv_full_run)
        self.kv_high_runs = kv_high_runs
        self.max_running = max_running
        self.max_waiting = max_waiting
        self.max_in_flight = max_in_flight  # max Running + Waiting on one line
        # (ratio, the waiting lines whose prompt throughput exceeded ratio x their generation
        # throughput, taken as at least 1 token/s) for each of log.PROMPT_RATIOS; how much is
        # prefill's is the judge's (judge/vllm.py classify_waiting)
        self.waiting_prompt_ratios = waiting_prompt_ratios
        self.waiting_lines = waiting_lines
        self.kv_capacity = kv_capacity  # the last start-up
        self.startups = startups
        self.max_seq_len_error = max_seq_len_error
        self.queue_overflows = queue_overflows
        self.queue_overflow_example = queue_overflow_example
        self.engine_version = engine_version  # "v0" / "v1" / None when unknown
        self.prompts_too_long = prompts_too_long  # requests refused: the prompt exceeds max_model_len
        self.prompt_too_long_examples = prompt_too_long_examples
        self.prompt_too_long_max = prompt_too_long_max  # (prompt tokens, limit)
        self.output_too_long = output_too_long  # of prompts_too_long: refused for max_tokens beyond the room left
        self.prompts_over_kv_capacity = prompts_over_kv_capacity  # of prompts_too_long: beyond the whole KV cache (V0)
        self.no_kv_memory = no_kv_memory  # the refusal to start with no memory for any KV block (the line)
        self.gpu_memory_short = gpu_memory_short
        self.max_model_len_over_model = max_model_len_over_model  # (asked, the model's own) when it exceeds the model's
        self.kv_alone = kv_alone  # the fullest KV cache (from the lowest KV level on) while one request ran alone
        # config: refused (ValueError), or only warned of with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
        self.settings = {} if settings is None else settings  # from `non-default args: {...}` / V0 `with config:`
        self.release = release  # the vLLM release the last start-up line stating one names ("0.5.4")
        self.lines = lines  # lines read (the feeding paths count a final empty line apart)

    def _key(self) -> tuple:
        """All but `lines` (not compared: the feeding paths count a final empty line apart)."""
        return tuple(getattr(self, n) for n in self.__slots__[:-1])

    def waiting_prompt_over(self, ratio: int) -> int | None:
        """Waiting lines whose prompt throughput exceeded `ratio` x generation's; None when the
        scan did not count at that ratio (not one of log.PROMPT_RATIOS)."""
        return dict(self.waiting_prompt_ratios).get(ratio)

    @property
    def last_stats(self) -> StatsLine | None:
        """The last stats record read, if any."""
        return self.recent_stats[-1] if self.recent_stats else None

    @property
    def empty(self) -> bool:
        return not (self.preemption_warnings or self.stats_lines or self.kv_capacity or self.max_seq_len_error
                    or self.queue_overflows or self.prompts_too_long or self.settings or self.no_kv_memory
                    or self.gpu_memory_short or self.max_model_len_over_model)

    def summary(self) -> list[tuple[str, str]]:
        out = []
        if self.kv_capacity and self.kv_capacity.max_concurrency is not None:
            out.append(("vLLM max concurrency (start-up)", f"{self.kv_capacity.max_concurrency:.2f}x"))
        if self.stats_lines:
            last = self.recent_stats[-1]
            out.append(("vLLM last stats", f"Running {last.running}, Waiting {last.waiting}, "
                                           f"KV {last.kv_usage_pct:.1f}%"))
        return out
