"""Kubernetes pods: readers of what `kubectl` prints about a pod (the `k8s://` grammar is in
kube_target.py, `kubectl describe` text in describe.py, the PodSpec they return in podspec.py).

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

from llmdoctor.knowledge.containers.inspect import MAX_TEXT, ContainerSpec, engine_of
from llmdoctor.knowledge.containers.podspec import PodSpec, engine_argv
from llmdoctor.parsing import ParseError

# -- the pod ------------------------------------------------------------------------

_LOOKS = re.compile(r'"kind"\s*:\s*"Pod"|^\s*"containerStatuses"\s*:|^\s*"spec"\s*:\s*\{\s*"containers"', re.M)


def looks_like_pod(text: str) -> bool:
    """`kubectl get pod -o json` (or a fragment of a pod's spec/status) or `kubectl describe pod`?"""
    head = text[:64 * 1024]
    from llmdoctor.knowledge.containers.describe import looks_like_describe

    return bool(_LOOKS.search(head)) or looks_like_describe(head) or looks_like_manifest(head)




def _dict(v) -> dict:
    return v if isinstance(v, dict) else {}


def _list(v) -> list:
    return v if isinstance(v, list) else []


def _strs(v) -> tuple[str, ...]:
    return tuple(str(x) for x in v) if isinstance(v, list) else ()


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


def parse_pod_text(text: str, source: str, container: str | None = None, context: str | None = None) -> PodSpec:
    """pod.json or kubectl describe text, whichever this is."""
    if text.lstrip().startswith(("{", "[")) or looks_like_manifest(text):
        return parse_pod(text, source, container, context)
    from llmdoctor.knowledge.containers.describe import parse_describe

    return parse_describe(text, source, container)
