"""A real OpenSSH server for tests: on loopback, or inside a network namespace.

`running_sshd()` starts `/usr/sbin/sshd -D` with its own config, host key and
authorized key for a test user whose shell is /bin/sh (root's shell init is slow
here, and a test should not log in as root), on a free port. It yields an
`SshServer` whose `client_config()` writes an ssh_config (BatchMode, IdentitiesOnly,
its own known_hosts, aliases) for `SSHHost(alias, ssh_config=...)`.

`network_namespace()` makes a second "host": a netns joined to this one by a veth
pair with a /30 from a private range chosen here; it is always removed.

Every helper skips (via `skip_reason()`) when not root or when sshd/ssh/ip are missing.
"""
from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from tests.support.process import stop_process

SSHD = "/usr/sbin/sshd"
TEST_USER = "llmdtest"


def skip_reason(netns: bool = False) -> str | None:
    """Why a real sshd cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (sshd, a test user, network namespaces)"
    if not os.access(SSHD, os.X_OK):
        return f"{SSHD} missing (apt-get install openssh-server)"
    for tool in ("ssh", "ssh-keygen", "useradd", "usermod") + (("ip",) if netns else ()):
        if shutil.which(tool) is None:
            return f"{tool} missing"
    if netns and subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        return "ip netns is not usable here"
    return None


def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET) as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def keygen(path: Path) -> str:
    """Write an ed25519 key pair; return the public key line."""
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "llmdoctor-test", "-f", str(path)],
                   check=True, timeout=30)
    return path.with_suffix(".pub").read_text().strip()


def ensure_test_user(name: str = TEST_USER) -> None:
    """A user with /bin/sh, usable with `UsePAM no` (password field '*', not locked '!')."""
    try:
        import pwd

        pwd.getpwnam(name)
    except KeyError:
        r = subprocess.run(["useradd", "-M", "-d", "/", "-s", "/bin/sh", name], capture_output=True, timeout=30)
        if r.returncode not in (0, 9):  # 9: exists (another test got there first)
            raise RuntimeError(f"useradd {name}: {r.stderr.decode().strip()}")
    subprocess.run(["usermod", "-p", "*", "-s", "/bin/sh", name], check=True, capture_output=True, timeout=30)


@dataclass
class SshServer:
    address: str
    port: int
    user: str
    dir: Path
    client_key: Path
    host_pub: str
    log: Path
    process: subprocess.Popen
    netns: str | None = None
    _configs: list[Path] = field(default_factory=list)

    @property
    def known_hosts_line(self) -> str:
        key = " ".join(self.host_pub.split()[:2])
        return f"[{self.address}]:{self.port} {key}"

    def write_known_hosts(self, path: Path | None = None, line: str | None = None) -> Path:
        path = path or self.dir / "known_hosts"
        path.write_text((line if line is not None else self.known_hosts_line) + "\n")
        return path

    def client_config(
        self,
        aliases: tuple[str, ...] = ("testhost",),
        known_hosts: Path | None = None,
        identity: Path | None = None,
        name: str = "ssh_config",
    ) -> str:
        """An ssh_config for the client side; `aliases` all lead to this server."""
        known_hosts = known_hosts or self.write_known_hosts()
        identity = identity or self.client_key
        cm = self.dir / "cm"
        cm.mkdir(mode=0o700, exist_ok=True)
        text = (
            f"Host {' '.join(aliases)}\n"
            f"  HostName {self.address}\n"
            f"  Port {self.port}\n"
            f"  User {self.user}\n"
            "Host *\n"
            "  BatchMode yes\n"
            "  IdentitiesOnly yes\n"
            f"  IdentityFile {identity}\n"
            f"  UserKnownHostsFile {known_hosts}\n"
            "  GlobalKnownHostsFile /dev/null\n"
            "  StrictHostKeyChecking yes\n"
            "  ControlMaster auto\n"
            f"  ControlPath {cm}/cm-%C\n"
            "  ControlPersist 60\n"
            "  ConnectTimeout 5\n"
        )
        path = self.dir / name
        path.write_text(text)
        self._configs.append(path)
        return str(path)

    def accepted_connections(self) -> int:
        """Authenticated connections so far (sshd logs one line each at LogLevel VERBOSE)."""
        try:
            return self.log.read_text(errors="replace").count("Accepted publickey for")
        except OSError:
            return 0

    def stop(self) -> None:
        stop_process(self.process, 5)

    def freeze(self) -> None:
        """SIGSTOP: TCP still connects (kernel backlog) but no SSH banner ever comes."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)


def _wait_listening(address: str, port: int, proc: subprocess.Popen, netns: str | None, log: Path) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"sshd exited with {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        if netns is None:
            try:
                with socket.create_connection((address, port), timeout=0.5):
                    return
            except OSError:
                pass
        else:
            r = subprocess.run(["ip", "netns", "exec", netns, "ss", "-Hltn", f"sport = :{port}"],
                               capture_output=True, text=True, timeout=5)
            if r.stdout.strip():
                return
        time.sleep(0.05)
    raise RuntimeError("sshd did not start listening within 10 s")


@contextlib.contextmanager
def running_sshd(address: str = "127.0.0.1", netns: str | None = None, port: int | None = None,
                 workdir: Path | None = None) -> Iterator[SshServer]:
    """Start a real sshd (own config, key, authorized key); stop it and remove its files after."""
    ensure_test_user()
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="lldsshd-", dir=workdir))
    # the test user must read authorized_keys (sshd reads it with the user's rights)
    tmp.chmod(0o755)
    proc = None
    try:
        host_pub = keygen(tmp / "host_ed25519")
        client_pub = keygen(tmp / "client_ed25519")
        auth = tmp / "authorized_keys"
        auth.write_text(client_pub + "\n")
        auth.chmod(0o644)
        port = port or (free_port(address) if netns is None else random.randint(20000, 40000))
        conf = tmp / "sshd_config"
        conf.write_text(
            f"ListenAddress {address}\n"
            f"Port {port}\n"
            f"HostKey {tmp / 'host_ed25519'}\n"
            f"PidFile {tmp / 'sshd.pid'}\n"
            f"AuthorizedKeysFile {auth}\n"
            "PubkeyAuthentication yes\n"
            "PasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\n"
            "UsePAM no\n"
            "StrictModes no\n"
            "AllowTcpForwarding yes\n"
            f"AllowUsers {TEST_USER}\n"
            "PermitRootLogin no\n"
            "MaxStartups 100\n"
            "MaxSessions 50\n"
            "LogLevel VERBOSE\n"
            "PrintMotd no\n"
        )
        check = subprocess.run([SSHD, "-t", "-f", str(conf)], capture_output=True, text=True, timeout=10)
        if check.returncode != 0:
            raise RuntimeError(f"sshd -t: {check.stderr.strip()}")
        log = tmp / "sshd.log"
        argv = [SSHD, "-D", "-f", str(conf), "-E", str(log)]
        if netns:
            argv = ["ip", "netns", "exec", netns] + argv
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        _wait_listening(address, port, proc, netns, log)
        server = SshServer(address, port, TEST_USER, tmp, tmp / "client_ed25519", host_pub, log, proc, netns)
        yield server
    finally:
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGCONT)
            stop_process(proc, 5)
        # sessions sshd forked for the test user end with their connections (their masters
        # are closed by the SSHHost under test); nothing else to kill here
        shutil.rmtree(tmp, ignore_errors=True)


def _used_ipv4_networks() -> list:
    import ipaddress

    out = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True, timeout=5).stdout
    nets = []
    for line in out.splitlines():
        parts = line.split()
        if "inet" in parts:
            nets.append(ipaddress.ip_interface(parts[parts.index("inet") + 1]).network)
    return nets


class NetnsUnavailable(RuntimeError):
    """`ip netns add` failed here (e.g. a container without CAP_SYS_ADMIN): tests skip."""


@dataclass(frozen=True)
class Namespace:
    name: str
    host_address: str  # this side of the veth
    ns_address: str  # inside the namespace

    def exec(self, argv: list[str], timeout: float = 10) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.name, *argv], capture_output=True, text=True,
                              timeout=timeout)


@contextlib.contextmanager
def network_namespace(prefix: str = "lldssh") -> Iterator[Namespace]:
    """A netns with lo up and a veth /30 (10.x.y.z, unused here) to this namespace; always removed."""
    import ipaddress

    used = _used_ipv4_networks()
    for _ in range(50):
        net = ipaddress.ip_network(f"10.{random.randint(64, 250)}.{random.randint(0, 255)}.{4 * random.randint(0, 63)}/30")
        if not any(net.overlaps(u) for u in used):
            break
    else:
        raise RuntimeError("no free private /30 found")
    a, b = (str(h) for h in net.hosts())
    tag = f"{os.getpid() % 100000}{random.randint(0, 99)}"
    name, veth_host, veth_ns = f"{prefix}{tag}", f"lh{tag}", f"ln{tag}"

    def ip(*args: str) -> None:
        subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)

    made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True, timeout=10)
    if made.returncode != 0:
        raise NetnsUnavailable(f"ip netns add: {made.stderr.strip() or made.returncode}")
    try:
        ip("link", "add", veth_host, "type", "veth", "peer", "name", veth_ns)
        ip("link", "set", veth_ns, "netns", name)
        ip("addr", "add", f"{a}/30", "dev", veth_host)
        ip("link", "set", veth_host, "up")
        ip("netns", "exec", name, "ip", "addr", "add", f"{b}/30", "dev", veth_ns)
        ip("netns", "exec", name, "ip", "link", "set", veth_ns, "up")
        ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
        yield Namespace(name, a, b)
    finally:
        subprocess.run(["ip", "link", "del", veth_host], capture_output=True, timeout=10)
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10)


@contextlib.contextmanager
def namespace_or_skip(prefix: str = "lldssh") -> Iterator[Namespace]:
    """network_namespace(), or pytest.skip with the reason when none can be made here."""
    import pytest

    ctx = network_namespace(prefix)
    try:
        ns = ctx.__enter__()
    except NetnsUnavailable as e:
        pytest.skip(str(e))
    try:
        yield ns
    finally:
        ctx.__exit__(None, None, None)
