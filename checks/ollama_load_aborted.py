"""MODEL_UNLOAD in Ollama: clients give up while their model loads, so it never stays loaded."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-load-aborted", cause=Cause.MODEL_UNLOAD,
       purpose="Clients closed the connection while their model was still loading: Ollama aborted the load",
       engines=("ollama",))
def load_aborted(ollama_log: OllamaLogSummary):
    aborted = ollama_log.load_aborted
    if not aborted.count:
        return
    from llmdoctor.judge.ollama import evs

    ev = evs(aborted.examples[:2])
    gone = ollama_log.status_counts.get(499, 0)
    src = ollama_log.sources[0] if ollama_log.sources else "ollama log"
    if gone:
        ev.append(Evidence(src, f"{gone} request(s) ended with 499: the client closed the connection first"))
    if ollama_log.max_load_seconds:
        ev.append(Evidence(src, f"the slowest load that finished took {ollama_log.max_load_seconds:.1f} s"))
    yield Finding(
        Cause.MODEL_UNLOAD, Severity.WARNING,
        f"Clients gave up {aborted.count} time(s) while their model was still loading: Ollama aborted the load, "
        "so the next request starts loading it again",
        ev,
        Fix("Loading the model takes longer than the client waits (a model of tens of GB is read from disk for a "
            "minute or more; OLLAMA_KEEP_ALIVE does not help a model that never finished loading). Give the "
            "client a timeout longer than a load, load the model once before traffic and keep it loaded "
            "(keep_alive -1, or OLLAMA_KEEP_ALIVE=-1), and check why loads are slow (the disk, or a model that "
            "does not fit and spills to the CPU).",
            ("curl http://localhost:11434/api/generate -d '{\"model\": \"MODEL\", \"keep_alive\": -1}'  # load it once, "
             "ahead of the clients",
             "journalctl -u ollama | grep -E 'runner started in|aborting load'")),
    )
