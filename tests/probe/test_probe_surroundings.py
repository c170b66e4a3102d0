"""The probe knows its surroundings, on the REAL llama.cpp server (small tiny model, 2 slots
of 512 tokens): under a bounded background load it says the server is busy, finds no
MODEL_UNLOAD and no finding of its own making; its long prompts fit the slot (no 400, in light
and load mode); a later diagnosis of the server's log leaves the probe's requests out; every
scenario runs 3 times and the verdicts carry the spread.

The background load is two threads sending at most BG_REQUESTS completions each, for at most
BG_SECONDS; everything is on 127.0.0.1.
"""
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from llmdoctor.facts.live_probe.detect import detect
from llmdoctor.facts.live_probe.load import read_load
from llmdoctor.facts.live_probe.scenarios import ProbeRunner
from llmdoctor.knowledge.engines import LLAMACPP, EngineInstance
from llmdoctor.knowledge.probe import prompts
from llmdoctor.model import Cause
from tests.support.llamaserver import running_llama_server
from tests.support.schema import report_doc
from tests.support.tinymodel import tiny_gguf

pytestmark = [pytest.mark.real, pytest.mark.timeout(240)]
BG_THREADS, BG_REQUESTS, BG_SECONDS, BG_TOKENS = 2, 40, 12.0, 200
EXCEEDS = "exceeds the available context size"


@pytest.fixture(scope="module")
def server():
    with running_llama_server(tiny_gguf("small"), n_parallel=2, n_ctx=1024) as url:  # 512 tokens a slot
        yield url


def _post(url, path, body, timeout=30):
    req = urllib.request.Request(url + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


class BackgroundLoad:
    """Others' traffic: bounded in requests and in time."""

    def __init__(self, url):
        self.url, self.stop, self.sent = url, threading.Event(), 0
        self.threads = [threading.Thread(target=self._work, args=(i,), daemon=True) for i in range(BG_THREADS)]

    def _work(self, i):
        end = time.monotonic() + BG_SECONDS
        for n in range(BG_REQUESTS):
            if self.stop.is_set() or time.monotonic() > end:
                return
            self.sent += 1
            _post(self.url, "/completion", {"prompt": f"user {i}-{n} the river runs past", "n_predict": BG_TOKENS,
                                            "cache_prompt": False}, timeout=BG_SECONDS + 5)

    def __enter__(self):
        for t in self.threads:
            t.start()
        deadline = time.monotonic() + 10
        while not read_load(self.url, LLAMACPP).busy and time.monotonic() < deadline:
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(BG_SECONDS + 10)


def findings(result):
    from llmdoctor.app.diagnose import judge_probe as judge
    from llmdoctor.knowledge.probe.result import ProbeRuns

    return judge(ProbeRuns((result,))).targets[0]


def log_findings(url):
    """diagnose's llama-server log checks on the server's own log (the engine given: the test
    server runs inside Python, where discovery would not name it)."""
    from llmdoctor.facts import Context, FactStore, RunOptions
    from llmdoctor.hosts.local import LocalHost
    from llmdoctor.plugins import load_checks, run_check

    specs, _ = load_checks(site_dir=None, entry_points=False)
    store = FactStore(Context(LocalHost(), options=RunOptions(log_files=(str(url.log_path),))),
                      preset={"engines": (EngineInstance(LLAMACPP, port=url.port, found_by="test"),)})
    out = []
    for spec in specs:
        if spec.id.startswith("llamacpp-"):
            out += run_check(spec, store).findings
    log_findings.summary = dict(store.values["log_sources"].summary())
    return out


def test_busy_server_is_said_so_and_nothing_is_blamed_on_the_probe(server):
    with BackgroundLoad(server) as bg:
        r = ProbeRunner(detect(server), deadline_s=40).light()
    assert bg.sent <= BG_THREADS * BG_REQUESTS
    report = findings(r)
    summary = dict(report.summary)
    assert r.busy_loads, r.loads
    assert summary["probe server load"].startswith("BUSY"), summary
    assert "running" in summary["probe server load"]
    assert not [f for f in report.findings if f.cause is Cause.MODEL_UNLOAD]
    # two streams sharing 2 busy cores is the hardware's own limit (BANDWIDTH_LIMIT, info), which
    # idle runs may show; nothing else may come from waiting behind others or from the probe itself
    assert {f.cause for f in report.findings} <= {Cause.BANDWIDTH_LIMIT}, [(f.check, f.title) for f in report.findings]
    assert not [s for s in r.samples if s.http_status == 400], r.errors
    assert r.context == 512 and all(s.prompt_tokens <= 256 + 16 for s in r.scenario("long") if s.prompt_tokens)
    assert EXCEEDS not in server.log_text()
    assert not [f for f in log_findings(server) if f.cause is Cause.CONTEXT_TRUNCATION]


def test_the_probes_own_refused_prompt_is_left_out_of_the_log(server, monkeypatch):
    """Make the probe oversize its long prompt (as it once did): the server refuses it and logs
    the refusal; the next diagnosis of that log does not take it for the user's. A user's own
    oversized request afterwards is reported."""
    monkeypatch.setattr(ProbeRunner, "long_tokens", lambda self, wanted: 2000)
    r = ProbeRunner(detect(server), deadline_s=30, runs=1).light()
    assert any("over the 512-token context; resent" in n for n in r.notes), r.notes
    assert EXCEEDS in server.log_text()
    assert not [f for f in log_findings(server) if f.cause is Cause.CONTEXT_TRUNCATION]
    assert "the requests of llmdoctor's own probe runs" in log_findings.summary.get("Logs left out", "")
    assert _post(server, "/v1/chat/completions", {"messages": [{"role": "user", "content": prompts.PASSAGE * 40}],
                                                  "max_tokens": 4}) == 400
    found = [f for f in log_findings(server) if f.cause is Cause.CONTEXT_TRUNCATION]
    assert found, "a user's refused prompt after the probe must still be reported"


def test_load_mode_fits_its_prompt_and_reports_the_spread(server):
    env = dict(os.environ, NO_COLOR="1")
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "probe", server, "--mode", "load", "-n", "3",
                        "--deadline", "60", "--format", "json"], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode in (0, 1, 2), p.stderr
    (raw,) = report_doc(p.stdout)["probe"]
    assert not [s for s in raw["samples"] if s.get("http_status") == 400], raw["errors"]
    assert {s["run"] for s in raw["samples"] if s["scenario"] == "load-long"} == {1, 2, 3}
    assert all(s["status"] == "ok" for s in raw["samples"] if s["scenario"] == "load-long"), raw["errors"]
    verdicts = {v["name"]: v for v in raw["verdicts"]}
    assert verdicts["load-concurrency"]["figures"]["spread"]["max_concurrent"]["runs"] == 3, verdicts
    assert raw["loads"] and raw["loads"][0]["slot_ctx"] == 512
