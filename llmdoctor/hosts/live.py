"""What every live host (one that runs commands: this machine, an SSH target, a container)
answers the same way: the journal and log files read through its own commands, and no
answer to the questions only a recording or only this machine can answer."""
from __future__ import annotations

from llmdoctor.hosts.base import DEFAULT_TIMEOUT, HostError, Unanswerable


class BaseHost:
    """Defaults for a live host that runs commands: the recording-only and local-only
    questions are Unanswerable, the journal and log files are read through run()/stream()."""

    kind = "live"
    recorded = False
    partial = False
    complete_listings = True
    meta: dict = {}
    problems: list[str] = []  # (never appended to: a live host's failures are raised)

    def exists(self, path: str) -> bool:
        if not path.startswith("/"):
            return False  # a recorded file's name: only an evidence directory holds those
        try:
            return self.run(["test", "-e", path], timeout=DEFAULT_TIMEOUT).ok  # type: ignore[attr-defined]
        except HostError:
            return False

    def where(self, path: str) -> str:
        return path if path.startswith("/") else ""

    def stream(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT):
        raise Unanswerable(f"{getattr(self, 'name', 'host')}: no streaming of command output")

    def journal(self, unit, engine, since_seconds, state=None, directory=None):
        from llmdoctor.hosts.logs import JournalSource  # (start-up time: only when a journal is read)

        return JournalSource(self, unit, engine, since_seconds, state, directory, backend="host")

    def log_file(self, path, engine, since_seconds, state=None):
        from llmdoctor.hosts.logs import RemoteFileSource

        return RemoteFileSource(self, path, engine, since_seconds, state)

    def recorded_logs(self) -> list[str]:
        return []

    def files(self) -> list[str]:
        return []

    def kept(self, what: str) -> tuple[str, ...]:
        return ()

    def observe(self, live, recall):
        return live()

    def reader(self):
        """Who will run the fixes here, where the host knows it (None: a container or pod, n/a)."""
        return None

    def as_written(self, name: str, limit: int = 0) -> str:
        raise Unanswerable(f"{name}: a recorded evidence file, and this is a live host")

    def container_inspect(self):
        raise Unanswerable(f"{getattr(self, 'name', 'this host')} is not a container target")

    def container_log(self, engine, since_seconds, state=None):
        raise Unanswerable(f"{getattr(self, 'name', 'this host')} is not a container target")

    def pod_events(self):
        raise Unanswerable(f"{getattr(self, 'name', 'this host')} is not a Kubernetes pod")

    def pod_describe(self):
        raise Unanswerable(f"{getattr(self, 'name', 'this host')} is not a Kubernetes pod")

    def nvml(self):
        raise Unanswerable(f"NVML is read on the machine llmdoctor runs on, not on {getattr(self, 'name', 'this host')}")

    def base_url(self, port: int) -> str:
        raise Unanswerable(f"{getattr(self, 'name', 'this host')}: no way to reach port {port} from here")

    def close(self) -> None:
        pass
