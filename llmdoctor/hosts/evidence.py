"""A host that answers from an evidence directory.

Collectors ask the questions they would ask a live machine; this class maps each
question to the file a person or `llmdoctor collect` put there. A question with no
file raises `NotInEvidence`, which collectors report as an unavailable fact.

Relative paths (`host.read("vllm.log")`) read an evidence file by name; absolute
paths and commands are mapped through the tables below.
"""
from __future__ import annotations

import codecs
import io
import json
import os
import re
from pathlib import Path
from typing import Iterator

from llmdoctor.knowledge.pasted import (Repaired, decode_pasted, is_utf16, pasted_encoding, repair_config, repair_log,
                                        repair_log_stream)
from llmdoctor.parsing import strip_journal_prefix
from llmdoctor.hosts import guard
from llmdoctor.hosts.base import DEFAULT_READ_LIMIT, DEFAULT_TIMEOUT, CommandResult, HttpResponse, NotInEvidence

# argv[0] (and argv[1] where it matters) -> evidence file. `nvidia-smi --query-gpu=...` is
# answered with nvidia_smi.txt whatever its form (table or CSV): the parser reads both.
COMMANDS: dict[tuple[str, ...], str] = {
    ("ollama", "ps"): "ollama_ps.txt",
    ("systemctl", "show"): "env.txt",
    ("systemctl", "cat"): "systemctl_cat.txt",
    ("vmstat",): "vmstat.txt",
    ("nvidia-smi", "-q"): "nvidia_smi_q.txt",
    ("nvidia-smi",): "nvidia_smi.txt",
    ("journalctl", "-k"): "kernel_xid.log",
    ("dmesg",): "kernel_xid.log",
    ("amd-smi", "metric"): "amd_smi_metric.json",
    ("amd-smi", "static"): "amd_smi_static.json",
    ("rocm-smi",): "rocm_smi.json",
    ("id",): "whoami.txt",  # who will run the fixes (facts/reader.py reads `id` output back)
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
                      "/metrics": "metrics.prom", "/v1/models": "models.json"}
SGLANG_ENDPOINTS = {"/get_server_info": "server_info.json", "/metrics": "metrics.prom"}
HTTP: dict[tuple[str, str], str] = {
    ("GET", "/api/ps"): "api_ps.json",
    ("POST", "/api/show"): "api_show.json",
    **{("GET", path): name for path, name in LLAMACPP_ENDPOINTS.items()},
    **{("GET", path): name for path, name in SGLANG_ENDPOINTS.items()},
}

LOG_FILES = ("journal.log", "server.log", "vllm.log", "sglang.log", "container.log", "pod.log")
# `docker inspect` / `podman inspect` output, in the order they are looked for (env.txt only when
# its content is inspect JSON: people paste it there)
INSPECT_FILES = ("docker_inspect.json", "podman_inspect.json", "pod.json", "kubectl_describe.txt", "pod.yaml",
                 "deployment.yaml", "deployment.json", "env.txt")
# evidence files with a meaning of their own, never read as a log
KNOWN_FILES = frozenset({
    "ollama_ps.txt", "env.txt", "cmdline.txt", "client_errors.txt", "vmstat.txt", "meminfo.txt",
    "nvidia_smi.txt", "systemctl_cat.txt", "api_ps.json", "api_show.json", "metrics.prom", "probe.json",
    "meta.json", "unit.service", "expected.json", "README.md", "README.txt", "health.json", "props.json",
    "slots.json", "server_info.json", "docker_inspect.json", "podman_inspect.json",
    "pod.json", "kubectl_describe.txt", "events.json", "pod.yaml", "deployment.yaml", "deployment.json",
    "amd_smi_metric.json", "amd_smi_static.json", "rocm_smi.json", "nvidia_smi_q.txt", "kernel_xid.log",
    "whoami.txt",
})
# What a recording keeps, by what collectors ask for (kept()): the evidence format's file names
# live here, not in facts/. Each entry lists the files in the order they are read.
COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml")
KEPT: dict[str, tuple[str, ...]] = {
    "cpu": ("cpu.json",),  # who used the CPUs over the sampling window (collect: cpu_load)
    "progress": ("progress.json",),  # engines' health and counters over the window (engine_progress)
    "probe": ("probe.json",),  # the probe a collection ran
    "prometheus window": ("prometheus_window.json",),  # an instance's window, as diagnose --prometheus read it
    "cmdline": ("cmdline.txt",),  # the engine's command line (or a start-up script someone pasted)
    "client errors": ("client_errors.txt",),  # error texts clients received
    "compose": COMPOSE_FILES,
    "listing": ("env.txt",),  # a list of variables (or systemctl show / docker inspect, pasted there)
    "export": ("shell_export.txt",),  # the shell line a user believed configured the server
    "systemctl cat": ("systemctl_cat.txt",),  # `systemctl cat UNIT`: its `# /path` headers name the unit
    "unit": ("unit.service",),
    "whoami": ("whoami.txt",),  # who will run the fixes: `id` or `whoami` output, or a ticket's prompt user
    # the evidence format's log names, as hints of the engine whose lines they hold (recognition)
    "ollama log": ("journal.log",), "llamacpp log": ("server.log",), "vllm log": ("vllm.log",),
    "sglang log": ("sglang.log",),
    "nvidia-smi -q": ("nvidia_smi_q.txt",),  # (nvidia_smi.txt answers `nvidia-smi -q` too, in whatever form)
    # where a host's unit and shell start-up files are answered from (files/ copies, systemctl cat)
    "units": ("files", "systemctl_cat.txt", "unit.service"),
    # texts searched for an engine's signs, besides the logs
    "config": ("cmdline.txt", "env.txt", "client_errors.txt", "metrics.prom", "unit.service", "systemctl_cat.txt",
               "ollama_ps.txt", "api_ps.json", "api_show.json", "shell_export.txt", "server_info.json"),
}
KEPT_NAMES = frozenset(n for names in KEPT.values() for n in names)
# files that can hold settings as a user wrote them, besides any unknown *.txt (kept("settings"))
SETTINGS_FILES = ("cmdline.txt", "env.txt", "shell_export.txt") + COMPOSE_FILES
NOT_SETTINGS = frozenset({"whoami.txt", "ollama_ps.txt", "vmstat.txt", "meminfo.txt", "nvidia_smi.txt", "systemctl_cat.txt",
                          "client_errors.txt", "libdir_listing.txt", "bench.txt"})
NOT_SHOWN = frozenset({"meta.json", "expected.json"})  # llmdoctor's own files, never the engine's evidence
UTF16_LIMIT = 256 * 1024 * 1024  # a UTF-16 log is a pasted one; more than this is not read
# logs up to this size are paste-repaired (pastes are small; collected logs are not pasted). A bound on
# time, not memory: the repair streams, at about 0.3 s of CPU per MiB (bench/paste_repair.py)
REPAIR_LIMIT = 64 * 1024 * 1024
KEEP_LIMIT = 1024 * 1024  # a log up to this size is held between repair's passes instead of read again
SAMPLE = 256 * 1024  # a log whose first bytes need no repair (or are a journal export) is read as it is


class EvidenceHost:
    """Answers from an evidence directory. A recording: nothing changes between questions,
    and a question whose answer was not recorded raises NotInEvidence (or FileNotFoundError
    for a file). Directory listings are partial (only what was kept), so collectors probe
    for the paths they want instead of trusting a listing."""

    kind = "evidence"
    recorded = True
    partial = True
    complete_listings = False

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.root = Path(directory)
        if not self.root.is_dir():
            raise NotADirectoryError(f"evidence directory {self.root} does not exist")
        found = guard.walk(self.root)
        self._files = frozenset(found.files)
        self._dirs = frozenset(str(Path(f).parents[i]) for f in found.files for i in range(len(Path(f).parents) - 1))
        self.problems: list[str] = list(found.skipped)  # what could not be read, for the report
        self.meta = self._meta()
        self.name = str(self.meta.get("host") or self.root.resolve().name)
        self._copies: dict[Path, Path] = {}
        self._repairs: dict[str, Repaired] = {}
        self._copy_dir: str | None = None
        try:
            self._units = self._systemctl_cat_files()
        except NotInEvidence as e:
            self.problems.append(str(e))
            self._units = {}

    # -- helpers ---------------------------------------------------------------
    def _meta(self) -> dict:
        """meta.json, through the guard; a field of the wrong type is left out and said so."""
        if not self.has("meta.json"):
            return {}
        try:
            data = json.loads(guard.read_bytes(self.root, "meta.json", guard.META_LIMIT))
        except NotInEvidence as e:
            self.problems.append(str(e))
            return {}
        except (ValueError, RecursionError):
            self.problems.append("meta.json: not valid JSON (ignored)")
            return {}
        if not isinstance(data, dict):
            self.problems.append("meta.json: not a JSON object (ignored)")
            return {}
        for key in ("host", "engine", "unit", "version", "time"):
            if data.get(key) is not None and not isinstance(data[key], str):
                self.problems.append(f"meta.json: {key!r} is not a string (ignored)")
                del data[key]
        return data

    def _text(self, name: str, limit: int = DEFAULT_READ_LIMIT) -> str:
        """A non-log evidence file as text, without what pasting added (prompts, prefixes, zsh's %)."""
        return repair_config(decode_pasted(guard.read_bytes(self.root, name, limit))).text

    def is_log(self, name: str) -> bool:
        return name in LOG_FILES or (name not in KNOWN_FILES and "/" not in name and name.endswith((".log", ".txt")))

    def repair(self, name: str) -> Repaired | None:
        """What paste repair did to a log file (None when it was read as it is)."""
        self.path(name)
        return self._repairs.get(name)

    def has(self, name: str) -> bool:
        """A regular file of the evidence (links out, FIFOs and devices are not: see problems)."""
        return os.path.normpath(name) in self._files

    def path_exists(self, name: str) -> bool:
        name = os.path.normpath(name)
        return name in self._files or name in self._dirs

    def _checked(self, name: str) -> Path:
        if not self.has(name):
            guard.regular_file(self.root, name)  # says why (outside, a FIFO, ...)
            raise NotInEvidence(f"{name} not in evidence")
        return guard.regular_file(self.root, name)

    def path(self, name: str) -> Path:
        """Path of an evidence file for streaming readers: a log as the parsers should see it."""
        p = self._checked(name)
        return self._readable_copy(p, name) if self.is_log(name) else p

    def _readable_copy(self, p: Path, name: str) -> Path:
        """Streaming log readers read UTF-8 bytes, one record per line. A UTF-16 file
        (PowerShell's `>`) or a pasted log (prefixes, wrapped or glued lines) is given to them
        as a repaired UTF-8 copy, made once per run as a stream (repair_log_stream: memory does
        not grow with the file); a clean log is read where it lies, not copied."""
        if p in self._copies:
            return self._copies[p]
        head = guard.read_bytes(self.root, name, SAMPLE)
        utf16 = is_utf16(head[:4])
        size = p.stat().st_size
        if not utf16:
            text = decode_pasted(head) if size <= REPAIR_LIMIT else ""
            sample = repair_log(text) if text else None
            if sample is None or not sample.changed:
                self._copies[p] = p
                return p
            if _journal_export(text, sample):
                # read as it lies, as a live journal or a log past REPAIR_LIMIT is: a copy cost 4 MB/s
                self._repairs[name] = Repaired("", sample.prefixes, sample.idents)
                self._copies[p] = p
                return p
        if self._copy_dir is None:
            from llmdoctor.scratch import scratch_dir

            self._copy_dir = scratch_dir("llmdoctor-evidence-")
        out = Path(self._copy_dir) / f"{len(self._copies)}-{p.name}"
        encoding = pasted_encoding(head[:4])
        with open(out, "w", encoding="utf-8") as dest:
            if size <= REPAIR_LIMIT:
                self._repairs[name] = repair_log_stream(lambda: self._text_lines(name, encoding), dest.write,
                                                        keep=size <= KEEP_LIMIT)
            else:  # a UTF-16 log too long to repair in time: only transcoded, up to UTF16_LIMIT bytes
                decoder = codecs.getincrementaldecoder(encoding)("replace")
                with guard.open_bytes(self.root, name) as f:
                    left = UTF16_LIMIT
                    while left > 0:
                        chunk = f.read(min(left, 1 << 20))
                        if not chunk:
                            break
                        left -= len(chunk)
                        dest.write(decoder.decode(chunk))
                dest.write(decoder.decode(b"", final=True))
        self._copies[p] = out
        return out

    def _text_lines(self, name: str, encoding: str) -> Iterator[str]:
        """The lines of an evidence file with their ends (\r, \n or \r\n), decoded as
        decode_pasted would, read as a stream; the file is closed when the lines end."""
        with guard.open_bytes(self.root, name) as raw:
            yield from io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")

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
            if fname == "env.txt" and self._inspect_in_env():
                continue  # `docker inspect` pasted as env.txt is the container's, not systemd's
            if (name,) + tuple(argv[1 : len(key)]) == key and self.has(fname):
                return CommandResult(tuple(argv), 0, self._text(fname), source=fname)
        raise NotInEvidence(f"`{' '.join(argv[:2])}` output not in evidence")

    def _inspect_in_env(self) -> bool:
        if not self.has("env.txt"):
            return False
        from llmdoctor.knowledge.containers.looks import looks_like_inspect

        return looks_like_inspect(self._text("env.txt", 64 * 1024))

    def container_inspect(self) -> CommandResult:
        """docker_inspect.json or podman_inspect.json, else env.txt when it holds inspect output."""
        for fname in INSPECT_FILES:
            if self.has(fname) and (fname != "env.txt" or self._inspect_in_env()):
                return CommandResult(("docker", "inspect"), 0, self._text(fname, 16 * 1024 * 1024), source=fname)
        raise NotInEvidence("no docker inspect output in evidence (docker_inspect.json)")

    def pod_events(self) -> CommandResult:
        """events.json: `kubectl get events --field-selector involvedObject.name=POD -o json`."""
        if self.has("events.json"):
            return CommandResult(("kubectl", "get", "events"), 0, self._text("events.json", 16 * 1024 * 1024),
                                 source="events.json")
        raise NotInEvidence("no kubectl events in evidence (events.json)")

    def pod_describe(self) -> CommandResult:
        if self.has("kubectl_describe.txt"):
            return CommandResult(("kubectl", "describe", "pod"), 0, self._text("kubectl_describe.txt", 16 * 1024 * 1024),
                                 source="kubectl_describe.txt")
        raise NotInEvidence("no kubectl describe output in evidence (kubectl_describe.txt)")

    def container_log(self, engine, since_seconds, state=None):
        raise NotInEvidence("an evidence directory's container log is a recorded file (container.log)")

    def _mirror(self, path: str) -> str | None:
        """files/<absolute path>: a copy of a host file as it was on disk (`llmdoctor collect`);
        it wins over `systemctl cat`, which shows what systemd had loaded."""
        name = f"files{path}"
        return name if path.startswith("/") and self.has(name) else None

    def where(self, path: str) -> str:
        """The evidence file that answers a read of `path`, or the files/ copy of a directory
        ("" when none does)."""
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
        copied = f"files{path.rstrip('/')}"  # a directory of which files/ holds copies (amdgpu's sysfs)
        return copied if self.path_exists(copied) else ""

    def read(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        name = self.where(path)
        if not name or not self.has(name):  # (a directory answers where(), not read())
            raise FileNotFoundError(f"{path}: not in evidence")
        if name == "cmdline.txt" and path.startswith("/"):  # NUL-separated bytes, as /proc has them
            return guard.read_bytes(self.root, name, limit)
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
        if not names and re.match(r"^/etc/systemd/system/[^/]+\.service\.d/?$", path):
            names = {f.split("/", 1)[1] for f in self._files if f.startswith("dropins/") and f.count("/") == 1}
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

        return EvidenceFileSource(self, path, engine, since_seconds, state)

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
            f for f in self._files
            if "/" not in f and f not in LOG_FILES and f not in KNOWN_FILES
            and f.endswith((".log", ".txt")) and not f.startswith(".")
        )
        return known + extra

    def files(self) -> list[str]:
        return sorted(self._files)

    def reader(self):
        """Who will paste the fixes, as the recording kept it (whoami.txt: `id`/`whoami` output or a
        ticket's prompt user); None where it kept nothing that says."""
        from llmdoctor.knowledge.reader import parse_whoami

        for name in self.kept("whoami"):
            try:
                found = parse_whoami(self.as_written(name), name)
            except OSError:
                continue
            if found is not None:
                return found
        return None

    def kept(self, what: str) -> tuple[str, ...]:
        """The files this recording holds for `what` (KEPT, and the kinds made of any file:
        "settings", "dropins", "printouts", "shown")."""
        if what == "settings":
            names = [n for n in SETTINGS_FILES if self.path_exists(n)]
            return tuple(names + [n for n in self.log_files()
                                  if n.endswith(".txt") and n not in NOT_SETTINGS and n not in names])
        if what == "dropins":
            return tuple(f for f in self.files() if f.startswith("dropins/"))
        if what == "printouts":  # files a printout can have been pasted into (`ollama show`)
            return tuple(f for f in self.files() if f.endswith((".txt", ".log")) and not f.startswith("dropins/"))
        if what == "shown":
            return tuple(f for f in self.files() if f not in NOT_SHOWN)
        if what == "answers":  # JSON no other reader claims: an API answer someone kept (Ollama's, by its figures)
            return tuple(f for f in self.files() if f.endswith(".json") and "/" not in f and f not in KNOWN_FILES
                         and f not in INSPECT_FILES and f not in KEPT_NAMES)
        return tuple(n for n in KEPT[what] if self.path_exists(n))

    def observe(self, live, recall):
        return recall()

    def as_written(self, name: str, limit: int = DEFAULT_READ_LIMIT) -> str:
        """A recorded file's text as it was written: pasting not undone (it would drop the
        command line a printout starts with)."""
        return decode_pasted(guard.read_bytes(self.root, name, limit))


def _journal_export(text: str, repaired: Repaired) -> bool:
    """Is `text` (a log's first bytes) a journal export (`journalctl -u X > x.log`): journald's
    prefix on every line, nothing else to repair, and each prefix one the scanners strip
    themselves (parsing.strip_journal_prefix: a localized month is not)? Such a log is read as it
    lies; tests/core/test_journal_export.py holds that reading equal to the repaired copy's."""
    if repaired.prefixes != ("journald",) or repaired.joined or repaired.split or repaired.cleaned \
            or repaired.fragments:
        return False
    return repaired.text == "\n".join(strip_journal_prefix(line) for line in text.split("\n"))
