"""The one thing that touches the outside world.

Collectors are written once against `Host` and work on the local machine, over SSH
and on an evidence directory, without asking which one they have: a host answers every
question it can and raises `Unanswerable` for the others (an evidence directory cannot
run a command it holds no output of; a remote host has no NVML). Every call carries a
timeout; failures are raised as `HostError` subclasses so a collector can turn them into
an `Unavailable` line. Two plain attributes say what kind of answers to expect, not what
kind of host it is: `partial` (a missing answer is normal: a recording holds what someone
kept, so collectors report its gaps quietly) and `complete_listings` (a directory listing
shows every entry). `recorded` is the hosts' own: collectors never read it (tests/core/test_layers.py).

Two questions replace a collector's asking which host it has: `kept(what)` names the files a
recording holds for one kind of evidence (the evidence format's names live in hosts/ only), and
`observe(live, recall)` lets the host say how something that changes over time is answered: a
live host measures it now, a recording recalls what it kept (it cannot be sampled again).
"""
from __future__ import annotations

from typing import Iterator, Protocol, runtime_checkable

from llmdoctor.model import Record, record

DEFAULT_TIMEOUT = 10.0
DEFAULT_READ_LIMIT = 4 * 1024 * 1024


class HostError(Exception):
    """Base for every failure a host reports; str() is a one-line reason."""


class CommandNotFound(HostError):
    pass


class CommandTimeout(HostError):
    pass


class HostUnreachable(HostError):
    pass


class Unanswerable(HostError):
    """This host cannot answer this kind of question (not an error of the host)."""


class NotInEvidence(Unanswerable):
    """An evidence directory does not hold the answer to this question."""


@record
class CommandResult(Record):
    """A command's exit status and output (or the recorded file that stands for it). (A plain
    class, never replace()d: a frozen dataclass costs ~1 ms of every run's start to define;
    == and repr are a dataclass's.)"""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str = ""
    source: str = ""  # where the output came from, for evidence lines ("nvidia-smi", "nvidia_smi.txt")

    @property
    def origin(self) -> str:
        return self.source or " ".join(self.argv[:3])

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class HttpResponse(Record):
    """An HTTP answer (or the recorded file that stands for it). (Plain, never replace()d: a
    frozen dataclass costs ~1 ms of every run's start to define; == and repr are a dataclass's.)"""

    __slots__ = ("status", "body", "headers", "source")

    def __init__(self, status: int, body: bytes, headers: dict[str, str] | None = None, source: str = "") -> None:
        self.status = status
        self.body = body
        self.headers = {} if headers is None else headers
        self.source = source  # where the body came from ("GET :11434/api/ps", "api_ps.json")

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self):
        import json

        return json.loads(self.body)


@runtime_checkable
class Host(Protocol):
    name: str
    kind: str  # "local" | "ssh" | "evidence" | "docker" | "podman" | "k8s": for display; collectors never branch on it
    recorded: bool  # read in hosts/ only: collectors ask partial, kept() and observe()
    partial: bool
    complete_listings: bool
    meta: dict
    problems: list[str]  # what the host could not read of itself, for the report (a recording's unreadable files)

    def run(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        """Run argv (never a shell string). Raises CommandNotFound, CommandTimeout."""

    def read(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        """Read at most `limit` bytes. Raises FileNotFoundError, PermissionError."""

    def listdir(self, path: str) -> list[str]:
        """Names in a directory. Raises FileNotFoundError, PermissionError."""

    def exists(self, path: str) -> bool:
        """Whether the file or directory is there (False where it cannot be known)."""

    def where(self, path: str) -> str:
        """What a read of `path` is answered from, for evidence lines (the path itself on a
        live host, the recorded file in a recording; "" when nothing answers it)."""

    def stream(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> Iterator[str]:
        """A command's stdout line by line as it arrives (bounded memory, for big outputs such
        as `journalctl -o json`); raises Unanswerable where only run() is possible."""

    def journal(self, unit: str, engine: str | None, since_seconds: float | None, state=None,
                directory: str | None = None):
        """The journal of a systemd unit as a log source (llmdoctor.hosts.logs), read the best way
        this host allows; Unanswerable where there is no journal to ask."""

    def log_file(self, path: str, engine: str | None, since_seconds: float | None, state=None):
        """A log file on this host as a log source (llmdoctor.hosts.logs)."""

    def recorded_logs(self) -> list[str]:
        """Names of the logs this host holds as recorded files (an evidence directory's)."""

    def files(self) -> list[str]:
        """Every file this host holds as recorded evidence, by its name there ([] when live)."""

    def kept(self, what: str) -> tuple[str, ...]:
        """Names of the files a recording holds for `what` (hosts.evidence.KEPT: "cpu", "probe",
        "settings", "compose", ...), in the order to read them with read(); () on a live host."""

    def as_written(self, name: str, limit: int = DEFAULT_READ_LIMIT) -> str:
        """A recorded file's text as someone wrote it (no paste repair); Unanswerable when live."""

    def observe(self, live, recall):
        """How a question about the running system is answered here: a live host calls `live()`
        (measure it now), a recording `recall()` (read what it kept: it cannot be sampled again)."""

    def reader(self):
        """Who will paste the fixes here (knowledge.reader.Reader): this machine's user, the SSH login;
        None where the host does not know (a container, a pod). A recording answers from whoami.txt."""

    def container_inspect(self) -> CommandResult:
        """`docker inspect`/`podman inspect` of the container the engine runs in (stdout: its JSON);
        Unanswerable where the engine runs in no container this host knows of."""

    def pod_describe(self) -> CommandResult:
        """`kubectl describe pod` of the engine's pod (stdout); Unanswerable where it runs in no pod."""

    def container_log(self, engine: str | None, since_seconds: float | None, state=None):
        """The container's own log (`docker logs`) as a log source; Unanswerable where there is none."""

    def pod_events(self) -> CommandResult:
        """`kubectl get events` JSON of the engine's pod (stdout); Unanswerable where it runs in no pod."""

    def nvml(self):
        """GPUs and their processes through NVML (llmdoctor.knowledge.nvidia.GpuFact); Unanswerable
        where the library cannot be reached (any host but this machine)."""

    def http(
        self,
        method: str,
        port: int,
        path: str,
        body: bytes | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        headers: dict[str, str] | None = None,
    ) -> HttpResponse:
        """HTTP request to 127.0.0.1:port on that host. Raises HostError on failure."""

    def base_url(self, port: int) -> str:
        """A URL reachable from here that leads to 127.0.0.1:port on that host
        (a tunnel for SSH); used by the streaming probe."""

    def close(self) -> None:
        ...


def iter_lines(data: bytes) -> Iterator[str]:
    for line in data.decode("utf-8", "replace").splitlines():
        yield line
