"""`collect --clean`: host names, IP addresses, MAC addresses, user names, the model's local
directories and site words replaced by stable pseudonyms in every file of a bundle (the idea
of `sos clean`).

Why pseudonyms, not `<redacted>`: the diagnosis compares values across files (the address a
unit binds with the one a client calls, the model directory in a unit with the one in the
log), so one original always becomes the same pseudonym, in every file and in every later
run. The mapping stays on the collecting host (mode 0600, in a state directory) and never in
the bundle: whoever holds the bundle cannot map it back.

Pseudonyms come from ranges that cannot be real: documentation networks (192.0.2.0/24,
198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32), locally administered MACs (02:00:…),
`host-N`, `user-N`, `/models-N`, `word-N`.
"""
from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path

KINDS = ("host", "ipv4", "ipv6", "mac", "user", "path", "word")
MAP_NAME = "clean-map.json"
MAP_LIMIT = 64 * 1024 * 1024  # a mapping bigger than this is not read back (it starts afresh)

# names everybody has: replacing them would hide evidence, and hides nothing
_PUBLIC_HOSTS = frozenset({
    "localhost", "huggingface.co", "hf.co", "github.com", "raw.githubusercontent.com", "ollama.com", "ollama.ai",
    "registry.ollama.ai", "docker.io", "registry-1.docker.io", "ghcr.io", "nvcr.io", "quay.io", "pypi.org",
    "files.pythonhosted.org", "api.openai.com", "gcr.io", "k8s.io", "registry.k8s.io", "kubernetes.default.svc",
})
_SYSTEM_USERS = frozenset({
    "root", "ollama", "nobody", "daemon", "bin", "sys", "www-data", "systemd-network", "systemd-resolve", "messagebus",
    "syslog", "vllm", "sglang", "llama", "app", "user", "admin", "docker", "nvidia", "shared", "share", "local",
})
_STANDARD_DIRS = ("/usr/share/ollama", "/root/.ollama", "/var/lib/ollama", "/usr/lib/ollama", "/usr/local/lib/ollama",
                  "/tmp", "/proc", "/sys", "/dev", "/etc", "/usr/bin", "/usr/local/bin", "/bin", "/opt/conda")

_IPV4 = re.compile(r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?!\.\d)(?!\w)")
_IPV6 = re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])")
_MAC = re.compile(r"(?<![\w:-])(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}(?![\w:-])")
_URL_HOST = re.compile(r"[a-z][a-z0-9+.-]*://(?:[^/\s@\"'<>]*@)?(?P<host>[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*)")
_USER_AT = re.compile(r"(?<![\w.-])(?P<user>[a-z_][a-z0-9_-]{0,31})@(?P<host>[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*)")
_HOME = re.compile(r"(?:/home|/Users)/(?P<user>[A-Za-z_][A-Za-z0-9_.-]{0,31})(?=/|\b)")
_ENV_USER = re.compile(r"\b(?:USER|LOGNAME|SUDO_USER|User)=(?P<user>[a-z_][a-z0-9_-]{0,31})\b")
_ID_USER = re.compile(r"\buid=\d+\((?P<user>[a-z_][a-z0-9_.-]{0,31})\)")  # `id` output (whoami.txt)
# `2025-08-08T23:02:37+0100 gpu-box ollama[123]:` (journalctl -o short-iso) and `Aug 08 23:02:37 gpu-box ...`
_JOURNAL_HOST = re.compile(r"^(?:\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{2}:?\d{2}|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d) "
                           r"(?P<host>[A-Za-z][A-Za-z0-9.-]*) [\w@./-]+(?:\[\d+\])?:", re.M)
_MODEL_PATH = re.compile(r"(?P<dir>/[\w.+@-]+(?:/[\w.+@-]+)*)/(?P<file>[\w.+@-]+\.gguf)\b")
_MODEL_DIR = re.compile(r"(?:OLLAMA_MODELS[=:]|--model(?:-path)?[= ]|\s-m )(?P<dir>/[\w.+@/-]+)")


class Cleaner:
    """The pseudonyms of one collecting host, loaded from and saved to its state directory."""

    def __init__(self, state_dir: Path | None = None, keywords: tuple[str, ...] = ()) -> None:
        from llmdoctor.hosts.state import read_state, state_dir as default_state_dir

        self.path = (state_dir or default_state_dir()) / MAP_NAME
        self.map: dict[str, dict[str, str]] = {k: {} for k in KINDS}
        if self.path.exists():
            try:
                saved = json.loads(read_state(self.path, MAP_LIMIT))
                for k in KINDS:
                    self.map[k].update(saved.get(k, {}))
            except (OSError, ValueError):
                pass
        for w in keywords:
            if w.strip():
                self._name("word", w.strip())

    def _name(self, kind: str, original: str) -> str:
        table = self.map[kind]
        if original not in table:
            n = len(table) + 1
            table[original] = {
                "host": f"host-{n}", "user": f"user-{n}", "path": f"/models-{n}", "word": f"word-{n}",
                "ipv4": f"{('192.0.2', '198.51.100', '203.0.113')[(n - 1) // 254 % 3]}.{(n - 1) % 254 + 1}",
                "ipv6": f"2001:db8::{n:x}", "mac": f"02:00:00:00:{n // 256 % 256:02x}:{n % 256:02x}",
            }[kind]
        return table[original]

    # -- learning what is site-specific -------------------------------------------------
    def learn(self, text: str, host_name: str | None = None) -> None:
        """Host names, user names and model directories that `text` names."""
        if host_name:
            user, _, rest = host_name.rpartition("@")
            name = rest.split("://")[-1].split("/")[0].rsplit(":", 1)[0]
            if user and user not in _SYSTEM_USERS:
                self._name("user", user)
            if name and not _is_address(name) and name.lower() not in _PUBLIC_HOSTS:
                self._name("host", name)
        for m in _JOURNAL_HOST.finditer(text):
            if m.group("host").lower() not in _PUBLIC_HOSTS:
                self._name("host", m.group("host"))
        for m in _URL_HOST.finditer(text):
            self._host(m.group("host"))
        for m in _USER_AT.finditer(text):
            if m.group("user") not in _SYSTEM_USERS and self._host(m.group("host")):
                self._name("user", m.group("user"))
        for rx in (_HOME, _ENV_USER, _ID_USER):
            for m in rx.finditer(text):
                if m.group("user") not in _SYSTEM_USERS:
                    self._name("user", m.group("user"))
        for rx in (_MODEL_PATH, _MODEL_DIR):
            for m in rx.finditer(text):
                d = m.group("dir").rstrip("/")
                if d and not d.startswith(_STANDARD_DIRS) and d.count("/") >= 1 and len(d) > 1:
                    self._name("path", d)

    def _host(self, host: str) -> bool:
        low = host.lower()
        if low in _PUBLIC_HOSTS or _is_address(host) or "." in low and low.rsplit(".", 1)[-1] in ("py", "go", "cpp", "json", "gguf"):
            return False
        if "." not in low and low in ("host", "model", "server", "gpu", "engine"):
            return False
        self._name("host", host)
        return True

    # -- replacing ----------------------------------------------------------------------
    def clean(self, text: str) -> str:
        text = _MAC.sub(lambda m: self._name("mac", m.group().lower().replace("-", ":")), text)
        text = _IPV4.sub(self._ipv4, text)
        text = _IPV6.sub(self._ipv6, text)
        for kind in ("path", "host", "user", "word"):
            table = self.map[kind]
            if not table:
                continue
            names = sorted(table, key=len, reverse=True)
            if kind == "path":
                rx = re.compile("|".join(re.escape(n) for n in names) + r"(?=/|\b|$)")
            else:
                rx = re.compile(r"(?<![\w.-])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w-])"
                                + ("" if kind != "host" else r"(?!\.\w)"), 0 if kind != "word" else re.I)
            lookup = table if kind != "word" else {k.lower(): v for k, v in table.items()}
            text = rx.sub(lambda m: lookup[m.group() if kind != "word" else m.group().lower()], text)
        return text

    def _ipv4(self, m: re.Match[str]) -> str:
        try:
            ip = ipaddress.ip_address(m.group())
        except ValueError:  # `95.03.44.00`: leading zeros, a version or a time, not an address
            return m.group()
        if ip.is_loopback or ip.is_unspecified or ip.is_multicast or str(ip).startswith(("192.0.2.", "198.51.100.", "203.0.113.", "255.")):
            return m.group()
        return self._name("ipv4", m.group())

    def _ipv6(self, m: re.Match[str]) -> str:
        s = m.group()
        if "::" not in s and s.count(":") != 7:
            return s
        try:
            ip = ipaddress.IPv6Address(s)
        except ValueError:
            return s
        if ip.is_loopback or ip.is_unspecified or s.lower().startswith("2001:db8:"):
            return s
        return self._name("ipv6", s)

    def save(self) -> Path:
        """Write the mapping, readable by its owner only (never into a bundle)."""
        from llmdoctor.hosts.state import write_private

        write_private(self.path, json.dumps(self.map, indent=1, sort_keys=True))
        return self.path


def _is_address(s: str) -> bool:
    try:
        ipaddress.ip_address(s.strip("[]"))
        return True
    except ValueError:
        return False


def clean_bundle(bundle: Path, cleaner: Cleaner, host_name: str | None = None) -> int:
    """Clean every text file under `bundle` in place with one mapping; the number of files."""
    files = sorted(p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink())
    texts: dict[Path, str] = {}
    for p in files:
        try:
            texts[p] = p.read_text()
        except (OSError, UnicodeDecodeError):
            continue
    meta = texts.get(bundle / "meta.json")
    if meta and host_name is None:
        try:
            host_name = json.loads(meta).get("host")
        except ValueError:
            pass
    for text in texts.values():  # learn from every file first: a name is the same pseudonym everywhere
        cleaner.learn(text, host_name)
    for p, text in texts.items():
        cleaned = cleaner.clean(text)
        if cleaned != text:
            p.write_text(cleaned)
    return len(texts)
