"""An SGLang support ticket pasted as one file: the launch command at the prompt becomes the
command line and its output the SGLang log; `curl .../metrics` and `/get_server_info` pieces
find their evidence names."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from llmdoctor.knowledge.ticket import split_ticket

ROOT = Path(__file__).resolve().parents[3]
FIX = ROOT / "tests" / "fixtures" / "sglang"


def ticket(server_info: bool = True) -> str:
    return "\n".join([
        "user@gpu:~$ " + (FIX / "cmdline_radix_off_10844.txt").read_text().strip(),
        (FIX / "prefill_radix_off_10844.log").read_text(),
        "user@gpu:~$ sudo journalctl -u sglang --since today",
        (FIX / "decode_kv_full_queue_14972.log").read_text() + (FIX / "retract_kv_pool_full.log").read_text(),
        "user@gpu:~$ curl -s localhost:30000/metrics",
        (FIX / "metrics_docs_queue.prom").read_text(),
    ] + (["user@gpu:~$ curl -s localhost:30000/get_server_info", (FIX / "server_info_docs.json").read_text()]
         if server_info else []))


def test_split_names_each_piece():
    files = split_ticket(ticket())
    assert sorted(files) == ["cmdline.txt", "metrics.prom", "server_info.json", "sglang.log", "whoami.txt"]
    assert files["whoami.txt"].strip() == "user"  # the prompts' user, nothing else of them
    assert files["cmdline.txt"].startswith("python -m sglang.launch_server") and "--disable-radix-cache" in files["cmdline.txt"]
    assert "Decode batch" in files["sglang.log"] and "Prefill batch" in files["sglang.log"]


def test_ticket_diagnoses_as_sglang(tmp_path):
    path = tmp_path / "ticket.txt"
    path.write_text(ticket(server_info=False))  # that recording is of another server (radix cache on)
    out = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", str(path), "--format", "json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    target = json.loads(out.stdout)["targets"][0]
    assert target["engine"] == "sglang", out.stderr
    assert sorted(f["check"] for f in target["findings"]) == [
        "sglang-kv-full", "sglang-queueing", "sglang-radix-cache-off", "sglang-retraction"]
