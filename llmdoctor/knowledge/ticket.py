"""Turn one pasted support ticket into an evidence directory.

Users paste several command outputs into one message: `$ ollama ps`, then
`$ journalctl -u ollama`, then `$ nvidia-smi`. `llmdoctor diagnose --evidence
ticket.txt` splits such a file at the shell prompts, names each piece after the
command that produced it, and recognises pieces
without a prompt by their content.
"""
from __future__ import annotations

import re

from llmdoctor.knowledge.pasted import ANSI, PROMPT

# (command regex on the text after the prompt, evidence file name); first match wins
COMMANDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), name)
    for p, name in (
        (r"^ollama\s+ps\b", "ollama_ps.txt"),
        (r"^(?:journalctl|docker\s+logs|podman\s+logs|tail|less|head)\b.*\bvllm", "vllm.log"),
        (r"^(?:journalctl|docker\s+logs|podman\s+logs|tail|less|head)\b.*\bsglang", "sglang.log"),
        (r"^(?:journalctl|docker\s+logs|podman\s+logs|tail|less|head|grep)\b", "journal.log"),
        (r"^(?:docker|podman)\s+(?:container\s+)?inspect\b", "docker_inspect.json"),
        (r"^systemctl\s+show\b", "env.txt"),
        (r"^systemctl\s+cat\b", "systemctl_cat.txt"),
        (r"^cat\s+\S*/proc/meminfo\b", "meminfo.txt"),
        (r"^cat\s+\S*/proc/\S+/cmdline\b", "cmdline.txt"),
        (r"^cat\s+\S+\.service\.d/(?P<dropin>[^/\s]+)$", "dropins/{dropin}"),
        (r"^cat\s+\S+\.service$", "unit.service"),
        (r"^cat\s+\S*(?:docker-)?compose\.ya?ml$", "compose.yaml"),
        (r"^cat\s+\S*vllm\S*\.log\b", "vllm.log"),
        (r"^cat\s+\S*sglang\S*\.log\b", "sglang.log"),
        (r"^cat\s+\S+\.log\b", "server.log"),
        (r"^vmstat\b", "vmstat.txt"),
        (r"^nvidia-smi\b", "nvidia_smi.txt"),
        (r"^(?:curl|wget|http)\b.*?/api/ps\b", "api_ps.json"),
        (r"^(?:curl|wget|http)\b.*?/api/show\b", "api_show.json"),
        (r"^(?:curl|wget|http)\b.*?/metrics\b", "metrics.prom"),
        (r"^(?:curl|wget|http)\b.*?/(?:get_)?server_info\b", "server_info.json"),
        (r"^(?:vllm|llama-server|\S*/llama-server)\b", "cmdline.txt"),
    )
)

# content signatures for pieces that came without a prompt
CONTENT: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.M), name)
    for p, name in (
        (r"^NAME\s+ID\s+SIZE\s+PROCESSOR\b", "ollama_ps.txt"),
        (r"^\s*\{\s*\"models\"\s*:", "api_ps.json"),
        (r"^procs\s+-+memory", "vmstat.txt"),
        (r"^MemTotal:\s+\d+", "meminfo.txt"),
        (r"NVIDIA-SMI \d|^index,\s*name,|^name,\s*memory\.total", "nvidia_smi.txt"),
        (r"^# /\S+\.service\s*$", "systemctl_cat.txt"),
        (r"^Environment=|^MainPID=|^NeedDaemonReload=", "env.txt"),
        (r"^# (?:HELP|TYPE) (?:vllm|llamacpp|sglang)[:_]", "metrics.prom"),
        (r'^\s*\{\s*"model_path"\s*:.*"tp_size"\s*:', "server_info.json"),
        (r"^\[Service\]", "unit.service"),
    )
)

LOG_NAME = "journal.log"

# A server started at the prompt: the command is its command line, what follows is its log.
LAUNCHES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(?:\S*python3?\s+-m\s+sglang\.launch_server|\S*sglang\s+serve)\b"), "sglang.log"),
)


def _prompt_command(line: str) -> str | None:
    """The command of a prompt line (`user@box:~$ sudo journalctl -u ollama` -> `journalctl -u ollama`)."""
    m = PROMPT.match(line)
    if not m:
        return None
    rest = line[m.start() :]
    rest = re.sub(r"^\s*(?:\([^)]*\)\s*)?(?:[\w.@:~/\\-]*\s?[$#%>]|PS [^>]*>)\s*", "", rest, count=1)
    rest = re.sub(r"^sudo\s+(?:-\S+\s+)*", "", rest)
    return rest.strip()


def _name_for_command(command: str) -> str | None:
    for pattern, name in COMMANDS:
        m = pattern.search(command)
        if m:
            return name.format(**m.groupdict()) if "{" in name else name
    return None


def _name_for_content(text: str) -> str:
    from llmdoctor.knowledge.containers.inspect import looks_like_inspect

    if looks_like_inspect(text):
        return "docker_inspect.json"
    if re.search(r"^services:\s*$", text, re.M) and re.search(r"^\s+image:\s*\S", text, re.M):
        return "compose.yaml"
    for pattern, name in CONTENT:
        if pattern.search(text):
            return name
    return LOG_NAME


def split_ticket(text: str) -> dict[str, str]:
    """Evidence file name -> content. Pieces that land on the same name are concatenated
    (two journal excerpts make one log)."""
    text = ANSI.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    pieces: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in text.split("\n"):
        bare = re.sub(r"^\s*> ?", "", line)
        if re.match(r"^\s*(```|~~~)[\w+-]*\s*$", bare):
            continue
        command = _prompt_command(bare)
        if command is not None:
            pieces.append((command, []))
            continue
        pieces[-1][1].append(line)
    files: dict[str, list[str]] = {}
    for command, lines in pieces:
        body = "\n".join(lines).strip("\n")
        launch = next((log for pattern, log in LAUNCHES if command and pattern.search(command)), None)
        if launch:
            files.setdefault("cmdline.txt", []).append(command)
            if body.strip():
                files.setdefault(launch, []).append(body)
            continue
        if not body.strip():
            continue
        name = (_name_for_command(command) if command else None) or _name_for_content(body)
        files.setdefault(name, []).append(body)
    return {name: "\n".join(bodies) + "\n" for name, bodies in files.items()}
