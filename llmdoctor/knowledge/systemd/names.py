"""Names and paths of systemd's world that checks need too (kept light: imported at start-up)."""
from __future__ import annotations

import re
from typing import Sequence

# Search directories of the system manager in priority order (systemd.unit(5)).
SYSTEM_UNIT_PATHS = (
    "/etc/systemd/system.control",
    "/run/systemd/system.control",
    "/run/systemd/transient",
    "/etc/systemd/system",
    "/run/systemd/system",
    "/usr/local/lib/systemd/system",
    "/usr/lib/systemd/system",
    "/lib/systemd/system",
)
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Variables that configure an LLM engine (what a misplaced export breaks).
ENGINE_VAR = re.compile(
    r"(?:OLLAMA_\w+|VLLM_\w+|LLAMA_ARG_\w+|CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES"
    r"|GGML_VK_VISIBLE_DEVICES)\Z"
)


def is_engine_var(name: str) -> bool:
    return bool(ENGINE_VAR.match(name))


def normalize_unit(name: str) -> str:
    """'ollama' -> 'ollama.service' (a bare name means a service, as systemctl does)."""
    name = name.strip()
    return name if re.search(r"\.(service|socket|timer|target|mount|path|slice|scope)$", name) else f"{name}.service"


def canonical_path(path: str) -> str:
    """/lib is a symlink to /usr/lib on merged-/usr systems (Debian 12, Fedora, Arch)."""
    return "/usr" + path if path.startswith("/lib/") else path


def in_search_paths(path: str, search_paths: Sequence[str] = SYSTEM_UNIT_PATHS) -> bool:
    """Whether llmdoctor reads this directory (generator and attached dirs it does not)."""
    return any(path.startswith(base + "/") for base in search_paths)
