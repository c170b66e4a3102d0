"""Undo what copy and paste does to command output.

Evidence directories are often built by hand from a support ticket: the text comes
with Windows line endings, terminal colour codes, Markdown code fences, e-mail or
GitHub quote markers, and the shell prompt and command that produced it. Parsers
should see the output itself.
"""
from __future__ import annotations

import re

from llmdoctor.model import Record
from llmdoctor.parsing import LazyPattern

ANSI = LazyPattern(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
FENCE = LazyPattern(r"^\s*(```|~~~)[\w+-]*\s*$")
# A prompt followed by one of the commands whose output we read, e.g.
# `$ ollama ps`, `user@gpu:~$ sudo journalctl -u ollama`, `root@box:/# nvidia-smi`, `PS C:\> ollama ps`
PROMPT = LazyPattern(
    r"^\s*(?:\([^)]*\)\s*)?(?:[\w.@:~/\\-]*(?:\s?\[\d{1,3}\])?\s?[$#%>]|PS [^>]*>)\s*"
    r"(?:sudo\s+(?:-\S+\s+)*)?"
    r"(?:ollama|journalctl|systemctl|nvidia-smi|amd-smi|rocm-smi|vmstat|cat|curl|docker|podman|tail|head|grep|less|vllm|(?:\S*[/\\])?llama-server|python3?\s+-m\s+(?:sglang|vllm)|sglang|free|wget|http|kubectl|oc\s+(?:describe|logs|get)|k\s+(?:describe|logs|get))\b"
)

# What follows the prompt character (after blanks) in every PROMPT match: sudo, one of its
# commands, or a path to llama-server. The pattern is compiled and tried only on lines where
# some $ # % > is followed by one (start-up time: unit files are full of `#` and "cat").
_PROMPT_STARTS = ("sudo", "ollama", "journalctl", "systemctl", "nvidia-smi", "amd-smi", "rocm-smi", "vmstat", "cat",
                  "curl", "docker", "podman", "tail", "head", "grep", "less", "vllm", "python", "sglang", "free",
                  "wget", "http", "kubectl", "oc", "k")


def _command_after_prompt_char(line: str) -> bool:
    for c in "$#%>":
        i = line.find(c)
        while i >= 0:
            rest = line[i + 1:].lstrip()
            if rest.startswith(_PROMPT_STARTS) or (rest and "llama-server" in rest.split(None, 1)[0]):
                return True
            i = line.find(c, i + 1)
    return False


def _is_prompt(line: str) -> bool:
    return _command_after_prompt_char(line) and PROMPT.match(line) is not None


def _is_fence(line: str) -> bool:
    return ("```" in line or "~~~" in line) and FENCE.match(line) is not None


# What a quoted paste starts every line with: e-mail and Markdown `>`, and the bars chat and
# issue front-ends draw (U+258E and its neighbours, box-drawing verticals). A `|` is left
# alone: it starts Markdown table rows and compose's service column ends with one.
QUOTE_MARKS = frozenset(">\u258e\u258f\u258d\u258c\u2502\u2503\u2551")


def is_utf16(head: bytes) -> bool:
    """A UTF-16 byte-order mark, or ASCII text as UTF-16-LE without one (NUL every other byte)."""
    return head.startswith((b"\xff\xfe", b"\xfe\xff")) or (
        len(head) >= 4 and head[1:4:2] == b"\0\0" and head[0:4:2] != b"\0\0"
    )


def pasted_encoding(head: bytes) -> str:
    """The codec decode_pasted would use for a file starting with `head` (its first 4 bytes
    are enough), for readers that decode a file as a stream."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if is_utf16(head[:4]):
        return "utf-16-le"
    return "utf-8-sig"


def decode_pasted(data: bytes) -> str:
    """Bytes of a pasted or redirected file as text. PowerShell's `>` writes UTF-16 with a
    byte-order mark; editors add a UTF-8 one; anything undecodable becomes U+FFFD."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    if is_utf16(data[:4]):
        return data.decode("utf-16-le", "replace")  # UTF-16 without a BOM
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", "replace")


def normalize_pasted(text: str) -> str:
    """The command output inside pasted text; text without such debris is returned unchanged."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text:
        text = ANSI.sub("", text)
    lines = text.split("\n")
    quoted = [l.lstrip() for l in lines if l.strip()]
    mark = quoted[0][0] if quoted else ""
    if mark in QUOTE_MARKS and all(l.startswith(mark) for l in quoted):
        lines = [re.sub(rf"^\s*{re.escape(mark)} ?", "", l) for l in lines]
    kept = [l for l in lines if not _is_fence(l) and not _is_prompt(l)]
    if len(kept) == len(lines):
        return "\n".join(lines)
    return "\n".join(kept)


# -- paste repair: what copying a log out of a terminal, a container or a ticket does -----------
#
# Lines arrive behind a journald prefix in the reader's locale (`5月 21 17:49:23 host ollama[1576]: `),
# a compose service column (`ollama  | `), kubectl's `--prefix` (`[pod/ollama-0/ollama] `) or a
# `docker logs -t` / kubectl `--timestamps` stamp; Docker's json-file driver wraps each in JSON;
# reporters hard-wrap long lines at ~100 columns with indented continuations; tqdm bars glue the
# next record onto their own line; a zsh prompt leaves `%` after output with no final newline.
# `repair_log` undoes all of that so the parsers see one record per line; `repair_config` only
# the parts that can touch a configuration file (prefixes, the `%`).

import json as _json

# journald: short (any locale: the month is whatever strftime's %b gave), short-precise,
# short-iso(-precise), short-full and short-unix, then `host ident[pid]: `.
_JOURNAL = LazyPattern(
    r"^(?:\S{1,12} {1,2}\d{1,2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?"
    r"|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|[A-Za-z]{2,4}\.? \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})? \S+"
    r"|\d{9,11}\.\d{3,6})"
    r" ((?!\d{4}-\d{2}-\d{2})\S+) ([^\s:\[]+)(?:\[\d+\])?: ?"  # (a host is not a second time stamp)
)


def _journal(line: str):
    """_JOURNAL.match(line), tried only where it can match: every form of its time stamp has a
    `:` within 20 characters, but the Unix one, which starts with a digit."""
    return _JOURNAL.match(line) if ":" in line[:20] or line[:1].isdigit() else None


_KUBECTL = LazyPattern(r"^\[(?:pod/)?([\w.-]+)/([\w.-]+)\] ")
_STAMP = LazyPattern(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2}) ")
_COMPOSE = LazyPattern(r"^([A-Za-z0-9][\w.-]*) *\| ?")
_COMPOSE_STRICT = LazyPattern(r"^[A-Za-z0-9][\w.-]* +\| ")  # the padded column compose prints
_DOCKER_JSON = LazyPattern(r'^\{"log":')
# Where one log record starts: Go slog, old Go log, gin, vLLM (<0.11 and later), vLLM process
# tags, llama-server's timestamped lines.
_RECORD = LazyPattern(
    r"^(?:time=\d{4}-\d{2}-\d{2}T|\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2} |\[GIN\] |"
    r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}|\((?:APIServer|EngineCore\w*|VllmWorker\w*) pid=\d+\) |"
    r"\d+\.\d{2}\.\d{3}\.\d{3} [IWEDT] |\{\"|(?:INFO|WARN|ERROR|DEBUG) \[)"
)
# A record glued behind other text (a tqdm bar, a lost newline): split before it.
_GLUED = LazyPattern(
    r"(?<=[^\s(])(?=(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2} |"
    r"\((?:APIServer|EngineCore\w*) pid=\d+\) |time=\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}|\[GIN\] \d{4}/)"
)
MAX_JOINED = 40  # continuation lines joined onto one record at most
# A Python exception's message line (vLLM's refusals are raised as ValueError): its wrapped
# continuation lines belong to it as a record's do.
_EXCEPTION = LazyPattern(r"^(?:\[rank\d+\]:\s*)?(?:[\w.]+\.)?\w*(?:Error|Exception):\s")
_PREFIX_SHARE = 0.5  # a column prefix is stripped when at least this share of lines carries it


def _is_exception(line: str) -> bool:
    return ("Error:" in line or "Exception:" in line) and _EXCEPTION.match(line) is not None


class Repaired(Record):
    """A log or configuration text with what pasting added removed, and what that was. (Plain,
    only ever read: a frozen dataclass costs ~1 ms of every run's start to define.)"""

    __slots__ = ("text", "prefixes", "idents", "joined", "split", "cleaned")

    def __init__(self, text: str, prefixes: tuple[str, ...] = (), idents: tuple[str, ...] = (), joined: int = 0,
                 split: int = 0, cleaned: bool = False) -> None:
        self.text = text
        self.prefixes = prefixes  # kinds stripped: journald, compose, kubectl, docker-timestamp, docker-json
        self.idents = idents  # journald identifiers, compose services, pod/container names seen
        self.joined = joined  # wrapped continuation lines joined
        self.split = split  # glued records split apart
        self.cleaned = cleaned  # line endings, colour codes, quote marks, fences or prompts removed

    @property
    def changed(self) -> bool:
        return bool(self.prefixes or self.joined or self.split or self.cleaned)


def _docker_json(lines: list[str]) -> list[str] | None:
    """Docker's json-file lines (`{"log":"...\\n","stream":"stderr","time":"..."}`) as the text they carry."""
    body = [l for l in lines if l.strip()]
    if not body or sum(1 for l in body if l.startswith('{"') and _DOCKER_JSON.match(l)) < _PREFIX_SHARE * len(body):
        return None
    out = []
    for line in lines:
        if line.startswith('{"') and _DOCKER_JSON.match(line):
            try:
                record = _json.loads(line)
            except ValueError:
                out.append(line)
                continue
            if isinstance(record, dict) and isinstance(record.get("log"), str):
                out.extend(record["log"].rstrip("\n").split("\n"))
                continue
        out.append(line)
    return out


def _strip_line(line: str, compose: bool, kinds: dict, idents: dict) -> str:
    """One line without the prefixes a transport put in front of it, in any nesting."""
    for _ in range(4):
        m = _KUBECTL.match(line) if line.startswith("[") else None
        if m:
            kinds["kubectl"] = None
            idents[m.group(2)] = None
            line = line[m.end():]
            continue
        m = _COMPOSE.match(line.lstrip(" ")) if compose else None
        if m:
            kinds["compose"] = None
            idents[m.group(1)] = None
            line = line.lstrip(" ")[m.end():]
            continue
        m = _STAMP.match(line) if line[:1].isdigit() else None  # (isdigit: whatever \d is, and more)
        if m and not _journal(line):
            kinds["docker-timestamp"] = None
            line = line[m.end():]
            continue
        m = _journal(line)
        if m:
            kinds["journald"] = None
            idents[m.group(2)] = None
            line = line[m.end():]
            continue
        break
    return line


def _has_compose_column(lines: list[str]) -> bool:
    body = [l for l in lines if l.strip() and not l.startswith(("  ", "\t"))]  # not wrapped continuations
    return bool(body) and sum(1 for l in body if " | " in l and _COMPOSE_STRICT.match(l.lstrip(" "))) >= _PREFIX_SHARE * len(body)


def _strip_prefixes(lines: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Strip the per-line prefixes; (lines, kinds stripped, identifiers seen). A compose column
    is recognised on the whole file (it is the user's own name), so it is looked for again
    once an outer prefix (journald, kubectl) is gone."""
    kinds: dict[str, None] = {}
    idents: dict[str, None] = {}
    body = [l for l in lines if l.strip()]
    journal_idents = [m.group(2) for m in map(_journal, body[1:]) if m]
    compose = _has_compose_column(lines)
    out = [_strip_line(line, compose, kinds, idents) for line in lines]
    if not compose and _has_compose_column(out):
        out = [_strip_line(line, True, kinds, idents) for line in out]
    if journal_idents and out and not _journal(lines[0]):
        # a first line cut inside its journald prefix: drop what is left of the prefix
        cut = re.search(r"\b" + re.escape(journal_idents[0]) + r"(?:\[\d+\])?: ?", out[0][:120])
        if cut:
            out[0] = out[0][cut.end():]
    return out, list(kinds), list(idents)


def _split_glued(lines: list[str]) -> tuple[list[str], int]:
    out: list[str] = []
    split = 0
    for line in lines:
        if len(line) > 20 and _GLUED.search(line, 1):
            parts = _GLUED.split(line)
            split += len(parts) - 1
            out.extend(parts)
        else:
            out.append(line)
    return out, split


def _join_wrapped(lines: list[str]) -> tuple[list[str], int]:
    """Join continuation lines onto the line they continue: an indented line (the reporter
    wrapped it at a word, so one space goes back), a line after a comma that goes on with the
    sentence, or any line that continues a record with an open quote (wrapped at a column:
    nothing goes back). An indented block under a header (`Traceback ...:`, a YAML key) and a
    traceback's `File "..."` lines stay as they are."""
    out: list[str] = []
    joined = 0
    run = 0  # lines joined onto out[-1]
    record = False  # out[-1] is a log record
    for line in lines:
        prev = out[-1] if out else ""
        stripped = line.strip()
        if prev.strip() and stripped and run < MAX_JOINED and not _RECORD.match(stripped) \
                and not stripped.startswith(('File "', "Traceback ")):
            tail = prev.rstrip()
            if record and prev.count('"') % 2 == 1 and not line[:1].isspace():
                out[-1] = prev + line
            elif line[:1].isspace() and not tail.endswith(":"):
                out[-1] = tail + " " + stripped
            elif tail.endswith(",") and (stripped[:1].isdigit() or stripped[:1].islower() or stripped[:1] == "("):
                out[-1] = tail + " " + stripped  # a sentence wrapped after a comma (an exception message)
            else:
                out.append(line)
                record, run = bool(_RECORD.match(line) or _is_exception(line)), 0
                continue
            joined, run = joined + 1, run + 1
            continue
        out.append(line)
        record, run = bool(_RECORD.match(line) or _is_exception(line)), 0
    return out, joined


def _zsh_percent(text: str) -> str:
    """zsh marks output that lacks a final newline with `%`; pasted after JSON it breaks parsing."""
    body = text.rstrip()
    if body.endswith(("}%", "]%")):
        return body[:-1] + "\n"
    return text


def repair_log(text: str) -> Repaired:
    """One record per line, without the prefixes copying added (see the section comment)."""
    pasted, text = text, _zsh_percent(normalize_pasted(text))
    lines = text.split("\n")
    prefixes: list[str] = []
    unwrapped = _docker_json(lines)
    if unwrapped is not None:
        lines, prefixes = unwrapped, ["docker-json"]
    lines, kinds, idents = _strip_prefixes(lines)
    lines, split = _split_glued(lines)
    lines, joined = _join_wrapped(lines)
    return Repaired("\n".join(lines), tuple(prefixes + kinds), tuple(idents), joined, split, text != pasted)


def repair_config(text: str) -> Repaired:
    """A configuration file or command output as pasted: prefixes and zsh's `%` removed, nothing joined."""
    text = _zsh_percent(normalize_pasted(text))
    lines, kinds, idents = _strip_prefixes(text.split("\n"))
    return Repaired("\n".join(lines), tuple(kinds), tuple(idents))
