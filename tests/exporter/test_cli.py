"""Option parsing and the command's refusals."""
from __future__ import annotations

import pytest

from llmdoctor.app.exporter.service import parse_duration, parse_listen, target_names
from tests.exporter.conftest import EVIDENCE, exporter_process


@pytest.mark.parametrize("text,seconds", [("60s", 60), ("10m", 600), ("1h", 3600), ("1.5m", 90), ("45", 45), ("250ms", 0.25)])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "0s", "-5s", "10 minutes", "1w", "m"])
def test_bad_durations(text):
    with pytest.raises(ValueError):
        parse_duration(text)


def test_listen_addresses_default_to_loopback():
    assert parse_listen("127.0.0.1:9877") == ("127.0.0.1", 9877)
    assert parse_listen("9877") == ("127.0.0.1", 9877)
    assert parse_listen("[::1]:9877") == ("::1", 9877)
    assert parse_listen(":9877") == ("0.0.0.0", 9877)  # all interfaces only when asked for
    for bad in ("localhost", "1.2.3.4:99999", "a:b", "[::1]"):
        with pytest.raises(ValueError):
            parse_listen(bad)


def test_target_names_are_unique():
    import socket

    names = [label for label, _, _ in target_names(["local", "ssh://gpu1", "gpu1", "admin@gpu2:2222"], [str(EVIDENCE)])]
    assert names == ["gpu-box", socket.gethostname(), "gpu1", "gpu1#2", "admin@gpu2:2222"]
    with pytest.raises(ValueError):
        target_names(["bad host name"], [])


@pytest.mark.parametrize("args", [["--once"], ["--interval", "soon"], ["--listen", "nowhere"],
                                  ["--evidence", "/nonexistent/dir"], ["--host", "bad host"],
                                  ["--evidence", str(EVIDENCE), "--host", "gpu1"]])
def test_bad_options_exit_3(args):
    with exporter_process(*args) as proc:
        assert proc.wait(60) == 3
        assert b"llmdoctor exporter:" in proc.stderr.read()


def test_port_in_use_exits_3():
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        with exporter_process("--evidence", str(EVIDENCE), "--listen", f"127.0.0.1:{port}") as proc:
            assert proc.wait(60) == 3
            assert b"llmdoctor exporter:" in proc.stderr.read()
