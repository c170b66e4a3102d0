"""Fixes in the form a Kubernetes pod takes them: its owner's `env:`, `args:` and `resources:`.

Why: a pod's configuration is its Deployment's container spec; a systemd drop-in, a
`systemctl restart` or a `vllm serve ...` typed in a shell changes nothing there, and a pod
edited by hand is replaced on the next rollout. The checks write their fixes once, in their
usual forms (judge/fixes); for a pod target every fix and merged change is rewritten here:
variables become `kubectl set env` plus the `env:` entries, server flags become the
container's new `args:` list (the running one with the flags replaced), restarts become a
rollout, journal reads become `kubectl logs`.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import replace

from llmdoctor.judge import fixes, remedy
from llmdoctor.model import Change, Fix
from llmdoctor.redact import REDACTED, redact_fix

_JOURNAL = re.compile(r"^journalctl(?:\s+-u\s+\S+|\s+-b|\s+--no-pager)*")


def _obj(spec) -> str:
    return spec.owner or f"pod/{spec.pod or 'POD'}"


def _flags(spec) -> str:
    return f"-n {spec.namespace or 'default'}" + (f" --context {shlex.quote(spec.context)}" if spec.context else "")


def _container(spec) -> str:
    return f" -c {spec.container}" if spec.container else ""


def _bare(spec) -> tuple[str, ...]:
    return () if spec.owner else (f"# {spec.pod} is a bare pod (no Deployment owns it): change its manifest and "
                                  f"recreate it (kubectl delete pod {spec.pod} {_flags(spec)} && kubectl apply -f POD.yaml)",)


def _header(spec, field: str) -> str:
    return f"# kubectl edit {_obj(spec)} {_flags(spec)}: spec.template.spec.containers[{spec.container or 0}].{field}\n"


def env_fix(spec, values: dict[str, str]) -> tuple[tuple[str, ...], str]:
    """(commands, config) that set engine variables in the pod's owner."""
    pairs = " ".join(shlex.quote(f"{k}={v}") for k, v in values.items())
    config = _header(spec, "env") + "env:\n" + "".join(f'- name: {k}\n  value: "{v}"\n' for k, v in values.items())
    commands = (f"kubectl set env {_obj(spec)} {_flags(spec)}{_container(spec)} {pairs}"
                "  # the Deployment rolls out new pods with it",
                f"kubectl rollout status {_obj(spec)} {_flags(spec)}")
    return (_bare(spec) or commands), config


def args_fix(spec, merged: dict[str, str], server: str) -> tuple[tuple[str, ...], str]:
    """(commands, config): the container's `args:` (or `command:`) with the flags in `merged` set."""
    server_name = next(s for s, p in remedy.SERVERS.items() if p == server)
    words = shlex.split(fixes.command_line(fixes.flags(server_name, merged), tuple(spec.argv) or None, words=True))
    shell = len(spec.command) >= 2 and spec.command[0].rsplit("/", 1)[-1] in ("sh", "bash")
    if shell:  # `command: ["/bin/sh", "-c"]` + `args: ["vllm serve ..."]`: keep the shell, one string
        field, items = ("args", [shlex.join(words)]) if spec.args else ("command", [*spec.command[:2], shlex.join(words)])
    elif spec.args and tuple(words[:len(spec.command)]) == spec.command:
        field, items = "args", words[len(spec.command):]
    else:
        field, items = ("command" if spec.command else "args"), words
    # a secret's value is never written back, a reference to it ($(VAR)) is: redact_fix makes the
    # value's line a comment that says to keep it
    config = _kept(_header(spec, field) + f"{field}:\n" + "".join(f"- {_yaml(w)}\n" for w in items))
    commands = (f"kubectl edit {_obj(spec)} {_flags(spec)}  # replace the container's {field}: with the list below",
                f"kubectl rollout status {_obj(spec)} {_flags(spec)}")
    return (_bare(spec) or commands), config


_REFERENCE = re.compile(r'^- "?\$\([A-Za-z_][A-Za-z0-9_]*\)"?$')


def _kept(config: str) -> str:
    """`config` with every secret's value a "keep it" comment, and every `$(VAR)` line as it was."""
    shown = redact_fix(config).split("\n")
    lines = config.split("\n")
    if len(shown) != len(lines):
        return "\n".join(shown)
    return "\n".join(line if _REFERENCE.match(line) else out for line, out in zip(lines, shown))


def _yaml(word: str) -> str:
    return word if re.fullmatch(r"[A-Za-z/_.][\w./:=-]*", word) and word not in ("true", "false", "null", "yes", "no") \
        else '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gpu_fix(spec, count: int = 1) -> tuple[tuple[str, ...], str]:
    """(commands, config) that give the engine's container a GPU through the device plugin."""
    config = (_header(spec, "resources") + f"resources:\n  limits:\n    nvidia.com/gpu: {count}\n")
    commands = (f"kubectl set resources {_obj(spec)} {_flags(spec)}{_container(spec)} --limits=nvidia.com/gpu={count}",
                "kubectl describe nodes | grep -A8 Allocatable  # a node must offer nvidia.com/gpu "
                "(the NVIDIA device plugin or GPU Operator)")
    return (_bare(spec) or commands), config


def memory_fix(spec, limit: str) -> tuple[tuple[str, ...], str]:
    config = _header(spec, "resources") + f"resources:\n  limits:\n    memory: {limit}\n  requests:\n    memory: {limit}\n"
    commands = (f"kubectl set resources {_obj(spec)} {_flags(spec)}{_container(spec)} --limits=memory={limit} "
                f"--requests=memory={limit}",)
    return (_bare(spec) or commands), config


EVENTS = "kubectl get events"  # the source named for a pod's event lines


def top_pod(pod: str, namespace: str) -> tuple[str, ...]:
    """What the pod uses now (metrics-server)."""
    return (f"kubectl top pod {pod} -n {namespace}  # what it uses now (metrics-server)",)


def _settings(fix: Fix) -> dict[str, str] | None:
    """The engine variables the fix's remedy sets (None: it sets none); a secret's value is never copied."""
    r = fix.remedy
    if r is None or r.server:
        return None
    return {s.name: str(s.value) for s in r.settings if REDACTED not in str(s.value)} or None


def _remedy_flags(r) -> dict[str, object]:
    """A command-line remedy's flags by the names the merge uses."""
    return remedy.wanted_of_remedy(r)


def _command(spec, c: str) -> str | None:
    """One command of a fix as the pod takes it (None: it has no meaning there)."""
    text = c.strip()
    if re.match(r"^(systemctl daemon-reload && )?systemctl restart \S+", text):
        return f"kubectl rollout restart {_obj(spec)} {_flags(spec)}"
    if re.match(r"^systemctl edit\b", text):
        return f"kubectl edit {_obj(spec)} {_flags(spec)}  # the container's env: entries"
    if re.match(r"^(systemctl daemon-reload|mkdir -p /etc/systemd/)", text):
        return None
    if re.match(r"^(ollama|nvidia-smi)\b", text):  # run where the engine runs: in its container
        return f"kubectl exec {spec.pod or _obj(spec)} {_flags(spec)}{_container(spec)} -- {text}"
    if re.match(r"^kubectl rollout restart deploy/ollama\b", text):
        return None  # settings_fix's placeholder: env_fix names the real Deployment
    m = _JOURNAL.match(text)
    if m and "-u" in m.group(0):
        return f"kubectl logs {spec.pod} {_flags(spec)}{_container(spec)}{text[m.end():]}"
    return c


def in_pod(fix: Fix, spec) -> Fix:
    """`fix` as it applies to the engine's pod."""
    commands, config = list(fix.commands), fix.config
    values = _settings(fix)
    head: tuple[str, ...] = ()
    if values:  # `kubectl set env` rolls the pods out: only the remedy's own checks remain to run
        head, config = env_fix(spec, values)
        commands = [*fix.remedy.before, *fix.remedy.verify]
    elif not config and fix.remedy is not None and remedy.SERVERS.get(fix.remedy.server) and fix.remedy.settings:
        r = fix.remedy
        head, config = args_fix(spec, _remedy_flags(r), remedy.SERVERS[r.server])
        commands = [f"# or, in args: {' '.join(f'{k} {v}'.strip() for k, v in _remedy_flags(a).items())}"
                    for a in r.alternatives if remedy.SERVERS.get(a.server)] + list(r.verify)
    rest = [x for x in (_command(spec, c) for c in commands) if x is not None]
    return replace(fix, commands=tuple(dict.fromkeys((*head, *rest))), config=config)


def change_in_pod(change: Change, spec) -> Change:
    """A merged change of `judge.remedy` as it applies to the engine's pod."""
    settings = {k: v for k, v in change.settings}
    if not settings and (change.place.startswith("systemd ") or change.place == "container environment"
                         or change.place.endswith("command line")):  # everything held back: nothing to write yet
        kind = "args" if change.place.endswith("command line") else "env"
        return replace(change, place=f"Kubernetes {_obj(spec)} {kind}", commands=(), config="")
    if change.place.startswith("systemd ") or change.place == "container environment":
        commands, config = env_fix(spec, settings)
        place = f"Kubernetes {_obj(spec)} env"
    elif change.place.endswith("command line"):
        commands, config = args_fix(spec, settings, change.place)
        place = f"Kubernetes {_obj(spec)} args"
    else:
        return change
    extra = tuple(x for x in (_command(spec, c) for c in change.commands)
                  if x is not None and not re.match(r"^(docker|llama-server|vllm serve|python3? -m sglang)\b", x)
                  and x not in commands and not x.startswith(("mkdir -p", "kubectl set env", "kubectl rollout")))
    return replace(change, place=place, commands=commands + extra, config=config)
