"""Undo what copy and paste does to command output.

Evidence directories are often built by hand from a support ticket: the text comes
with Windows line endings, terminal colour codes, Markdown code fences, e-mail or
GitHub quote markers (nested too), HTML entities from a web page's source, a viewer's
line numbers, and the shell, cmd or PowerShell prompt and command that produced it.
Parsers should see the output itself.
"""
from __future__ import annotations

import re

from llmdoctor.model import Record
from llmdoctor.parsing import LazyPattern

ANSI = LazyPattern(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
FENCE = LazyPattern(r"^\s*(```|~~~)[\w+-]*\s*$")
# A prompt followed by one of the commands whose output we read, e.g.
# `$ ollama ps`, `user@gpu:~$ sudo journalctl -u ollama`, `root@box:/# nvidia-smi`, `PS C:\> ollama ps`
# the prompt itself: sh/zsh (`user@box:~$`, `#`, `%`), a venv's `(name)`, cmd (`C:\Program Files\x>`),
# PowerShell (`PS C:\>`)
PROMPT_HEAD = r"^\s*(?:\([^)]*\)\s*)?(?:[\w.@:~/\\-]*(?:\s?\[\d{1,3}\])?\s?[$#%>]|PS [^>]*>|[A-Za-z]:\\[^<>|\"]*>)\s*"
PROMPT = LazyPattern(
    PROMPT_HEAD +
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


# The entities a web page's source or an HTML mail writes for characters logs are full of.
_ENTITIES = {"&quot;": '"', "&lt;": "<", "&gt;": ">", "&amp;": "&", "&#39;": "'", "&#x27;": "'", "&apos;": "'",
             "&#34;": '"', "&nbsp;": " ", "&#x2F;": "/", "&#47;": "/"}
_ENTITY = LazyPattern("|".join(_ENTITIES))


def _unescape(text: str) -> str:
    """HTML entities back to their characters, in one pass (`&amp;quot;` becomes `&quot;`, once)."""
    if "&" not in text or _ENTITY.search(text) is None:
        return text
    return _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], text)


def _unquote(lines: list[str]) -> list[str]:
    """Quote marks (`> `, nested `> > `, a chat's bar) off every line, when every line has one."""
    for _ in range(4):
        quoted = [l.lstrip() for l in lines if l.strip()]
        mark = quoted[0][0] if quoted else ""
        if mark not in QUOTE_MARKS or not all(l.startswith(mark) for l in quoted):
            break
        lines = [re.sub(rf"^\s*{re.escape(mark)} ?", "", l) for l in lines]
    return lines


# A line-number gutter: a viewer's `  12 | `, `grep -n`'s `12:` (`12-` on context lines), an
# editor's `  12  ` or `12<TAB>`. (A `12:34:56` time is not one.)
_GUTTER = LazyPattern(r"^ *(\d{1,7})(?: *\| ?|:(?!\d\d:\d\d)|-(?!\d)|  |\t|$)")


def _ungutter(lines: list[str]) -> list[str]:
    """Line numbers off every line, when every non-blank line has one and they count up by one
    (what a viewer numbers; columns of a table or vmstat's do not)."""
    if not lines or not lines[0][:8].lstrip()[:1].isdigit():
        return lines
    found = []
    last = None
    for line in lines:
        m = _GUTTER.match(line) if line.strip() else None
        if m is None:
            if line.strip():
                return lines
            found.append(None)
            continue
        n = int(m.group(1))
        if last is not None and n != last + 1:
            return lines
        last = n
        found.append(m)
    if not any(m is not None and m.end() < len(line) for line, m in zip(lines, found)):
        return lines  # numbers alone: the output is the numbers
    return [line if m is None else line[m.end():] for line, m in zip(lines, found)]


def normalize_pasted(text: str) -> str:
    """The command output inside pasted text; text without such debris is returned unchanged."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text:
        text = ANSI.sub("", text)
    text = _unescape(text)
    lines = _ungutter(_unquote(text.split("\n")))
    kept = [l for l in lines if not _is_fence(l) and not _is_prompt(l)]
    if len(kept) < len(lines) and kept and any(l.rstrip().endswith("```") for l in kept[-3:]):
        kept = _closing_fence_glued(kept)
    if len(kept) == len(lines):
        return "\n".join(lines)
    return "\n".join(kept)


def _closing_fence_glued(lines: list[str]) -> list[str]:
    """A block opened by a fence and closed on its last line's end (`...new=2048```): the fence off."""
    for i in range(len(lines) - 1, max(-1, len(lines) - 4), -1):
        if lines[i].strip():
            if lines[i].rstrip().endswith("```"):
                lines = lines[:i] + [lines[i].rstrip()[:-3]] + lines[i + 1:]
            break
    return lines


# -- paste repair: what copying a log out of a terminal, a container or a ticket does -----------
#
# Lines arrive behind a journald prefix in the reader's locale (`5月 21 17:49:23 host ollama[1576]: `),
# a compose service column (`ollama  | `), kubectl's `--prefix` (`[pod/ollama-0/ollama] `) or a
# `docker logs -t` / kubectl `--timestamps` stamp; Docker's json-file driver wraps each in JSON;
# reporters hard-wrap long lines at ~100 columns with indented continuations, and terminals, mail
# clients and chat windows wrap them without indentation (see _unwrap); tqdm bars glue the next
# record onto their own line; a zsh prompt leaves `%` after output with no final newline; `...`
# marks where a reporter cut (see FRAGMENT). `repair_log` undoes all of that so the parsers see one
# record per line; `repair_config` only the parts that can touch a configuration file (prefixes,
# the `%`). (normalize_pasted, for both, takes off quote marks, HTML entities, line-number
# gutters, fences and prompts.)

import json as _json

# journald: short (any locale: the month is whatever strftime's %b gave), short-precise,
# short-iso(-precise), short-full and short-unix, then `host ident[pid]: `.
_JOURNAL = LazyPattern(
    r"^(?:\S{1,12} {1,2}\d{1,2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?"
    r"|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|[A-Za-z]{2,4}\.? \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})? \S+"
    r"|\d{9,11}\.\d{3,6})"
    r" ((?!\d{4}-\d{2}-\d{2})[\w][\w.-]*) ((?!\d+[:\[])[^\s:\[]+)(?:\[\d+\])?: ?"  # (a host is a host name,
    # not a second time stamp nor SGLang's `[2025-12-12`; an identifier is no number: `08:43:59`)
)


def _journal(line: str):
    """_JOURNAL.match(line), tried only where it can match: every form of its time stamp has a
    `:` within 20 characters, but the Unix one, which starts with a digit."""
    return _JOURNAL.match(line) if ":" in line[:20] or line[:1].isdigit() else None


_KUBECTL = LazyPattern(r"^\[(?:pod/)?([\w.-]+)/([\w.-]+)\] ")
_STAMP = LazyPattern(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2}) ")
_COMPOSE = LazyPattern(r"^([A-Za-z0-9][\w.-]*) *\| ?")
# the padded column compose prints (a service has a name: `7.0.0.1 | ` is a gin line cut short)
_COMPOSE_STRICT = LazyPattern(r"^(?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]* +\| ")
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

    __slots__ = ("text", "prefixes", "idents", "joined", "split", "cleaned", "fragments")

    def __init__(self, text: str, prefixes: tuple[str, ...] = (), idents: tuple[str, ...] = (), joined: int = 0,
                 split: int = 0, cleaned: bool = False, fragments: int = 0) -> None:
        self.text = text
        self.prefixes = prefixes  # kinds stripped: journald, compose, kubectl, docker-timestamp, docker-json
        self.idents = idents  # journald identifiers, compose services, pod/container names seen
        self.joined = joined  # wrapped continuation lines joined
        self.split = split  # glued records split apart
        self.cleaned = cleaned  # line endings, colour codes, quote marks, fences or prompts removed
        self.fragments = fragments  # FRAGMENT lines put where the paste marked a cut: fragments - 1

    @property
    def changed(self) -> bool:
        return bool(self.prefixes or self.joined or self.split or self.cleaned or self.fragments)


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
    """Half the lines carry the column, not counting wrapped continuations (indented, or
    starting like no line of a log: a line wrapped without indentation)."""
    body = [l for l in lines if l.strip() and not l.startswith(("  ", "\t"))]
    carry = sum(1 for l in body if " | " in l and _COMPOSE_STRICT.match(l.lstrip(" ")))
    if not carry:
        return False
    if carry >= _PREFIX_SHARE * len(body):
        return True
    if carry < _PREFIX_SHARE * len(body) / 4:  # (no wrap leaves four continuations a line)
        return False
    heads = sum(1 for l in body if _RECORD.match(l) or _TIMED.match(l) or _UNTIMED.match(l))
    return carry >= _PREFIX_SHARE * (carry + heads)


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
                and not stripped.startswith(('File "', "Traceback ", FRAGMENT)) and prev != FRAGMENT:
            tail = prev.rstrip()
            if record and prev.count('"') % 2 == 1 and not line[:1].isspace():
                out[-1] = prev + line
            elif line[:1].isspace() and (not tail.endswith(":") or record and line[1:2].strip()):
                # (after a ':', a block under a header; but a record wrapped at its ': ' goes on,
                # one space in)
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


# -- lines wrapped without indentation ------------------------------------------------------------
#
# A terminal's copy, a fixed-width box or `fold` cuts a long line at exactly N columns, mid-word;
# a mail client or a chat window wraps it at a word, dropping the space. Neither indents what
# follows, so a continuation is told from a line by what a line of a log looks like: it does not
# start like a record (a time stamp, a level), the line before it reached the wrap width (exactly,
# or so nearly that its next word would not have fitted), and it does not start like an untimed
# line of the engines (`llama_model_loader: `, a traceback, a Go frame) unless the record it
# would continue is still open (a quote, a `map[`). The width is the text's longest line: a text
# with a line longer than any wrap width was not wrapped, and nothing is joined.
WRAP_WIDTHS = (40, 250)  # the widths a paste is cut at the column at (a terminal's, a console's)
WORD_WRAP_MAX = 160  # the widest a mail client or chat window wraps at words
# A terminal's widths: where too few lines tell how a text was wrapped, a line of one of these
# was cut at the column, a line of another length at a word
_TERMINAL_WIDTHS = frozenset((*range(40, 251, 10), 72, 132))
_NEAR = 12  # a word-wrapped line ends at most this far before the width (most words are shorter)
# What starts a line of its own in a log even without a time stamp of the records'
_TIMED = LazyPattern(r"^(?:(?:INFO|WARNING|ERROR|DEBUG|CRITICAL|TRACE):\s|\[?\d{2,4}[-/.]\d{2}[-/.]\d{2,4}[ T]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}\b|[A-Z][a-z]{2} \d{1,2} \d{2}:)")
# llama.cpp's `function: ` (llama_model_loader, print_info, srv  update_slots, main, build),
# tracebacks, torch's `[rank0]:`, vLLM's worker tags, Go's panics and frames, separators, old
# llama.cpp server's `slot 0 released` and `update_slots : ` (`"%s : "` with __func__,
# examples/server/server.cpp:1690 @ b1550), a header (`Process EngineCore:`)
_UNTIMED = LazyPattern(
    r"^(?:(?:[a-z][a-z0-9]*_\w*|main|build|system info|(?:srv|slot|que) +\w+|request|panic|fatal error)(?:\[\d+\])? ?: "
    r"|Traceback |File \"|During handling|The above exception|\[rank\d+\]|\(\w+(?: \w+=\w+)* pid=\d+\)"
    r"|[-=*#~.]{3}|[\w.*/-]+\(.*\)$|goroutine \d|[A-Z]\w*(?:Error|Exception|Warning)\b|(?:slot|task) \d+ "
    r"|[\w.-]+(?: [\w.-]+)?:$)"
)



def _shape(text: str) -> str:
    """How a line starts, letters and digits as classes (`INFO:  ` and `Started ` each have one)."""
    return "".join("a" if c.isalpha() else "9" if c.isdigit() else c for c in text[:8])


def _new_line(record: str, line: str) -> bool:
    """Where nothing else tells: the line starts as the record did, or the record ended a
    sentence and the line starts one."""
    return _shape(line) == _shape(record) or record.endswith((".", "!", "?")) and line[:1].isupper() \
        or record.endswith("...")


def _open(record: str) -> bool:
    """A quote, bracket or brace of the record is still open: its next line goes on with it."""
    quotes = record.count('"') - record.count('\\"')
    return quotes % 2 == 1 or record.count("[") > record.count("]") or record.count("{") > record.count("}") \
        or record.count("(") > record.count(")")


def _wrap_width(lines: list[str], lengths: list[int]) -> tuple[int, bool | None] | None:
    """(width, how) of a wrapped text: how is True where it was cut at the column (a line of
    the width ends with a space, which a word wrap drops; or lines of the width cut in three
    different shapes go on on the next line and none ends where a word would not have fitted,
    wider than a word wrap goes at a terminal's width), False where at words
    (two lines end where their next word would not have fitted), None where nothing tells (each
    line of the width then decides by itself; wider than a word wrap goes, none is joined).
    None: not wrapped."""
    width = max(lengths, default=0)
    if not WRAP_WIDTHS[0] <= width <= WRAP_WIDTHS[1]:
        return None
    words = candidates = 0
    cuts: set[str] = set()
    for i in range(1, len(lines)):
        line, p = lines[i], lengths[i - 1]
        if p < width - _NEAR and p + 1 + (line.find(" ") % (len(line) + 1)) <= width:
            continue  # (cheap first: most lines end far from the width and go on with a short word)
        if not line or line[:1].isspace() or _TIMED.match(line) or _RECORD.match(line):
            candidates += p == width and line[:1] == " "  # (cut just before a space)
            continue
        candidates += 1
        if p == width:
            if lines[i - 1].endswith(" ") and lines[i - 1].strip():
                return width, True
            if len(cuts) < 3:
                cuts.add(_shape(lines[i - 1][-8:]) + _shape(line))
        elif p < width < p + 1 + len(line.split(" ", 1)[0]) and not _UNTIMED.match(line):
            words += 1
    if not candidates:
        return None  # no line goes on where another reached the width
    if len(cuts) >= 3 and not words and (width <= WORD_WRAP_MAX or width in _TERMINAL_WIDTHS):
        return width, True  # (lines of one shape wrapped at words can all fit exactly alike)
    if width > WORD_WRAP_MAX:
        return width, None
    return width, False if words >= 2 and width <= WORD_WRAP_MAX else None


_WORD = LazyPattern(r"[A-Za-z]\w+")


def _vocabulary(lines: list[str], lengths: list[int], width: int) -> frozenset[str]:
    """The words of a text but those next to a line of the width's end (cut or not)."""
    seen: set[str] = set()
    for i, line in enumerate(lines[:20000]):
        words = _WORD.findall(line)
        if lengths[i] == width:
            words = words[:-1]
        if i and lengths[i - 1] == width:
            words = words[1:]
        seen.update(words)
    return frozenset(seen)


def _cut_in_word(before: str, after: str, vocabulary) -> bool:
    """Where nothing tells how a text was wrapped: was a line of the width cut at the column
    (inside a word, nothing dropped) or at a word (its space dropped)? The word after the cut
    is one the text uses elsewhere, punctuation ends a word, a lower-case letter before a
    capital or a number before a letter is two words; else the line, of a terminal's width,
    was cut at the column."""
    a, b = before[-1:], after[:1]
    head = _WORD.match(after)
    if head and len(head.group(0)) >= 3 and head.group(0) in vocabulary():
        return False
    if a in ",;:!?" or a.islower() and (b.isupper() or b.isdigit()) or a.isalpha() and b in "([" \
            or a.isdigit() and b.isalpha() or before.endswith(" =") and b.isdigit() or a == '"' and not _open(before):
        return False
    return True


class _Lazy:
    """A value made on its first call (a text's vocabulary: only where a cut is in doubt)."""

    def __init__(self, make) -> None:
        self.make, self.value = make, None

    def __call__(self):
        if self.value is None:
            self.value = self.make()
        return self.value


def _unwrap(lines: list[str], lengths: list[int]) -> tuple[list[str], int]:
    """Join unindented continuation lines (see the section comment); `lengths` are the lines'
    lengths as pasted, before prefixes came off. Each line looks back at one line and the
    record it would join; a record takes MAX_JOINED lines at most."""
    wrap = _wrap_width(lines, lengths) if len(lines) > 1 else None
    if wrap is None:
        return lines, 0
    width, hard = wrap
    vocabulary = _Lazy(lambda: _vocabulary(lines, lengths, width))
    out: list[str] = []
    joined = run = 0
    prev_len = 0
    for line, n in zip(lines, lengths):
        p, prev_len = prev_len, n
        if p == width and line[:1] == " " and line[1:2].strip() and out and out[-1].strip() and run < MAX_JOINED \
                and (hard or hard is None and p in _TERMINAL_WIDTHS):
            out[-1] += line  # cut at the column just before a space (kept: nothing was dropped)
            joined, run = joined + 1, run + 1
            continue
        if out and out[-1] and line and not line[:1].isspace() and run < MAX_JOINED and out[-1] != FRAGMENT \
                and line != FRAGMENT and not _TIMED.match(line) and not _RECORD.match(line):
            record = out[-1]
            word = line.split(" ", 1)[0]
            at_word = weak_ok = None
            if p == width:
                if hard:  # cut at the column: nothing was dropped
                    at_word, weak_ok = False, True
                elif hard is False:  # a word that fitted exactly, or one longer than a line cut at it
                    at_word = len(record.rsplit(" ", 1)[-1]) + len(word) <= width
                elif width > WORD_WRAP_MAX:
                    pass  # one long line, or a few: not wrapped
                elif _new_line(record, line):
                    pass
                elif p in _TERMINAL_WIDTHS:
                    at_word = not _cut_in_word(record, line, vocabulary)
                    weak_ok = not at_word and record[-1:].isalnum() and line[:1].isalnum() \
                        and bool(_TIMED.match(record) or _RECORD.match(record))  # inside a word of a timed
                    # record: the line that goes on has no time stamp of its own
                elif p + 1 + len(word) > min(w for w in _TERMINAL_WIDTHS if w > p):
                    at_word = True  # the longest line, of no terminal's width: wrapped at a word if
                    # its next word would not have fitted in the next terminal width
            elif hard is False and p < width < p + 1 + len(word) or hard is None and width <= WORD_WRAP_MAX \
                    and width - _NEAR <= p < width < p + 1 + len(word) and not _new_line(record, line):
                at_word = True  # the next word did not fit: its space was dropped
            if at_word is not None and (weak_ok or _open(record) or not _UNTIMED.match(line)):
                out[-1] = record + (" " if at_word and not record.endswith(" ") else "") + line
                joined, run = joined + 1, run + 1
                continue
        out.append(line)
        run = 0
    return out, joined


# -- fragments: pieces of a log pasted from different moments --------------------------------------
#
# A reporter marks what they left out with `...`, `[...]`, `<snip>`: the lines on either side
# may be hours or days apart, so no idle gap, rate or trend may be taken across. Repair puts
# FRAGMENT in place of such a line; every scanner that takes a time difference between two lines
# starts afresh at it (`line.startswith(FRAGMENT)` is all they test).
FRAGMENT = "-- llmdoctor: a separate fragment of the log starts here --"
_SNIP = LazyPattern(r"^\s*(?:\.{3,}|\u2026|\[\s*(?:\.{3,}|\u2026|snip\w*|truncated|\w+ lines? \w+)\s*\]"
                    r"|\(\s*(?:\.{3,}|\u2026|snip\w*|truncated)\s*\)|<\s*snip\w*\s*>|-+ *snip\w* *-+|# *\.{3,})\s*$",
                    re.I)


def _mark_fragments(lines: list[str]) -> tuple[list[str], int]:
    """Separator lines as FRAGMENT (one per gap; none before the first line or after the last)."""
    if not any(l[:1] in ".\u2026[(<-#" or l[:1].isspace() for l in lines):
        return lines, 0
    out: list[str] = []
    marks = 0
    for line in lines:
        if len(line) < 40 and line.strip()[:1] in ".\u2026[(<-#" and _SNIP.match(line):
            if out and any(l.strip() for l in out) and out[-1] != FRAGMENT:
                out.append(FRAGMENT)
                marks += 1
            continue
        out.append(line)
    if marks:
        last = len(out) - 1
        while last >= 0 and out[last] == "":
            last -= 1
        if last >= 0 and out[last] == FRAGMENT:  # nothing after the last cut
            del out[last]
            marks -= 1
    return out, marks


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
    lines, marks = _mark_fragments(lines)
    lengths = [len(l) for l in lines]
    lines, kinds, idents = _strip_prefixes(lines)
    lines, unwrapped = _unwrap(lines, lengths)
    lines, split = _split_glued(lines)
    lines, joined = _join_wrapped(lines)
    return Repaired("\n".join(lines), tuple(prefixes + kinds), tuple(idents), joined + unwrapped, split,
                    text != pasted, marks)


def repair_config(text: str) -> Repaired:
    """A configuration file or command output as pasted: prefixes and zsh's `%` removed, nothing joined."""
    text = _zsh_percent(normalize_pasted(text))
    lines, kinds, idents = _strip_prefixes(text.split("\n"))
    return Repaired("\n".join(lines), tuple(kinds), tuple(idents))
