"""Names and paths of systemd's world that checks need too (kept light: imported at start-up)."""
from __future__ import annotations

import re
from typing import Sequence

from llmdoctor.parsing import LazyPattern

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
ENV_NAME = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Variables that configure an LLM engine (what a misplaced export breaks).
ENGINE_VAR = LazyPattern(
    r"(?:OLLAMA_\w+|VLLM_\w+|LLAMA_ARG_\w+|CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES"
    r"|GGML_VK_VISIBLE_DEVICES)\Z"
)


def is_engine_var(name: str) -> bool:
    return bool(ENGINE_VAR.match(name))


UNIT_SUFFIXES = ("service", "socket", "target", "device", "mount", "automount", "swap", "timer", "path",
                 "slice", "scope")
UNIT_NAME_MAX = 255  # systemd's UNIT_NAME_MAX (256 with the terminating NUL)
_UNIT_NAME = LazyPattern(r"[A-Za-z0-9:_.\\@-]+\Z")


class BadUnitName(ValueError):
    """A --unit value systemd would refuse; str() is the one-line reason."""


def check_unit(name: str) -> str:
    """The unit name, normalized (a bare name gets `.service`), or BadUnitName.

    systemd's unit-name rules (unit_name_is_valid): only `[A-Za-z0-9:_.\\-]` and one `@`
    before the suffix, at most 255 characters, a known type suffix. Refusing a leading
    `-` keeps it from being read as an option; refusing `/` and newlines keeps it from
    naming a directory outside the unit directories when it becomes `<unit>.d`."""
    if not isinstance(name, str) or not name:
        raise BadUnitName("empty unit name")
    shown = repr(name) if len(name) <= 80 else repr(name[:80]) + "..."
    if name.startswith("-"):
        raise BadUnitName(f"unit name {shown} starts with '-' (it would be read as an option)")
    if not _UNIT_NAME.match(name):
        raise BadUnitName(f"unit name {shown} has a character systemd does not allow in unit names "
                          f"(allowed: letters, digits, ':', '_', '.', '-', '\\', '@')")
    unit = normalize_unit(name)
    if len(unit) > UNIT_NAME_MAX:
        raise BadUnitName(f"unit name {shown} is longer than systemd's {UNIT_NAME_MAX} characters")
    prefix, _, suffix = unit.rpartition(".")
    if suffix not in UNIT_SUFFIXES or not prefix or prefix.startswith("."):
        raise BadUnitName(f"unit name {shown} is not a systemd unit name")
    if prefix.count("@") > 1 or prefix.startswith("@"):
        raise BadUnitName(f"unit name {shown}: a template instance is NAME@INSTANCE.TYPE")
    return unit


def normalize_unit(name: str) -> str:
    """'ollama' -> 'ollama.service' (a bare name means a service, as systemctl does)."""
    name = name.strip()
    return name if re.search(r"\.(service|socket|timer|target|mount|path|slice|scope|device|automount|swap)$", name) \
        else f"{name}.service"


def canonical_path(path: str) -> str:
    """/lib is a symlink to /usr/lib on merged-/usr systems (Debian 12, Fedora, Arch)."""
    return "/usr" + path if path.startswith("/lib/") else path


def in_search_paths(path: str, search_paths: Sequence[str] = SYSTEM_UNIT_PATHS) -> bool:
    """Whether llmdoctor reads this directory (generator and attached dirs it does not)."""
    return any(path.startswith(base + "/") for base in search_paths)
