"""The Prometheus window of one instance: set by `diagnose --prometheus` (app/prometheus.py),
which reads the series; an evidence directory may hold one as prometheus_window.json."""
from __future__ import annotations

import json

from llmdoctor.facts import Context, FactUnavailable, kept_json, provider


@provider("prom_window")
def prom_window(ctx: Context):
    if not ctx.host.kept("prometheus window"):  # a live host's window is read with --prometheus, never here
        raise FactUnavailable("read only with diagnose --prometheus", quiet=True)
    from llmdoctor.knowledge.prom_window import window_from_json

    return kept_json(ctx.host, "prometheus window", lambda data: window_from_json(json.loads(data)))
