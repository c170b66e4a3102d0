"""CONFIG_NOT_APPLIED in llama-server: a setting asked for and switched off at start-up.

llama-server turns off what the loaded model cannot do and says so once, in a warning among
the start-up lines: `cache_reuse is not supported by multimodal, it will be disabled` (an
--mmproj is loaded), `... by this context` (a recurrent/hybrid or SWA memory that cannot be
shifted), `swa_full is not supported by this model` (b6xxx-), and per request `cache reuse is
not supported - ignoring n_cache_reuse = N` (b8xxx-). Each is printed only when the setting was
on; ctx_shift was on by default until ~b6500, so its warning alone says little and is not
reported here."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.fixes import llama, remedy_fix
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.llamacpp import LlamaLog

_FLAG = {"cache_reuse": "--cache-reuse", "swa_full": "--swa-full", "speculative_decoding": "the draft model (-md / --spec-*)"}


@check(id="llamacpp-setting-disabled", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="llama-server switched off a setting it was started with (--cache-reuse, --swa-full, speculative "
               "decoding): the model or its memory cannot do it",
       engines=("llamacpp",))
def setting_disabled(llamacpp_log: LlamaLog):
    for scan in llamacpp_log.scans:
        off = [(s, line) for s, line in scan.cpp.disabled_settings if s in _FLAG]
        if not off:
            continue
        names = ", ".join(_FLAG[s] for s, _ in off)
        yield Finding(
            Cause.CONFIG_NOT_APPLIED, Severity.WARNING,
            f"llama-server ignores {names}: the loaded model cannot use it",
            [Evidence(scan.source, line) for _, line in off],
            remedy_fix("The server was started with a setting the model cannot use and turned it off: it runs as if the "
                "flag were not there. --cache-reuse needs a KV cache that can be shifted (not with a multimodal "
                "projector, nor recurrent/hybrid or sliding-window memory): rely on the prompt cache (--cache-ram) "
                "and keep prompts' beginnings identical instead. Remove the flag so the command line says what the "
                "server does.",
                llama({"--cache-ram": 8192})),
            confidence=Confidence.HIGH)
        return
