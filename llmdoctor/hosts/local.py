"""The machine llmdoctor runs on."""
from __future__ import annotations

import os
import socket
import subprocess

from llmdoctor.hosts.base import (
    DEFAULT_READ_LIMIT,
    DEFAULT_TIMEOUT,
    CommandNotFound,
    CommandResult,
    CommandTimeout,
    HostError,
    HttpResponse,
    Unanswerable,
)
from llmdoctor.hosts.http import HttpTimeout, SilentPorts, http_request
from llmdoctor.hosts.live import BaseHost


class LocalHost(BaseHost):
    kind = "local"

    def __init__(self, name: str | None = None) -> None:
        self.name = name or socket.gethostname()
        self._silent = SilentPorts()

    def reader(self):
        """The user running llmdoctor here is the one who pastes its fixes: root by the effective UID,
        and whether its groups read the system journal (journalctl(1), "Access Control")."""
        import grp
        import pwd

        from llmdoctor.knowledge.reader import JOURNAL_GROUPS, Reader

        uid = os.geteuid()
        try:
            user = pwd.getpwuid(uid).pw_name
        except KeyError:
            user = str(uid)
        groups = set()
        for gid in os.getgroups():
            try:
                groups.add(grp.getgrgid(gid).gr_name)
            except KeyError:
                pass
        return Reader(user, uid == 0, uid == 0 or bool(groups & JOURNAL_GROUPS), "the user running llmdoctor")

    def run(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        env = dict(os.environ, LC_ALL="C", SYSTEMD_PAGER="", PAGER="cat", SYSTEMD_COLORS="0")
        try:
            p = subprocess.run(
                argv, capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL
            )
        except FileNotFoundError as e:
            raise CommandNotFound(f"{argv[0]}: command not found") from e
        except PermissionError as e:
            raise HostError(f"{argv[0]}: permission denied") from e
        except subprocess.TimeoutExpired as e:
            raise CommandTimeout(f"{' '.join(argv)}: no answer within {timeout:g} s") from e
        return CommandResult(
            tuple(argv), p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        )

    def read(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        if not path.startswith("/"):
            raise Unanswerable(f"{path}: a recorded evidence file, and this is a live host")
        with open(path, "rb") as f:
            return f.read(limit)

    def exists(self, path: str) -> bool:
        return path.startswith("/") and os.path.exists(path)

    def listdir(self, path: str) -> list[str]:
        return sorted(os.listdir(path))

    def http(self, method, port, path, body=None, timeout=DEFAULT_TIMEOUT, headers=None) -> HttpResponse:
        self._silent.check(port, f"http://127.0.0.1:{port}{path.split('?', 1)[0]}")
        try:
            r = http_request("127.0.0.1", port, method, path, body, timeout, headers)
        except HttpTimeout:
            self._silent.note(port)
            raise
        return HttpResponse(r.status, r.body, r.headers, f"{method.upper()} :{port}{path.split('?', 1)[0]}")

    def base_url(self, port: int) -> str:
        return f"http://127.0.0.1:{port}"

    def journal(self, unit, engine, since_seconds, state=None, directory=None):
        """python-systemd's Reader when installed, else `journalctl -o json` streamed."""
        from llmdoctor.hosts.logs import JournalSource, systemd_reader_available

        backend = "reader" if systemd_reader_available() else "journalctl"
        return JournalSource(self, unit, engine, since_seconds, state, directory, backend=backend)

    def log_file(self, path, engine, since_seconds, state=None):
        from llmdoctor.hosts.logs import FileSource

        if not os.access(path, os.R_OK):
            raise HostError("not readable" if os.path.exists(path) else "no such file")
        return FileSource(path, engine=engine, since_seconds=since_seconds, state=state,
                          state_key=f"{self.name}|file:{os.path.abspath(path)}")

    def nvml(self):
        from llmdoctor.hosts.nvml import read_nvml
        from llmdoctor.knowledge.nvidia import GpuUnavailable

        try:
            return read_nvml()
        except GpuUnavailable as e:
            raise HostError(str(e)) from None
