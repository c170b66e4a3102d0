"""Hand-made probe results for verdict and check tests (figures shaped like real runs)."""
from llmdoctor.knowledge.probe.result import ProbeResult, StreamSample


def sample(id, scenario, sent=0.0, ttft=0.05, n=64, itl=0.005, decode=None, prefill=None,
           prompt_tokens=50, load=None, status="ok", error="", http_status=200, **kw):
    chunks = tuple(ttft + i * itl for i in range(n))
    return StreamSample(id=id, scenario=scenario, sent_s=sent, status=status, http_status=http_status,
                        error=error, ttfb_s=ttft if n else None, ttft_s=ttft if n else None, chunk_s=chunks,
                        end_s=chunks[-1] if chunks else None, prompt_tokens=prompt_tokens,
                        completion_tokens=n, decode_tps=decode if decode is not None else (1 / itl if n else None),
                        prefill_tps=prefill, load_s=load, counts_from=kw.pop("counts_from", "timings"), **kw)


def result(samples, engine="llamacpp", slots=None, context=2048, **kw):
    return ProbeResult(url="http://127.0.0.1:8080", engine=engine, model="tiny", slots=slots,
                       context=context, samples=tuple(samples), **kw)


def light(pair, long_ttft=0.8, long_prefill=1300.0, warm_ttft=0.05, load=None, engine="llamacpp", slots=None):
    return result([sample("warmup", "warmup", 0.0, ttft=warm_ttft, n=8, load=load),
                   sample("single", "single", 0.2, ttft=0.05),
                   sample("long", "long", 0.6, ttft=long_ttft, n=8, prefill=long_prefill, prompt_tokens=1053),
                   *pair], engine=engine, slots=slots)


def queued_pair(itl=0.005):
    first_end = 0.05 + 63 * itl
    return [sample("pair-1", "pair", 2.0, ttft=0.05, itl=itl),
            sample("pair-2", "pair", 2.0, ttft=first_end + 0.05, itl=itl)]


def parallel_pair(itl=0.006):
    return [sample("pair-1", "pair", 2.0, ttft=0.09, itl=itl), sample("pair-2", "pair", 2.0, ttft=0.09, itl=itl)]
