"""The old Go log line's time (`2024/08/08 23:02:37 gpu.go:12: ...`) is read without strptime
(its first call costs milliseconds of start-up) and must read exactly as strptime does,
out-of-range fields included."""
from __future__ import annotations

import random
import re
from datetime import datetime

from llmdoctor.knowledge.ollama.log import line_time


def strptime_time(text: str) -> datetime | None:
    m = re.search(r"(?:^|\s)(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}) \S+\.go:\d+: ", text)
    try:
        return datetime.strptime(m.group(1), "%Y/%m/%d %H:%M:%S")
    except ValueError:
        return None


def test_old_go_log_time_reads_as_strptime_does():
    rng = random.Random(15)
    for _ in range(3000):
        fields = (rng.randint(0, 9999), rng.randint(0, 13), rng.randint(0, 32), rng.randint(0, 25),
                  rng.randint(0, 61), rng.randint(0, 62))
        text = "%04d/%02d/%02d %02d:%02d:%02d gpu.go:12: looking for compatible GPUs" % fields
        assert line_time(text) == strptime_time(text), text
    assert line_time("2024/08/08 23:02:37 gpu.go:12: x") == datetime(2024, 8, 8, 23, 2, 37)
    assert line_time("٢٠٢٤/٠١/١٠ 10:00:00 gpu.go:1: x") is None is strptime_time("٢٠٢٤/٠١/١٠ 10:00:00 gpu.go:1: x")
