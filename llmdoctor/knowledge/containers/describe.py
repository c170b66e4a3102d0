"""`kubectl describe pod` text as a PodSpec: what people paste most often about a pod.

Why: its layout is fixed (`Key:  value` lines, nested by indentation, a `Containers:` section
per container, an `Events:` table), so the engine container's Image, Command/Args, Limits,
Environment, State/Last State and Restart Count, and the pod's Controlled By, read the same as
`kubectl get pod -o json`. A paste cut before Limits says nothing about the GPU (None).
"""
from __future__ import annotations

import re

from llmdoctor.knowledge.containers.inspect import MAX_TEXT, ContainerSpec, engine_of
from llmdoctor.knowledge.containers.podspec import PodSpec, engine_argv
from llmdoctor.parsing import ParseError

_DESCRIBE = re.compile(r"^\s*Name:\s+\S+\s*\n(?:.*\n){0,3}?\s*Namespace:\s+\S+", re.M)


def looks_like_describe(text: str) -> bool:
    head = text[:64 * 1024]
    return bool(_DESCRIBE.search(head)) and bool(re.search(r"^\s*Containers:\s*$", head, re.M))


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
