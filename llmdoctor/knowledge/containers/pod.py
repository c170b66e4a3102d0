"""Kubernetes pods: the `k8s://` target grammar and readers of what `kubectl` prints about a pod.

Why: on Kubernetes the engine's configuration is its pod's container spec (`env`, `command`,
`args`), whether it may use a GPU is its `resources.limits` (`nvidia.com/gpu`: without one the
device plugin hands it none), and how it has been dying is its container status (`restartCount`,
`lastState.terminated.reason` OOMKilled). Fixes go to the object that owns the pod (its
Deployment, found from the ReplicaSet's name less the `pod-template-hash`), since a pod
edited by hand is replaced on the next rollout.

Read here: `kubectl get pod -o json` (a Pod, or a List of them), a Pod or Deployment as YAML
(`kubectl get -o yaml`, the user's manifest: knowledge/containers/yaml_lite.py), `kubectl get deploy -o json`
(its selector), `kubectl get events -o json` and `kubectl describe pod` text, into a `PodSpec`
(a ContainerSpec of form "pod"), so every check that reads a container reads a pod the same way.
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from urllib.parse import unquote

from llmdoctor.knowledge.containers.inspect import MAX_TEXT, ContainerSpec, engine_of
from llmdoctor.parsing import ParseError

# -- the target grammar ---------------------------------------------------------------

USAGE = ("a Kubernetes target is k8s://[CONTEXT/]NAMESPACE/POD or k8s://[CONTEXT/]NAMESPACE/deploy/NAME "
         "(a '/' inside CONTEXT written %2F)")
# RFC 1123 label (namespaces) and subdomain (pods, deployments): Kubernetes' own name rules,
# which never start with '-', so no name can be read as an option of kubectl.
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\Z")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\Z")
# kubeconfig context names are free text; these cover kind, minikube, GKE (`gke_p_z_c`), EKS
# ARNs (`arn:aws:eks:r:1:cluster/c`, with the '/' written %2F) and `user@cluster`.
_CONTEXT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:@/+=-]{0,252}\Z")
WORKLOADS = {"deploy": "deploy", "deployment": "deploy", "deployments": "deploy"}


@dataclass(frozen=True)
class KubeTarget:
    """`k8s://[CONTEXT/]NAMESPACE/POD` or `k8s://[CONTEXT/]NAMESPACE/deploy/NAME`."""

    namespace: str
    name: str
    kind: str = "pod"  # "pod" | "deploy"
    context: str | None = None
    runtime: str = "k8s"  # so code that asks a container target for its runtime gets an answer
    via: None = None  # never behind SSH: kubectl reaches the cluster from here

    def __str__(self) -> str:
        ctx = f"{self.context.replace('/', '%2F')}/" if self.context else ""
        what = self.name if self.kind == "pod" else f"deploy/{self.name}"
        return f"k8s://{ctx}{self.namespace}/{what}"


def is_kube_target(s: str) -> bool:
    return isinstance(s, str) and s.startswith(("k8s://", "kube://"))


def parse_kube_target(s: str) -> KubeTarget:
    """Parse a `k8s://` target; ValueError with a one-line reason (USAGE) for anything else."""
    original = s
    if not is_kube_target(s):
        raise ValueError(f"invalid host {original!r}: {USAGE}")
    parts = s.split("://", 1)[1].split("/")
    if "" in parts:
        raise ValueError(f"invalid host {original!r}: {USAGE}")
    kind = "pod"
    if len(parts) >= 3 and parts[-2] in WORKLOADS:
        kind, parts = "deploy", parts[:-2] + [parts[-1]]
    if len(parts) == 2:
        context, (namespace, name) = None, parts
    elif len(parts) == 3:
        context, namespace, name = parts
    else:
        raise ValueError(f"invalid host {original!r}: {USAGE}")
    if context is not None:
        context = unquote(context)
        if not _CONTEXT.match(context):
            raise ValueError(f"invalid host {original!r}: {context!r} is not a kubeconfig context name")
    if not _LABEL.match(namespace):
        raise ValueError(f"invalid host {original!r}: {namespace!r} is not a namespace name "
                         "(lower-case letters, digits and '-', at most 63)")
    if not _SUBDOMAIN.match(name):
        raise ValueError(f"invalid host {original!r}: {name!r} is not a {'pod' if kind == 'pod' else 'Deployment'} "
                         "name (lower-case letters, digits, '-' and '.')")
    return KubeTarget(namespace, name, kind, context)


# -- the pod ------------------------------------------------------------------------

GPU_RESOURCE = re.compile(r"^(?:nvidia\.com/(?:gpu|mig-[\w.-]+)|amd\.com/gpu|gpu\.intel\.com/[\w.-]+)$")
_LOOKS = re.compile(r'"kind"\s*:\s*"Pod"|^\s*"containerStatuses"\s*:|^\s*"spec"\s*:\s*\{\s*"containers"', re.M)
_DESCRIBE = re.compile(r"^\s*Name:\s+\S+\s*\n(?:.*\n){0,3}?\s*Namespace:\s+\S+", re.M)


@dataclass(frozen=True)
class PodSpec(ContainerSpec):
    """The engine's container in a pod, with what only a pod has."""

    namespace: str | None = None
    pod: str | None = None
    container: str | None = None  # the container's name in the pod
    owner: str | None = None  # "deploy/NAME", "sts/NAME", "ds/NAME" (None: a bare pod)
    context: str | None = None  # the kubeconfig context it was read through, when one was given
    node: str | None = None
    command: tuple[str, ...] = ()  # `command:` and `args:` apart: a fix edits the one the pod uses
    args: tuple[str, ...] = ()
    limits: dict[str, str] = field(default_factory=dict)
    env_from: tuple[str, ...] = ()  # names whose values come from a Secret, a ConfigMap or the API
    last_reason: str | None = None  # lastState.terminated.reason (OOMKilled, Error, Completed)
    last_finished: str | None = None
    waiting: str | None = None  # state.waiting.reason (CrashLoopBackOff, ...)
    runtime_class: str | None = None
    events: tuple[str, ...] = ()  # "Warning BackOff (x5): Back-off restarting failed container"
    others: tuple[str, ...] = ()  # the pod's other containers, by name
    picked: str | None = None  # which pod of a Deployment was read, and why that one
    limits_shown: bool = True  # False: a describe excerpt cut before the container's Limits

    @property
    def gpu_requested(self) -> bool | None:
        if any(GPU_RESOURCE.match(k) and str(v) not in ("0", "") for k, v in self.limits.items()):
            return True
        return False if (self.pod or self.container) and self.limits_shown else None

    def gpu_lines(self) -> list[str]:
        gpu = {k: v for k, v in self.limits.items() if GPU_RESOURCE.match(k)}
        if gpu:
            return [f"container {self.container}: resources.limits {', '.join(f'{k}: {v}' for k, v in gpu.items())}"]
        shown = ", ".join(f"{k}: {v}" for k, v in self.limits.items()) or "none"
        line = (f"container {self.container}: no nvidia.com/gpu in resources.limits (limits: {shown}), so the "
                "device plugin gives it no GPU")
        return [line + (f"; runtimeClassName: {self.runtime_class}" if self.runtime_class else "")]

    def state_lines(self) -> list[str]:
        out = []
        if self.last_reason:
            out.append(f"lastState.terminated.reason: {self.last_reason}"
                       + (f" (exitCode {self.exit_code})" if self.exit_code is not None else "")
                       + (f" at {self.last_finished}" if self.last_finished else ""))
        elif self.exit_code not in (None, 0):
            out.append(f"lastState.terminated.exitCode: {self.exit_code}"
                       + (" (137: killed, often for memory)" if self.exit_code == 137 else ""))
        if self.restart_count:
            out.append(f"restartCount: {self.restart_count}")
        if self.waiting:
            out.append(f"state.waiting.reason: {self.waiting}")
        return out

    @property
    def wants_gpu(self) -> bool:
        """The pod is meant for a GPU: a CUDA engine image (vllm/vllm-openai, not a -cpu build), the
        nvidia runtime class, or NVIDIA_VISIBLE_DEVICES in its env (all of which do nothing
        without a `nvidia.com/gpu` limit, which is what the device plugin allocates by)."""
        image = (self.image or "").lower()
        return bool(re.search(r"vllm/vllm-openai|llama\.cpp:server-cuda|:.*cuda|sglang", image)) and "cpu" not in image \
            or (self.runtime_class or "").startswith("nvidia") or "NVIDIA_VISIBLE_DEVICES" in self.env

    @property
    def engine_port(self) -> int | None:
        """The port the engine listens on in the pod: its `--port` flag, else the one containerPort."""
        for i, word in enumerate(self.argv):
            value = self.argv[i + 1] if word == "--port" and i + 1 < len(self.argv) else \
                word.split("=", 1)[1] if word.startswith("--port=") else None
            if value and value.isdigit():
                return int(value)
        ports = [p.split("/")[0] for p in self.ports]
        return int(ports[0]) if len(ports) == 1 and ports[0].isdigit() else None

    @property
    def memory_limit(self) -> str | None:
        return self.limits.get("memory")

    def where(self) -> str:
        """`deploy/NAME -n NS` (and `--context C`): what kubectl commands of a fix name."""
        obj = self.owner or f"pod/{self.pod or 'POD'}"
        return " ".join([obj, "-n", self.namespace or "default"] + (["--context", self.context] if self.context else []))


def looks_like_pod(text: str) -> bool:
    """`kubectl get pod -o json` (or a fragment of a pod's spec/status) or `kubectl describe pod`?"""
    head = text[:64 * 1024]
    return bool(_LOOKS.search(head)) or looks_like_describe(head) or looks_like_manifest(head)


def looks_like_describe(text: str) -> bool:
    head = text[:64 * 1024]
    return bool(_DESCRIBE.search(head)) and bool(re.search(r"^\s*Containers:\s*$", head, re.M))


def _dict(v) -> dict:
    return v if isinstance(v, dict) else {}


def _list(v) -> list:
    return v if isinstance(v, list) else []


def _strs(v) -> tuple[str, ...]:
    return tuple(str(x) for x in v) if isinstance(v, list) else ()


def engine_argv(command: tuple[str, ...], args: tuple[str, ...]) -> tuple[str, ...]:
    """The engine's own words: `sh -c "vllm serve M --flag"` (the docs' Deployment, 5h) and a whole
    command line written as one list item (vllm#4462) are split the way the shell would."""
    argv = command + args
    if len(argv) >= 3 and argv[0].rsplit("/", 1)[-1] in ("sh", "bash") and argv[1] in ("-c", "-lc", "-ec"):
        argv = tuple(_split(argv[2])) + argv[3:]
    return tuple(w for a in argv for w in (_split(a) if " " in a.strip() and not a.startswith("-") else [a]))


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _owner(meta: dict) -> str | None:
    """The workload that owns the pod: a ReplicaSet's name is its Deployment's plus `-HASH`."""
    for ref in _list(meta.get("ownerReferences")):
        ref = _dict(ref)
        kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
        if not name:
            continue
        if kind == "ReplicaSet":
            h = str(_dict(meta.get("labels")).get("pod-template-hash") or "")
            return f"deploy/{name[: -len(h) - 1]}" if h and name.endswith("-" + h) else f"rs/{name}"
        short = {"StatefulSet": "sts", "DaemonSet": "ds", "Job": "job"}.get(kind)
        return f"{short}/{name}" if short else f"{kind.lower()}/{name}"
    return None


def _pick(containers: list[dict], statuses: dict[str, dict], want: str | None) -> dict:
    if want:
        for c in containers:
            if c.get("name") == want:
                return c
        raise ParseError(f"the pod has no container {want!r} (it has {', '.join(str(c.get('name')) for c in containers)})")
    for c in containers:  # the engine's container, by its image or command; else the first
        spec = ContainerSpec("", image=str(c.get("image") or ""),
                             argv=engine_argv(_strs(c.get("command")), _strs(c.get("args"))))
        if engine_of(spec):
            return c
    return containers[0]


def _env(c: dict) -> tuple[dict[str, str], tuple[str, ...]]:
    env, refs = {}, []
    for e in _list(c.get("env")):
        e = _dict(e)
        name = e.get("name")
        if not isinstance(name, str):
            continue
        if "value" in e:
            env[name] = str(e.get("value") if e.get("value") is not None else "")
        elif "valueFrom" in e:
            refs.append(name)
    refs += [f"envFrom {next(iter(_dict(r)), 'source')} {_dict(next(iter(_dict(r).values()), {})).get('name', '')}".strip()
             for r in _list(c.get("envFrom"))]
    return env, tuple(refs)


WORKLOADS_KINDS = {"Deployment": "deploy", "StatefulSet": "sts", "DaemonSet": "ds", "ReplicaSet": "rs", "Job": "job"}
_MANIFEST = re.compile(r"^kind:\s*[\"']?(?:Pod|Deployment|StatefulSet|DaemonSet)[\"']?\s*$", re.M)


def _pod_object(data) -> dict:
    """The pod in a Pod, a List of pods (the Running one), or a workload (its pod template, with
    the workload as the owner the fixes name)."""
    if isinstance(data, list):  # YAML documents: the first workload or pod with containers
        found = [d for d in data if isinstance(d, dict) and (d.get("kind") in WORKLOADS_KINDS or d.get("kind") == "Pod")]
        if not found:
            raise ParseError("no Pod or Deployment in these documents")
        data = found[0]
    if isinstance(data, dict) and data.get("kind") == "List" or isinstance(data, dict) and "items" in data:
        pods = [p for p in _list(data.get("items")) if isinstance(p, dict)]
        if not pods:
            raise ParseError("the List holds no pod")
        return pick_running(pods)[0]
    if isinstance(data, dict) and data.get("kind") in WORKLOADS_KINDS:
        meta = _dict(data.get("metadata"))
        template = _dict(_dict(data.get("spec")).get("template"))
        return {"metadata": {"namespace": meta.get("namespace"), "labels": _dict(template.get("metadata")).get("labels"),
                             "_owner": f"{WORKLOADS_KINDS[data['kind']]}/{meta.get('name') or 'NAME'}"},
                "spec": _dict(template.get("spec")), "status": {}}
    if not isinstance(data, dict) or not (data.get("spec") or data.get("status")):
        raise ParseError("no spec or status in this JSON: not `kubectl get pod -o json` output")
    return data


def looks_like_manifest(text: str) -> bool:
    """A Pod or Deployment as YAML (`kubectl get -o yaml`, or the user's own manifest)."""
    head = text[:64 * 1024]
    return bool(_MANIFEST.search(head)) and bool(re.search(r"^apiVersion:", head, re.M)) \
        and bool(re.search(r"^\s*(?:-\s+)?containers:", head, re.M))


def parse_pod(text: str, source: str = "pod.json", container: str | None = None,
              context: str | None = None) -> PodSpec:
    """The engine's container of `kubectl get pod -o json` (a Pod or a List of pods); ParseError otherwise."""
    try:
        data = json.loads(text[:MAX_TEXT])
    except ValueError as e:
        if not looks_like_manifest(text):
            raise ParseError(f"not kubectl JSON ({e})") from None
        from llmdoctor.knowledge.containers.yaml_lite import load_all

        data = load_all(text[:MAX_TEXT])
    pod = _pod_object(data)
    meta, spec, status = _dict(pod.get("metadata")), _dict(pod.get("spec")), _dict(pod.get("status"))
    containers = [c for c in _list(spec.get("containers")) if isinstance(c, dict)]
    if not containers:
        raise ParseError("the pod's spec lists no containers")
    statuses = {str(s.get("name")): s for s in _list(status.get("containerStatuses")) if isinstance(s, dict)}
    c = _pick(containers, statuses, container)
    st = _dict(statuses.get(str(c.get("name"))))
    last = _dict(_dict(st.get("lastState")).get("terminated"))
    now = _dict(st.get("state"))
    term = _dict(now.get("terminated"))
    command, args = _strs(c.get("command")), _strs(c.get("args"))
    env, refs = _env(c)
    limits = {str(k): str(v) for k, v in _dict(_dict(c.get("resources")).get("limits")).items()}
    reason = last.get("reason") or term.get("reason")
    code = last.get("exitCode", term.get("exitCode"))
    return PodSpec(
        source=source, name=str(meta.get("name") or "") or None, image=str(c.get("image") or "") or None,
        env=env, argv=engine_argv(command, args), status=str(status.get("phase") or "") or None,
        oom_killed=(reason == "OOMKilled") if reason else None,
        restart_count=st.get("restartCount") if isinstance(st.get("restartCount"), int) else None,
        exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        ports=tuple(f"{_dict(p).get('containerPort')}/{_dict(p).get('protocol') or 'TCP'}"
                    for p in _list(c.get("ports"))),
        keys=frozenset(pod), form="pod",
        namespace=str(meta.get("namespace") or "") or None, pod=str(meta.get("name") or "") or None,
        container=str(c.get("name") or "") or None, owner=meta.get("_owner") or _owner(meta), context=context,
        node=str(spec.get("nodeName") or "") or None, command=command, args=args, limits=limits, env_from=refs,
        last_reason=str(reason) if reason else None,
        last_finished=str(last.get("finishedAt") or term.get("finishedAt") or "") or None,
        waiting=str(_dict(now.get("waiting")).get("reason") or "") or None,
        runtime_class=str(spec.get("runtimeClassName") or "") or None,
        others=tuple(str(x.get("name")) for x in containers if x is not c),
    )


def pick_running(pods: list[dict]) -> tuple[dict, str]:
    """(pod, why): a Running pod whose containers are all ready, else a Running one, else the
    first (the order kubectl listed them in)."""
    def ready(p):
        sts = _list(_dict(p.get("status")).get("containerStatuses"))
        return bool(sts) and all(_dict(s).get("ready") is True for s in sts)

    def phase(p):
        return _dict(p.get("status")).get("phase")

    for test, why in ((lambda p: phase(p) == "Running" and ready(p), "Running and ready"),
                      (lambda p: phase(p) == "Running", "Running, not ready"),
                      (lambda p: True, f"no pod is Running; phase {phase(pods[0]) or 'unknown'}")):
        for p in pods:
            if test(p):
                return p, why
    raise ParseError("no pods")


def pod_names(text: str) -> list[dict]:
    """The pods of `kubectl get pods -l SELECTOR -o json` (a List)."""
    try:
        data = json.loads(text[:MAX_TEXT])
    except ValueError as e:
        raise ParseError(f"not kubectl JSON ({e})") from None
    return [p for p in _list(_dict(data).get("items")) if isinstance(p, dict)]


def deployment_selector(text: str) -> str:
    """`kubectl get deploy NAME -o json` -> its pods' label selector, as `-l` takes it (`k=v,k2 in (a,b)`)."""
    try:
        data = json.loads(text[:MAX_TEXT])
    except ValueError as e:
        raise ParseError(f"not kubectl JSON ({e})") from None
    sel = _dict(_dict(_dict(data).get("spec")).get("selector"))
    parts = [f"{k}={v}" for k, v in _dict(sel.get("matchLabels")).items()]
    for expr in _list(sel.get("matchExpressions")):
        expr = _dict(expr)
        op, key, values = expr.get("operator"), expr.get("key"), ",".join(_strs(expr.get("values")))
        parts.append({"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})",
                      "Exists": f"{key}", "DoesNotExist": f"!{key}"}.get(op, ""))
    parts = [p for p in parts if p]
    if not parts:
        raise ParseError("the Deployment has no spec.selector")
    return ",".join(parts)


def event_lines(text: str, limit: int = 20) -> tuple[str, ...]:
    """`kubectl get events -o json` -> "Warning BackOff (x5): message" lines, Warnings first."""
    try:
        data = json.loads(text[:MAX_TEXT])
    except ValueError as e:
        raise ParseError(f"not kubectl JSON ({e})") from None
    items = [_dict(e) for e in _list(_dict(data).get("items"))]
    items.sort(key=lambda e: e.get("type") != "Warning")
    out = []
    for e in items[:limit]:
        count = e.get("count") if isinstance(e.get("count"), int) else None
        out.append(f"{e.get('type') or ''} {e.get('reason') or ''}{f' (x{count})' if count and count > 1 else ''}: "
                   f"{str(e.get('message') or '').strip()[:300]}".strip())
    return tuple(out)


# -- kubectl describe pod ------------------------------------------------------------

def _describe_fields(lines: list[str]) -> dict[str, list[str]]:
    """`Key:  value` lines at one indentation, with the more-indented lines under each."""
    out: dict[str, list[str]] = {}
    key = None
    depth = min((len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()), default=0)
    for ln in lines:
        ind = len(ln) - len(ln.lstrip())
        m = re.match(r"^\s*([A-Za-z][A-Za-z ./-]*?):(?:\s+(.*))?$", ln)
        if m and ind == depth:
            key = m.group(1)
            out[key] = [m.group(2).strip()] if m.group(2) and m.group(2).strip() else []
        elif key is not None and ln.strip():
            out[key].append(ln)
    return out


def parse_describe(text: str, source: str = "kubectl_describe.txt", container: str | None = None) -> PodSpec:
    """The engine's container in `kubectl describe pod` text (the fields its layout shows)."""
    lines = [ln.rstrip() for ln in text[:MAX_TEXT].splitlines()]
    start = next((i for i, ln in enumerate(lines) if re.match(r"^\s*Name:\s+\S", ln)), None)
    if start is None or not looks_like_describe(text):
        raise ParseError("not `kubectl describe pod` output (no Name:, Namespace:, Containers:)")
    top = _describe_fields([ln for ln in lines[start:] if not ln.lstrip().startswith("----")])
    blocks: dict[str, list[str]] = {}
    current = None
    body = top.get("Containers", [])
    depth = min((len(ln) - len(ln.lstrip()) for ln in body if ln.strip()), default=0)
    for ln in body:
        if len(ln) - len(ln.lstrip()) == depth and ln.strip().endswith(":"):
            current = ln.strip()[:-1]
            blocks[current] = []
        elif current:
            blocks[current].append(ln)
    if not blocks:
        raise ParseError("`kubectl describe pod` output without a container section")
    specs = {n: _describe_fields(b) for n, b in blocks.items()}
    name = container if container in specs else next(
        (n for n, f in specs.items() if engine_of(ContainerSpec("", image=(f.get("Image") or [""])[0],
                                                                argv=_words(f, "Command") + _words(f, "Args")))),
        next(iter(specs)))
    f = specs[name]
    env, refs = {}, []
    for ln in f.get("Environment", []):
        m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_.-]*):\s*(.*?)\s*$", ln)
        if m:
            if re.match(r"^<set to the key |^\(v1:", m.group(2)):
                refs.append(m.group(1))
            else:
                env[m.group(1)] = m.group(2)
    state = _describe_fields(f.get("Last State", []))
    first = (f.get("Last State") or [""])[0]
    reason = (state.get("Reason") or [None])[0] if first.startswith("Terminated") else None
    code = (state.get("Exit Code") or [""])[0] if first.startswith("Terminated") else ""
    now = _describe_fields(f.get("State", []))
    restarts = (f.get("Restart Count") or [""])[0]
    limits = {}
    for ln in f.get("Limits", []):
        m = re.match(r"^\s*(\S+):\s+(\S+)", ln)
        if m:
            limits[m.group(1)] = m.group(2)
    controlled = (top.get("Controlled By") or [""])[0]
    labels = " ".join(top.get("Labels", []))
    h = re.search(r"pod-template-hash=(\S+)", labels)
    owner = None
    if controlled.startswith("ReplicaSet/"):
        rs = controlled.split("/", 1)[1]
        owner = f"deploy/{rs[: -len(h.group(1)) - 1]}" if h and rs.endswith("-" + h.group(1)) else f"rs/{rs}"
    elif "/" in controlled:
        kind, _, n = controlled.partition("/")
        owner = f"{ {'StatefulSet': 'sts', 'DaemonSet': 'ds'}.get(kind, kind.lower()) }/{n}".replace(" ", "")
    command, args = _words(f, "Command"), _words(f, "Args")
    events = tuple(_describe_events(top.get("Events", [])))
    return PodSpec(
        source=source, name=(top.get("Name") or [None])[0], image=(f.get("Image") or [None])[0], env=env,
        argv=engine_argv(command, args), status=(top.get("Status") or [None])[0],
        oom_killed=(reason == "OOMKilled") if reason else None,
        restart_count=int(restarts) if restarts.isdigit() else None,
        exit_code=int(code) if code.lstrip("-").isdigit() else None, form="pod",
        namespace=(top.get("Namespace") or [None])[0], pod=(top.get("Name") or [None])[0], container=name,
        owner=owner, node=((top.get("Node") or [""])[0].split("/")[0] or None), command=command, args=args,
        limits=limits, env_from=tuple(refs), last_reason=reason,
        last_finished=(state.get("Finished") or [None])[0],
        waiting=(now.get("Reason") or [None])[0] if (f.get("State") or [""])[0].startswith("Waiting") else None,
        events=events, others=tuple(n for n in specs if n != name),
        # a paste cut inside the container section says nothing about its limits
        limits_shown=any(k in f for k in ("Limits", "Requests", "Environment", "Mounts", "Ready", "Restart Count")),
    )


def _words(f: dict[str, list[str]], key: str) -> tuple[str, ...]:
    return tuple(ln.strip() for ln in f.get(key, []) if ln.strip())


def _describe_events(lines: list[str]) -> list[str]:
    out = []
    for ln in lines:
        cols = re.split(r"\s{2,}", ln.strip())
        if len(cols) >= 5 and cols[0] in ("Normal", "Warning"):
            count = re.search(r"\(x(\d+) over", cols[2])
            out.append(f"{cols[0]} {cols[1]}{f' (x{count.group(1)})' if count else ''}: {cols[-1][:300]}")
    out.sort(key=lambda e: not e.startswith("Warning"))
    return out


def parse_pod_text(text: str, source: str, container: str | None = None, context: str | None = None) -> PodSpec:
    """pod.json or kubectl describe text, whichever this is."""
    if text.lstrip().startswith(("{", "[")) or looks_like_manifest(text):
        return parse_pod(text, source, container, context)
    return parse_describe(text, source, container)
