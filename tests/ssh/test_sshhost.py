"""SSHHost against a real loopback sshd: commands, files, HTTP through the tunnel, one connection."""
from __future__ import annotations

import os
import time

import pytest

from llmdoctor.hosts.base import CommandNotFound, CommandTimeout, Host, HostUnreachable
from llmdoctor.hosts.ssh import SSHHost

pytestmark = [pytest.mark.real, pytest.mark.root]


def test_is_a_host(host):
    assert isinstance(host, Host)
    assert host.kind == "ssh" and host.name == "testhost"


def test_run_quotes_every_argument(host):
    args = ["a b", "$(id)", "'q'", ";ls", "`x`", "*", "\\", "", "--x"]
    r = host.run(["printf", "%s\\n", *args])
    assert r.ok
    assert r.stdout.split("\n")[:-1] == args
    assert r.argv[0] == "printf"


def test_runs_as_the_remote_user_with_c_locale(host):
    assert host.run(["id", "-un"]).stdout.strip() == "llmdtest"
    assert host.run(["sh", "-c", "echo $LC_ALL"]).stdout.strip() == "C"


def test_remote_status_and_255_are_the_commands_own(host):
    r = host.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (r.returncode, r.stdout, r.stderr) == (3, "out\n", "err\n")
    r = host.run(["sh", "-c", "exit 255"])
    assert r.returncode == 255  # the remote command's status, not a connection failure


def test_command_not_found(host):
    with pytest.raises(CommandNotFound, match="no-such-command-xyz"):
        host.run(["no-such-command-xyz", "--version"])


def test_timeout_kills_the_client_and_the_host_stays_usable(host):
    t0 = time.monotonic()
    with pytest.raises(CommandTimeout):
        host.run(["sleep", "10"], timeout=0.5)
    assert time.monotonic() - t0 < 3
    assert host.run(["echo", "still here"]).stdout == "still here\n"


def test_read_and_limit(host, sshd):
    path = sshd.dir / "data.bin"
    path.write_bytes(bytes(range(256)) * 10)
    path.chmod(0o644)
    assert host.read(str(path)) == path.read_bytes()
    assert host.read(str(path), limit=5) == bytes(range(5))
    assert host.read("/proc/self/status", limit=4096).startswith(b"Name:")


def test_read_errors_are_os_errors(host, sshd):
    with pytest.raises(FileNotFoundError):
        host.read("/no/such/file")
    secret = sshd.dir / "secret"
    secret.write_text("x")
    secret.chmod(0o600)
    with pytest.raises(PermissionError):
        host.read(str(secret))
    with pytest.raises(IsADirectoryError):
        host.read(str(sshd.dir))


def test_listdir(host, sshd):
    d = sshd.dir / "listing"
    d.mkdir(exist_ok=True)
    d.chmod(0o755)
    for name in ("b.conf", ".hidden", "a b"):
        (d / name).write_text("")
    assert host.listdir(str(d)) == sorted(["b.conf", ".hidden", "a b"])
    with pytest.raises(FileNotFoundError):
        host.listdir("/no/such/dir")
    with pytest.raises(NotADirectoryError):
        host.listdir(str(d / "b.conf"))


def test_http_through_the_tunnel(host, http_port):
    r = host.http("GET", http_port, "/api/ps")
    assert r.status == 200 and r.json() == {"models": []}
    r = host.http("POST", http_port, "/echo", body=b'{"a": 1}')
    assert r.status == 201 and r.body == b'{"a": 1}'
    url = host.base_url(http_port)
    assert url.startswith("http://127.0.0.1:") and not url.endswith(f":{http_port}")
    assert host.base_url(http_port) == url  # one forward per port, reused

    import urllib.request

    with urllib.request.urlopen(url + "/probe", timeout=5) as resp:  # what the live probe does
        assert resp.read() == b"hello /probe"


def test_http_to_a_closed_remote_port_is_unreachable(host):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    with pytest.raises(HostUnreachable, match="nothing answers"):
        host.http("GET", closed, "/", timeout=3)


def _masters(control_dir: str) -> int:
    """ssh ControlMaster processes serving sockets in control_dir (their title names the socket)."""
    count = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cmd.startswith("ssh: ") and control_dir in cmd and "[mux]" in cmd:
            count += 1
    return count


def test_one_connection_per_host_and_close_ends_it(ssh_config, sshd, http_port):
    before = sshd.accepted_connections()
    h = SSHHost("testhost", ssh_config=ssh_config)
    h.connect()
    for _ in range(5):
        h.run(["true"])
    h.read("/etc/hostname")
    h.listdir("/")
    h.http("GET", http_port, "/")
    assert sshd.accepted_connections() - before == 1
    assert h.connections == 1 and h.commands == 8
    control_dir = h._control_dir
    assert (os.stat(control_dir).st_mode & 0o777) == 0o700
    assert _masters(control_dir) == 1
    h.close()
    deadline = time.monotonic() + 3
    while _masters(control_dir) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _masters(control_dir) == 0
    assert not os.path.exists(control_dir)


def test_threads_sharing_one_host_still_make_one_connection(ssh_config, sshd):
    from concurrent.futures import ThreadPoolExecutor

    before = sshd.accepted_connections()
    with SSHHost("testhost", ssh_config=ssh_config) as h:
        with ThreadPoolExecutor(6) as pool:
            outs = list(pool.map(lambda i: h.run(["echo", str(i)]).stdout, range(12)))
    assert outs == [f"{i}\n" for i in range(12)]
    assert sshd.accepted_connections() - before == 1


def test_sudo_never_prompts(ssh_config):
    from llmdoctor.hosts.base import HostError

    with SSHHost("testhost", ssh_config=ssh_config, sudo=True) as h:
        t0 = time.monotonic()
        with pytest.raises(HostError, match="sudo"):  # no sudo here, or no rights: either way no prompt
            h.run(["id"], timeout=5)
        assert time.monotonic() - t0 < 5


def test_stream_big_output_line_by_line(host):
    n = 0
    with host.stream(["seq", "1", "200000"], timeout=20) as s:
        for line in s:
            n += 1
            assert line == str(n)
    assert n == 200000 and s.returncode == 0


def test_stream_abandoned_early_kills_the_command(host):
    t0 = time.monotonic()
    with host.stream(["sh", "-c", "seq 1 5; sleep 30"], timeout=20) as s:
        first = [line for _, line in zip(range(3), s)]
    assert first == ["1", "2", "3"]
    assert time.monotonic() - t0 < 5
    assert host.run(["true"]).ok


def test_stream_deadline_and_missing_command(host):
    s = host.stream(["sh", "-c", "echo a; sleep 30"], timeout=0.5)
    got = []
    with pytest.raises(CommandTimeout):
        for line in s:
            got.append(line)
    assert got == ["a"]
    with pytest.raises(CommandNotFound):
        list(host.stream(["no-such-command-xyz"]))
