"""Small inputs never cost big memory: an inventory range is counted before it is built (the
line `box[0:99999999]` took 7 GB before the 10,000-host limit was checked), and a pasted
ticket is split as a stream (a 200 MB paste took 3.6 GB)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from llmdoctor.knowledge.inventory import MAX_EXPANSION, expansion_count, parse_inventory
from llmdoctor.knowledge.ticket import split_ticket, split_ticket_into

ROOT = Path(__file__).resolve().parents[2]


def peak_rss_mib(code: str, timeout: float = 300) -> float:
    """Peak resident memory of `code` run in a fresh interpreter (MiB; VmHWM is in KiB)."""
    # VmHWM, not ru_maxrss: ru_maxrss survives exec, so a child of a big test process would
    # report the parent's size (seen in CI: 313 MiB for a 15 MiB script)
    script = textwrap.dedent(code) + ("\nprint(next(l.split()[1] for l in open('/proc/self/status')"
                                      " if l.startswith('VmHWM:')))\n")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout,
                       cwd="/", env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert p.returncode == 0, p.stderr[-2000:]
    return int(p.stdout.split()[-1]) / 1024


@pytest.mark.parametrize("line", ["box[0:99999999]", "box[0:" + "9" * 40 + "]", "a[0:999]-b[0:999]",
                                  "x[a:z]y[a:z]z[a:z]"])
def test_big_ranges_are_refused_before_they_are_built(line):
    with pytest.raises(ValueError, match=f"more than {MAX_EXPANSION}"):
        parse_inventory(line)


def test_many_lines_add_up_to_the_limit():
    with pytest.raises(ValueError, match="the inventory names more than"):
        parse_inventory("\n".join(f"g{i}-[0:999]" for i in range(20)))


def test_counting_matches_building():
    assert expansion_count("web[01:10:3].x") == len(parse_inventory("web[01:10:3].x")) == 4
    assert parse_inventory("db-[a:c]") == ["db-a", "db-b", "db-c"]
    assert expansion_count("box[5:1]") == 0


def test_range_refusal_takes_no_memory():
    rss = peak_rss_mib("""
        from llmdoctor.knowledge.inventory import parse_inventory
        try:
            parse_inventory("box[0:99999999]")
        except ValueError:
            pass
    """)
    assert rss < 200, rss


def test_streamed_split_equals_the_whole_split():
    ticket = ("$ ollama ps\nNAME  ID  SIZE  PROCESSOR  UNTIL\nllama3:8b  365c0bd3c000  6.7 GB  100% GPU  4 minutes\n\n\n"
              "$ journalctl -u ollama\n\nline one\n\nline two\n\n$ nvidia-smi\n   \n$ journalctl -u ollama\nline three\n"
              "```\nMemTotal:  1000 kB\n```\n")
    chunks: dict[str, list[str]] = {}
    split_ticket_into(ticket.split("\n"), lambda name, text: chunks.setdefault(name, []).append(text))
    whole = split_ticket(ticket)
    assert {k: "".join(v) for k, v in chunks.items()} == whole
    assert whole["journal.log"] == "line one\n\nline two\nline three\n"
    assert whole["meminfo.txt"] == "MemTotal:  1000 kB\n"  # a code block after the output is a piece of its own
    assert "nvidia_smi.txt" not in whole  # a piece of blanks is dropped


def test_dropin_name_cannot_climb_out():
    files = split_ticket("$ cat /etc/systemd/system/ollama.service.d/..\n[Service]\nEnvironment=X=1\n")
    assert not any(".." in name for name in files)


def test_a_big_pasted_ticket_is_split_in_little_memory(tmp_path):
    """40 MB of pasted journal (with non-ASCII text, the costly case for str) splits in
    well under 3x its size; the whole-text split took about 18x."""
    line = "Nov 30 18:00:15 box ollama[1]: time=2025-02-07T09:17:16Z level=WARN msg=\"truncating input prompt\" limit=2048 “ü”\n"
    ticket = tmp_path / "ticket.txt"
    with open(ticket, "w", encoding="utf-8") as f:
        f.write("$ ollama ps\nNAME  ID  SIZE  PROCESSOR  UNTIL\n$ journalctl -u ollama\n")
        block = line * 10_000
        for _ in range(40 * 1024 * 1024 // len(block.encode())):
            f.write(block)
    size_mib = ticket.stat().st_size / 1024 / 1024
    rss = peak_rss_mib(f"""
        from pathlib import Path
        from llmdoctor.cli import ticket_directory
        d = ticket_directory(Path({str(ticket)!r}))
        assert (d / "journal.log").stat().st_size > 30 * 1024 * 1024
    """)
    assert rss < 3 * size_mib, (rss, size_mib)
