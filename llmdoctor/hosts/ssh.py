"""A remote machine reached with the system OpenSSH client.

Why the system client: `~/.ssh/config`, agents, jump hosts and known hosts then work
exactly as the operator expects, and the remote side needs nothing but standard tools.

One multiplexed connection per host per run: `connect()` starts a ControlMaster in a
private 0700 directory, every later command, read and `-L` forward goes through it,
and `close()` ends it with `ssh -O exit`. Host-key checking is never turned off;
`accept_new_host_keys` only adds `StrictHostKeyChecking=accept-new`. Commands are
built from argv with `shlex.quote`; `sudo` uses `sudo -n`, which never prompts.

Thread safety: one SSHHost per thread is the intended pattern (the fleet runs each
target in its own worker); connect, forwards and close are locked anyway, so a
collector that uses the same host from two threads gets one master, not two.
"""
from __future__ import annotations

import atexit
import http.client
import os
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import weakref

from llmdoctor.knowledge.inventory import parse_target
from llmdoctor.hosts.base import (
    DEFAULT_READ_LIMIT,
    DEFAULT_TIMEOUT,
    CommandNotFound,
    CommandResult,
    CommandTimeout,
    HostError,
    HostUnreachable,
    HttpResponse,
    Unanswerable,
)
from llmdoctor.hosts.http import HttpTimeout, SilentPorts, http_request
from llmdoctor.hosts.terminate import on_terminate
from llmdoctor.hosts.live import BaseHost

SSH = "ssh"
CONTROL_PERSIST_S = 300
FORWARD_READY_S = 3.0
# Environment for remote commands: stable output, no pagers, no colours (like LocalHost).
REMOTE_ENV = ("LC_ALL=C", "SYSTEMD_PAGER=", "PAGER=cat", "SYSTEMD_COLORS=0")
# sun_path is 108 bytes on Linux, 104 on macOS; ssh adds ".XXXXXXXXXXXXXXXX" while binding.
MAX_CONTROL_PATH = 100 - 17

_live: "weakref.WeakSet[SSHHost]" = weakref.WeakSet()
_control_dirs: set[str] = set()  # every control directory this process created and still owns


def _close_all() -> None:
    for host in list(_live):
        host.close()


def _terminate_now() -> None:
    """SIGTERM: stop the masters and remove the control directories without taking a
    host's lock (a worker may hold it while it waits on ssh)."""
    for host in list(_live):
        if host._connected and host._control_dir:
            try:
                subprocess.run(host._base("-O", "exit", "--", host.target.host), capture_output=True,
                               timeout=2, stdin=subprocess.DEVNULL)
            except (OSError, subprocess.TimeoutExpired, HostError):
                pass
    for d in list(_control_dirs):
        shutil.rmtree(d, ignore_errors=True)
        _control_dirs.discard(d)


atexit.register(_close_all)
on_terminate(_terminate_now)


# -- what ssh's stderr means --------------------------------------------------------

_REASONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed"), "changed host key"),
    (re.compile(r"No \S+ host key is known for|Host key verification failed"), "unknown host key (not in known_hosts; --accept-new-host-keys trusts a new one)"),
    (re.compile(r"Permission denied \(|Too many authentication failures"), "refused authentication"),
    (re.compile(r"timed out|Connection timed out", re.I), "timeout"),
    (re.compile(r"Connection refused"), "unreachable: connection refused"),
    (re.compile(r"Could not resolve hostname|Name or service not known|nodename nor servname"),
     "unreachable: host name does not resolve"),
    (re.compile(r"No route to host|Network is unreachable|Host is down"), "unreachable: no route to host"),
    (re.compile(r"Connection closed by|Connection reset by|closed by remote host|kex_exchange_identification"),
     "unreachable: connection closed by the remote side"),
)

# stderr lines that come from the ssh client, not from the remote command
_SSH_ERROR = re.compile(
    r"^(ssh: |ssh_|kex_|mux_client|muxclient|Control socket|ControlSocket|Connection |Permission denied|"
    r"Host key verification failed|@@@|Bad configuration|Bad owner|command-line|[^\s:]+: Permission denied|"
    r"channel \d+:|Received disconnect|Disconnected from|Timeout, server)",
    re.M,
)


def classify(stderr: str) -> str:
    """The one-line reason for a connection-level failure, from ssh's stderr."""
    for pattern, reason in _REASONS:
        if pattern.search(stderr):
            return reason
    return "unreachable"


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("@@@")]
    return lines[-1] if lines else ""


def _quote_remote(argv: list[str] | tuple[str, ...], sudo: bool) -> str:
    words = (["sudo", "-n", "--"] if sudo else []) + ["env", *REMOTE_ENV, *argv]
    return " ".join(shlex.quote(w) for w in words)


def _file_error(stderr: str, path: str) -> OSError:
    if "No such file" in stderr:
        return FileNotFoundError(2, "No such file or directory", path)
    if "Permission denied" in stderr or "Operation not permitted" in stderr:
        return PermissionError(13, "Permission denied", path)
    if "Is a directory" in stderr:
        return IsADirectoryError(21, "Is a directory", path)
    if "Not a directory" in stderr:
        return NotADirectoryError(20, "Not a directory", path)
    return OSError(5, _last_line(stderr) or "read failed", path)


_SUDO_REFUSED = re.compile(r"^sudo: .*(password is required|terminal is required|not in the sudoers|not allowed)", re.M)


class SSHHost(BaseHost):
    kind = "ssh"

    def __init__(
        self,
        target: str,
        sudo: bool = False,
        accept_new_host_keys: bool = False,
        connect_timeout: float = 10,
        ssh_config: str | None = None,
        control_dir: str | None = None,
    ) -> None:
        self.target = parse_target(target)  # ValueError before anything runs
        self.name = target
        self.sudo = sudo
        self.accept_new_host_keys = accept_new_host_keys
        self.connect_timeout = max(1, int(round(connect_timeout)))
        self.ssh_config = ssh_config
        self._own_dir = control_dir is None
        self._control_dir = control_dir
        self._dir_checked = False
        self._lock = threading.RLock()
        self._connected = False
        self._closed = False
        self._failure: HostUnreachable | None = None
        self._forwards: dict[int, int] = {}
        self._silent = SilentPorts()
        # counters (the fan-out benchmark and tests read them)
        self.connections = 0
        self.commands = 0

    def reader(self):
        """The SSH login is who pastes the fixes there: root when the target says root; not root when it
        names another user or when --sudo was needed; unknown otherwise (the login ssh_config picks)."""
        from llmdoctor.knowledge.reader import Reader

        user = self.target.user or ""
        if user == "root":
            return Reader(user, True, True, "the SSH login")
        if user or self.sudo:
            return Reader(user, False, None, "the SSH login" + (" (--sudo)" if self.sudo else ""))
        return None

    # -- the ssh command line ---------------------------------------------------------
    def _control_path(self) -> str:
        if self._control_dir is None:
            base = tempfile.gettempdir()
            if len(base) + 12 + 41 > MAX_CONTROL_PATH:
                base = "/tmp"
            self._control_dir = tempfile.mkdtemp(prefix="lldssh-", dir=base)
            _control_dirs.add(self._control_dir)
            # removed on close(), on a failed connect, or when this object is collected
            self._dir_finalizer = weakref.finalize(self, shutil.rmtree, self._control_dir, True)
        elif not self._own_dir and not self._dir_checked:
            os.makedirs(self._control_dir, mode=0o700, exist_ok=True)
            os.chmod(self._control_dir, 0o700)  # sockets there give a shell on the host
            self._dir_checked = True
        path = os.path.join(self._control_dir, "%C")
        if len(self._control_dir) + 41 > MAX_CONTROL_PATH:
            raise HostError(f"{self.name}: control directory path {self._control_dir!r} is too long for a socket")
        return path

    def _base(self, *extra: str) -> list[str]:
        t = self.target
        argv = [SSH]
        if self.ssh_config:
            argv += ["-F", self.ssh_config]
        argv += [
            "-o", "BatchMode=yes",
            "-o", f"ConnectTimeout={self.connect_timeout}",
            "-o", "ControlMaster=auto",
            "-o", f"ControlPath={self._control_path()}",
            "-o", f"ControlPersist={CONTROL_PERSIST_S}",
            "-o", "ServerAliveInterval=10",
            "-o", "ServerAliveCountMax=3",
            "-o", "LogLevel=ERROR",
        ]
        if self.accept_new_host_keys:
            argv += ["-o", "StrictHostKeyChecking=accept-new"]
        if t.port is not None:
            argv += ["-p", str(t.port)]
        if t.user:
            argv += ["-l", t.user]
        return argv + list(extra)

    def _session_argv(self, remote: str | None) -> list[str]:
        # RemoteCommand/forwardings from the user's config would clash with ours (or fail to bind)
        argv = self._base("-T", "-o", "RemoteCommand=none", "-o", "ClearAllForwardings=yes", "--", self.target.host)
        return argv + ([remote] if remote is not None else [])

    def _ssh(self, remote: str | None, timeout: float) -> subprocess.CompletedProcess:
        argv = self._session_argv(remote)
        try:
            return subprocess.run(argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except FileNotFoundError as e:
            raise HostUnreachable(f"{self.name}: unreachable: the ssh client is not installed") from e

    def _unreachable(self, stderr: bytes) -> HostUnreachable:
        text = stderr.decode("utf-8", "replace")
        reason = classify(text)
        detail = _last_line(text)
        return HostUnreachable(f"{self.name}: {reason}" + (f" ({detail})" if detail else ""))

    # -- connection -------------------------------------------------------------------
    def connect(self) -> None:
        """Open the one master connection; raise HostUnreachable with a one-line reason."""
        with self._lock:
            if self._closed:
                raise HostError(f"{self.name}: host already closed")
            if self._connected:
                return
            if self._failure is not None:
                raise self._failure
            limit = self.connect_timeout * 2 + 5  # TCP + key exchange + authentication
            try:
                p = self._ssh("exit 0", limit)
            except subprocess.TimeoutExpired:
                self._failure = HostUnreachable(f"{self.name}: timeout (no SSH session within {limit} s)")
                self._remove_dir()
                raise self._failure from None
            self.connections += 1
            if p.returncode != 0:
                self._failure = self._unreachable(p.stderr)
                self._remove_dir()
                raise self._failure
            self._connected = True
            _live.add(self)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._connected and self._control_dir:
                try:
                    subprocess.run(
                        self._base("-O", "exit", "--", self.target.host),
                        capture_output=True, timeout=5, stdin=subprocess.DEVNULL,
                    )
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._connected = False
            self._remove_dir()
            _live.discard(self)

    def _remove_dir(self) -> None:
        if self._own_dir and self._control_dir:
            self._dir_finalizer()  # rmtree, once
            _control_dirs.discard(self._control_dir)
            self._control_dir = None

    def __enter__(self) -> "SSHHost":
        self.connect()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- commands ---------------------------------------------------------------------
    def _exec(self, argv: list[str] | tuple[str, ...], timeout: float) -> tuple[int, bytes, str]:
        """Run argv remotely; return (status, stdout bytes, stderr text) of the remote command."""
        if not argv:
            raise ValueError("empty argv")
        self.connect()
        with self._lock:
            self.commands += 1
        try:
            p = self._ssh(_quote_remote(argv, self.sudo), timeout)
        except subprocess.TimeoutExpired as e:
            raise CommandTimeout(f"{self.name}: {shlex.join(argv)}: no answer within {timeout:g} s") from e
        stderr = p.stderr.decode("utf-8", "replace")
        if p.returncode == 255 and _SSH_ERROR.search(stderr):
            self._connected = False  # the master is gone or refused us; reconnect next time
            raise self._unreachable(p.stderr)
        if self.sudo and p.returncode == 1 and _SUDO_REFUSED.search(stderr):
            raise HostError(f"{self.name}: sudo -n refused: {_last_line(stderr)}")
        if p.returncode == 127 and self.sudo and re.search(r"\bsudo: (command )?not found", stderr):
            raise CommandNotFound(f"sudo: command not found on {self.name} (needed for --sudo)")
        if p.returncode == 127 and ("No such file or directory" in stderr or "not found" in stderr):
            raise CommandNotFound(f"{argv[0]}: command not found on {self.name}")
        return p.returncode, p.stdout, stderr

    def run(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        rc, out, err = self._exec(argv, timeout)
        return CommandResult(tuple(argv), rc, out.decode("utf-8", "replace"), err)

    def read(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        if not path.startswith("/"):
            raise Unanswerable(f"{path}: a recorded evidence file, and this is a live host")
        rc, out, err = self._exec(["head", "-c", str(int(limit)), "--", path], DEFAULT_TIMEOUT)
        if rc != 0:
            raise _file_error(err, path)
        return out

    def listdir(self, path: str) -> list[str]:
        slash = path if path.endswith("/") else path + "/"
        rc, out, err = self._exec(["ls", "-1A", "--", slash], DEFAULT_TIMEOUT)
        if rc != 0:
            raise _file_error(err, path)
        return sorted(n for n in out.decode("utf-8", "surrogateescape").split("\n") if n)

    def stream(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> "RemoteStream":
        """A remote command's stdout line by line as it arrives (bounded memory), for big
        outputs such as `journalctl -o json`."""
        if not argv:
            raise ValueError("empty argv")
        self.connect()
        with self._lock:
            self.commands += 1
        return RemoteStream(self, list(argv), self._session_argv(_quote_remote(argv, self.sudo)), timeout)

    # -- HTTP through -L forwards -----------------------------------------------------
    def _forward(self, port: int) -> int:
        """Local port forwarded through the master to 127.0.0.1:port on the remote host."""
        with self._lock:
            if port in self._forwards:
                return self._forwards[port]
            self.connect()
            last = ""
            for _ in range(5):
                local = _free_port()
                try:
                    p = subprocess.run(
                        self._base("-O", "forward", "-L", f"127.0.0.1:{local}:127.0.0.1:{int(port)}",
                                   "--", self.target.host),
                        capture_output=True, timeout=10, stdin=subprocess.DEVNULL,
                    )
                except subprocess.TimeoutExpired:
                    raise HostError(f"{self.name}: could not forward a local port to {port}: "
                                    f"the SSH master did not answer within 10 s") from None
                if p.returncode == 0:
                    _wait_accepting(local, FORWARD_READY_S)
                    self._forwards[port] = local
                    return local
                err = p.stderr.decode("utf-8", "replace")
                last = _last_line(err)
                if "Port forwarding failed" not in err:  # anything but a lost race for the port
                    break
            raise HostError(f"{self.name}: could not forward a local port to {port}: {last or 'ssh -O forward failed'}")

    def base_url(self, port: int) -> str:
        return f"http://127.0.0.1:{self._forward(port)}"

    def http(self, method, port, path, body=None, timeout=DEFAULT_TIMEOUT, headers=None) -> HttpResponse:
        self._silent.check(port, f"{self.name}:{port}{path.split('?', 1)[0]}")
        local = self._forward(port)
        with self._lock:
            self.commands += 1
        try:
            r = http_request("127.0.0.1", local, method, path, body, timeout, headers)
            return HttpResponse(r.status, r.body, r.headers, f"{method.upper()} {self.name}:{port}{path.split('?', 1)[0]}")
        except HttpTimeout as e:
            self._silent.note(port)
            raise HttpTimeout(f"{self.name}: {e}") from e
        except HostError as e:
            cause = e.__cause__
            if isinstance(cause, (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
                                  ConnectionRefusedError)):
                raise HostUnreachable(
                    f"{self.name}: nothing answers on 127.0.0.1:{port} there (through the SSH tunnel)"
                ) from e
            raise HostError(f"{self.name}: {e}") from e


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_accepting(port: int, seconds: float) -> None:
    """Wait until the master listens on the local port (it usually does at once).

    Checked by trying to bind the port ourselves rather than connecting, so no
    empty connection reaches the remote service."""
    deadline = time.monotonic() + seconds
    while True:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                return  # taken: the master's listener is there
        if time.monotonic() >= deadline:
            return
        time.sleep(0.05)


class RemoteStream:
    """Iterate the lines (str, without newline) of a running remote command.

    The ssh client is killed when `timeout` passes, when the iteration is abandoned
    or on `close()`. After the iteration, `returncode` and `stderr` are set; a
    connection-level failure raises HostUnreachable, a missing command
    CommandNotFound, and the deadline CommandTimeout (after the lines that came).
    """

    def __init__(self, host: SSHHost, argv: list[str], ssh_argv: list[str], timeout: float) -> None:
        self.argv = argv
        self.returncode: int | None = None
        self.stderr = ""
        self._host = host
        self._timeout = timeout
        self._err = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(ssh_argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._err)
        self._timed_out = threading.Event()
        self._timer = threading.Timer(timeout, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self._timed_out.set()
        self._proc.kill()

    def __enter__(self) -> "RemoteStream":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __iter__(self):
        assert self._proc.stdout is not None
        try:
            for raw in self._proc.stdout:
                yield raw.decode("utf-8", "replace").rstrip("\n")
        finally:
            self.close()
        self._raise_for_failure()

    def close(self) -> None:
        self._timer.cancel()
        if self._proc.poll() is None:
            self._proc.kill()
        self.returncode = self._proc.wait()
        if self._proc.stdout:
            self._proc.stdout.close()
        if not self._err.closed:
            self._err.seek(0)
            self.stderr = self._err.read(64 * 1024).decode("utf-8", "replace")
            self._err.close()

    def _raise_for_failure(self) -> None:
        name = self._host.name
        if self._timed_out.is_set():
            raise CommandTimeout(f"{name}: {shlex.join(self.argv)}: stopped after {self._timeout:g} s")
        if self.returncode == 255 and _SSH_ERROR.search(self.stderr):
            raise self._host._unreachable(self.stderr.encode())
        if self.returncode == 127 and ("No such file or directory" in self.stderr or "not found" in self.stderr):
            raise CommandNotFound(f"{self.argv[0]}: command not found on {name}")
