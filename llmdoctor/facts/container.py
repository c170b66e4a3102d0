"""Facts "container" and "engine_no_gpu_line": the container the engine runs in, and a log
line saying the engine found no GPU.

Why: in a container the configuration truth is the container's (`docker inspect`: its
environment, command, GPU requests, restarts), and fixes are given in its form. A recording
holds `docker_inspect.json` (or inspect output pasted as env.txt) or a compose file; a
container target runs `docker inspect` itself (hosts/container.py). A Kubernetes pod
(`pod.json`, `kubectl describe pod` text, a k8s:// target: hosts/kube.py) is read the same
way, as a ContainerSpec of form "pod" (knowledge/containers/pod.py).
"""
from __future__ import annotations

from llmdoctor.hosts.base import HostError, Unanswerable
from llmdoctor.parsing import ParseError
from llmdoctor.facts import Context, FactUnavailable, provider



def _inspected(host):
    try:
        res = host.container_inspect()
    except Unanswerable:
        return None
    except HostError as e:
        raise FactUnavailable(f"docker inspect: {e}") from None
    if not res.ok:
        raise FactUnavailable(f"`{' '.join(res.argv[:3])}` exited {res.returncode}: {res.stderr.strip()[:160]}")
    from llmdoctor.knowledge.containers.inspect import parse_inspect  # (only with output to parse: start-up time)
    from llmdoctor.knowledge.containers.pod import looks_like_pod, parse_pod_text

    source = res.source or " ".join(res.argv[:3])
    try:
        if looks_like_pod(res.stdout):  # a Kubernetes pod: kubectl get pod -o json, kubectl describe pod
            return _with_events(host, parse_pod_text(res.stdout, source, context=host.meta.get("context")))
        spec = parse_inspect(res.stdout, source)
    except ParseError as e:
        raise FactUnavailable(f"unparseable {source}: {e}") from None
    if spec.name is None and len(res.argv) > 2 and res.argv[-2] == "--":
        from dataclasses import replace  # output without "Name" (trimmed): the container asked about

        spec = replace(spec, name=res.argv[-1])
    return spec


def _with_events(host, spec):
    """A pod's events (kubectl get events, or the Events: of kubectl describe) and which pod of
    its Deployment was picked: evidence for OOM kills, back-offs and the GPU."""
    from dataclasses import replace
    from llmdoctor.knowledge.containers.pod import event_lines

    events = spec.events
    try:
        events = event_lines(host.pod_events().stdout) or events
    except (HostError, ParseError, AttributeError):
        pass
    return replace(spec, events=events, picked=host.meta.get("picked") if isinstance(host.meta.get("picked"), str) else None)


def _composed(host):
    for name in host.kept("compose"):
        from llmdoctor.knowledge.containers.compose import parse_compose

        try:
            return parse_compose(host.read(name, 1024 * 1024).decode("utf-8", "replace"), name)
        except (OSError, HostError):
            continue
        except ParseError as e:
            raise FactUnavailable(f"unparseable {name}: {e}") from None
    return None


class Container:
    """The ContainerSpec, with the summary lines the report shows."""

    def __init__(self, spec) -> None:
        self.spec = spec

    def __getattr__(self, name):
        if name.startswith("__") or name == "spec":  # copy/pickle ask before __init__ ran
            raise AttributeError(name)
        return getattr(self.spec, name)

    def speaks_of_an_engine(self) -> bool:
        """Its image, command or environment is an engine's (else it is no evidence about one)."""
        from llmdoctor.knowledge.containers.inspect import engine_of

        return engine_of(self.spec) is not None or any(k.startswith(("OLLAMA_", "VLLM_", "LLAMA_ARG_"))
                                                        for k in self.spec.env)

    def summary(self) -> list[tuple[str, str]]:
        s = self.spec
        gpu = {True: "GPU passed in", False: "no GPU passed in", None: "GPU access not shown"}[s.gpu_requested]
        parts = [s.name or "", f"({s.image})" if s.image else "", s.status or "", gpu]
        parts += s.state_lines()
        if s.form == "pod":
            parts[0] = (f"pod {s.pod} ({s.namespace}), container {s.container}" + (f", owned by {s.owner}" if s.owner else "")
                        if s.pod else f"{s.owner} manifest, container {s.container}")
            rows = [("Pod", f"{' '.join(p for p in parts[:3] if p)}; {'; '.join(parts[3:])} [{s.source}]")]
            return rows + ([("Pod picked", s.picked)] if s.picked else [])
        return [("Container", f"{' '.join(p for p in parts[:3] if p)}; {'; '.join(parts[3:])} [{s.source}]".lstrip("; "))]


@provider("container")
def container(ctx: Context) -> Container:
    spec = _inspected(ctx.host) or _composed(ctx.host)
    if spec is None:
        raise FactUnavailable("the engine runs in no container known here", quiet=True)
    return Container(spec)


@provider("engine_no_gpu_line")
def engine_no_gpu_line(ctx: Context, log_sources=None) -> tuple[str, str]:
    """(source, line): the first engine log line saying no GPU was found."""
    from llmdoctor.knowledge.containers.no_gpu import no_gpu_line

    for src in log_sources or ():
        line = no_gpu_line(src.lines())
        if line:
            return (src.name, line)
    raise FactUnavailable("no engine log line says the GPU is missing", quiet=True)
