"""`llmdoctor plan`: what-if sizing of slots, context, KV cache type and queue. Touches nothing.

Heavy imports (gguf, NVML, the fact collectors) happen inside the command.
"""
from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Optional

import typer

from llmdoctor.cli.complete import choices

from llmdoctor.model import ExitCode

class BadInput(Exception):
    """Shown as `llmdoctor: <message>`, exit code 3."""


def parse_memory(text: str | None, option: str) -> int | None:
    if text is None:
        return None
    from llmdoctor.parsing import ParseError, parse_size

    if not re.search(r"[KMGTP]i?B?\s*$|B\s*$", text.strip(), re.I):
        raise BadInput(f"{option} {text!r}: give a unit (e.g. 24GB, 24GiB, 22.5 GiB); a bare number is ambiguous")
    try:
        value = parse_size(text)
    except ParseError:
        raise BadInput(f"{option} {text!r}: not a size (e.g. 24GB, 24GiB, 22.5 GiB)") from None
    if value <= 0:
        raise BadInput(f"{option} must be more than zero")
    return value


MAX_USERS = 1_000_000  # sizing is per slot; a larger number is a typo, and would take minutes


def workload_from_flags(users, turn_seconds, think_seconds, between, concurrent):
    from llmdoctor.judge.sizing import Workload

    if concurrent is not None and users is not None:
        raise BadInput("give either --concurrent or --users (with --turn-seconds), not both")
    if think_seconds is not None and between is not None:
        raise BadInput("give either --think-seconds or --seconds-between-turns, not both")
    if users is not None and turn_seconds is None:
        raise BadInput("--users needs --turn-seconds (how long one answer takes to generate)")
    if turn_seconds is not None and users is None:
        raise BadInput("--turn-seconds needs --users")
    for name, v in (("--turn-seconds", turn_seconds), ("--think-seconds", think_seconds),
                    ("--seconds-between-turns", between)):
        if v is not None and not math.isfinite(v):
            raise BadInput(f"{name} must be a number of seconds, not {v}")
        if v is not None and v < 0:
            raise BadInput(f"{name} must not be negative")
    if turn_seconds is not None and turn_seconds <= 0:
        raise BadInput("--turn-seconds must be more than zero")
    for name, v in (("--users", users), ("--concurrent", concurrent)):
        if v is not None and not 1 <= v <= MAX_USERS:
            raise BadInput(f"{name} must be between 1 and {MAX_USERS:,}")
    return Workload(users=users, turn_seconds=turn_seconds, think_seconds=think_seconds,
                    seconds_between_turns=between, concurrent=concurrent)


def _ollama_model(name: str, port: int):
    """(shape, weights bytes or None, label) from the local Ollama."""
    from llmdoctor.facts.ollama_api import OllamaApiError, get_ps_raw, get_show, get_tags
    from llmdoctor.knowledge.ollama.ps import parse_api_ps
    from llmdoctor.hosts.local import LocalHost
    from llmdoctor.app.tune.model_source import SourceError, from_model_info

    host = LocalHost()
    try:
        show = get_show(host, port, name)
    except OllamaApiError as e:
        raise BadInput(f"Ollama does not know model {name!r} ({e})") from None
    try:
        shape = from_model_info(show.get("model_info"), name)
    except SourceError as e:
        raise BadInput(str(e)) from None
    weights = None
    try:
        for m in parse_api_ps(get_ps_raw(host, port)):
            if m.name == name and m.size:
                weights = None  # loaded: its size includes the KV cache; the file size is the weights
        for t in get_tags(host, port):
            if t.get("name") in (name, f"{name}:latest") and isinstance(t.get("size"), int):
                weights = t["size"]
    except Exception:  # sizes are optional: --weights answers when they are missing
        pass
    return shape, weights, f"{name} (Ollama)"


def _gpu_memory_from_nvml() -> tuple[int | None, str]:
    from llmdoctor.facts import Context, FactStore
    from llmdoctor.hosts.local import LocalHost
    from llmdoctor.app.tune.hostfacts import gpu_total

    store = FactStore(Context(LocalHost()))
    try:
        gpu = store.get("gpu")
    except Exception as e:
        return None, getattr(e, "reason", str(e))
    total = gpu_total(gpu)
    return total, "" if total else "NVML reported no GPU memory"


def run_plan(model, hf_config, gguf_file, layers, kv_heads, head_dim, trained_context, cache_type, gpu_memory,
             weights, headroom, users, turn_seconds, think_seconds, between, concurrent, context, max_parallel,
             port) -> tuple[object, str]:
    from llmdoctor.knowledge.capacity import ShapeError, normalise_cache_type
    from llmdoctor.judge.sizing import DEFAULT_HEADROOM, Memory, PlanError, make_plan

    weights_b = parse_memory(weights, "--weights")
    shape, default_weights, label = _shape(model, hf_config, gguf_file, layers, kv_heads, head_dim, trained_context,
                                           port)
    if weights_b is None:
        weights_b = default_weights
    if weights_b is None:
        raise BadInput("how much memory do the weights take? give --weights (e.g. 16GB)")
    total = parse_memory(gpu_memory, "--gpu-memory")
    source = "--gpu-memory"
    if total is None:
        total, why = _gpu_memory_from_nvml()
        source = "NVML"
        if total is None:
            raise BadInput(f"no GPU found ({why}) and no --gpu-memory; give it, e.g. --gpu-memory 24GB")
    room = parse_memory(headroom, "--headroom") if headroom else DEFAULT_HEADROOM
    workload = workload_from_flags(users, turn_seconds, think_seconds, between, concurrent)
    try:
        ct = normalise_cache_type(cache_type or "f16")
        plan = make_plan(shape, Memory(total, weights_b, room, source), workload, context, ct,
                         cache_type_fixed=cache_type is not None, max_parallel=max_parallel)
    except (PlanError, ShapeError) as e:
        raise BadInput(str(e)) from None
    return plan, label


def _shape(model, hf_config, gguf_file, layers, kv_heads, head_dim, trained_context, port):
    """(shape, default weights bytes or None, label) from the one source named."""
    from llmdoctor.app.tune.model_source import SourceError, from_gguf, from_hf_config
    from llmdoctor.knowledge.capacity import ShapeError, uniform_shape

    sources = [x for x in (model, hf_config, gguf_file) if x] + (["--layers"] if layers else [])
    if len(sources) != 1:
        raise BadInput("name the model once: --model NAME (Ollama), --hf-config FILE, --gguf FILE, "
                       "or --layers/--kv-heads/--head-dim")
    try:
        if model:
            return _ollama_model(model, port)
        if hf_config:
            return from_hf_config(Path(hf_config)), None, str(hf_config)
        if gguf_file:
            shape, weights = from_gguf(Path(gguf_file))
            return shape, weights, Path(gguf_file).name
        if not kv_heads or not head_dim:
            raise BadInput("--layers needs --kv-heads and --head-dim")
        return (uniform_shape(layers, kv_heads, head_dim, context_length=trained_context), None,
                f"{layers} layers × {kv_heads} KV heads × {head_dim} head_dim")
    except (SourceError, ShapeError) as e:
        raise BadInput(str(e)) from None


def run_what_if(source: Path, settings: list[str], ttft_target: str | None, itl_target: str | None,
                shape_args: tuple, cache_type, gpu_memory, weights, headroom, context):
    """The what-if of every sweep in the file (raises BadInput: one line, exit 3)."""
    from llmdoctor.judge.probe.headroom import Targets
    from llmdoctor.judge.probe.whatif import KvArith, parse_setting, what_if
    from llmdoctor.knowledge.capacity import ShapeError, kv_bytes_per_token, normalise_cache_type
    from llmdoctor.knowledge.probe.sweep import parse_duration, sweeps_from_json
    from llmdoctor.judge.sizing import DEFAULT_HEADROOM

    if not settings:
        raise BadInput("--from needs at least one --what-if SETTING=VALUE (e.g. OLLAMA_NUM_PARALLEL=4)")
    try:
        parsed = tuple(parse_setting(s) for s in settings)
    except ValueError as e:
        raise BadInput(str(e)) from None
    try:
        text = Path(source).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise BadInput(f"--from {source}: {e.strerror or e}") from None
    try:
        sweeps = sweeps_from_json(text)
    except ValueError as e:
        raise BadInput(f"--from {source}: {e}") from None
    kv = None
    if any(shape_args[:4]):
        shape, default_weights, _ = _shape(*shape_args)
        try:
            ct_now = normalise_cache_type(cache_type or "f16")
            per_token = {ct: kv_bytes_per_token(shape, ct) for ct in {ct_now, *(s.value for s in parsed
                                                                                  if s.kind == "cache type")}}
        except ShapeError as e:
            raise BadInput(str(e)) from None
        total, w = parse_memory(gpu_memory, "--gpu-memory"), parse_memory(weights, "--weights") or default_weights
        room = parse_memory(headroom, "--headroom") if headroom else DEFAULT_HEADROOM
        budget = total - w - room if total and w else None
        if budget is not None and budget <= 0:
            raise BadInput("the weights and the --headroom take all of --gpu-memory: no room is left for a KV cache")
        kv = KvArith(per_token, budget, context or 8192, ct_now)
    results = []
    for r in sweeps:
        try:
            ttft = parse_duration(ttft_target) if ttft_target else r.plan.ttft_target_s
            itl = parse_duration(itl_target) if itl_target else r.plan.itl_target_s
        except ValueError as e:
            raise BadInput(f"--ttft-target/--itl-target: {e}") from None
        results.append(what_if(r, parsed, Targets(ttft, itl), kv))
    return results


def register(app: typer.Typer) -> None:
    @app.command("plan", epilog="""\b
Examples:
  llmdoctor plan -m llama3:8b --users 20                    # asks the local Ollama
  llmdoctor plan --gguf model.gguf --gpu-memory 24GiB --concurrent 8
  llmdoctor plan --hf-config config.json --weights 16GB --gpu-memory 80GB --users 50 --cache-type fp8
  llmdoctor plan --what-if OLLAMA_NUM_PARALLEL=4 --from sweep.json     # from `probe --sweep --save sweep.json`
  llmdoctor plan --what-if "-np 4" --what-if "-c 16384" --from sweep.json --gguf model.gguf --gpu-memory 24GB
""")
    def plan_command(
        model: Optional[str] = typer.Option(None, "--model", "-m", help="Ollama model name (asks the local Ollama's /api/show)."),
        hf_config: Optional[Path] = typer.Option(None, "--hf-config", help="A Hugging Face config.json."),
        gguf_file: Optional[Path] = typer.Option(None, "--gguf", help="A GGUF model file (its metadata; its size stands in for --weights)."),
        layers: Optional[int] = typer.Option(None, "--layers", min=1, help="Layers (with --kv-heads and --head-dim)."),
        kv_heads: Optional[int] = typer.Option(None, "--kv-heads", min=1, help="KV heads per layer."),
        head_dim: Optional[int] = typer.Option(None, "--head-dim", min=1, help="Head dimension."),
        trained_context: Optional[int] = typer.Option(None, "--trained-context", min=1, help="The model's trained context (with --layers)."),
        cache_type: Optional[str] = typer.Option(None, "--cache-type", help="KV cache type: f16 (default), bf16, q8_0, q4_0, fp8, ..."),
        gpu_memory: Optional[str] = typer.Option(None, "--gpu-memory", help="GPU memory (24GB, 24GiB); default: NVML."),
        weights: Optional[str] = typer.Option(None, "--weights", help="Memory the weights take (16GB)."),
        headroom: Optional[str] = typer.Option(None, "--headroom", help="Memory kept free for CUDA context and compute buffers (default 1.5GiB)."),
        users: Optional[int] = typer.Option(None, "--users", min=1, help="People or agents using the model."),
        turn_seconds: Optional[float] = typer.Option(None, "--turn-seconds", help="Seconds one answer takes to generate."),
        think_seconds: Optional[float] = typer.Option(None, "--think-seconds", help="Seconds a user reads/types before the next request (0 for agents)."),
        between: Optional[float] = typer.Option(None, "--seconds-between-turns", help="Seconds from one turn's start to the same user's next (instead of --think-seconds)."),
        concurrent: Optional[int] = typer.Option(None, "--concurrent", min=1, help="Requests in flight at once (instead of --users)."),
        context: Optional[int] = typer.Option(None, "--context", min=1, help="Context per conversation, tokens (default 8192)."),
        max_parallel: int = typer.Option(16, "--max-parallel", min=1, help="Upper bound for the slots."),
        port: int = typer.Option(11434, "--port", help="Ollama's port (for --model)."),
        fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(("text", "json")), help="text or json."),
        width: Optional[int] = typer.Option(None, "--width", min=0, max=1000, help="Wrap text at this many columns (default: the terminal's, $COLUMNS, else 80; 0: never)."),
        what_if: Optional[list[str]] = typer.Option(None, "--what-if", help="With --from: a setting to predict, "
                                                    "SETTING=VALUE (OLLAMA_NUM_PARALLEL, -np, --max-num-seqs, "
                                                    "--max-running-requests, a context length, a KV cache type)."),
        from_: Optional[Path] = typer.Option(None, "--from", help="A saved sweep (`llmdoctor probe --sweep --save "
                                             "FILE`): predict its server's headroom with --what-if."),
        ttft_target: Optional[str] = typer.Option(None, "--ttft-target", help="With --from: the p95 TTFT target "
                                                  "(default: the sweep's)."),
        itl_target: Optional[str] = typer.Option(None, "--itl-target", help="With --from: the p95 ITL target "
                                                 "(default: the sweep's)."),
    ) -> None:
        """What-if sizing: KV per token and conversation, conversations that fit, slots, context, cache type, queue."""
        if fmt not in ("text", "json"):
            typer.echo(f"llmdoctor: unknown --format {fmt!r}; choose text or json", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        if what_if and from_ is None:
            typer.echo("llmdoctor: --what-if needs --from sweep.json (save one with `llmdoctor probe URL --sweep "
                       "--save sweep.json`)", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        if from_ is not None:
            from llmdoctor.render import render
            from llmdoctor.render.whatif import WhatIfView

            try:
                found = run_what_if(from_, list(what_if or ()), ttft_target, itl_target,
                                    (model, hf_config, gguf_file, layers, kv_heads, head_dim, trained_context, port),
                                    cache_type, gpu_memory, weights, headroom, context)
            except BadInput as e:
                typer.echo(f"llmdoctor: {e}", err=True)
                raise typer.Exit(ExitCode.UNKNOWN)
            sys.stdout.write(render(WhatIfView(tuple(found), str(from_)), fmt))
            raise typer.Exit(ExitCode.OK if all(w.after is not None and w.after.trusted for w in found)
                             else ExitCode.WARNING)
        try:
            plan, label = run_plan(model, hf_config, gguf_file, layers, kv_heads, head_dim, trained_context, cache_type,
                                   gpu_memory, weights, headroom, users, turn_seconds, think_seconds, between,
                                   concurrent, context, max_parallel, port)
        except BadInput as e:
            typer.echo(f"llmdoctor: {e}", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        from llmdoctor.render import render
        from llmdoctor.render.plan import PlanView

        sys.stdout.write(render(PlanView(plan, label, width), fmt))
        raise typer.Exit(ExitCode.OK if plan.fits_wanted else ExitCode.WARNING)
