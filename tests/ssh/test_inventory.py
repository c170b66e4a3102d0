"""Target and inventory parsing: valid forms accepted, anything shell-like rejected."""
from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmdoctor.knowledge.inventory import Target, parse_inventory, parse_target


@pytest.mark.parametrize(
    "text, expected",
    [
        ("gpu1", Target(None, "gpu1", None)),
        ("ops@gpu1.example.com", Target("ops", "gpu1.example.com", None)),
        ("gpu1:2222", Target(None, "gpu1", 2222)),
        ("ops@10.0.0.7:2222", Target("ops", "10.0.0.7", 2222)),
        ("[::1]:22", Target(None, "::1", 22)),
        ("root@[fe80::1]", Target("root", "fe80::1", None)),
        ("::1", Target(None, "::1", None)),
        ("ssh://ops@gpu1:22", Target("ops", "gpu1", 22)),
        ("my_alias", Target(None, "my_alias", None)),
    ],
)
def test_valid_targets(text, expected):
    assert parse_target(text) == expected


def test_target_round_trips_through_str():
    for text in ("gpu1", "ops@gpu1:2222", "[::1]:22", "u@[fe80::1]:2"):
        assert parse_target(str(parse_target(text))) == parse_target(text)


@pytest.mark.parametrize(
    "text",
    [
        "host;rm -rf /", "-oProxyCommand=x", "a b", "", " ", "-h", "u@-h", "$(id)", "h`id`", "h|x", "h&x",
        "h>x", "h\nx", "h'x", 'h"x', "h:0", "h:65536", "h:", "h:x", "999.1.1.1", "[::1", "[nothex::g]:1",
        "@h", "u;x@h", "a..b", "h\\x", "h*", "h?", "h$",
    ],
)
def test_invalid_targets_raise_valueerror_with_reason(text):
    with pytest.raises(ValueError, match="invalid host"):
        parse_target(text)


SHELL = set(";&|$`<>()\\'\" \t\n*?{}!#~")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_garbage_is_valueerror_or_safe_target(text):
    try:
        t = parse_target(text)
    except ValueError:
        return
    assert not t.host.startswith("-")
    assert not (t.user or "").startswith("-")
    assert not SHELL & set(t.host + (t.user or ""))


def test_plain_inventory_with_comments():
    text = "# fleet\n\ngpu1\nops@gpu2:2222  # the new one\n  gpu3\n; ini comment\n"
    assert parse_inventory(text) == ["gpu1", "ops@gpu2:2222", "gpu3"]


ANSIBLE = """\
# production
[llm]
gpu1 ansible_host=10.1.2.3 ansible_port=2222 ansible_user=ops
gpu2.example.com
web[01:03].example.com

[llm:vars]
ansible_python_interpreter=/usr/bin/python3

[old]
gpu2.example.com
legacy ansible_ssh_host=fe80::2 ansible_ssh_port=22

[all:children]
llm
old
"""


def test_ansible_ini_inventory():
    assert parse_inventory(ANSIBLE) == [
        "ops@10.1.2.3:2222",
        "gpu2.example.com",
        "web01.example.com",
        "web02.example.com",
        "web03.example.com",
        "[fe80::2]:22",
    ]
    for target in parse_inventory(ANSIBLE):
        parse_target(target)


def test_inventory_bad_line_names_its_line():
    with pytest.raises(ValueError, match="inventory line 3: invalid host"):
        parse_inventory("[g]\ngood\nbad;host\n")
    with pytest.raises(ValueError, match="inventory line 1"):
        parse_inventory("h ansible_host=-oProxyCommand=x\n")
    with pytest.raises(ValueError, match="inventory line 1"):
        parse_inventory("h notakeyvalue\n")


def test_inventory_range_is_bounded():
    with pytest.raises(ValueError, match="more than"):
        parse_inventory("h[0:99999]\n")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_inventory_garbage_never_tracebacks(text):
    try:
        hosts = parse_inventory(text)
    except ValueError:
        return
    for h in hosts:
        parse_target(h)


def _no_subprocess(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError(f"a subprocess was started: {a!r}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)


@pytest.mark.parametrize("bad", ["host;rm -rf /", "-oProxyCommand=x", "a b", "", "u@h|id", "$(reboot)"])
def test_ssh_host_rejects_malicious_host_rejected_before_anything_runs(bad, monkeypatch):
    _no_subprocess(monkeypatch)
    with pytest.raises(ValueError, match="invalid host"):
        from llmdoctor.hosts.ssh import SSHHost

        SSHHost(bad)
