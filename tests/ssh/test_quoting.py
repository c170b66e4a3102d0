"""Pure parts of SSHHost: the remote command line and what ssh's stderr means."""
from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmdoctor.hosts.ssh import _quote_remote, classify

# sshd runs the remote command with the user's login shell as `SHELL -c STRING`.
ARG = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=20)


@settings(max_examples=60, deadline=None)
@given(st.lists(ARG, min_size=1, max_size=5))
def test_every_argument_arrives_verbatim_through_a_shell(args):
    line = _quote_remote(["printf", "%s\\0", *args], sudo=False)
    out = subprocess.run(["/bin/sh", "-c", line], capture_output=True, timeout=10).stdout
    assert out.decode("utf-8", "surrogateescape").split("\0")[:-1] == args


def test_sudo_never_prompts_and_environment_is_fixed():
    line = _quote_remote(["journalctl", "-u", "ollama"], sudo=True)
    assert line.startswith("sudo -n -- env LC_ALL=C ")
    assert line.endswith("journalctl -u ollama")


# stderr of the real OpenSSH 9.2 client, as seen in these tests
@pytest.mark.parametrize(
    "stderr, reason",
    [
        ("llmdtest@127.0.0.1: Permission denied (publickey).\r\n", "refused authentication"),
        ("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\r\n"
         "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n"
         "Host key verification failed.\r\n", "changed host key"),
        ("No ED25519 host key is known for [127.0.0.1]:40023 and you have requested strict checking.\r\n"
         "Host key verification failed.\r\n", "unknown host key"),
        ("Connection timed out during banner exchange\r\n", "timeout"),
        ("ssh: connect to host 10.9.9.9 port 22: Connection timed out\r\n", "timeout"),
        ("ssh: connect to host 127.0.0.1 port 1: Connection refused\r\n", "unreachable: connection refused"),
        ("ssh: Could not resolve hostname nosuchhost.invalid: Name or service not known\r\n",
         "unreachable: host name does not resolve"),
        ("ssh: connect to host 10.1.1.1 port 22: No route to host\r\n", "unreachable: no route to host"),
        ("kex_exchange_identification: read: Connection reset by peer\r\n", "unreachable: connection closed"),
        ("something else entirely\n", "unreachable"),
    ],
)
def test_classify_ssh_errors(stderr, reason):
    assert classify(stderr).startswith(reason)
