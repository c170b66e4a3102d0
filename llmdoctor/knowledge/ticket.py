"""Turn one pasted support ticket into an evidence directory.

Users paste several command outputs into one message: `$ ollama ps`, then
`$ journalctl -u ollama`, then `$ nvidia-smi`. `llmdoctor diagnose --evidence
ticket.txt` splits such a file at the shell prompts, names each piece after the
command that produced it, and recognises pieces
without a prompt by their content.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable

from llmdoctor.knowledge.pasted import ANSI, FENCE, PROMPT, PROMPT_HEAD

# `kubectl`, `k` (the usual alias) or `oc`, with any options before the verb (`kubectl -n ai describe pod`)
KUBECTL = r"(?:kubectl|k|oc)\s+(?:-{1,2}[\w-]+(?:[= ]\S+)?\s+)*"
_VIEWER = r"journalctl|docker\s+logs|podman\s+logs|tail|less|head"  # commands that show a log
# (command regex on the text after the prompt, evidence file name); first match wins
COMMANDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), name)
    for p, name in (
        (r"^ollama\s+ps\b", "ollama_ps.txt"),
        (rf"^(?:{_VIEWER})\b.*\bvllm", "vllm.log"),
        (rf"^(?:{_VIEWER})\b.*\bsglang", "sglang.log"),
        (rf"^(?:{_VIEWER}|grep)\b.*\bllama[-_.]?(?:server|cpp)", "server.log"),
        (rf"^(?:{_VIEWER}|grep)\b.*\bollama", "journal.log"),
        # a log viewed without an engine's name in the command: named like an unprompted piece,
        # so that no file name decides whose llama.cpp lines these are (journal.log says Ollama)
        (rf"^(?:{_VIEWER}|grep)\b", "pasted.log"),
        (r"^(?:docker|podman)\s+(?:container\s+)?inspect\b", "docker_inspect.json"),
        (rf"^{KUBECTL}describe\s+(?:pods?|po)\b", "kubectl_describe.txt"),
        (rf"^{KUBECTL}get\s+(?:events?|ev)\b", "events.json"),
        (rf"^{KUBECTL}get\s+(?:pods?|po)\b.*(?:-o\s*=?\s*|--output[= ])json\b", "pod.json"),
        (rf"^{KUBECTL}get\s+(?:pods?|po)\b.*(?:-o\s*=?\s*|--output[= ])yaml\b", "pod.yaml"),
        (rf"^{KUBECTL}get\s+(?:deploy|deployments?|sts|statefulsets?)\b.*(?:-o\s*=?\s*|--output[= ])yaml\b",
         "deployment.yaml"),
        (rf"^{KUBECTL}get\s+(?:deploy|deployments?|sts|statefulsets?)\b.*(?:-o\s*=?\s*|--output[= ])json\b",
         "deployment.json"),
        (rf"^{KUBECTL}logs\b.*\bvllm", "vllm.log"),
        (rf"^{KUBECTL}logs\b.*\bsglang", "sglang.log"),
        (rf"^{KUBECTL}logs\b", "pod.log"),
        (r"^systemctl\s+show\b", "env.txt"),
        (r"^systemctl\s+cat\b", "systemctl_cat.txt"),
        (r"^cat\s+\S*/proc/meminfo\b", "meminfo.txt"),
        (r"^cat\s+\S*/proc/\S+/cmdline\b", "cmdline.txt"),
        (r"^cat\s+\S+\.service\.d/(?P<dropin>(?!\.\.?$)[^/\s]+)$", "dropins/{dropin}"),
        (r"^cat\s+\S+\.service$", "unit.service"),
        (r"^cat\s+\S*(?:docker-)?compose\.ya?ml$", "compose.yaml"),
        (r"^cat\s+\S*vllm\S*\.log\b", "vllm.log"),
        (r"^cat\s+\S*sglang\S*\.log\b", "sglang.log"),
        (r"^cat\s+\S+\.log\b", "server.log"),
        (r"^vmstat\b", "vmstat.txt"),
        (r"^nvidia-smi\b", "nvidia_smi.txt"),
        (r"^amd-smi\s+metric\b.*--json", "amd_smi_metric.json"),
        (r"^amd-smi\s+static\b.*--json", "amd_smi_static.json"),
        (r"^rocm-smi\b.*--json", "rocm_smi.json"),
        (r"^(?:curl|wget|http)\b.*?/api/ps\b", "api_ps.json"),
        (r"^(?:curl|wget|http)\b.*?/api/show\b", "api_show.json"),
        (r"^(?:curl|wget|http)\b.*?/metrics\b", "metrics.prom"),
        (r"^(?:curl|wget|http)\b.*?/(?:get_)?server_info\b", "server_info.json"),
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
        # a unit file (its [Service] section) before `systemctl show` output: the unit's own
        # Environment= lines are what was written, not what the service runs with
        (r"^\[Service\]", "unit.service"),
        (r"^Environment=|^MainPID=|^NeedDaemonReload=", "env.txt"),
        (r"^# (?:HELP|TYPE) (?:vllm|llamacpp|sglang)[:_]", "metrics.prom"),
        (r'^\s*\{\s*"model_path"\s*:.*"tp_size"\s*:', "server_info.json"),
    )
)

LOG_NAME = "pasted.log"  # a piece nothing names; `collect`'s journal.log would hint at Ollama

# A server started at the prompt: the command is its command line, what follows is its log.
# A server started in the paste, at a prompt or bare at the start of a line (`./llama-server -m …`,
# `C:\…\llama-server.exe …`, `python -m vllm.entrypoints.openai.api_server \⏎ --port …`): the
# command, with its continuation lines, is the server's command line, and what follows is its log.
_EXE = r"(?:\S*[/\\])?"
LAUNCHES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"^(?:{_EXE}python3?(?:\.exe)?\s+-m\s+sglang\.launch_server|{_EXE}sglang\s+serve)\b"), "sglang.log"),
    (re.compile(rf"^(?:{_EXE}python3?(?:\.exe)?\s+-m\s+vllm\.entrypoints\.openai\.api_server|{_EXE}vllm(?:\.exe)?\s+serve)\b"),
     "vllm.log"),
    (re.compile(rf"^{_EXE}llama-server(?:\.exe)?(?=\s)"), "server.log"),
)
BARE_LAUNCH = re.compile(r"\s+--?[A-Za-z]")  # a launch without a prompt needs a flag: prose does not start so
# a shell line the user typed to set an engine variable (`export OLLAMA_NUM_PARALLEL=4` in ~/.bashrc):
# no server prints one, so wherever it stands it is a setting as the user wrote it
EXPORT = re.compile(r"^\s*(?:(?:export|setx?|launchctl\s+setenv)\s+\"?|\$env:)(?:OLLAMA|VLLM|LLAMA_ARG|SGLANG)_\w+\s*[= ]")
# ... typed at a prompt (`C:\Users\me>set OLLAMA_HOST="0.0.0.0"`, `PS C:\> $env:OLLAMA_HOST=...`, `$ export ...`):
# the line is the user's, not output, and belongs to no piece
TYPED = re.compile(r'^\s*(?:PS [^>]*>|[A-Za-z]:\\[^<>|"]*>|[\w.@:~/-]*[$#%])\s*(?=\S)')
CONTINUED = re.compile(r"(?:\s|^)[\\^`]$")  # a line continued by sh `\`, cmd `^` or PowerShell backtick


MAX_PROMPTS = 20  # distinct prompts kept for whoami.txt


def _who(line: str) -> str:
    """A prompt line's user as whoami.txt keeps it: `root`, the user's name, `$` (a bare non-root
    prompt), `PS>` (Windows); "" where the line shows none."""
    from llmdoctor.knowledge.reader import WINDOWS, prompt_user

    found = prompt_user(line)
    if found is None:
        return ""
    user, root = found
    return "PS>" if user == WINDOWS else "root" if root else user or "$"


def _prompt_command(line: str) -> str | None:
    """The command of a prompt line (`user@box:~$ sudo journalctl -u ollama` -> `journalctl -u ollama`)."""
    m = PROMPT.match(line)
    if not m:
        return None
    rest = line[m.start() :]
    rest = re.sub(PROMPT_HEAD, "", rest, count=1)
    rest = re.sub(r"^sudo\s+(?:-\S+\s+)*", "", rest)
    return rest.strip()


def _name_for_command(command: str) -> str | None:
    for pattern, name in COMMANDS:
        m = pattern.search(command)
        if m:
            return name.format(**m.groupdict()) if "{" in name else name
    return None


def _name_for_content(text: str) -> str:
    from llmdoctor.knowledge.containers.looks import looks_like_inspect

    from llmdoctor.knowledge.containers.describe import looks_like_describe
    from llmdoctor.knowledge.containers.pod import looks_like_manifest, looks_like_pod

    if looks_like_inspect(text):
        return "docker_inspect.json"
    if looks_like_manifest(text):
        return "pod.yaml" if re.search(r"^kind:\s*[\"']?Pod\b", text, re.M) else "deployment.yaml"
    if looks_like_pod(text):
        return "kubectl_describe.txt" if looks_like_describe(text) else "pod.json"
    if re.search(r"^services:\s*$", text, re.M) and re.search(r"^\s+image:\s*\S", text, re.M):
        return "compose.yaml"
    for pattern, name in CONTENT:
        if pattern.search(text):
            return name
    return LOG_NAME


SNIFF = 64 * 1024  # a piece without a prompt is recognised by its first characters


def split_ticket(text: str) -> dict[str, str]:
    """Evidence file name -> content. Pieces that land on the same name are concatenated
    (two journal excerpts make one log)."""
    files: dict[str, list[str]] = {}
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    split_ticket_into(lines, lambda name, chunk: files.setdefault(name, []).append(chunk))
    return {name: "".join(chunks) for name, chunks in files.items()}


def split_ticket_into(lines: Iterable[str], write: Callable[[str, str], None]) -> None:
    """The ticket's lines (without line ends) to `write(file name, text)`, in order, one
    piece at a time: a 200 MB paste is never held whole. A piece is its lines without the
    empty ones at either end; a piece of blanks is dropped; a piece without a prompt is
    named by its first SNIFF characters."""
    piece = _Piece(None)
    prompts: dict[str, None] = {}  # the prompts commands were typed at: who will paste the fixes (whoami.txt)
    in_block = False  # inside a ``` code block
    launch: list[str] = []  # a server's command line still continued on the next line
    for raw in lines:
        line = ANSI.sub("", raw) if "\x1b" in raw else raw
        bare = re.sub(r"^\s*> ?", "", line)
        if launch:
            launch.append(bare.strip())
            if not CONTINUED.search(launch[-1]):
                write("cmdline.txt", _joined(launch) + "\n")
                launch = []
            continue
        if FENCE.match(bare):  # a code block is a piece of its own, except that one opened right
            in_block = not in_block  # after a prompt holds that command's output, and a server
            # started in a block logs what follows it
            if not piece.blank or piece.started or (not in_block and piece.fallback is None):
                piece.close(write)
                piece = _Piece(None)
            continue
        command = _prompt_command(bare)
        if command is not None and len(prompts) < MAX_PROMPTS:
            prompts.setdefault(_who(bare))
        log = _launched(command if command is not None else bare.strip(), prompt=command is not None)
        if command is not None or log:
            piece.close(write)
            piece = _Piece(None if log else command, fallback=log)
            if log:  # a server started here: its command line, and its log after it
                launch = [(command if command is not None else bare).strip()]
                if not CONTINUED.search(launch[0]):
                    write("cmdline.txt", _joined(launch) + "\n")
                    launch = []
            continue
        typed = TYPED.match(bare) if bare[:1] in " PABCDEFGHIJKLMNOPQRSTUVWXYZ$#%abcdefghijklmnopqrstuvwxyz" else None
        if typed and EXPORT.match(bare[typed.end():]):
            write("shell_export.txt", bare[typed.end():].strip() + "\n")
            continue
        if EXPORT.match(bare):
            write("shell_export.txt", bare.strip() + "\n")
        piece.add(line, write)
    if launch:
        write("cmdline.txt", _joined(launch) + "\n")
    piece.close(write)
    prompts.pop("", None)
    if prompts:  # who typed the commands, one line per kind of prompt: never the host or the commands
        write("whoami.txt", "".join(f"{p}\n" for p in prompts))


def _launched(command: str, prompt: bool) -> str | None:
    """The log file name of a server this command starts (None: not a server's start)."""
    log = next((name for pattern, name in LAUNCHES if pattern.search(command)), None)
    return log if log and (prompt or BARE_LAUNCH.search(command)) else None


# a remark in parentheses after a pasted command (`llama-server -m m.gguf -c 1024 (-np omitted)`):
# unquoted parentheses are not shell words, so they are the writer's, not the command's
REMARK = re.compile(r"\s+\([^()'\"]*\)\s*$")


def _joined(parts: list[str]) -> str:
    return REMARK.sub("", " ".join(CONTINUED.sub("", p).strip() for p in parts if CONTINUED.sub("", p).strip()))


class _Piece:
    """One command's output while it streams: lines are held only until its file is named."""

    def __init__(self, command: str | None, fallback: str | None = None) -> None:
        self.name = _name_for_command(command) if command else None
        self.fallback = fallback  # the name when the content does not tell (a launched server's log)
        self.held: list[str] = []  # before the name is known (or before a non-blank line)
        self.held_size = 0
        self.blanks = 0  # empty lines not yet written: dropped if the piece ends here
        self.started = False  # a line was written
        self.blank = True  # only whitespace held so far

    def add(self, line: str, write) -> None:
        if not self.started and not self.held and line == "":
            return  # leading empty lines
        if line == "":
            self.blanks += 1
            return
        if self.blanks:
            self._out("\n" * self.blanks, write)
            self.blanks = 0
        self._out(line + "\n", write)

    def _out(self, text: str, write) -> None:
        if self.started:
            write(self.name, text)
            return
        self.held.append(text)
        self.held_size += len(text)
        self.blank = self.blank and not text.strip()
        if self.blank and self.held_size >= SNIFF:
            self.held, self.held_size = [], 0  # a sea of spaces: nothing to name a file by
        elif not self.blank and (self.name is not None or self.held_size >= SNIFF):
            self._start(write)

    def _start(self, write) -> None:
        body = "".join(self.held)
        self.name = self.name or _name_for_content(body.rstrip("\n"))
        if self.name == LOG_NAME and self.fallback:
            self.name = self.fallback
        self.held, self.started = [], True
        write(self.name, body)

    def close(self, write) -> None:
        if not self.started and not self.blank:
            self._start(write)
