"""QUEUEING across replicas: instances serving one model (same model label, else the same
scrape job) in the Prometheus window, one carrying far more load than the others, or
standing apart in KV use or time to first token (a balancer that does not balance, one
replica with a smaller KV pool or a slower card)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge import thresholds as th
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.prom_window import PromTarget


def _row(r) -> str:
    cells = [f"{r.key}: load {r.load:.2f} {r.load_unit}" if r.load is not None else f"{r.key}: load ?"]
    cells.append(f"peak waiting {r.waiting:g}" if r.waiting is not None else "peak waiting ?")
    if r.kv is not None:
        cells.append(f"peak KV {r.kv * 100:.0f}%")
    if r.ttft is not None:
        cells.append(f"peak p95 TTFT {r.ttft:.2f} s")
    return ", ".join(cells)


def odd_one(rows) -> tuple[object, str] | None:
    """The replica that stands apart, and how; None when they are alike."""
    loads = [r for r in rows if r.load is not None]
    if len(loads) > 1:
        busiest, idlest = max(loads, key=lambda r: r.load), min(loads, key=lambda r: r.load)
        if busiest.load > 0 and busiest.load >= th.REPLICA_LOAD_RATIO * idlest.load \
                and (busiest.waiting or 0) > (idlest.waiting or 0):
            how = (f"{busiest.load / idlest.load:.1f}x the load of {idlest.key}" if idlest.load > 0
                   else f"the load while {idlest.key} carried none")
            return busiest, f"carries {how} and queued"
    kvs = [r for r in rows if r.kv is not None]
    if len(kvs) > 1:
        top, low = max(kvs, key=lambda r: r.kv), min(kvs, key=lambda r: r.kv)
        if top.kv - low.kv >= th.REPLICA_KV_GAP:
            return top, f"filled its KV cache to {top.kv * 100:.0f}% while {low.key} peaked at {low.kv * 100:.0f}%"
    ttfts = [r for r in rows if r.ttft]
    if len(ttfts) > 1:
        slow, fast = max(ttfts, key=lambda r: r.ttft), min(ttfts, key=lambda r: r.ttft)
        if slow.ttft >= th.REPLICA_TTFT_RATIO * fast.ttft:
            return slow, f"answered its first tokens {slow.ttft / fast.ttft:.1f}x slower (p95) than {fast.key}"
    return None


@check(id="prom-replica-imbalance", cause=Cause.QUEUEING,
       purpose="replicas of one model in the Prometheus window differ far in load, KV use or TTFT (one takes most of the load)")
def replica_imbalance(prom_window: PromTarget):
    from llmdoctor.judge.prom_window import engine_name

    t = prom_window
    odd = odd_one(t.replicas)
    if odd is None or odd[0].key != t.key:
        return  # the finding is the odd replica's: reported once, in its own section
    what = t.model or f"job {t.job}"
    yield Finding(Cause.QUEUEING, Severity.WARNING,
                  f"This {engine_name(t.kind)} replica of {what} {odd[1]}",
                  [Evidence(t.source, _row(r)) for r in t.replicas],
                  Fix("The replicas of one model are not used alike: check the load balancer's policy (least "
                      "requests or least connections instead of round-robin over unequal replicas, no sticky "
                      "sessions pinning most clients to one), and that every replica runs the same settings "
                      "(slots, KV cache size) on the same kind of GPU.", ()),
                  confidence=Confidence.MEDIUM)
