"""A compose file's engine service: its image, environment and whether a GPU is reserved.

Why: a compose file is how most people run the Ollama and vLLM containers, and a missing
`deploy.resources.reservations.devices` (or `runtime: nvidia`, or a CDI device) is the
usual reason the engine sees no GPU. Read by indentation, without a YAML library (the
tool does not depend on one), and only the service whose image names an engine.
"""
from __future__ import annotations

import re

from llmdoctor.knowledge.containers.inspect import ContainerSpec, engine_of
from llmdoctor.parsing import ParseError

_IMAGE = re.compile(r"^(\s*)image:\s*['\"]?([^'\"\s#]+)")
_GPU = re.compile(r"^\s*(?:-\s*)?(?:driver:\s*['\"]?(?:nvidia|cdi)\b|capabilities:\s*\[[^\]]*\bgpu\b|runtime:\s*['\"]?nvidia\b"
                  r"|-\s*['\"]?nvidia\.com/gpu|device_ids:|-\s*['\"]?/dev/(?:nvidia|dri|kfd))", re.M)
_ENV_ITEM = re.compile(r"^\s*-\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)=(.*?)['\"]?\s*$")
_ENV_PAIR = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*):\s*(.*?)\s*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _service_block(lines: list[str], at: int) -> list[str]:
    """The lines of the service that holds line `at` (its header, up to the next sibling)."""
    depth = _indent(lines[at])
    start = at
    while start > 0 and (not lines[start].strip() or _indent(lines[start]) >= depth or lines[start].lstrip().startswith("#")):
        start -= 1
    top = _indent(lines[start])
    end = at + 1
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > top or lines[end].lstrip().startswith("#")):
        end += 1
    return lines[start:end]


def _environment(block: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    inside, depth = False, 0
    for line in block:
        if re.match(r"^\s*environment:\s*(?:#.*)?$", line):
            inside, depth = True, _indent(line)
            continue
        if inside:
            if line.strip() and not line.lstrip().startswith("#") and _indent(line) <= depth:
                inside = False
                continue
            m = _ENV_ITEM.match(line) or _ENV_PAIR.match(line)
            if m and not line.lstrip().startswith("#"):
                env[m.group(1)] = m.group(2).strip("'\"")
    return env


def parse_compose(text: str, source: str = "compose.yaml") -> ContainerSpec:
    """The engine's service of a compose file as a ContainerSpec (form "compose")."""
    lines = text.replace("\t", "    ").splitlines()
    images = [(i, m.group(2)) for i, line in enumerate(lines) if (m := _IMAGE.match(line))]
    if not images:
        raise ParseError("no service with an `image:` in this compose file")
    pick = next(((i, img) for i, img in images if engine_of(ContainerSpec(source, image=img))), images[0])
    block = _service_block(lines, pick[0])
    gpu = [ln.strip() for ln in block if _GPU.match(ln) and not ln.lstrip().startswith("#")]
    name = block[0].strip().rstrip(":") if block and block[0].rstrip().endswith(":") else None
    return ContainerSpec(
        source=source, name=name, image=pick[1], env=_environment(block),
        device_requests=({"Driver": "compose", "Capabilities": [["gpu"]], "Line": gpu[0]},) if gpu else None,
        host_keys=frozenset({"DeviceRequests"}), form="compose",
    )
