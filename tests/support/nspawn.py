"""A real, booted systemd (PID 1) for tests: systemd-nspawn over an overlay of /.

The container is a copy-on-write copy of this machine (Python and the venv
included): a tmpfs holds the overlay's upper and work dirs, so nothing the
container writes reaches the host. Every enabled unit of the host is masked
except targets and what the test asks to keep, so it boots to "running" in a
few seconds. The host can write into `container.root` directly (that is the
container's `/`), and `container.run(argv)` runs a command inside through
`nsenter -t LEADER -a`.

    reason = skip_reason()
    if reason: pytest.skip(reason)
    with booted_container("cfg", {"etc/systemd/system/x.service": UNIT}) as c:
        c.run(["systemctl", "start", "x"])

Teardown always runs (also when the test fails or is interrupted): SIGTERM to
nspawn (clean poweroff), SIGKILL to its process group if that takes too long,
then the container's cgroups, nspawn's propagate dir, the overlay and the tmpfs
are removed. Each container lives in a cgroup of its own, so containers of
concurrent test runs do not share nspawn's `payload/` and `supervisor/` cgroups.

See TESTBED.md ("A real systemd (PID 1) ...") for the recipe this follows.
"""
from __future__ import annotations

from llmdoctor.hosts.live import BaseHost
import contextlib
import itertools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from tests.support.process import stop_process

__all__ = ["Container", "ContainerError", "ContainerHost", "booted_container", "checkout_binds",
           "hidden_from_services", "is_under", "skip_reason"]

BOOT_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
_CGROUP_ROOTS = ("/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified")
_CGROUP_V2_ONLY = "/sys/fs/cgroup"
_WORK_PREFIX = "llmdoctor-nspawn-"
_counter = itertools.count(1)
# Units that are wanted statically but only slow the boot down or wait for a console.
_ALWAYS_MASK = ("console-getty.service", "getty@.service", "systemd-networkd-wait-online.service")


class ContainerError(RuntimeError):
    """The container could not be booted; str() says why and shows nspawn's output."""


def skip_reason() -> str | None:
    """Why a booted container cannot run here, or None when it can."""
    if os.geteuid() != 0:
        return "needs root (systemd-nspawn, overlay and tmpfs mounts)"
    for tool in ("systemd-nspawn", "nsenter", "mount", "umount", "setsid"):
        if shutil.which(tool) is None:
            return f"{tool} not installed (Debian package systemd-container / util-linux)"
    if not Path("/lib/systemd/systemd").exists() and not Path("/usr/lib/systemd/systemd").exists():
        return "no systemd binary to boot (/lib/systemd/systemd)"
    if not any(Path(p, "cgroup.procs").exists() for p in _CGROUP_ROOTS + (_CGROUP_V2_ONLY,)):
        return "no cgroup file system mounted under /sys/fs/cgroup"
    try:
        with open("/proc/filesystems") as f:
            if "overlay" not in f.read():
                subprocess.run(["modprobe", "overlay"], capture_output=True, timeout=10)
                with open("/proc/filesystems") as g:
                    if "overlay" not in g.read():
                        return "kernel has no overlay file system"
    except OSError as e:
        return f"cannot read /proc/filesystems: {e}"
    return None


@dataclass
class Container:
    """A booted container. `root` is its `/` as a host path (writable)."""

    name: str
    root: Path
    nspawn_pid: int
    leader: int
    workdir: Path
    log_path: Path
    cgroup: str
    boot_seconds: float = 0.0
    _cleanup_done: bool = field(default=False, repr=False)

    def run(self, argv: Sequence[str], timeout: float = 30.0, check: bool = False,
            input: str | None = None) -> subprocess.CompletedProcess:
        """Run argv inside the container (all of its namespaces); text output."""
        env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LC_ALL": "C",
            "SYSTEMD_PAGER": "",
            "SYSTEMD_COLORS": "0",
            "PAGER": "cat",
        }
        return subprocess.run(
            ["nsenter", "-t", str(self.leader), "-a", *argv],
            capture_output=True, text=True, timeout=timeout, check=check, env=env,
            input=input, stdin=None if input is not None else subprocess.DEVNULL,
        )

    def path(self, inside: str) -> Path:
        """Host path of a path inside the running container (its own /run and /tmp included).

        `root` is the overlay as nspawn got it; the container mounts tmpfs on /run and
        /tmp on top, so live paths go through its PID 1's root instead.
        """
        if self.leader and os.path.isdir(f"/proc/{self.leader}/root/"):
            return Path(f"/proc/{self.leader}/root") / inside.lstrip("/")
        return self.root / inside.lstrip("/")

    def write(self, inside: str, content: str | bytes, mode: int | None = None) -> Path:
        """Write a file inside the container (parents created) from the host."""
        p = self.path(inside)
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode()
        p.write_bytes(content)
        if mode is not None:
            p.chmod(mode)
        return p

    def systemctl(self, *args: str, timeout: float = 30.0) -> subprocess.CompletedProcess:
        return self.run(["systemctl", *args], timeout=timeout)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


# -- what the container must see of this test run --------------------------------------

# Paths the container's / (an overlay of the host's) shows as they are; anything else
# may be hidden: nspawn mounts a fresh /tmp (and /run), so a checkout there is missing.
_SYSTEM_TOPS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/var/lib", "/opt")
# Where a hardened unit (ProtectHome=, PrivateTmp=) cannot see a path.
_SERVICE_HIDDEN_TOPS = ("/root", "/home", "/run/user", "/tmp", "/var/tmp")


def is_under(path: str, tops: Sequence[str]) -> bool:
    return any(path == t or path.startswith(t.rstrip("/") + "/") for t in tops)


def checkout_binds(*paths: str | os.PathLike, python: str | None = None) -> list[str]:
    """Host paths to bind into a container so it runs this checkout with this interpreter.

    Always the given paths (the checkout) and the interpreter's prefixes (a venv, a
    pyenv build), whatever device they are on: a checkout under /tmp is otherwise hidden
    by the container's fresh /tmp. System directories are left to the overlay; a path
    inside another one on the list is dropped (the outer bind carries it).
    """
    import sys

    wanted = [os.path.realpath(p) for p in paths]
    prefixes = [sys.prefix, sys.base_prefix]
    for exe in {sys.executable, python or sys.executable}:
        prefixes += [str(Path(exe).parent.parent), str(Path(os.path.realpath(exe)).parent.parent)]
    for p in prefixes:
        real = os.path.realpath(p)
        if not is_under(real, _SYSTEM_TOPS) and real != "/":
            wanted.append(real)
    kept: list[str] = []
    for p in sorted(set(wanted), key=len):
        if os.path.isdir(p) and not is_under(p, kept):
            kept.append(p)
    return kept


def hidden_from_services(paths: Sequence[str]) -> list[str]:
    """Those of `paths` that ProtectHome=/PrivateTmp= hide from a hardened unit."""
    return [p for p in paths if is_under(p, _SERVICE_HIDDEN_TOPS)]


# -- set-up ------------------------------------------------------------------------

def _enabled_units(host_root: Path = Path("/")) -> set[str]:
    """Units the host enables (symlinks in /etc/systemd/system/*.wants|*.requires)."""
    found: set[str] = set()
    base = host_root / "etc/systemd/system"
    try:
        entries = list(base.iterdir())
    except OSError:
        return found
    for d in entries:
        if d.is_dir() and (d.name.endswith(".wants") or d.name.endswith(".requires")):
            try:
                found.update(p.name for p in d.iterdir())
            except OSError:
                pass
        elif d.is_symlink() and not os.readlink(d).startswith("/dev/null"):
            # aliases such as sshd.service -> ssh.service
            found.add(Path(os.readlink(d)).name)
    return found


def _prepare_root(root: Path, files: Mapping[str, str | bytes], keep_units: Sequence[str],
                  enable: Sequence[str]) -> None:
    etc = root / "etc/systemd/system"
    etc.mkdir(parents=True, exist_ok=True)
    keep = set(keep_units)
    to_mask = {u for u in _enabled_units() if not u.endswith(".target")} | set(_ALWAYS_MASK)
    for unit in sorted(to_mask - keep):
        link = etc / unit
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to("/dev/null")
    default = etc / "default.target"
    if default.is_symlink() or default.exists():
        default.unlink()
    default.symlink_to("/lib/systemd/system/multi-user.target")
    for rel, content in files.items():
        p = root / rel.lstrip("/")
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.is_symlink():
            p.unlink()
        p.write_bytes(content.encode() if isinstance(content, str) else content)
    for unit in enable:
        wants = etc / "multi-user.target.wants"
        wants.mkdir(exist_ok=True)
        link = wants / unit
        if not link.is_symlink():
            link.symlink_to(f"/etc/systemd/system/{unit}")
    # A clean slate for the container's journal and machine state.
    for stale in ("run/systemd/nspawn",):
        shutil.rmtree(root / stale, ignore_errors=True)


def _cgroup_roots() -> list[str]:
    roots = [r for r in _CGROUP_ROOTS if Path(r, "cgroup.procs").exists()]
    if not roots and Path(_CGROUP_V2_ONLY, "cgroup.procs").exists():
        roots = [_CGROUP_V2_ONLY]
    return roots


def _make_cgroup(name: str) -> str:
    for r in _cgroup_roots():
        Path(r, name).mkdir(exist_ok=True)
    return name


def _prepare_child(cgroup: str) -> None:
    """preexec_fn: own cgroup, and SIGTERM (clean poweroff) if the test process dies."""
    _join_cgroup(cgroup)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _join_cgroup(name: str) -> None:
    """Move the calling (about-to-exec) process into the container's own cgroup."""
    for r in _cgroup_roots():
        try:
            with open(os.path.join(r, name, "cgroup.procs"), "w") as f:
                f.write("0")
        except OSError:
            pass


def _remove_cgroup_tree(path: Path) -> None:
    if not path.is_dir():
        return
    for sub in sorted((p for p in path.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            sub.rmdir()
    with contextlib.suppress(OSError):
        path.rmdir()


def _leader_of(nspawn_pid: int) -> int | None:
    """The container's PID 1 seen from the host: the child of the nspawn process."""
    try:
        for task in os.listdir(f"/proc/{nspawn_pid}/task"):
            with open(f"/proc/{nspawn_pid}/task/{task}/children") as f:
                kids = f.read().split()
            if kids:
                return int(kids[0])
    except OSError:
        return None
    return None


def _machine_name(name: str) -> str:
    base = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or "ct"
    return f"{base[:40]}-{os.getpid()}-{next(_counter)}"


def _is_mounted(path: Path) -> bool:
    target = str(path)
    try:
        with open("/proc/self/mountinfo") as f:
            return any(line.split()[4] == target for line in f)
    except OSError:
        return False


def _umount(path: Path) -> None:
    for _ in range(3):
        if not _is_mounted(path):
            return
        r = subprocess.run(["umount", str(path)], capture_output=True, timeout=30)
        if r.returncode == 0:
            continue
        time.sleep(0.2)
    if _is_mounted(path):
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def _cleanup_stale(tmp: Path) -> None:
    """Remove what a killed test run left behind (its owner and its nspawn are gone)."""
    for d in tmp.glob(f"{_WORK_PREFIX}*"):
        m = re.search(r"-(\d+)-(\d+)-", d.name)
        if not m or _pid_alive(int(m.group(1))):
            continue
        machine = d.name.split("+", 1)[-1] if "+" in d.name else None
        pidfile = d / "nspawn.pid"
        try:
            pid = int(pidfile.read_text()) if pidfile.exists() else 0
        except ValueError:
            pid = 0
        if pid and machine and _pid_alive(pid):
            # our own container, orphaned by a killed test run: verify it is, then power it off
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                cmdline = b""
            if b"systemd-nspawn" not in cmdline or f"--machine={machine}".encode() not in cmdline:
                continue
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + STOP_TIMEOUT
            while _pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if _pid_alive(pid):
                continue
        _teardown_paths(d, machine)


def _teardown_paths(workdir: Path, machine: str | None) -> None:
    root, tmpfs = workdir / "root", workdir / "tmpfs"
    _umount(root)
    _umount(tmpfs)
    if machine:
        shutil.rmtree(f"/run/systemd/nspawn/propagate/{machine}", ignore_errors=True)
        for r in _cgroup_roots():
            _remove_cgroup_tree(Path(r, f"llmdoctor-{machine}"))
    if not _is_mounted(root) and not _is_mounted(tmpfs):
        shutil.rmtree(workdir, ignore_errors=True)


@contextlib.contextmanager
def booted_container(
    name: str,
    files: Mapping[str, str | bytes] | None = None,
    network_namespace: str | None = None,
    binds: Sequence[str] = (),
    keep_units: Sequence[str] = (),
    enable: Sequence[str] = (),
    boot_timeout: float = BOOT_TIMEOUT,
) -> Iterator[Container]:
    """Boot a container and yield it; tear everything down on exit.

    files: container path (relative or absolute) -> content, written before boot (not under
        /run or /tmp: the container mounts fresh ones; write those with `Container.write` after boot).
    network_namespace: a name under /run/netns (or a path) for --network-namespace-path.
    binds: host paths (or "SRC:DST") bind-mounted into the container.
    keep_units: host-enabled units not to mask (e.g. "ssh.service").
    enable: units (already among `files` or the host) to start at boot via multi-user.target.
    """
    reason = skip_reason()
    if reason:
        raise ContainerError(reason)
    machine = _machine_name(name)
    tmp = Path(tempfile.gettempdir())
    _cleanup_stale(tmp)
    workdir = tmp / f"{_WORK_PREFIX}{os.getpid()}-{int(time.time())}-+{machine}"
    workdir.mkdir(mode=0o700)
    tmpfs, root = workdir / "tmpfs", workdir / "root"
    tmpfs.mkdir()
    root.mkdir()
    log_path = workdir / "nspawn.log"
    cgroup = f"llmdoctor-{machine}"
    proc: subprocess.Popen | None = None
    container: Container | None = None
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755,size=2g", "tmpfs", str(tmpfs)],
                       check=True, capture_output=True, timeout=30)
        (tmpfs / "upper").mkdir()
        (tmpfs / "work").mkdir()
        subprocess.run(
            ["mount", "-t", "overlay", "overlay", "-o",
             f"lowerdir=/,upperdir={tmpfs / 'upper'},workdir={tmpfs / 'work'}", str(root)],
            check=True, capture_output=True, timeout=30,
        )
        _prepare_root(root, files or {}, keep_units, enable)
        argv = ["systemd-nspawn", "-D", str(root), "--boot", f"--machine={machine}",
                "--register=no", "--keep-unit", "--console=passive", "--quiet"]
        for b in binds:
            argv.append(f"--bind={b}")
        if network_namespace:
            ns = network_namespace if "/" in network_namespace else f"/run/netns/{network_namespace}"
            argv.append(f"--network-namespace-path={ns}")
        _make_cgroup(cgroup)
        started = time.monotonic()
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=lambda: _prepare_child(cgroup),
            )
        (workdir / "nspawn.pid").write_text(str(proc.pid))
        leader = _wait_for_leader(proc, started + boot_timeout, log_path)
        container = Container(machine, root, proc.pid, leader, workdir, log_path, cgroup)
        _wait_until_running(container, proc, started + boot_timeout)
        container.boot_seconds = time.monotonic() - started
        yield container
    finally:
        # Clean poweroff via SIGTERM to nspawn; SIGKILL its process group when it hangs.
        with contextlib.suppress(subprocess.TimeoutExpired):
            stop_process(proc, STOP_TIMEOUT, group=True, kill_wait=10)
        _teardown_paths(workdir, machine)
        if container is not None:
            container._cleanup_done = True


def _wait_for_leader(proc: subprocess.Popen, deadline: float, log_path: Path) -> int:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ContainerError(f"systemd-nspawn exited with {proc.returncode}: {_tail(log_path)}")
        leader = _leader_of(proc.pid)
        if leader and os.path.exists(f"/proc/{leader}/root/run/systemd/private"):
            return leader
        time.sleep(0.05)
    raise ContainerError(f"container did not start systemd within the boot timeout: {_tail(log_path)}")


def _wait_until_running(c: Container, proc: subprocess.Popen, deadline: float) -> None:
    remaining = max(1.0, deadline - time.monotonic())
    try:
        r = c.run(["systemctl", "is-system-running", "--wait"], timeout=remaining)
    except subprocess.TimeoutExpired as e:
        raise ContainerError(f"systemd in the container did not finish booting: {_tail(c.log_path)}") from e
    state = r.stdout.strip()
    if state not in ("running", "degraded"):
        raise ContainerError(f"container systemd is {state!r} ({r.stderr.strip()}): {_tail(c.log_path)}")


def _tail(path: Path, n: int = 15) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no nspawn output)"
    return " | ".join(lines[-n:]) or "(no nspawn output)"


# -- a Host for collectors ------------------------------------------------------------

class ContainerHost(BaseHost):
    """llmdoctor's Host protocol for a booted container: commands through nsenter,
    files read under the container's root (so /proc/PID/environ is the container's)."""

    kind = "local"

    def __init__(self, container: Container) -> None:
        self.container = container
        self.name = container.name

    def _host_path(self, path: str) -> str:
        # The container's own view (its /proc too), through its PID 1's root.
        return f"/proc/{self.container.leader}/root/{path.lstrip('/')}"

    def run(self, argv, timeout=10.0):
        from llmdoctor.hosts.base import CommandNotFound, CommandResult, CommandTimeout

        try:
            p = self.container.run(list(argv), timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise CommandTimeout(f"{' '.join(argv)}: no answer within {timeout:g} s") from e
        if p.returncode == 127 and "No such file" in p.stderr:
            raise CommandNotFound(f"{argv[0]}: command not found")
        return CommandResult(tuple(argv), p.returncode, p.stdout, p.stderr)

    def read(self, path, limit=4 * 1024 * 1024):
        with open(self._host_path(path), "rb") as f:
            return f.read(limit)

    def listdir(self, path):
        return sorted(os.listdir(self._host_path(path)))

    def http(self, method, port, path, body=None, timeout=10.0, headers=None):
        from llmdoctor.hosts.base import HostError

        raise HostError("ContainerHost does not forward HTTP; use the container's network namespace")

    def base_url(self, port):
        from llmdoctor.hosts.base import HostError

        raise HostError("ContainerHost does not forward HTTP")

    def close(self):
        pass
