"""Writing an evidence directory (`llmdoctor collect`).

Each answer of the live host is saved under the name an EvidenceHost answers the same
question from (hosts/evidence.py's tables: COMMANDS, HTTP, PATHS, KEPT), so `diagnose
--evidence` asks the bundle what it would have asked the host and finds it: the writer and
the reader share one table, and nothing outside hosts/ names an evidence file. Every text
passes the secret redactor on its way to disk.
"""
from __future__ import annotations

import os
from pathlib import Path

from llmdoctor.hosts.evidence import COMMANDS, HTTP, KEPT, PATHS
from llmdoctor.redact import redact_text

# what is recorded besides the answers to commands, requests and reads (its reader: KEPT,
# INSPECT_FILES, LOG_FILES, EvidenceHost's meta and pod methods)
RECORDS = {
    "cpu": KEPT["cpu"][0], "progress": KEPT["progress"][0], "probe": KEPT["probe"][0],
    "meta": "meta.json", "docker inspect": "docker_inspect.json", "pod": "pod.json",
    "pod describe": "kubectl_describe.txt", "pod events": "events.json",
    "container log": "container.log", "pod log": "pod.log",
}
# the file an engine's journal is written to: vLLM's and SGLang's under their own names (the
# log-name hint recognition reads), every other engine's as journal.log
JOURNALS = {"vllm": KEPT["vllm log"][0], "sglang": KEPT["sglang log"][0]}
JOURNAL = "journal.log"


def command_file(argv: list[str] | tuple[str, ...]) -> str:
    """The evidence file that answers `argv` (EvidenceHost.run reads it back)."""
    name = os.path.basename(argv[0]) if argv else ""
    for key, fname in COMMANDS.items():
        if (name,) + tuple(argv[1:len(key)]) == key:
            return fname
    raise KeyError(f"no evidence file answers `{' '.join(argv[:2])}`")


def read_file(path: str) -> str:
    """The evidence file that answers a read of `path` (/proc/meminfo, /proc/PID/cmdline)."""
    for pattern, fname in PATHS:
        if pattern.match(path) and not fname.endswith(".service"):
            return fname
    raise KeyError(f"no evidence file answers a read of {path}")


class EvidenceWriter:
    """An evidence directory being written: each method names the question the text answers."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.written: list[str] = []
        out.mkdir(parents=True, exist_ok=True)

    def _put(self, name: str, text: str) -> None:
        path = self.out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(redact_text(text))
        self.written.append(name)

    def has(self, name_of: str) -> bool:
        """Whether the answer to a command (its argv[0], "nvidia-smi") was written."""
        return command_file([name_of]) in self.written

    def command(self, argv: list[str], text: str) -> None:
        """A command's output (`ollama ps`, `systemctl show`, `vmstat`, `nvidia-smi -q`, ...)."""
        self._put(command_file(argv), text)

    def response(self, method: str, path: str, text: str) -> None:
        """An HTTP answer of the engine (GET /api/ps, /metrics, /props, POST /api/show, ...)."""
        self._put(HTTP[(method.upper(), path.split("?", 1)[0])], text)

    def read(self, path: str, text: str) -> None:
        """What a read of `path` gave (/proc/meminfo, the engine's /proc/PID/cmdline)."""
        self._put(read_file(path), text)

    def copy(self, path: str, text: str) -> None:
        """A host file as it is on disk, under files/<path> (unit files, drop-ins, environments,
        amdgpu's sysfs): EvidenceHost answers a read of `path` from it before anything else."""
        if not path.startswith("/") or "/../" in path or path.endswith("/.."):
            raise ValueError(f"{path}: not an absolute path")
        self._put("files" + path, text)

    def whoami(self, reader, id_output: str = "") -> None:
        """Who will run the fixes (knowledge.reader.Reader, the host's own answer) as whoami.txt, so a
        diagnosis of the bundle prints `sudo` exactly where the live one did: the host's `id` output
        where it says the same user (its groups also tell who reads the journal), else the reader
        as a `whoami` line (the user's name, or a bare `$`/`#` prompt where only root-or-not is known)."""
        from llmdoctor.knowledge.reader import parse_whoami

        said = parse_whoami(id_output, "id") if id_output.strip() else None
        if said is not None and said.root == reader.root and (not reader.user or said.user == reader.user):
            self.command(["id"], id_output)
            return
        line = reader.user or ("#" if reader.root else "$" if reader.root is False else "")
        if line:
            self.command(["id"], line + "\n")

    def journal(self, engine: str | None, text: str) -> None:
        self._put(JOURNALS.get(engine or "", JOURNAL), text)

    def record(self, what: str, text: str) -> None:
        """One of RECORDS: a measurement (cpu, progress, probe), meta.json, a container's inspect,
        a pod's describe, events and log."""
        self._put(RECORDS[what], text)
