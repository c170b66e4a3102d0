"""MODEL_UNLOAD in Ollama: reloads after idle gaps, reload churn from changing num_ctx, models stopping."""
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

SLOW_LOAD_S = 5.0
UPGRADE = ("ollama -v", "curl -fsSL https://ollama.com/install.sh | sh  # upgrade in place")
PIN_OPTIONS = ("journalctl -u ollama | grep -E 'starting (llama server|runner|llama-server)'  # compare the runner flags",
               "ollama show MODEL --modelfile > Modelfile && echo 'PARAMETER num_ctx 8192' >> Modelfile "
               "&& ollama create MODEL-8k -f Modelfile")


@check(id="ollama-keepalive-unload", cause=Cause.MODEL_UNLOAD,
       purpose="Models reload after idle gaps longer than the keep-alive, or are being stopped now")
def keepalive_unload(ollama_config=None, ollama_log=None, ollama_ps=None, ollama_deployment=None):
    if ollama_log is None and not ollama_ps:
        return  # nothing reloaded or stopping to show (and the figures module stays unimported)
    from llmdoctor.knowledge.ollama.env import format_seconds
    from llmdoctor.judge.ollama import config_evidence, keep_alive_seconds
    from llmdoctor.judge.fixes import plus_commands, settings_fix

    keep = keep_alive_seconds(ollama_config)
    evidence = []
    reloads = []
    if ollama_log is not None:
        reloads = [ld for ld in ollama_log.loads if ld.idle_before_s is not None and ld.idle_before_s >= max(keep, 60)
                   and (ld.load_seconds or 0) >= SLOW_LOAD_S]
        for ld in reloads[-3:]:
            line = next((e for e in ld.examples if "started in" in e.line), ld.examples[-1] if ld.examples else None)
            if line is not None:
                evidence.append(Evidence(line.source, f"{line.line}  [after {format_seconds(ld.idle_before_s)} idle]"))
    stopping = [m for m in ollama_ps or () if m.stopping]
    evidence += [Evidence(m.source, m.line) for m in stopping]
    if not evidence:
        return
    if ollama_config is not None:
        evidence.append(config_evidence(ollama_config, "OLLAMA_KEEP_ALIVE"))
    worst = max((ld.load_seconds or 0 for ld in reloads), default=0)
    title = (f"The model was unloaded after {format_seconds(keep)} idle and reloaded {len(reloads)} time(s), "
             f"up to {worst:.1f} s each, before answering" if reloads else
             "A model is being unloaded right now (`Stopping...`); the next request reloads it")
    yield Finding(
        Cause.MODEL_UNLOAD, Severity.WARNING, title, evidence,
        Fix("Keep the model in memory longer: set OLLAMA_KEEP_ALIVE (e.g. 24h, or -1 for forever) in the service, "
            "or send keep_alive with requests; warm it after a restart with an empty request.",
            *plus_commands(settings_fix(ollama_deployment, OLLAMA_KEEP_ALIVE="24h"),
                           after=("curl http://127.0.0.1:11434/api/generate -d '{\"model\":\"MODEL\",\"keep_alive\":-1}'",))),
    )


@check(id="ollama-reload-churn", cause=Cause.MODEL_UNLOAD,
       purpose="One model is loaded again and again with different context sizes (clients sending different num_ctx)")
def reload_churn(ollama_log, ollama_deployment=None):
    from llmdoctor.judge.ollama import evs
    from llmdoctor.judge.fixes import settings_fix

    for model, sizes in ollama_log.ctx_sizes_by_model.items():
        loads = sum(sizes.values())
        if len(sizes) < 2 or loads < 3:
            continue
        examples = [e for ld in ollama_log.loads if ld.model == model for e in ld.examples[:1]]
        figures = ", ".join(f"{c} ({n}x)" for c, n in sorted(sizes.items()))
        yield Finding(
            Cause.MODEL_UNLOAD, Severity.WARNING,
            f"Model {model} was loaded {loads} times with {len(sizes)} different context sizes: each change restarts the runner",
            [Evidence("ollama log", f"runner context sizes for {model}: {figures}")] + evs(examples[-4:]),
            Fix("Clients send different num_ctx (or parallel settings change), and every change reloads the model. "
                "Pin the context on the server (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in a Modelfile) and "
                "make every client send the same num_ctx or none.",
                *settings_fix(ollama_deployment, OLLAMA_CONTEXT_LENGTH=max(sizes))),
        )
        return


@check(id="ollama-model-evicted", cause=Cause.MODEL_UNLOAD,
       purpose="Ollama's scheduler unloaded a loaded model to make room for another (or for new load options)")
def model_evicted(ollama_log, ollama_config=None, ollama_deployment=None):
    from llmdoctor.judge.ollama import evs
    from llmdoctor.judge.fixes import settings_fix
    from llmdoctor.knowledge.memory import human_bytes as human

    e = ollama_log.evictions
    if not e.count:
        return
    ev = evs(e.examples[:3])
    text = " ".join(x.line for x in e.examples)
    free = ollama_log.system_free_bytes
    cpu_only = '"loaded layers"=0' in text or "loaded layers=0" in text
    if ollama_log.system_memory is not None:
        ev.append(Evidence(ollama_log.system_memory.source, ollama_log.system_memory.line))
    reset = "expire immediately" in text
    if cpu_only and free and free > 32 * 2**30:
        why = (f"This happened with {human(free)} of RAM free and no layer on a GPU: before Ollama 0.13.1 the scheduler evicted "
               f"on CPU-only hosts whenever a model could not go to VRAM (ollama/ollama#13227, fixed by #13242). "
               f"Upgrade Ollama.")
    elif reset:
        why = ("A request arrived whose load options differ from the loaded runner's (num_ctx, use_mlock, num_gpu, "
               "num_thread...), so the model was expired and loaded again. Make every client send the same options "
               "or none, and pin the context on the server (OLLAMA_CONTEXT_LENGTH or PARAMETER num_ctx).")
    else:
        why = ("Another model did not fit next to it, or OLLAMA_MAX_LOADED_MODELS was reached. Use fewer or smaller "
               "models, lower OLLAMA_NUM_PARALLEL or the context (the KV cache grows with both), or raise "
               "OLLAMA_MAX_LOADED_MODELS if memory allows.")
    yield Finding(
        Cause.MODEL_UNLOAD, Severity.WARNING,
        f"Ollama unloaded a loaded model to make room {e.count} time(s): the next request for it waits for a reload",
        ev, Fix(why, *((UPGRADE,) if cpu_only and free and free > 32 * 2**30 else
                       (PIN_OPTIONS,) if reset else settings_fix(ollama_deployment, OLLAMA_MAX_LOADED_MODELS=2))))


@check(id="ollama-reload-while-active", cause=Cause.MODEL_UNLOAD,
       purpose="Ollama loaded a model again shortly after serving requests, well within the keep-alive")
def reload_while_active(ollama_log, ollama_config=None):
    from llmdoctor.knowledge.ollama.env import format_seconds
    from llmdoctor.judge.ollama import config_evidence, keep_alive_seconds

    keep = keep_alive_seconds(ollama_config)
    early = [ld for ld in ollama_log.loads if ld.idle_before_s is not None and ld.idle_before_s < min(keep, 3600)
             and ld.examples]
    if not early or ollama_log.evictions.count:
        return  # (an eviction is reported with its own reason)
    ld = early[-1]
    ev = [Evidence(ld.examples[0].source, f"{ld.examples[0].line}  [{format_seconds(ld.idle_before_s)} after the "
                                          f"last request finished]")]
    if ollama_config is not None and not ollama_config.is_default("OLLAMA_KEEP_ALIVE"):
        ev.append(config_evidence(ollama_config, "OLLAMA_KEEP_ALIVE"))
    forever = keep >= 10**9
    yield Finding(
        Cause.MODEL_UNLOAD, Severity.WARNING,
        f"Ollama loaded a model {format_seconds(ld.idle_before_s)} after serving a request, inside its keep-alive "
        f"({'forever' if forever else format_seconds(keep)}): not an idle unload",
        ev,
        Fix("A load this soon after traffic means a request needed a different runner: either another model "
            "(the two take turns in memory), or the same model with different load options - num_ctx, use_mlock, "
            "num_gpu, num_thread - which Ollama can only apply by loading it again. Make every client send the "
            "same options or none, pin the context on the server (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in "
            "a Modelfile), and if two models alternate, keep both loaded (OLLAMA_MAX_LOADED_MODELS) when memory "
            "allows. The runner command lines in the log show which option changed.", PIN_OPTIONS),
        confidence="medium")


@check(id="ollama-slow-after-idle", cause=Cause.MODEL_UNLOAD,
       purpose="The first request after an idle gap took many times longer than the ones after it (a reload, or an uncached prompt)")
def slow_after_idle(ollama_log, ollama_config=None, ollama_deployment=None):
    from llmdoctor.knowledge.ollama.env import format_seconds
    from llmdoctor.judge.ollama import config_evidence, keep_alive_seconds
    from llmdoctor.judge.fixes import plus_commands, settings_fix

    cold = ollama_log.requests.cold
    if not cold:
        return
    if any(ld.idle_before_s is not None for ld in ollama_log.loads):
        return  # the log shows the loads themselves: ollama-keepalive-unload reads those
    keep = keep_alive_seconds(ollama_config)
    c = max(cold, key=lambda x: x.seconds - x.typical_s)
    ev = [Evidence(c.example.source, f"{c.example.line}  [after {format_seconds(c.idle_s)} without a request]")]
    ev += [Evidence(e.source, e.line) for e in c.warm[:2]]
    ev.append(Evidence("ollama access log", f"{len(cold)} request(s) after a pause took {min(x.seconds for x in cold):.1f}-"
                                            f"{max(x.seconds for x in cold):.1f} s; requests without a pause took "
                                            f"{c.typical_s:.1f} s (median)"))
    forever = keep >= 10**9 and ollama_config is not None and not ollama_config.is_default("OLLAMA_KEEP_ALIVE")
    if ollama_config is not None and not ollama_config.is_default("OLLAMA_KEEP_ALIVE"):
        ev.append(config_evidence(ollama_config, "OLLAMA_KEEP_ALIVE"))
    alternatives = ("It may also be a prompt the server had not cached (a new conversation's long system prompt "
                    "is computed in full once) or a client that sends its first request with more work.")
    if not forever:
        why = (f"after the {format_seconds(keep)} keep-alive ran out" if c.idle_s > keep else
               "sooner than the server's keep-alive: a client's own keep_alive, or another model that took its place")
        yield Finding(
            Cause.MODEL_UNLOAD, Severity.WARNING,
            f"Requests after a pause take {c.seconds / max(c.typical_s, 0.1):.0f}x as long as the others "
            f"({c.seconds:.1f} s after {format_seconds(c.idle_s)} idle, {c.typical_s:.1f} s warm): most likely the "
            f"model was unloaded and loaded again",
            ev,
            Fix(f"The usual reason is a reload, {why}. Keep the model in memory across the gaps: a longer "
                "OLLAMA_KEEP_ALIVE (24h, or -1 for ever), keep_alive in the requests (clients may send a short one), "
                "enough room for every model in use (OLLAMA_MAX_LOADED_MODELS), or a warm-up request on a timer. "
                + alternatives + " A debug log (OLLAMA_DEBUG=1) shows the unload ('timer expired, expiring to unload').",
                *plus_commands(settings_fix(ollama_deployment, OLLAMA_KEEP_ALIVE="24h"),
                               after=("curl http://127.0.0.1:11434/api/generate -d '{\"model\":\"MODEL\",\"keep_alive\":-1}'",))),
            confidence="medium")
    else:
        yield Finding(
            Cause.PREFILL, Severity.INFO,
            f"Requests after a pause take {c.seconds / max(c.typical_s, 0.1):.0f}x as long as the others, although the "
            f"keep-alive ({format_seconds(keep)}) keeps the model loaded",
            ev,
            Fix("With the model still loaded, the usual reason is a prompt that was not cached: the slot's cache "
                "was reused by another conversation, or the prompt's beginning changed. Keep fixed content (system "
                "prompt, tools) first and identical; more slots (OLLAMA_NUM_PARALLEL) keep more conversations cached.",
                ("journalctl -u ollama | grep -E 'starting (llama server|runner|llama-server)|started in'",)),
            confidence="low")
