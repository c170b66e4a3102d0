"""One pasted ticket file -> evidence files named after the commands that produced them."""
from __future__ import annotations

import os
import subprocess
import sys

from hypothesis import given, strategies as st

from llmdoctor.knowledge.pasted import decode_pasted
from llmdoctor.knowledge.ticket import split_ticket
from tests.support.schema import report_doc

# Pieces are verbatim samples: ollama ps (samples.md 1b, attogram/ollama-bash-lib), journal lines
# (samples.md 2h, karakeep-app/karakeep#1593), vmstat header as Debian's procps prints it.
TICKET = """Hi, ollama is slow when my team uses it. Here is what I have:

```
user@gpu:~$ ollama ps
NAME          ID              SIZE      PROCESSOR          CONTEXT    UNTIL
mistral:7b    6577803aa9a0    8.3 GB    13%/87% CPU/GPU    16384      4 minutes from now
user@gpu:~$ sudo journalctl -u ollama --no-pager | tail
Jun 10 21:22:18 ollama-host ollama[159]: time=2025-06-10T21:22:18.314Z level=WARN source=runner.go:128 msg="truncating input prompt" limit=512 prompt=617 keep=4 new=512
user@gpu:~$ cat /etc/systemd/system/ollama.service.d/override.conf
[Service]
Environment="OLLAMA_NUM_PARALLEL=1"
user@gpu:~$ systemctl show ollama -p Environment
Environment="OLLAMA_NUM_PARALLEL=1" "HF_TOKEN=hf_abc"
```
"""


def test_split_by_prompt_commands():
    files = split_ticket(TICKET)
    assert files["ollama_ps.txt"].startswith("NAME ")
    assert "truncating input prompt" in files["journal.log"]
    assert files["dropins/override.conf"] == '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=1"\n'
    assert files["env.txt"].startswith("Environment=")
    assert not any("user@gpu" in body for body in files.values())


def test_pieces_without_prompt_are_named_by_content():
    files = split_ticket("NAME  ID  SIZE  PROCESSOR  UNTIL\nllama3:70b  be39eb53a197  41 GB  42%/58% CPU/GPU  4 minutes from now\n")
    assert list(files) == ["ollama_ps.txt"]


def test_utf16_from_powershell():
    text = "NAME  ID  SIZE  PROCESSOR  UNTIL\r\n"
    assert decode_pasted(b"\xff\xfe" + text.encode("utf-16-le")) == text
    assert decode_pasted(text.encode("utf-16-le")) == text
    assert decode_pasted(b"\xef\xbb\xbf" + text.encode()) == text


@given(st.text(max_size=400))
def test_garbage_never_raises(text):
    for name, body in split_ticket(text).items():
        assert name and body.endswith("\n")


def diagnose_json(path) -> subprocess.CompletedProcess:
    """`llmdoctor diagnose --evidence PATH --format json`, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", str(path), "--format", "json"],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, NO_COLOR="1"))


def test_cli_diagnoses_a_ticket_file(tmp_path):
    f = tmp_path / "ticket.txt"
    f.write_bytes(b"\xff\xfe" + TICKET.encode("utf-16-le"))
    p = diagnose_json(f)
    doc = report_doc(p.stdout)
    checks = {x["check"] for x in doc["targets"][0]["findings"]}
    assert {"ollama-context-truncation", "ollama-cpu-spill", "ollama-one-slot"} <= checks, p.stdout
    assert "hf_abc" not in p.stdout


# Launch commands as reporters paste them: ggml-org/llama.cpp#17300 (a Windows command line in a
# fence, no prompt, its start log after some prose), vllm-project/vllm#11517 (continued lines).
LLAMA_WINDOWS = """### Command line

```shell
C:\\Users\\21\\Downloads\\llama-b7079-bin-win-cpu-x64\\llama-server.exe -m "C:\\Users\\21\\Downloads\\Qwen3-VL-4B-Instruct-Q8_0.gguf" -c 8000 --port 1280 -np 1
```

this is the start log
srv          init: initializing slots, n_slots = 4
slot         init: id  0 | task -1 | new slot, n_ctx = 8000
"""
VLLM_CONTINUED = """```python
python3 -m vllm.entrypoints.openai.api_server \\
  --port 7071 \\
  --model /Qwen/Qwen2.5-32B-Instruct \\
  --max-model-len 32768

2024-12-23 18:28:10 - vllm.engine.metrics - INFO - Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 45.7 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 3 reqs, GPU KV cache usage: 3.1%, CPU KV cache usage: 0.0%.
```
"""


def test_a_server_started_in_the_paste_gives_its_command_line_and_then_its_log():
    files = split_ticket(LLAMA_WINDOWS)
    assert files["cmdline.txt"].endswith("llama-server.exe -m \"C:\\Users\\21\\Downloads\\Qwen3-VL-4B-Instruct-Q8_0.gguf\" "
                                          "-c 8000 --port 1280 -np 1\n")
    assert "n_slots = 4" in files["server.log"]
    files = split_ticket(VLLM_CONTINUED)
    assert files["cmdline.txt"] == ("python3 -m vllm.entrypoints.openai.api_server --port 7071 "
                                    "--model /Qwen/Qwen2.5-32B-Instruct --max-model-len 32768\n")
    assert "Pending: 3 reqs" in files["vllm.log"]
    files = split_ticket("user@box:~$ ./build/bin/llama-server -m m.gguf -np 4 \\\n    -c 8192\n"
                         "srv          init: initializing slots, n_slots = 4\n")
    assert files == {"cmdline.txt": "./build/bin/llama-server -m m.gguf -np 4 -c 8192\n",
                     "server.log": "srv          init: initializing slots, n_slots = 4\n",
                     "whoami.txt": "user\n"}  # who typed it (the host and the command are not kept)


def test_prose_about_a_server_is_not_its_command_line():
    assert "cmdline.txt" not in split_ticket("llama-server is slow for us\nvllm serve works but\n")


def test_an_export_typed_in_the_paste_is_a_setting_as_written():
    # ollama/ollama#4569: "I had set up env by: sudo nano ~/.bashrc / export OLLAMA_NUM_PARALLEL=4 / source
    # ~/.bashrc / But it doesn't work" (no prompt, in prose)
    files = split_ticket("I had set up env by:\n\nsudo nano ~/.bashrc\nexport OLLAMA_NUM_PARALLEL=4\n"
                         "source ~/.bashrc\n\nBut it doesn't work\n")
    assert files["shell_export.txt"] == "export OLLAMA_NUM_PARALLEL=4\n"
    assert "shell_export.txt" not in split_ticket("time=2025 level=INFO msg=\"exporting OLLAMA_HOST\"\n")


# ollama/ollama#11942 ("they answer only 1 by 1"): prose, then the whole unit file in a code
# block, asked "like that?". The block is a piece of its own: the unit file without the prose
# (which systemd would reject line by line), and its Environment= lines are the unit's as written,
# not `systemctl show` output (what the service runs with).
UNIT_TICKET = """hello i have ollama and i use oss 20b, i try make 2 or 4 dialog but they awnswer only 1 by 1 how to fix it?

> Set `OLLAMA_NUM_PARALLEL` in the server environment.

like that?
```
[Unit]
Description=Ollama Service
After=network-online.target

[Service]
ExecStart=/usr/local/bin/ollama serve
User=ollama
Group=ollama
Restart=always
Environment="OLLAMA_HOST=0.0.0.0"
RestartSec=3
Environment="OLLAMA_NUM_PARALLEL=4"

[Install]
WantedBy=default.target
```
"""


def test_a_unit_file_in_a_code_block_is_the_unit_without_the_prose(tmp_path):
    files = split_ticket(UNIT_TICKET)
    assert files["unit.service"].startswith("[Unit]\n") and files["unit.service"].endswith("WantedBy=default.target\n")
    assert "env.txt" not in files and "like that?" in files["pasted.log"]
    path = tmp_path / "ticket.txt"
    path.write_text(UNIT_TICKET)
    doc = report_doc(diagnose_json(path).stdout)
    checks = [f["check"] for t in doc["targets"] for f in t["findings"]]
    assert checks == ["systemd-env-in-unit-file"]


def test_a_remark_after_a_pasted_command_is_not_part_of_it():
    # ggml-org/llama.cpp#23652: "llama-server -m ... -c 1024 (-np omitted)" in a ```shell block
    files = split_ticket("### Command line\n\n```shell\nllama-server -m ... -c 1024 (-np omitted)\n```\n\n"
                         "```console\n0.02.505.689 I slot   load_model: id  0 | task -1 | new slot, n_ctx = 1024\n```\n")
    assert files["cmdline.txt"] == "llama-server -m ... -c 1024\n"
    assert "new slot, n_ctx = 1024" in files["server.log"]


def test_llama_cpp_lines_in_an_unnamed_piece_go_to_the_engine_the_paste_names(tmp_path):
    # ggml-org/llama.cpp#9016's shape: prose naming "the llama.cpp HTTP server", a `> ./srvr …` prompt,
    # and the 2024 text-form server lines (tests/fixtures/llamacpp/slots_init_text_2024.log); the
    # unnamed piece lands in journal.log, whose name alone would have said Ollama.
    from pathlib import Path

    lines = (Path(__file__).resolve().parents[1] / "fixtures" / "llamacpp" / "slots_init_text_2024.log").read_text()
    path = tmp_path / "ticket.txt"
    path.write_text("When using multiple slots with the llama.cpp HTTP server each slot gets a fraction.\n\n"
                    "```shell\n> ./srvr --model models/m.gguf --n-gpu-layers 99\n" + lines + "```\n")
    doc = report_doc(diagnose_json(path).stdout)
    assert doc["targets"][0]["engine"] == "llamacpp"


def test_a_log_viewed_without_an_engine_name_is_not_named_for_ollama(tmp_path):
    # journal.log is `collect`'s name for Ollama's journal, and a name that decides whose llama.cpp
    # lines a file holds; a paste's unnamed piece, or `tail`/`grep` of some file, must not claim it
    from pathlib import Path

    slots = (Path(__file__).resolve().parents[1] / "fixtures" / "llamacpp" / "slots_timestamps_23652.log").read_text()
    assert list(split_ticket(slots)) == ["pasted.log"]
    assert list(split_ticket("$ tail -n 50 app.log\n" + slots)) == ["pasted.log", "whoami.txt"]
    assert list(split_ticket("$ docker logs llama-server\n" + slots)) == ["server.log", "whoami.txt"]
    assert list(split_ticket("$ journalctl -u ollama\n" + slots)) == ["journal.log", "whoami.txt"]
    path = tmp_path / "ticket.txt"
    path.write_text(slots)
    doc = report_doc(diagnose_json(path).stdout)
    assert doc["targets"][0]["engine"] == "llamacpp"


def test_the_kv_cache_full_line_alone_is_llama_cpp():
    # mozilla-ai/llamafile#244 (llama.cpp's server, February 2024): only these lines were pasted
    from llmdoctor.knowledge.recognize import LLAMACPP, engine_of_text

    text = "\n".join(f"[1707364943] update_slots : failed to find free space in the KV cache, retrying with smaller "
                     f"n_batch = {n}" for n in (256, 128, 64)) + "\n[1707364943] update_slots : failed to decode the batch, n_batch = 1, ret = 1\n"
    assert engine_of_text(text) == LLAMACPP


def test_windows_prompts_name_their_pieces_and_typed_settings_go_apart():
    ticket = (
        "C:\\Program Files\\Ollama>ollama ps\n"
        "NAME          ID              SIZE      PROCESSOR          CONTEXT    UNTIL\n"
        "mistral:7b    6577803aa9a0    8.3 GB    13%/87% CPU/GPU    16384      4 minutes from now\n"
        "\n"
        "PS C:\\Users\\me> docker logs ollama\n"
        "time=2025-01-01T00:00:00Z level=INFO source=routes.go:1 msg=hi\n"
        "\n"
        'C:\\Users\\me>set LLAMA_ARG_HOST="0.0.0.0"\n'
        'PS C:\\Users\\me> $env:OLLAMA_HOST="0.0.0.0"\n'
        "$ export OLLAMA_NUM_PARALLEL=4\n"
    )
    files = split_ticket(ticket)
    assert files["ollama_ps.txt"].startswith("NAME ")
    assert files["journal.log"] == "time=2025-01-01T00:00:00Z level=INFO source=routes.go:1 msg=hi\n"
    assert files["shell_export.txt"].split("\n")[:3] == [
        'set LLAMA_ARG_HOST="0.0.0.0"', '$env:OLLAMA_HOST="0.0.0.0"', "export OLLAMA_NUM_PARALLEL=4"]
