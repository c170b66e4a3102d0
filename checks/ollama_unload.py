"""MODEL_UNLOAD in Ollama: reloads after idle gaps, reload churn from changing num_ctx, models stopping."""
from llmdoctor.checks import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

SLOW_LOAD_S = 5.0


@check(id="ollama-keepalive-unload", cause=Cause.MODEL_UNLOAD,
       purpose="Models reload after idle gaps longer than the keep-alive, or are being stopped now")
def keepalive_unload(ollama_config=None, ollama_log=None, ollama_ps=None):
    if ollama_log is None and not ollama_ps:
        return  # nothing reloaded or stopping to show (and the figures module stays unimported)
    from llmdoctor.engines.ollama_env import format_seconds
    from llmdoctor.engines.ollama_figures import config_evidence, dropin, dropin_commands, keep_alive_seconds

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
            dropin_commands() + ("curl http://127.0.0.1:11434/api/generate -d '{\"model\":\"MODEL\",\"keep_alive\":-1}'",),
            dropin(OLLAMA_KEEP_ALIVE="24h")),
    )


@check(id="ollama-reload-churn", cause=Cause.MODEL_UNLOAD,
       purpose="One model is loaded again and again with different context sizes (clients sending different num_ctx)")
def reload_churn(ollama_log):
    from llmdoctor.engines.ollama_figures import dropin, dropin_commands, evs

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
                dropin_commands(), dropin(OLLAMA_CONTEXT_LENGTH=max(sizes))),
        )
        return
