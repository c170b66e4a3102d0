"""Memory parsers on recorded outputs (tests/fixtures/vmstat, meminfo) and on garbage."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.judge.swap import ACTIVE_BYTES_PER_S, assess_swap, is_active
from llmdoctor.knowledge.memory import (
    MIB,
    SwapInterval,
    human_bytes,
    interval_from_counters,
    parse_meminfo,
    parse_proc_vmstat,
    parse_vmstat,
)
from llmdoctor.parsing import ParseError

FIX = Path(__file__).resolve().parent.parent / "fixtures"


def vmstat(name: str):
    return parse_vmstat((FIX / "vmstat" / name).read_text())


def test_vmstat_first_row_is_since_boot_and_excluded():
    table = vmstat("idle-1-3.txt")
    assert [r.since_boot for r in table.rows] == [True, False, False]
    assert table.rows[0].values["si"] == 1202  # a past swap run, averaged since boot
    assert [i.swap_in_bps for i in table.intervals()] == [0, 0]
    assert not assess_swap(table.intervals()).any_active


def test_vmstat_swap_active_rows():
    table = vmstat("swap-active-1-5.txt")
    assert len(table.rows) == 5 and len(table.live_rows) == 4
    first = table.intervals()[0]
    assert first.swap_in_bps == 180996 * 1024 and first.swap_out_bps == 182368 * 1024
    assert first.text.startswith("2  0 199460 23466664")
    a = assess_swap(table.intervals())
    assert a.sustained and a.reads_back and len(a.active) == 4


def test_vmstat_units_from_pasted_command_and_wide_layout():
    table = vmstat("swap-active-wide-MB-with-prompt.txt")
    assert table.unit_bytes == MIB
    assert set(table.rows[0].values) >= {"si", "so", "gu"}
    (live,) = table.intervals()
    assert live.swap_in_bps == 210 * MIB and live.swap_out_bps == 189 * MIB
    a = assess_swap(table.intervals())
    assert a.any_active and not a.sustained  # one interval is not "sustained"


def test_vmstat_timestamp_column_and_prompt():
    table = vmstat("idle-timestamps-with-prompt.txt")
    assert len(table.rows) == 2 and table.rows[1].values["id"] == 99


def test_vmstat_single_run_has_no_live_rows():
    assert vmstat("single.txt").live_rows == ()


def test_vmstat_wrapped_row_is_joined():
    text = (FIX / "vmstat" / "swap-active-1-5.txt").read_text().splitlines()
    row = text[3].split()
    wrapped = "\n".join(text[:3] + [" ".join(row[:9]), " ".join(row[9:])] + text[4:])
    table = parse_vmstat(wrapped)
    assert len(table.rows) == 5 and table.rows[1].values["so"] == 182368


def test_vmstat_repeated_header_continues_run_but_new_paste_starts_one():
    lines = (FIX / "vmstat" / "swap-active-1-5.txt").read_text().splitlines()
    repeated = "\n".join(lines[:4] + lines[:2] + lines[4:])  # header repeated inside one run
    assert [r.since_boot for r in parse_vmstat(repeated).rows] == [True, False, False, False, False]
    two_pastes = "\n".join(["$ vmstat 1 5"] + lines + ["$ vmstat 1 5"] + lines)
    assert [r.since_boot for r in parse_vmstat(two_pastes).rows].count(True) == 2


def test_meminfo():
    m = parse_meminfo((FIX / "meminfo" / "swap-in-use.txt").read_text())
    assert m.swap_total == 524284 * 1024 and m.swap_used == (524284 - 322948) * 1024
    n = parse_meminfo((FIX / "meminfo" / "no-swap.txt").read_text())
    assert n.swap_total == 0 and n.mem_available and n.mem_available < n.mem_total


def test_proc_vmstat_delta():
    before = parse_proc_vmstat((FIX / "vmstat" / "proc-vmstat-before.txt").read_text())
    during = parse_proc_vmstat((FIX / "vmstat" / "proc-vmstat-during-swap.txt").read_text())
    i = interval_from_counters(before, during, 2.0)
    assert i.swap_in_bps == (during["pswpin"] - before["pswpin"]) * 4096 / 2.0
    assert is_active(i) and "pswpin +" in i.text
    # counters going backwards (reboot between reads) are no traffic, not negative traffic
    assert interval_from_counters(during, before, 1.0).swap_in_bps == 0


def test_thresholds():
    quiet = SwapInterval(ACTIVE_BYTES_PER_S / 4, 0)
    busy = SwapInterval(ACTIVE_BYTES_PER_S, ACTIVE_BYTES_PER_S)
    assert not is_active(quiet) and is_active(busy)
    assert not assess_swap([busy, quiet, quiet, quiet]).sustained
    assert assess_swap([busy, busy, quiet]).sustained


def test_human_bytes():
    assert human_bytes(1.5 * 1024**3) == "1.5 GiB" and human_bytes(None) == "unknown" and human_bytes(10) == "10 B"


@pytest.mark.parametrize("parser", [parse_meminfo, parse_proc_vmstat, parse_vmstat])
def test_empty_is_a_clear_parse_error(parser):
    with pytest.raises(ParseError):
        parser("")


def test_vmstat_superscript_digit_is_not_a_number():
    """'\u00b2'.isdigit() is true but int() rejects it: the row is skipped, not a traceback."""
    table = parse_vmstat("r b swpd free si so\n1 0 5 6 7 8\n1 0 5 6 7 \u00b2\n")
    assert len(table.rows) == 1


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_garbage_never_tracebacks(text):
    for parser in (parse_meminfo, parse_proc_vmstat, parse_vmstat):
        try:
            parser(text)
        except ParseError as e:
            assert str(e)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["r b swpd free si so", " 1 0 5 6 7 8", "1 2 3", "$ vmstat -S M 1 3", "", "x y"]), max_size=12))
def test_vmstat_line_soup(lines):
    try:
        table = parse_vmstat("\n".join(lines))
    except ParseError:
        return
    for row in table.rows:
        assert set(row.values) <= {"r", "b", "swpd", "free", "si", "so"}
