"""CPU use from /proc (knowledge/cpu.py) on a real reading of this kind of VM and on garbage, and
the cpu-contention check's rule on recorded samples."""
from __future__ import annotations

from pathlib import Path

import pytest

from llmdoctor.knowledge.cpu import CpuSample, CpuTimes, descendants, parse_proc_text, sample
from llmdoctor.parsing import ParseError

REAL = (Path(__file__).resolve().parents[1] / "fixtures" / "proc" / "stat_2core_vm.txt").read_text()


def test_a_real_reading():
    t = parse_proc_text(REAL)
    assert t.cores == 2 and t.busy > 0 and t.idle > 0 and t.load1 is not None
    assert 1 in t.procs and t.procs[1][0] == 0  # init, parent 0


def test_a_command_name_with_spaces_and_parentheses():
    line = "4242 (tokio-runtime (w) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1500 250 0 0 20 0 9 0 1 1 1"
    t = parse_proc_text("cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\n" + line)
    assert t.procs[4242] == (1, 1750)


@pytest.mark.parametrize("garbage", ["", "hello", "cpu x y z", "\x00\xff" * 10, "cpu0 1 2 3 4 5 6 7 8"])
def test_garbage_is_a_parse_error(garbage):
    with pytest.raises(ParseError):
        parse_proc_text(garbage)


def test_the_engine_includes_its_children():
    procs = {1: (0, 0), 10: (1, 0), 11: (10, 0), 12: (11, 0), 20: (1, 0)}
    assert descendants(procs, [10]) == {10, 11, 12}


def test_shares_between_two_readings():
    a = CpuTimes(busy=100, idle=100, steal=0, cores=2, procs={10: (1, 50), 11: (10, 0)})
    b = CpuTimes(busy=300, idle=100, steal=0, cores=2, procs={10: (1, 90), 11: (10, 20)})
    s = sample(a, b, 1.0, [10])
    assert s.busy == pytest.approx(1.0) and s.engine == pytest.approx(0.3) and s.others == pytest.approx(0.7)
    assert CpuSample.from_dict(s.to_dict()) == s


@pytest.mark.parametrize("bad", [[], {"cores": 0}, {"cores": 2, "seconds": "x"}, {"cores": True}])
def test_a_recorded_sample_that_is_garbage_is_a_clear_error(bad):
    with pytest.raises(ValueError):
        CpuSample.from_dict(bad)
