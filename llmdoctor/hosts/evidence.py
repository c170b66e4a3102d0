"""A host that answers from an evidence directory.

Collectors ask the questions they would ask a live machine; this class maps each
question to the file a person or `llmdoctor collect` put there. A question with no
file raises `NotInEvidence`, which collectors report as an unavailable fact.

Relative paths (`host.read("vllm.log")`) read an evidence file by name; absolute
paths and commands are mapped through the tables below.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from llmdoctor.knowledge.pasted import Repaired, decode_pasted, is_utf16, repair_config, repair_log
from llmdoctor.hosts.base import DEFAULT_READ_LIMIT, DEFAULT_TIMEOUT, CommandResult, HttpResponse, NotInEvidence

# argv[0] (and argv[1] where it matters) -> evidence file. `nvidia-smi --query-gpu=...` is
# answered with nvidia_smi.txt whatever its form (table or CSV): the parser reads both.
COMMANDS: dict[tuple[str, ...], str] = {
    ("ollama", "ps"): "ollama_ps.txt",
    ("systemctl", "show"): "env.txt",
    ("systemctl", "cat"): "systemctl_cat.txt",
    ("vmstat",): "vmstat.txt",
    ("nvidia-smi",): "nvidia_smi.txt",
}
NOT_RECORDED = (("nvidia-smi", "--query-compute-apps"),)  # the processes: never part of nvidia_smi.txt

# absolute path -> evidence file
PATHS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^/proc/meminfo$"), "meminfo.txt"),
    (re.compile(r"^/proc/(\d+|self)/cmdline$"), "cmdline.txt"),
    (re.compile(r"^/(etc|run|usr/lib|lib)/systemd/system/[^/]+\.service$"), "unit.service"),
]

# (method, path) -> evidence file; matched on the path without query string
LLAMACPP_ENDPOINTS = {"/health": "health.json", "/props": "props.json", "/slots": "slots.json",
                      "/metrics": "metrics.prom"}
HTTP: dict[tuple[str, str], str] = {
    ("GET", "/api/ps"): "api_ps.json",
    ("POST", "/api/show"): "api_show.json",
    **{("GET", path): name for path, name in LLAMACPP_ENDPOINTS.items()},
}

LOG_FILES = ("journal.log", "server.log", "vllm.log")
# evidence files with a meaning of their own, never read as a log
KNOWN_FILES = frozenset({
    "ollama_ps.txt", "env.txt", "cmdline.txt", "client_errors.txt", "vmstat.txt", "meminfo.txt",
    "nvidia_smi.txt", "systemctl_cat.txt", "api_ps.json", "api_show.json", "metrics.prom", "probe.json",
    "meta.json", "unit.service", "expected.json", "README.md", "README.txt", "health.json", "props.json",
    "slots.json",
})
UTF16_LIMIT = 256 * 1024 * 1024  # a UTF-16 log is a pasted one; more than this is not read
REPAIR_LIMIT = 64 * 1024 * 1024  # logs up to this size are paste-repaired (pastes are small; collected logs are not pasted)
SAMPLE = 256 * 1024  # a log whose first bytes need no repair is read as it is


_COPY_DIRS: list[str] = []


def _copy_dir() -> str:
    """A temporary directory for repaired copies, removed at exit (remove_copies)."""
    import atexit
    import tempfile

    if not _COPY_DIRS:
        atexit.register(remove_copies)
    _COPY_DIRS.append(tempfile.mkdtemp(prefix="llmdoctor-evidence-"))
    return _COPY_DIRS[-1]


def remove_copies() -> None:
    """Remove every repaired copy this process made (at exit; a test session's /tmp check
    calls it first, since its own end comes before the interpreter's)."""
    import shutil

    while _COPY_DIRS:
        shutil.rmtree(_COPY_DIRS.pop(), ignore_errors=True)


class EvidenceHost:
    """Answers from an evidence directory. A recording: nothing changes between questions,
    and a question whose answer was not recorded raises NotInEvidence (or FileNotFoundError
    for a file). Directory listings are partial (only what was kept), so collectors probe
    for the paths they want instead of trusting a listing."""

    kind = "evidence"
    recorded = True
    complete_listings = False

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.root = Path(directory)
        if not self.root.is_dir():
            raise NotADirectoryError(f"evidence directory {self.root} does not exist")
        self.meta = self._meta()
        self.name = str(self.meta.get("host") or self.root.resolve().name)
        self._copies: dict[Path, Path] = {}
        self._repairs: dict[str, Repaired] = {}
        self._copy_dir: str | None = None
        self._units = self._systemctl_cat_files()

    # -- helpers ---------------------------------------------------------------
    def _meta(self) -> dict:
        try:
            data = json.loads((self.root / "meta.json").read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _text(self, name: str, limit: int = DEFAULT_READ_LIMIT) -> str:
        """A non-log evidence file as text, without what pasting added (prompts, prefixes, zsh's %)."""
        with open(self._checked(name), "rb") as f:
            return repair_config(decode_pasted(f.read(limit))).text

    def is_log(self, name: str) -> bool:
        return name in LOG_FILES or (name not in KNOWN_FILES and "/" not in name and name.endswith((".log", ".txt")))

    def repair(self, name: str) -> Repaired | None:
        """What paste repair did to a log file (None when it was read as it is)."""
        self.path(name)
        return self._repairs.get(name)

    def has(self, name: str) -> bool:
        return (self.root / name).is_file()

    def path_exists(self, name: str) -> bool:
        return (self.root / name).exists()

    def _checked(self, name: str) -> Path:
        p = (self.root / name).resolve()
        if self.root.resolve() not in p.parents and p != self.root.resolve():
            raise NotInEvidence(f"{name}: outside the evidence directory")
        if not p.is_file():
            raise NotInEvidence(f"{name} not in evidence")
        return p

    def path(self, name: str) -> Path:
        """Path of an evidence file for streaming readers: a log as the parsers should see it."""
        p = self._checked(name)
        return self._readable_copy(p, name) if self.is_log(name) else p

    def _readable_copy(self, p: Path, name: str) -> Path:
        """Streaming log readers read UTF-8 bytes, one record per line. A UTF-16 file
        (PowerShell's `>`) or a pasted log (prefixes, wrapped or glued lines) is given to them
        as a repaired UTF-8 copy, made once per run; a clean log is read where it lies."""
        if p in self._copies:
            return self._copies[p]
        with open(p, "rb") as f:
            head = f.read(SAMPLE)
        utf16 = is_utf16(head[:4])
        size = p.stat().st_size
        if not utf16 and (size > REPAIR_LIMIT or not repair_log(decode_pasted(head)).changed):
            self._copies[p] = p
            return p
        text = decode_pasted(p.read_bytes()[:UTF16_LIMIT if utf16 else REPAIR_LIMIT])
        if size <= REPAIR_LIMIT:
            repaired = repair_log(text)
            self._repairs[name] = repaired
            text = repaired.text
        if self._copy_dir is None:
            self._copy_dir = _copy_dir()
        out = Path(self._copy_dir) / f"{len(self._copies)}-{p.name}"
        out.write_text(text, encoding="utf-8")
        self._copies[p] = out
        return out

    def _systemctl_cat_files(self) -> dict[str, str]:
        """Split `systemctl cat` output into the files it shows, by their `# /path` headers."""
        source = "systemctl_cat.txt"
        if not self.has(source):
            # people paste `systemctl cat UNIT` into unit.service too
            if self.has("unit.service") and re.search(r"^# /\S+\.service\s*$", self._text("unit.service"), re.M):
                source = "unit.service"
            else:
                return {}
        files: dict[str, list[str]] = {}
        current = None
        for line in self._text(source).splitlines():
            m = re.match(r"^# (/\S+\.(?:service|conf))\s*$", line)
            if m:
                current = m.group(1)
                files[current] = []
            elif current is not None:
                files[current].append(line)
        return {k: "\n".join(v) + "\n" for k, v in files.items()}

    # -- Host protocol ----------------------------------------------------------
    def run(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        name = os.path.basename(argv[0]) if argv else ""
        if any((name,) + tuple(a.split("=", 1)[0] for a in argv[1:2]) == k for k in NOT_RECORDED):
            raise NotInEvidence(f"`{' '.join(argv[:2])}` output not in evidence")
        for key, fname in COMMANDS.items():
            if (name,) + tuple(argv[1 : len(key)]) == key and self.has(fname):
                return CommandResult(tuple(argv), 0, self._text(fname), source=fname)
        raise NotInEvidence(f"`{' '.join(argv[:2])}` output not in evidence")

    def _mirror(self, path: str) -> str | None:
        """files/<absolute path>: a copy of a host file as it was on disk (`llmdoctor collect`);
        it wins over `systemctl cat`, which shows what systemd had loaded."""
        name = f"files{path}"
        return name if path.startswith("/") and self.has(name) else None

    def where(self, path: str) -> str:
        """The evidence file that answers a read of `path` ("" when none does)."""
        mirror = self._mirror(path)
        if mirror is not None:
            return mirror
        if path in self._units:
            return "systemctl_cat.txt" if self.has("systemctl_cat.txt") else "unit.service"
        if not path.startswith("/"):
            return path if self.has(path) else ""
        m = re.match(r"^/(?:etc|run|usr/lib|lib)/systemd/system/[^/]+\.service\.d/([^/]+)$", path)
        if m and self.has(f"dropins/{m.group(1)}"):
            return f"dropins/{m.group(1)}"
        for pattern, fname in PATHS:
            if pattern.match(path) and self.has(fname):
                return fname
        return ""

    def read(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        name = self.where(path)
        if not name:
            raise FileNotFoundError(f"{path}: not in evidence")
        if name == "cmdline.txt" and path.startswith("/"):  # NUL-separated bytes, as /proc has them
            with open(self._checked(name), "rb") as f:
                return f.read(limit)
        if path in self._units:
            return self._units[path].encode()[:limit]
        # an evidence file as a configuration is read (pasting undone, no log lines joined);
        # logs are read as logs through log_file()
        return self._text(name, limit).encode()

    def exists(self, path: str) -> bool:
        if not path.startswith("/"):
            return self.path_exists(path)
        try:
            self.read(path, 1)
            return True
        except (OSError, NotInEvidence):
            return self.path_exists(f"files{path.rstrip('/')}")

    def listdir(self, path: str) -> list[str]:
        """What the evidence shows of a directory: the `systemctl cat` files in it, dropins/,
        and its files/ mirror (a partial listing: complete_listings is False)."""
        prefix = path.rstrip("/") + "/"
        names = {k[len(prefix):] for k in self._units if k.startswith(prefix) and "/" not in k[len(prefix):]}
        if not names and re.match(r"^/etc/systemd/system/[^/]+\.service\.d/?$", path) and (self.root / "dropins").is_dir():
            names = set(os.listdir(self.root / "dropins"))
        if self.path_exists(f"files{path.rstrip('/')}"):
            mprefix = f"files{path.rstrip('/')}/"
            names |= {f[len(mprefix):].split("/", 1)[0] for f in self.files() if f.startswith(mprefix)}
        if not names:
            raise FileNotFoundError(f"{path}: not in evidence")
        return sorted(names)

    def http(self, method, port, path, body=None, timeout=DEFAULT_TIMEOUT, headers=None) -> HttpResponse:
        key = (method.upper(), path.split("?", 1)[0])
        fname = HTTP.get(key)
        if key == ("GET", "/api/version") and self.meta.get("version"):
            return HttpResponse(200, json.dumps({"version": self.meta["version"]}).encode(), source="meta.json")
        if fname and self.has(fname):
            return HttpResponse(200, self._text(fname, 16 * 1024 * 1024).encode(), source=fname)
        raise NotInEvidence(f"{method} {path} not in evidence")

    def stream(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT):
        raise NotInEvidence("an evidence directory runs no commands")

    def base_url(self, port: int) -> str:
        raise NotInEvidence("an evidence directory cannot be probed live")

    def journal(self, unit, engine, since_seconds, state=None, directory=None):
        raise NotInEvidence(f"an evidence directory holds no journal of {unit} (its logs are files: recorded_logs())")

    def log_file(self, path, engine, since_seconds, state=None):
        """A log file of the evidence, by name; its time window ends at the collection time."""
        if path.startswith("/"):
            raise NotInEvidence(f"{path}: an evidence directory holds no host log files, only its own")
        from llmdoctor.hosts.logs import EvidenceFileSource

        return EvidenceFileSource(self, path, engine, since_seconds)

    def recorded_logs(self) -> list[str]:
        return self.log_files()

    def nvml(self):
        raise NotInEvidence("an evidence directory has no NVML: its GPUs are in nvidia_smi.txt")

    def close(self) -> None:
        pass

    def log_files(self) -> list[str]:
        """journal.log, server.log, vllm.log, then any other top-level `*.log` or unknown
        `*.txt` (hand-built directories hold `ollama.log`, `docker-logs.txt`, ...)."""
        known = [f for f in LOG_FILES if self.has(f)]
        extra = sorted(
            p.name for p in self.root.iterdir()
            if p.is_file() and p.name not in LOG_FILES and p.name not in KNOWN_FILES
            and p.suffix in (".log", ".txt") and not p.name.startswith(".")
        )
        return known + extra

    def files(self) -> list[str]:
        return sorted(str(p.relative_to(self.root)) for p in self.root.rglob("*") if p.is_file())
