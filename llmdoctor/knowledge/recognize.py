"""Which engine wrote a piece of evidence: one table of signs per engine.

A sign is a line (or a word in a configuration) that only that engine's code or
configuration prints. llama.cpp's own code runs in two engines - Ollama's runner (and,
from Ollama 0.30, an llama-server child) and the standalone llama-server - so its loader,
backend, context and slot lines form a fourth table, FAMILY, whose lines belong to Ollama
when Ollama's own signs are in the same evidence and to llama-server otherwise (either
way they feed the offload and slot parsers). A file with Ollama's signs is Ollama's even
where it names llama-server: Ollama >= 0.30 logs "starting llama-server" itself.

Pure: text in, counts out. `decide` turns the counts of every file of an evidence
directory into the engines it speaks of and the engine of each file.
"""
from __future__ import annotations

import re
from functools import lru_cache

from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern

OLLAMA, VLLM, LLAMACPP, SGLANG = "ollama", "vllm", "llamacpp", "sglang"
FAMILY = "llama.cpp"  # llama.cpp code: Ollama's runner or llama-server, decided by the rest
ENGINES = (OLLAMA, VLLM, LLAMACPP, SGLANG)
HEAD = 256 * 1024  # characters of a file that are read for its signs
NAMED_ONLY = "llama-server named"  # the weakest llama-server sign (Ollama's own log names it too)
MAX_LINES = 4000


Sign = tuple[tuple[str, ...], LazyPattern, str]  # (literals, pattern, what it is)


def _table(*rows: tuple[str | tuple[str, ...], str, str]) -> tuple[Sign, ...]:
    """Rows of (literal or literals, pattern, description). Every match of a pattern holds one
    of its row's literals, in lower case once the line is case-folded: a pattern is compiled
    and searched only on lines that hold one (start-up time, and the cost of each line)."""
    return tuple(((lit,) if isinstance(lit, str) else lit, LazyPattern(p), what) for lit, p, what in rows)


SIGNS: dict[str, tuple[Sign, ...]] = {
    OLLAMA: _table(
        ("[gin] ", r"\[GIN\] \d{4}/\d{2}/\d{2}", "gin access log line"),
        ("server config", r'server config"? env=', "server config line"),
        ('msg="inference compute"', r'msg="inference compute"', "GPU inventory line"),
        (".go:", r"\bsource=[\w.-]+\.go:\d+ ", "Go slog line (time= level= source=x.go)"),
        (".go:", r"^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2} [\w.-]+\.go:\d+: ", "old Go log line (date x.go:N:)"),
        ("ollama_", r"\bOLLAMA_[A-Z][A-Z0-9_]*", "OLLAMA_* variable"),
        ("ollama", r"\bollama(?:\.exe)?\s+(?:serve|runner|run|ps|pull|create|show|list|stop)\b", "ollama command"),
        ("/api/", r"/api/(?:generate|chat|embed|embeddings|tags|ps|show|pull)\b", "Ollama API path"),
        ("ollama", r"\.ollama[/\\]models|/usr/share/ollama|lib[/\\]ollama\b|\\Ollama\\|\bollama/ollama\b", "Ollama path or image"),
        (("llama runner", "llama server"), r"llama runner (?:started|process)|starting llama server|\bollama runner\b|waiting for llama runner", "Ollama runner line"),
        ("maximum pending requests exceeded", r"maximum pending requests exceeded", "Ollama queue-full text"),
        # the runner's binary (v0.1.32-v0.5.x), and its arguments as llm/server.go writes them (v0.1.32-v0.11.x:
        # --model, --ctx-size, --batch-size lead) on a line with no program before them (a paste of the
        # arguments alone): --ctx-size there is num_ctx x --parallel by construction, not llama-server's -c
        ("ollama_llama_server", r"\bollama_llama_server\b", "Ollama runner binary"),
        ("--ctx-size", r"^\s*(?:--model \S+ )?--ctx-size \d+ --batch-size \d+(?:\s|$)", "Ollama runner arguments"),
        ("processor", r"^NAME\s+ID\s+SIZE\s+PROCESSOR\b", "`ollama ps` table"),
        ('"size_vram"', r'"size_vram"\s*:', "/api/ps response"),
        # server/routes.go's 400 for an embedding input over the context: "input length exceeds maximum
        # context length" (v0.2.8-v0.11), "input exceeds ..." and "input after truncation exceeds ..." (v0.12+)
        ("exceeds maximum context length", r"\binput (?:length |after truncation )?exceeds maximum context length",
         "Ollama embed 400 body"),
        # the figures that end every answer (api/types.go Metrics: json "prompt_eval_count" ... and `ollama run
        # --verbose`'s "prompt eval count:"; knowledge/ollama/response.py): no other engine names them so
        (("prompt_eval_", "prompt eval "), r'"prompt_eval_(?:count|duration)"\s*:\s*\d|\bprompt eval (?:count|duration):[ \t]+\d',
         "Ollama answer figures"),
    ),
    VLLM: _table(
        ("vllm", r"(?i)\bvllm\b|VLLM_[A-Z]", "vllm named"),
        ("avg prompt throughput: ", r"Avg prompt throughput: [\d.]+ tokens/s", "stats line"),
        ("engine ", r"\bEngine \d{3}: ", "V1 engine stats prefix"),
        (" blocks: ", r"# (?:GPU|cuda|CPU|XPU) blocks: \d+", "V0 KV block count"),
        (("kv cache size: ", "maximum concurrency for "), r"KV cache size: [\d,]+ tokens|Maximum concurrency for [\d,]+ tokens per request", "KV capacity line"),
        (("preemptionmode.", "is preempted by"), r"PreemptionMode\.|is preempted by", "preemption warning"),
        (" pid=", r"\((?:APIServer|EngineCore\w*|VllmWorker\w*|Worker\w*) pid=\d+\)", "vLLM process tag"),
        (".py:", r"\b[\w]+\.py:\d+\] ", "vLLM log prefix (file.py:N])"),
        ("input prompt (", r"Input prompt \(\d+ tokens\) is too long and exceeds limit", "V0 prompt-too-long line"),
        ("kv cache", r"max seq len \(\d+\)[^\n]*(?:KV cache is needed|stored in KV cache)|KV cache is needed, which is larger than "
         r"the available KV cache memory", "KV cache too small for max_model_len (start-up refusal)"),
        (("max_model_len", "max_num_seqs", "gpu_memory_utilization", "max_num_batched_tokens", "max_seq_len",
          "--max-model-len", "--max-num-seqs", "--gpu-memory-utilization", "--tensor-parallel-size",
          "--max-num-batched-tokens"),
         r"\b(?:max_model_len|max_num_seqs|gpu_memory_utilization|max_num_batched_tokens|max_seq_len)\b"
         r"|--(?:max-model-len|max-num-seqs|gpu-memory-utilization|tensor-parallel-size|max-num-batched-tokens)\b",
         "vLLM setting"),
        ("llm(", r"\bLLM\(\s*model\s*=", "vLLM LLM(...) call"),
        ("initializing a", r"Initializing an? (?:V1 )?LLM engine", "engine start-up line"),
    ),
    LLAMACPP: _table(
        (("llama-server", "llama.cpp/server", "examples/server"), r"\bllama-server\b|\bllama\.cpp/server\b|examples/server", NAMED_ONLY),
        ((" i ", " w ", " e ", " d ", " t "), r"^\d+\.\d{2}\.\d{3}\.\d{3} [IWEDT] ", "llama-server timestamped log line"),
        ("ghcr.io/", r"ghcr\.io/(?:ggerganov|ggml-org)/llama\.cpp", "llama.cpp image"),
        ("llama_arg_", r"\bLLAMA_ARG_[A-Z][A-Z0-9_]*", "LLAMA_ARG_* variable"),
        ("llamacpp", r"\bllamacpp[:_][a-z]", "llama-server metric"),
        (("lemonade", "--llamacpp"), r"(?i)\blemonade\b|--llamacpp", "Lemonade (llama-server front-end)"),
        (('"total_slots"', '"default_generation_settings"'), r'"total_slots"\s*:|"default_generation_settings"', "/props response"),
        # the 400 body of a prompt over the slot's context (server.cpp @ b6710, server-context.cpp and
        # server-common.cpp @ b9821): type "exceed_context_size_error", with n_prompt_tokens and n_ctx
        (("exceed_context_size_error", "exceeds the available context size"),
         r'"exceed_context_size_error"|\brequest (?:\(\d+ tokens\) )?exceeds the available context size',
         "context-size 400 body"),
    ),
    # SGLang (knowledge/sglang/FORMATS.md): its scheduler's batch and retraction lines, its
    # launch module and flags, its metric prefix
    SGLANG: _table(
        (" batch", r"\b(?:Decode|Prefill) batch(?: \[\d+\])?[.,] #(?:running-req|new-seq): \d+", "scheduler batch line"),
        ("#retracted_reqs: ", r"#retracted_reqs: \d+", "retraction line"),
        (("#running-req: ", "new fill batch. #seq: "),
         r"#running-req: \d+, #token: \d+, token usage: |new fill batch\. #seq: \d+\. ", "0.1 scheduler line"),
        ("input length (", r"Input length \(\d+ tokens\) exceeds the maximum allowed length", "input-too-long line"),
        # tokenizer_manager.py's 400 body (0.2.0-0.5.x): "The input (N tokens) is longer than the model's
        # context length (M tokens)." (vLLM's says "This model's maximum context length is")
        ("is longer than the model", r"The input \(\d+ tokens\) is longer than the model\\?'s context length \(\d+ tokens\)",
         "input-longer-than-context 400 body"),
        ("sglang", r"(?i)\bsglang\b|\bSGLANG_[A-Z]", "sglang named"),
        (("the server is fired up", "server_args=serverargs("), r"The server is fired up and ready to roll|server_args=ServerArgs\(", "start-up line"),
        (("--mem-fraction-static", "--max-running-requests", "--disable-radix-cache", "--schedule-conservativeness",
          "mem_fraction_static", "max_running_requests", "disable_radix_cache", "max_total_num_tokens"),
         r"--(?:mem-fraction-static|max-running-requests|disable-radix-cache|schedule-conservativeness)\b"
         r"|\b(?:mem_fraction_static|max_running_requests|disable_radix_cache|max_total_num_tokens)\b",
         "SGLang setting"),
    ),
    FAMILY: _table(
        (("llm_load_", "load_tensors:", "llama_model_load", "print_info:", "llama_new_context_with_model:",
          "llama_context:", "llama_kv_cache", "load_backend:", "ggml_cuda_init:", "ggml_vulkan:", "ggml_metal_",
          "ggml_backend_", "llama_init_from_model:", "common_init_from_params:", "clip_model_load:", "llama_perf_",
          "llama_print_timings:", "llama_load_model_from_file:"),
         r"\b(?:llm_load_tensors|load_tensors|llama_model_loader|llm_load_print_meta|print_info|"
         r"llama_new_context_with_model|llama_context|llama_kv_cache\w*|load_backend|ggml_cuda_init|"
         r"ggml_vulkan|ggml_metal_\w+|ggml_backend_\w+|llama_init_from_model|common_init_from_params|"
         r"llama_model_load\w*|clip_model_load|llama_perf_\w+|llama_print_timings|llm_load_vocab|"
         r"llama_load_model_from_file|llama_model_load_from_file_impl):", "llama.cpp loader line"),
        (("srv", "slot", "que", "cmn", "main: ", "server is listening on http"), r"^(?:srv|slot|que|cmn)\s+\w+: |^main: |server is listening on http", "llama-server srv/slot line"),
        (" [", r"^(?:INFO|WARN|ERROR|VERB|DEBUG) \[\s*\w+\] ", "old llama.cpp server line (INFO [func])"),
        ('{"', r'^\{"(?:function|timestamp|tid|level)":', "old llama.cpp server JSON line"),
        ("ggml_", r"\bGGML_ASSERT\b|\bggml_\w+: ", "ggml line"),
        (("n_slots", "n_ctx", "kv_unified"), r"\bn_slots\s*=|\bn_ctx(?:_slot|_seq|_per_seq|_train)?\s*=|\bkv_unified\s*=", "slot/context figure"),
        (("slot context shift", "input truncated |", "print_timing", "prompt eval time"), r"slot context shift|input truncated \||print_timing|prompt eval time\s*=", "slot request line"),
        ("failed to find free space in the kv cache", r"failed to find free space in the KV cache", "KV cache full line"),
        (("--", "-n", "-kvu"), r"(?:^|\s)(?:--n-gpu-layers|-ngl|--ctx-size|-np|--parallel|--kv-unified|-kvu|--threads-http|"
         r"--cont-batching|--mmproj)(?:[ =]|$)", "llama.cpp flag"),
        (".gguf", r"\.gguf\b", "GGUF model file"),
    ),
}
# journald identifiers and container names that name an engine: the ident is the binary
# (strong), a compose service or pod name is the user's choice (a hint when nothing else is).
IDENT_ENGINE = ((LazyPattern(r"ollama", re.I), OLLAMA), (LazyPattern(r"vllm", re.I), VLLM),
                (LazyPattern(r"sglang", re.I), SGLANG),
                (LazyPattern(r"llama[-_.]?(?:server|cpp)", re.I), LLAMACPP))


@record
class Hit(Record):
    """One engine's signs in one text: how many lines carry one, and the first. (Plain: a
    frozen dataclass costs ~1 ms of every run's start to define; compared in tests.)"""

    count: int  # lines with a sign
    line: str  # the first such line
    what: str  # the first sign's description


def signs_in(text: str) -> dict[str, Hit]:
    """Per table, how many lines of `text` (its head) carry a sign, and the first one."""
    return dict(_signs_in(text))


@lru_cache(maxsize=16)
def _signs_in(text: str) -> dict[str, Hit]:
    """signs_in, remembered: the exporter reads the same evidence heads every cycle, and a
    256 KiB head costs tens of milliseconds of regex searches."""
    found: dict[str, list] = {}
    for n, line in enumerate(text[:HEAD].split("\n")):
        if n >= MAX_LINES:
            break
        if not line.strip():
            continue
        folded = line.casefold()  # (casefold, not lower: (?i) matches "ſ" for "s" and "K" for "k")
        for engine, table in SIGNS.items():
            for literals, pattern, what in table:
                for literal in literals:
                    if literal in folded:
                        break
                else:
                    continue
                if pattern.search(line):
                    hit = found.get(engine)
                    if hit is None:
                        found[engine] = [1, line.strip()[:300], what]
                    else:
                        hit[0] += 1
                    break
    if asks_the_catalogue(found):
        _catalogued(text, found)
    return {e: Hit(*h) for e, h in found.items()}


def asks_the_catalogue(found: dict[str, list]) -> bool:
    """No sign of an engine's own was found. ("llama-server" named alone is none once Ollama
    >= 0.30 runs it and logs the name itself: such a text still asks which engine printed it.)"""
    return not any(e in found and not (e == LLAMACPP and found[e][2] == NAMED_ONLY) for e in ENGINES)


def _catalogued(text: str, found: dict[str, list]) -> None:
    """Signs from the message catalogue, for a text with no sign of its own engine (a paste of
    one message, without the prefix it came with): any catalogued message names its engine."""
    from llmdoctor.knowledge.messages import messages_in

    for engine, (count, line, mid) in messages_in(text[:HEAD].split("\n"), MAX_LINES).items():
        hit = found.get(engine)
        if hit is None:
            found[engine] = [count, line, f"catalogued message {mid}"]
        else:
            hit[0] += count


def ident_engines(idents) -> dict[str, str]:
    """engine -> the journald ident / container name that names it."""
    out: dict[str, str] = {}
    for ident in idents:
        for pattern, engine in IDENT_ENGINE:
            if pattern.search(ident):
                out.setdefault(engine, ident)
                break
    return out


class Recognition(Record):
    """The engines a set of evidence files speaks of, and why. (Plain, only ever read: a
    frozen dataclass costs ~1 ms of every run's start to define.)"""

    __slots__ = ("engines", "reasons", "files")

    def __init__(self, engines: tuple[str, ...], reasons: dict[str, str] | None = None,
                 files: dict[str, str | None] | None = None) -> None:
        self.engines = engines  # in order of evidence weight
        self.reasons = {} if reasons is None else reasons  # engine -> why ("journal.log: gin access log line")
        self.files = {} if files is None else files  # file -> engine whose lines it holds


def _stronger(hits: dict[str, Hit], a: str, b: str) -> str:
    """Of two engines signed in one file, the one with more sign lines (ties: `b`)."""
    return a if hits[a].count > hits[b].count else b


def _file_engine(hits: dict[str, Hit], family_to: str | None) -> str | None:
    if OLLAMA in hits:
        return OLLAMA  # Ollama's log names llama-server and carries llama.cpp lines itself
    own = [(hits[e].count, e) for e in (VLLM, LLAMACPP, SGLANG) if e in hits]
    if own:
        return max(own)[1]
    return family_to if FAMILY in hits else None


def decide(files: dict[str, dict[str, Hit]], strong_idents: dict[str, str] | None = None,
           weak_idents: dict[str, str] | None = None, named: dict[str, str] | None = None) -> Recognition:
    """The engines a set of files speaks of: any engine with a sign of its own (or a journald
    ident naming it); llama.cpp lines go to Ollama if it is there, else to llama-server, unless
    a hint (the evidence format's file name, a container's name) says Ollama's runner printed
    them. A name alone never makes an engine: a file with no sign in it speaks of none."""
    weight: dict[str, int] = {}
    reasons: dict[str, str] = {}
    for name, hits in files.items():
        for engine in ENGINES:
            if engine == LLAMACPP and OLLAMA in hits:
                continue  # llama-server named in Ollama's own log is Ollama's runner
            if engine in (VLLM, SGLANG) and VLLM in hits and SGLANG in hits \
                    and _stronger(hits, VLLM, SGLANG) != engine:
                continue  # SGLang shares vLLM's flag names (--tensor-parallel-size): one file, one engine
            if engine in hits:
                weight[engine] = weight.get(engine, 0) + hits[engine].count
                reasons.setdefault(engine, f"{name}: {hits[engine].what}: {hits[engine].line[:160]}")
    for engine, ident in (strong_idents or {}).items():
        weight[engine] = weight.get(engine, 0) + 1
        reasons.setdefault(engine, f"log lines of {ident}")
    family = [(n, h[FAMILY]) for n, h in files.items() if FAMILY in h]
    family_to = None
    if family:
        family_to = OLLAMA if OLLAMA in weight else LLAMACPP
        if family_to not in weight:
            # llama.cpp lines alone: llama-server, unless a name says Ollama's runner printed them
            hinted = [e for e in (weak_idents or {}) if e in (OLLAMA, LLAMACPP)]
            family_to = hinted[0] if hinted else LLAMACPP
        weight[family_to] = weight.get(family_to, 0) + sum(h.count for _, h in family)
        n, h = family[0]
        reasons.setdefault(family_to, f"{n}: {h.what}: {h.line[:160]}")
    if not weight:
        # nothing carries a sign: a log file the user named after its engine (vllm.log) that
        # holds log lines at all (a bare traceback) is still that engine's
        for engine, name in (named or {}).items():
            weight[engine] = 1
            reasons[engine] = f"{name}: a log named after {engine}"
    engines = tuple(sorted(weight, key=lambda e: (-weight[e], ENGINES.index(e))))
    per_file = {n: _file_engine(h, family_to) for n, h in files.items()}
    return Recognition(engines, reasons, per_file)


def engine_from_name(name: str) -> str | None:
    """Engine hint from a unit or file name: ollama* -> OLLAMA, vllm* -> VLLM, sglang* -> SGLANG,
    llama* -> LLAMACPP."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if "sglang" in base:
        return SGLANG
    if "ollama" in base:
        return OLLAMA
    if "vllm" in base:
        return VLLM
    if "llama" in base:
        return LLAMACPP
    return None


def engine_of_text(text: str) -> str | None:
    """The engine one text speaks of (a log given with --log, a source of unknown origin)."""
    rec = decide({"text": signs_in(text)})
    return rec.files.get("text") or (rec.engines[0] if rec.engines else None)
