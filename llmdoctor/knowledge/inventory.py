"""Targets and inventories: which hosts to diagnose, validated before anything runs.

A target string ends up as an argument of the `ssh` command line, so anything that
is not plainly a host name, an IPv4 address or a bracketed IPv6 address (with an
optional user and port) is rejected here: `host;rm -rf /`, `-oProxyCommand=x` and
`a b` never reach a subprocess.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

_USER = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.-]{0,63}\Z")
_LABEL = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\Z")
_PORT = re.compile(r"[0-9]{1,5}\Z")


@dataclass(frozen=True)
class Target:
    """`[user@]host[:port]`; `host` is a name, an ssh_config alias or an address (IPv6 unbracketed)."""

    user: str | None
    host: str
    port: int | None

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        text = f"{self.user}@{host}" if self.user else host
        return text if self.port is None else f"{text}:{self.port}"


def _check_host(host: str, original: str) -> str:
    if not host:
        raise ValueError(f"invalid host {original!r}: empty host name")
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"invalid host {original!r}: {host!r} is not an IPv6 address") from None
        return host
    if len(host) > 253:
        raise ValueError(f"invalid host {original!r}: longer than 253 characters")
    name = host[:-1] if host.endswith(".") else host
    for label in name.split("."):
        if not _LABEL.match(label):
            raise ValueError(
                f"invalid host {original!r}: {host!r} is not a host name or address "
                "(letters, digits, '-', '_' and '.' only, not starting with '-')"
            )
    if re.fullmatch(r"[0-9.]+", name):
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            raise ValueError(f"invalid host {original!r}: {host!r} is not an IPv4 address") from None
    return host


def _check_port(port: str, original: str) -> int:
    if not _PORT.match(port) or not 1 <= int(port) <= 65535:
        raise ValueError(f"invalid host {original!r}: port {port!r} is not a number from 1 to 65535")
    return int(port)


def parse_target(s: str) -> Target:
    """Parse `host`, `user@host`, `host:port`, `user@host:port`, `[v6]:port` or `ssh://...`.

    Raises ValueError with a one-line reason for anything else.
    """
    if not isinstance(s, str):
        raise ValueError(f"invalid host {s!r}: not a string")
    original = s
    if s.startswith("ssh://"):
        s = s[len("ssh://"):].rstrip("/")
    if not s:
        raise ValueError("invalid host '': empty host name")
    user = None
    if "@" in s:
        user, _, s = s.rpartition("@")
        if not _USER.match(user) or user.startswith("-"):
            raise ValueError(f"invalid host {original!r}: {user!r} is not a user name")
    port = None
    if s.startswith("["):
        inner, sep, rest = s[1:].partition("]")
        if not sep:
            raise ValueError(f"invalid host {original!r}: missing ']'")
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"invalid host {original!r}: unexpected {rest!r} after ']'")
            port = _check_port(rest[1:], original)
        return Target(user, _check_host(inner, original), port)
    if s.count(":") >= 2:
        # bare IPv6 without a port
        return Target(user, _check_host(s, original), None)
    if ":" in s:
        s, _, p = s.partition(":")
        port = _check_port(p, original)
    return Target(user, _check_host(s, original), port)


# -- container targets ----------------------------------------------------------------

# Docker's own rule for container names (daemon/names: `[a-zA-Z0-9][a-zA-Z0-9_.-]`); a name
# never starts with '-', so it can never be read as an option of the docker command line.
CONTAINER_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}\Z")
RUNTIMES = ("docker", "podman")


@dataclass(frozen=True)
class ContainerTarget:
    """`docker://NAME`, `podman://NAME`, or either behind SSH: `ssh://[user@]host[:port]/docker://NAME`
    (the container runs on that host, whose own docker CLI is used)."""

    runtime: str  # "docker" | "podman"
    name: str
    via: Target | None = None  # the SSH host the container runs on (None: this machine)

    def __str__(self) -> str:
        own = f"{self.runtime}://{self.name}"
        return f"ssh://{self.via}/{own}" if self.via else own


def is_container_target(s: str) -> bool:
    """docker://, podman:// (also behind ssh://) or a Kubernetes pod (k8s://)."""
    return isinstance(s, str) and (any(f"{r}://" in s for r in RUNTIMES) or s.startswith(("k8s://", "kube://")))


def parse_container_target(s: str):
    """Parse a container target (a KubeTarget for k8s://); ValueError with a one-line reason for anything else."""
    original = s
    if s.startswith(("k8s://", "kube://")):
        from llmdoctor.knowledge.containers.kube_target import parse_kube_target

        return parse_kube_target(s)
    via = None
    if s.startswith("ssh://"):
        host, sep, s = s[len("ssh://"):].partition("/")
        if not sep:
            raise ValueError(f"invalid host {original!r}: expected ssh://host/docker://NAME")
        via = parse_target(host)
    runtime, sep, name = s.partition("://")
    if not sep or runtime not in RUNTIMES:
        raise ValueError(f"invalid host {original!r}: a container target is docker://NAME or podman://NAME")
    name = name.rstrip("/")
    if not CONTAINER_NAME.match(name):
        raise ValueError(f"invalid host {original!r}: {name!r} is not a container name "
                         "(letters, digits, '_', '.' and '-', starting with a letter or digit)")
    return ContainerTarget(runtime, name, via)


# -- inventories ------------------------------------------------------------------

_RANGE = re.compile(r"\[([0-9]+|[a-z]):([0-9]+|[a-z])(?::([0-9]+))?\]")
MAX_EXPANSION = 10000


def _range_values(m: re.Match[str], pattern: str) -> range:
    """The numbers (or character codes) a `[lo:hi:step]` range stands for, not yet built."""
    lo, hi, step = m.group(1), m.group(2), int(m.group(3) or 1)
    if step < 1:
        raise ValueError(f"bad range step in {pattern!r}")
    if lo.isdecimal() and hi.isdecimal():
        return range(int(lo), int(hi) + 1, step)
    if lo.isalpha() and hi.isalpha():
        return range(ord(lo), ord(hi) + 1, step)
    raise ValueError(f"bad range in {pattern!r}")


def expansion_count(pattern: str) -> int:
    """How many hosts `pattern` names, counted without building them (`box[0:99999999]`
    is refused before any memory is spent)."""
    count = 1
    for m in _RANGE.finditer(pattern):
        r = _range_values(m, pattern)
        count *= max(0, (r.stop - r.start + r.step - 1) // r.step)  # len(range) overflows past 2**63
        if count > MAX_EXPANSION:
            raise ValueError(f"{pattern!r} expands to more than {MAX_EXPANSION} hosts")
    return count


def _expand(pattern: str) -> list[str]:
    """Ansible host ranges: `web[01:03].example.com`, `db-[a:c]`."""
    expansion_count(pattern)
    m = _RANGE.search(pattern)
    if not m:
        return [pattern]
    lo = m.group(1)
    numbers = _range_values(m, pattern)
    width = len(lo) if lo.isdecimal() and lo.startswith("0") else 0
    values = [str(i).zfill(width) if lo.isdecimal() else chr(i) for i in numbers]
    out: list[str] = []
    for v in values:
        out.extend(_expand(pattern[: m.start()] + v + pattern[m.end():]))
    return out


def _host_vars(tokens: list[str], lineno: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for tok in tokens:
        key, sep, value = tok.partition("=")
        if not sep:
            raise ValueError(f"inventory line {lineno}: expected key=value, got {tok!r}")
        out[key] = value.strip("'\"")
    return out


def _target_from(name: str, hv: dict[str, str]) -> str:
    host = hv.get("ansible_host") or hv.get("ansible_ssh_host") or name
    port = hv.get("ansible_port") or hv.get("ansible_ssh_port")
    user = hv.get("ansible_user") or hv.get("ansible_ssh_user")
    if not (port or user or "ansible_host" in hv or "ansible_ssh_host" in hv):
        return name
    if ":" in host and not host.startswith("["):
        host = f"[{host}]" if port else host
    text = f"{user}@{host}" if user else host
    return f"{text}:{port}" if port else text


def parse_inventory(text: str) -> list[str]:
    """Host strings from a plain list (one per line) or an Ansible INI inventory.

    `#`/`;` comments and blank lines are ignored; `[group]` headers open a group,
    `[group:vars]` and `[group:children]` sections are skipped; `ansible_host`,
    `ansible_port` and `ansible_user` are honoured. Each result is validated with
    `parse_target`; a bad line raises ValueError naming its line number.
    Duplicates (a host in several groups) appear once, in first-seen order.
    """
    seen: dict[str, None] = {}
    skipping = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]") and " " not in line:
            section = line[1:-1]
            skipping = ":" in section  # [g:vars], [g:children]
            continue
        if skipping:
            continue
        line = re.split(r"\s+[#;]", line, maxsplit=1)[0]
        tokens = line.split()
        name, rest = tokens[0], tokens[1:]
        try:
            hv = _host_vars(rest, lineno)
            if len(seen) + expansion_count(name) > MAX_EXPANSION:
                raise ValueError(f"the inventory names more than {MAX_EXPANSION} hosts")
            for expanded in _expand(name):
                target = _target_from(expanded, hv)
                (parse_container_target if is_container_target(target) else parse_target)(target)
                seen.setdefault(target, None)
        except ValueError as e:
            msg = str(e)
            if not msg.startswith("inventory line"):
                msg = f"inventory line {lineno}: {msg}"
            raise ValueError(msg) from None
    return list(seen)
