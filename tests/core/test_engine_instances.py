"""Several instances of one engine on one host are kept apart (each its own pid and port), and
an engine on a default port is named by what it answers, never by the port number."""
from __future__ import annotations

from pathlib import Path

from llmdoctor.facts import Context, FactStore
from llmdoctor.facts.engines import kind_of_answer
from llmdoctor.hosts.base import CommandNotFound, CommandResult, HostError, HttpResponse
from llmdoctor.knowledge.engines import LLAMACPP, VLLM

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "instances"
VLLM_MODELS = (FIX / "vllm_v1_models.json").read_text()
LLAMA_MODELS = (FIX / "llamaserver_v1_models.json").read_text()


class Box:
    """A live host answering `ps` and HTTP on some ports (nothing else)."""

    kind = "fake"
    recorded = False
    partial = False
    problems: list = []
    complete_listings = True
    meta: dict = {}
    name = "box"

    def __init__(self, ps: str, answers: dict[tuple[int, str], str]) -> None:
        self.ps, self.answers = ps, answers

    def kept(self, what):
        return ()

    def observe(self, live, recall):
        return live()

    def run(self, argv, timeout=10):
        if argv[0] == "ps":
            return CommandResult(tuple(argv), 0, self.ps)
        raise CommandNotFound(f"{argv[0]}: command not found")

    def http(self, method, port, path, body=None, timeout=10, headers=None):
        if (port, path) not in self.answers:
            raise HostError("connection refused")
        return HttpResponse(200, self.answers[(port, path)].encode())

    def container_inspect(self):
        from llmdoctor.hosts.base import Unanswerable

        raise Unanswerable("no container")

    def __getattr__(self, name):
        raise AttributeError(name)


def engines(box):
    return FactStore(Context(host=box)).get("engines")


def test_three_llama_servers_are_three_instances():
    ps = (" 3100 /opt/llama/llama-server -m /m/qwen.gguf --port 8081 -np 2\n"
          " 3200 /opt/llama/llama-server -m /m/gemma.gguf --port 8082\n"
          " 3300 /opt/llama/llama-server -m /m/phi.gguf\n")
    found = engines(Box(ps, {}))
    assert [(e.kind, e.pid, e.port) for e in found] == [(LLAMACPP, 3100, 8081), (LLAMACPP, 3200, 8082),
                                                        (LLAMACPP, 3300, 8080)]


def test_a_llama_server_on_8000_is_not_vllm():
    found = engines(Box("", {(8000, "/v1/models"): LLAMA_MODELS}))
    assert [(e.kind, e.port) for e in found] == [(LLAMACPP, 8000)]


def test_a_llama_server_process_on_8000_keeps_the_port():
    found = engines(Box(" 4100 llama-server -m x.gguf --port 8000\n", {(8000, "/v1/models"): LLAMA_MODELS}))
    assert [(e.kind, e.pid, e.port) for e in found] == [(LLAMACPP, 4100, 8000)]


def test_vllm_is_named_by_its_answer():
    assert kind_of_answer(VLLM, VLLM_MODELS) == VLLM
    assert kind_of_answer(VLLM, LLAMA_MODELS) == LLAMACPP
    assert kind_of_answer(VLLM, "<html>nginx</html>") is None


def test_url_names_the_instance_by_what_it_answers():
    """--url http://127.0.0.1:8001: no process found there, so the port is asked; a llama-server's
    /v1/models answer ("owned_by": "llamacpp") names it, not the port."""
    from llmdoctor.facts import FactUnavailable

    box = Box(" 3100 /opt/llama/llama-server -m /m/qwen.gguf --port 8081\n", {(8001, "/v1/models"): LLAMA_MODELS})
    (e,) = FactStore(Context(host=box, options={"instance_port": 8001})).get("engines")
    assert (e.kind, e.port, e.pid) == (LLAMACPP, 8001, None) and e.found_by == "--url (/v1/models)"
    (e,) = FactStore(Context(host=box, options={"instance_port": 8081})).get("engines")
    assert (e.kind, e.pid) == (LLAMACPP, 3100)
    store = FactStore(Context(host=box, options={"instance_port": 9999}))
    assert store.optional("engines") is None
    assert store.missing["engines"].reason.startswith("nothing on port 9999 answered as Ollama")


def test_ollama_started_from_a_shell_is_read_from_its_process():
    """No unit, no container: `nohup ollama serve &` gets its settings from its own environment
    (/proc/PID/environ, NUL-separated as the kernel has it)."""

    class ShellBox(Box):
        def read(self, path, limit=4096):
            if path == "/proc/4242/environ":
                return b"HOME=/root\0OLLAMA_NUM_PARALLEL=4\0OLLAMA_KEEP_ALIVE=30m\0"
            raise FileNotFoundError(path)

    box = ShellBox(" 4242 /usr/local/bin/ollama serve\n", {(11434, "/api/version"): '{"version":"0.11.6"}'})
    config = FactStore(Context(host=box)).get("ollama_config")
    assert config.get("OLLAMA_NUM_PARALLEL") == "4" and config.origins["OLLAMA_NUM_PARALLEL"] == "process environment"
    assert config.get("OLLAMA_KEEP_ALIVE") == "30m"


def test_instances_diagnosed_apart_are_one_per_port():
    from llmdoctor.app.diagnose import instance_label, several_instances
    from llmdoctor.knowledge.engines import SGLANG, EngineInstance

    a, b = EngineInstance(LLAMACPP, pid=3100, port=8081), EngineInstance(LLAMACPP, pid=3200, port=8082)
    assert several_instances((a, b)) == (a, b)
    assert several_instances((a, EngineInstance(VLLM, port=8000))) == ()  # one of each kind: one diagnosis
    # SGLang's forked scheduler processes carry the server's command line: the same port, one server
    main, child = EngineInstance(SGLANG, pid=10, port=30000), EngineInstance(SGLANG, pid=11, port=30000)
    assert several_instances((main, child)) == ()
    assert instance_label(EngineInstance("ollama", unit="ollama.service", pid=7, port=11434)) == \
        "ollama unit ollama.service pid 7 :11434"


def test_a_fix_names_the_unit_the_engine_runs_under():
    """Ollama as ollama-gpu1.service (two Ollamas, one per GPU): its drop-in is that unit's."""
    from types import SimpleNamespace

    from llmdoctor.judge.fixes import settings_fix
    from llmdoctor.knowledge.engines import OLLAMA, EngineInstance

    inst = EngineInstance(OLLAMA, unit="ollama-gpu1.service", pid=7, port=11435, found_by="systemd unit")
    store = FactStore(Context(host=Box("", {})), preset={
        "engines": (inst,), "systemd_units": (SimpleNamespace(unit="ollama-gpu1.service", engine=OLLAMA),)})
    where = store.get("ollama_deployment")
    assert where == "systemd" and where.name == "ollama-gpu1.service"
    commands, config = settings_fix(where, OLLAMA_NUM_PARALLEL=4)
    assert config.startswith("# /etc/systemd/system/ollama-gpu1.service.d/zz-llmdoctor.conf")
    assert commands[-1] == "systemctl daemon-reload && systemctl restart ollama-gpu1.service"


def test_each_finding_points_at_its_own_instance_change():
    """Two instances with the same check: the text report's "part of What to change" pointer is the
    finding's own instance's change."""
    from llmdoctor.model import Cause, Change, Evidence, Finding, Fix, Severity
    from llmdoctor.render.report import merged_into

    def finding(label):
        return Finding(Cause.QUEUEING, Severity.WARNING, "t", (Evidence("s", "x"),), Fix("f"), "llamacpp-queueing",
                       instance=label)

    changes = tuple(Change(f"llama-server command line ({label})", (("-np", "4"),), checks=("llamacpp-queueing",))
                    for label in ("llamacpp pid 1 :8081", "llamacpp pid 2 :8082"))
    assert merged_into(changes, finding("llamacpp pid 2 :8082")) is changes[1]
    assert merged_into(changes, finding("llamacpp pid 1 :8081")) is changes[0]
