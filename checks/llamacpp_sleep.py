"""MODEL_UNLOAD in llama-server: the model was unloaded while idle and loaded again for a request.

Two mechanisms print it: `--sleep-idle-seconds` (the server frees the model and its KV cache
after that much idleness, `server is entering sleeping state`, and the next request waits for
the reload, `server is exiting sleeping state`), and router mode's `--models-max` (loading a
model unloads the least recently used one, `models_max limit reached, removing LRU name=...`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.fixes import llama, remedy_fix
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import LLAMACPP_SLEEP_REPEATS

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.llamacpp import LlamaLog


@check(id="llamacpp-idle-unload", cause=Cause.MODEL_UNLOAD,
       purpose="llama-server unloads its model when idle (--sleep-idle-seconds, --models-max) and a request waits "
               "for the reload",
       engines=("llamacpp",))
def idle_unload(llamacpp_log: LlamaLog):
    for scan in llamacpp_log.scans:
        c = scan.cpp
        if not (c.wakes or c.lru_unloads):
            continue  # asleep and never woken, or nothing unloaded: no request paid for it
        ev = [Evidence(scan.source, line) for line in c.unload_lines[:3]]
        if c.wakes:
            ev.append(Evidence(scan.source, f"{c.wakes} wake(s) after {c.sleeps} sleep(s): each first request after "
                                            f"an idle spell waited for the model to load again"))
            title = f"llama-server unloaded its model when idle and reloaded it {c.wakes} time(s) for a request"
            fix = remedy_fix("--sleep-idle-seconds frees the model and its KV cache after that many idle seconds; the next "
                      "request waits for the whole load (seconds to minutes for a large model) and starts with an "
                      "empty prompt cache. Raise it above the longest quiet spell between requests, or leave it off "
                      "(-1, the default) where the memory is not needed elsewhere.",
                      llama({"--sleep-idle-seconds": -1}))
        else:
            ev.append(Evidence(scan.source, f"{c.lru_unloads} model(s) unloaded to make room for another"))
            title = f"llama-server's router unloaded {c.lru_unloads} model(s) to load another: requests wait for loads"
            fix = remedy_fix("In router mode --models-max caps the models kept loaded; a request for another model unloads "
                      "the least recently used one and waits for its own load, and requests alternating between "
                      "models reload them every time. Raise --models-max if memory allows, or send each model's "
                      "traffic to its own server.",
                      llama({"--models-max": 2}, model="--models-dir DIR"))
        yield Finding(Cause.MODEL_UNLOAD, Severity.WARNING, title, ev, fix,
                      confidence=Confidence.HIGH if (c.wakes or c.lru_unloads) >= LLAMACPP_SLEEP_REPEATS
                      else Confidence.MEDIUM)
        return
