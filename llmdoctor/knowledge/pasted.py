"""Undo what copy and paste does to command output.

Evidence directories are often built by hand from a support ticket: the text comes
with Windows line endings, terminal colour codes, Markdown code fences, e-mail or
GitHub quote markers (nested too), HTML entities from a web page's source, a viewer's
line numbers, and the shell, cmd or PowerShell prompt and command that produced it.
Parsers should see the output itself.
"""
from __future__ import annotations

import io
import itertools
import re
from typing import Iterable, Iterator

from llmdoctor.model import Record, record
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


# One of them after a prompt character: `[$#%>]`, blanks, then sudo or a command, or a first word
# naming llama-server (searched for in one pass: most lines have none of these characters)
_AFTER_PROMPT_CHAR = LazyPattern(r"[$#%>]\s*(?:" + "|".join(_PROMPT_STARTS) + r"|\S*llama-server)")


def _command_after_prompt_char(line: str) -> bool:
    return _AFTER_PROMPT_CHAR.search(line) is not None


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


@record
class Repaired(Record):
    """A log or configuration text with what pasting added removed, and what that was. (Plain,
    only ever read: a frozen dataclass costs ~1 ms of every run's start to define.)"""

    text: str
    prefixes: tuple[str, ...] = ()  # kinds stripped: journald, compose, kubectl, docker-timestamp, docker-json
    idents: tuple[str, ...] = ()  # journald identifiers, compose services, pod/container names seen
    joined: int = 0  # wrapped continuation lines joined
    split: int = 0  # glued records split apart
    cleaned: bool = False  # line endings, colour codes, quote marks, fences or prompts removed
    fragments: int = 0  # FRAGMENT lines put where the paste marked a cut: fragments - 1

    @property
    def changed(self) -> bool:
        return bool(self.prefixes or self.joined or self.split or self.cleaned or self.fragments)


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
# examples/server/server.cpp:1690 @ b1550), a header (`Process EngineCore:`), old llama.cpp's
# `[1707364943] ` (common/log.h:177 @ b1550-b3600, LOG_TIMESTAMP_FMT "[%" PRIu64 "] ": seconds since
# the epoch, as llamafile's server logs)
_UNTIMED = LazyPattern(
    r"^(?:(?:[a-z][a-z0-9]*_\w*|main|build|system info|(?:srv|slot|que) +\w+|request|panic|fatal error)(?:\[\d+\])? ?: "
    r"|Traceback |File \"|During handling|The above exception|\[rank\d+\]|\(\w+(?: \w+=\w+)* pid=\d+\)"
    r"|[-=*#~.]{3}|[\w.*/-]+\(.*\)$|goroutine \d|[A-Z]\w*(?:Error|Exception|Warning)\b|(?:slot|task) \d+ "
    r"|[\w.-]+(?: [\w.-]+)?:$|\[\d{9,10}\] )"
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


_WORD = LazyPattern(r"[A-Za-z]\w+")


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


def _zsh_percent(text: str) -> str:
    """zsh marks output that lacks a final newline with `%`; pasted after JSON it breaks parsing."""
    body = text.rstrip()
    if body.endswith(("}%", "]%")):
        return body[:-1] + "\n"
    return text


def _compose_verdict(body: int, carry: int, heads) -> bool:
    """Half the lines carry compose's column, not counting wrapped continuations (indented, or
    starting like no line of a log: a line wrapped without indentation). `body`: the non-blank,
    unindented lines; `carry`: those with the column; `heads()`: those starting like a log line
    (counted only where the share is in doubt)."""
    if not carry:
        return False
    if carry >= _PREFIX_SHARE * body:
        return True
    if carry < _PREFIX_SHARE * body / 4:  # (no wrap leaves four continuations a line)
        return False
    return carry >= _PREFIX_SHARE * (carry + heads())


def _compose_body(line: str) -> bool:
    return bool(line.strip()) and not line.startswith(("  ", "\t"))


def _compose_carry(line: str) -> bool:
    return " | " in line and _COMPOSE_STRICT.match(line.lstrip(" ")) is not None


def _compose_head(line: str) -> bool:
    return bool(_RECORD.match(line) or _TIMED.match(line) or _UNTIMED.match(line))


def _has_compose_column(lines: Iterable[str]) -> bool:
    """_compose_verdict over lines held in memory (a configuration text)."""
    body = [l for l in lines if _compose_body(l)]
    return _compose_verdict(len(body), sum(1 for l in body if _compose_carry(l)),
                            lambda: sum(1 for l in body if _compose_head(l)))


def repair_config(text: str) -> Repaired:
    """A configuration file or command output as pasted: prefixes and zsh's `%` removed, nothing joined.
    (A configuration text is small: it is repaired in memory.)"""
    lines = _zsh_percent(normalize_pasted(text)).split("\n")
    kinds: dict[str, None] = {}
    idents: dict[str, None] = {}
    body = [l for l in lines if l.strip()]
    ident0 = next((m.group(2) for m in map(_journal, body[1:]) if m), None)
    compose = _has_compose_column(lines)
    out = [_strip_line(line, compose, kinds, idents) for line in lines]
    if not compose and _has_compose_column(out):
        out = [_strip_line(line, True, kinds, idents) for line in out]
    if out:
        out[0] = _first_line_cut(lines[0], out[0], ident0)
    return Repaired("\n".join(out), tuple(kinds), tuple(idents))


def _first_line_cut(line: str, stripped: str, ident: str | None) -> str:
    """A first line cut inside its journald prefix (the paste began mid-line): what is left of
    the prefix off, where later lines name the identifier."""
    if ident is not None and not _journal(line):
        cut = re.search(r"\b" + re.escape(ident) + r"(?:\[\d+\])?: ?", stripped[:120])
        if cut:
            return stripped[cut.end():]
    return stripped


# -- repair as a stream -----------------------------------------------------------------------------
#
# Some of repair is decided on the whole text: are all lines quoted, numbered, Docker JSON? is
# there a compose column? the wrap width (the longest line) and the shapes of its cuts. A pasted
# log can be hundreds of MB, so it is never held: it is read as a stream more than once. First
# passes keep only counters (the _Plan); the last repairs line by line, holding at most a record
# being joined (MAX_JOINED lines), the last three lines (a fence glued to the last line), the
# blank lines at the end (zsh's `%`) and a cut mark with the empty lines after it (a cut with
# nothing after it is dropped). The passes only some texts need (quote marks, line numbers, a
# compose column behind another prefix, the wrap width and its vocabulary) run only when a first
# look says they can change something.

_GLUED_AT = LazyPattern(  # what _GLUED looks ahead for, to find its candidates fast (it looks behind first)
    r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2} |"
    r"\((?:APIServer|EngineCore\w*) pid=\d+\) |time=\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}|\[GIN\] \d{4}/"
)


def _glued(line: str) -> bool:
    """_GLUED.search(line, 1), faster: a record's start after a character that is neither a
    blank nor `(`. (No start lies inside another, so skipping past a rejected one misses none.)"""
    for m in _GLUED_AT.finditer(line, 1):
        c = line[m.start() - 1]
        if c != "(" and not c.isspace():
            return True
    return False


def _ended(raw: Iterable[str], seen: dict) -> Iterator[str]:
    """Lines without their ends, as `text.replace("\r\n", "\n").replace("\r", "\n").split("\n")`
    gives them; `raw` yields lines with their ends (a file or StringIO opened with newline="")."""
    ended = True
    for line in raw:
        end = line[-1:]
        if end == "\n":
            if line.endswith("\r\n"):
                seen["cr"] = True
                line = line[:-2]
            else:
                line = line[:-1]
        elif end == "\r":
            seen["cr"] = True
            line = line[:-1]
        else:
            ended = False  # (only a last line has no end)
            yield line
            continue
        ended = True
        yield line
    if ended:
        yield ""


def _visible(line: str) -> str:
    """A line without colour codes and HTML entities."""
    if "\x1b" in line:
        line = ANSI.sub("", line)
    return _unescape(line) if "&" in line else line


class _Plan:
    """What the whole text decides, gathered in passes that keep only counters, then the repair
    itself as a chain of generators over a fresh reading of the text."""

    def __init__(self, source, keep: bool = False) -> None:
        self.source = source  # () -> the text's lines, with their ends
        self.keep = keep  # the text is in memory anyway: keep its lines as pasted, read them once
        self._kept: tuple | None = None  # (lines before prefixes come off, marks, cleaned, seen)
        self.seen: dict[str, bool] = {}  # cr: a carriage return was taken out
        self.quotes: list[re.Pattern[str]] = []  # one per level of quote marks, outermost first
        self.gutter = False
        self.docker = False
        self.compose = self.compose2 = False
        self.ident0: str | None = None  # the first journald identifier after the first line
        self.lines = self.width = 0  # lines as pasted, and the longest's length (the wrap width)
        self.wrap: tuple[int, bool | None] | None = None
        self.vocabulary: frozenset[str] | None = None
        self.cleaned = False
        self.kinds: dict[str, None] = {}
        self.idents: dict[str, None] = {}
        self.joined = self.split = self.marks = 0

    # -- the stages, in the order repair_log applied them --------------------------------------
    def _lines(self) -> Iterator[str]:
        return _ended(self.source(), self.seen)

    def _unquoted(self) -> Iterator[str]:
        quotes = self.quotes
        for line in self._lines():
            line = _visible(line)
            for q in quotes:
                line = q.sub("", line, count=1)
            yield line

    def _normalized(self) -> Iterator[str]:
        """normalize_pasted, then zsh's `%` (_zsh_percent)."""
        held: list[str] = []  # the last three lines kept
        removed = False
        gutter = self.gutter
        for raw in self._lines():
            line = _visible(raw)
            for q in self.quotes:
                line = q.sub("", line, count=1)
            if gutter and line.strip():
                line = line[_GUTTER.match(line).end():]
            if line != raw:
                self.cleaned = True
            if _is_fence(line) or _is_prompt(line):
                removed = True
                continue
            held.append(line)
            if len(held) > 3:
                yield held.pop(0)
        if removed:
            self.cleaned = True
            if held and any(l.rstrip().endswith("```") for l in held):
                held = _closing_fence_glued(held)
        yield from held

    def _zsh(self, lines: Iterable[str]) -> Iterator[str]:
        last = None  # the last non-blank line, held with the blank lines after it
        blanks: list[list] = []  # [line, times] runs
        for line in lines:
            if line.strip():
                if last is not None:
                    yield last
                    for b, n in blanks:
                        for _ in range(n):
                            yield b
                    blanks = []
                last = line
            elif last is None:
                yield line
            elif blanks and blanks[-1][0] == line:
                blanks[-1][1] += 1
            else:
                blanks.append([line, 1])
        if last is None:
            return
        body = last.rstrip()
        if body.endswith(("}%", "]%")):
            self.cleaned = True
            yield body[:-1]
            yield ""
            return
        yield last
        for b, n in blanks:
            for _ in range(n):
                yield b

    def _docker_json(self, lines: Iterable[str]) -> Iterator[str]:
        """Docker's json-file lines (`{"log":"...\\n","stream":"stderr","time":"..."}`) as the text they carry."""
        for line in lines:
            if line.startswith('{"') and _DOCKER_JSON.match(line):
                try:
                    record = _json.loads(line)
                except ValueError:
                    yield line
                    continue
                if isinstance(record, dict) and isinstance(record.get("log"), str):
                    yield from record["log"].rstrip("\n").split("\n")
                    continue
            yield line

    def _fragments(self, lines: Iterable[str]) -> Iterator[str]:
        """Separator lines as FRAGMENT (one per gap; none before the first line or after the last)."""
        seen = False  # a non-blank line was put out
        last = None  # the line put out last
        held = -1  # a FRAGMENT is held, followed by this many empty lines (-1: none held)
        for line in lines:
            if len(line) < 40 and line.strip()[:1] in ".\u2026[(<-#" and _SNIP.match(line):
                if seen and last != FRAGMENT:
                    if held >= 0:
                        yield FRAGMENT
                        yield from [""] * held
                    held, last = 0, FRAGMENT
                    self.marks += 1
                continue
            if held >= 0:
                if line == "":
                    held += 1
                    last = line
                    continue
                yield FRAGMENT
                yield from [""] * held
                held = -1
            if line == FRAGMENT:  # (one already in the text: the last is dropped as one put here)
                held, last, seen = 0, FRAGMENT, True
                continue
            yield line
            last = line
            seen = seen or bool(line.strip())
        if held >= 0:  # nothing after the last cut
            self.marks -= 1
            yield from [""] * held

    def _pasted(self) -> Iterator[str]:
        """The lines before prefixes come off: their lengths are the wrap's."""
        if self._kept is not None:
            lines, self.marks, self.cleaned, seen = self._kept
            self.seen.update(seen)
            return iter(lines)
        lines = self._zsh(self._normalized())
        return self._fragments(self._docker_json(lines) if self.docker else lines)

    def _stripped(self) -> Iterator[tuple[str, int]]:
        """(line without its prefixes, its length before)."""
        compose, compose2, kinds, idents = self.compose, self.compose2, {}, {}
        kinds2: dict[str, None] = {}
        idents2: dict[str, None] = {}
        first = True
        for line in self._pasted():
            out = _strip_line(line, compose, kinds, idents)
            if compose2:
                out = _strip_line(out, True, kinds2, idents2)
            if first:
                first = False
                out = _first_line_cut(line, out, self.ident0)
            yield out, len(line)
        kinds.update(kinds2)  # (as stripping all lines twice into one dict would order them)
        idents.update(idents2)
        self.kinds, self.idents = kinds, idents

    def _unwrapped(self, pairs: Iterable[tuple[str, int]]) -> Iterator[str]:
        """Join unindented continuation lines (see the section comment). Each line looks back at
        one line and the record it would join; a record takes MAX_JOINED lines at most."""
        if self.wrap is None:
            for line, _ in pairs:
                yield line
            return
        width, hard = self.wrap
        vocabulary = self._vocabulary
        last = None  # the line put out last, still being joined onto
        run = prev_len = 0
        for line, n in pairs:
            p, prev_len = prev_len, n
            if p == width and line[:1] == " " and line[1:2].strip() and last is not None and last.strip() \
                    and run < MAX_JOINED and (hard or hard is None and p in _TERMINAL_WIDTHS):
                last += line  # cut at the column just before a space (kept: nothing was dropped)
                self.joined, run = self.joined + 1, run + 1
                continue
            if last and line and not line[:1].isspace() and run < MAX_JOINED and last != FRAGMENT \
                    and line != FRAGMENT and not _TIMED.match(line) and not _RECORD.match(line):
                record = last
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
                    last = record + (" " if at_word and not record.endswith(" ") else "") + line
                    self.joined, run = self.joined + 1, run + 1
                    continue
            if last is not None:
                yield last
            last, run = line, 0
        if last is not None:
            yield last

    def _split_glued(self, lines: Iterable[str]) -> Iterator[str]:
        for line in lines:
            if len(line) > 20 and _glued(line):
                parts = _GLUED.split(line)
                self.split += len(parts) - 1
                yield from parts
            else:
                yield line

    def _join_wrapped(self, lines: Iterable[str]) -> Iterator[str]:
        """Join continuation lines onto the line they continue: an indented line (the reporter
        wrapped it at a word, so one space goes back), a line after a comma that goes on with the
        sentence, or any line that continues a record with an open quote (wrapped at a column:
        nothing goes back). An indented block under a header (`Traceback ...:`, a YAML key) and a
        traceback's `File "..."` lines stay as they are."""
        last = None  # the line put out last, still being joined onto
        run = 0  # lines joined onto it
        record = False  # it is a log record
        for line in lines:
            prev = last if last is not None else ""
            stripped = line.strip()
            if prev.strip() and stripped and run < MAX_JOINED and not _RECORD.match(stripped) \
                    and not stripped.startswith(('File "', "Traceback ", FRAGMENT)) and prev != FRAGMENT:
                tail = prev.rstrip()
                if record and prev.count('"') % 2 == 1 and not line[:1].isspace():
                    last = prev + line
                elif line[:1].isspace() and (not tail.endswith(":") or record and line[1:2].strip()):
                    # (after a ':', a block under a header; but a record wrapped at its ': ' goes on,
                    # one space in)
                    last = tail + " " + stripped
                elif tail.endswith(",") and (stripped[:1].isdigit() or stripped[:1].islower() or stripped[:1] == "("):
                    last = tail + " " + stripped  # a sentence wrapped after a comma (an exception message)
                else:
                    yield prev
                    last, run = line, 0
                    record = bool(_RECORD.match(line) or _is_exception(line))
                    continue
                self.joined, run = self.joined + 1, run + 1
                continue
            if last is not None:
                yield last
            last, run = line, 0
            record = bool(_RECORD.match(line) or _is_exception(line))
        if last is not None:
            yield last

    def repaired(self) -> Iterator[str]:
        return self._join_wrapped(self._split_glued(self._unwrapped(self._stripped())))

    # -- the passes that make the plan -----------------------------------------------------------
    def make(self) -> None:
        self._plan_quotes()
        self._plan_gutter()
        self._plan_lines()
        self._plan_wrap()
        # (the passes counted as they went: the repair counts afresh)
        self.seen.clear()
        self.cleaned = False
        self.joined = self.split = self.marks = 0

    def _plan_quotes(self) -> None:
        """Quote marks off every line, when every non-blank line has one (nested: up to four
        levels, each with the first non-blank line's mark)."""
        first = next((l for l in map(_visible, self._lines()) if l.strip()), "")
        if first.lstrip()[:1] not in QUOTE_MARKS:
            return
        marks: list[str | None] = [None] * 4
        alive = 4  # levels still possible
        for line in map(_visible, self._lines()):
            for k in range(alive):
                s = line.lstrip()
                if not s:
                    break
                if marks[k] is None:
                    marks[k] = s[0]
                    if s[0] not in QUOTE_MARKS:
                        alive = k
                        break
                elif s[0] != marks[k]:
                    alive = k
                    break
                line = re.sub(rf"^\s*{re.escape(marks[k])} ?", "", line, count=1)
        for m in marks[:alive]:
            if m is None:  # a level no line reaches: it and those inside it are not quotes
                break
            self.quotes.append(re.compile(rf"^\s*{re.escape(m)} ?"))

    def _plan_gutter(self) -> None:
        """Line numbers off every line, when every non-blank line has one and they count up by one
        (what a viewer numbers; columns of a table or vmstat's do not)."""
        first = next(iter(self._unquoted()), "")
        if not first[:8].lstrip()[:1].isdigit():
            return
        last = None
        content = False  # a number with more after it (numbers alone are the output)
        for line in self._unquoted():
            if not line.strip():
                continue
            m = _GUTTER.match(line)
            if m is None:
                return
            n = int(m.group(1))
            if last is not None and n != last + 1:
                return
            last = n
            content = content or m.end() < len(line)
        self.gutter = content

    def _plan_lines(self) -> None:
        """Docker JSON, the compose column, the first journald identifier and the longest line, in
        one pass (a second where Docker JSON changes the lines, a third for the rare doubtful
        compose column)."""
        body = djson = 0
        lines = self._zsh(self._normalized())

        def counted(lines):
            nonlocal body, djson
            for line in lines:
                if line.strip():
                    body += 1
                    djson += line.startswith('{"') and _DOCKER_JSON.match(line) is not None
                yield line

        if self.keep:
            lines = list(counted(lines))
            self.docker = bool(body and djson >= _PREFIX_SHARE * body)
            self.marks = 0
            pasted = list(self._fragments(self._docker_json(lines) if self.docker else lines))
            self._kept = pasted, self.marks, self.cleaned, dict(self.seen)
            stats = self._line_stats(pasted)
        else:
            stats = self._line_stats(self._fragments(counted(lines)))
            if body and djson >= _PREFIX_SHARE * body:
                self.docker = True
                stats = self._line_stats(self._pasted())
        self.lines, self.width, carry, carry2, self.ident0 = stats
        if carry:
            self.compose = _compose_verdict(sum(1 for l in self._pasted() if _compose_body(l)), carry, lambda: sum(
                1 for l in self._pasted() if _compose_body(l) and _compose_head(l)))
        if not self.compose and carry2:
            self.compose2 = self._compose_after_strip()

    @staticmethod
    def _line_stats(lines: Iterable[str]):
        """(lines, longest, lines with compose's column, lines that may have it behind another
        prefix, the first journald identifier after the first non-blank line). What only a
        text with the column needs is counted on another reading."""
        count = width = carry = carry2 = 0
        ident0 = None
        nonblank = 0
        for line in lines:
            count += 1
            n = len(line)
            if n > width:
                width = n
            if ident0 is None and line.strip():
                nonblank += 1
                if nonblank > 1:
                    m = _journal(line)
                    if m:
                        ident0 = m.group(2)
            if " | " in line:
                carry += _compose_body(line) and _compose_carry(line)
                carry2 += _compose_carry(_strip_line(line, False, {}, {}))  # (candidates behind a prefix)
        return count, width, carry, carry2, ident0

    def _compose_after_strip(self) -> bool:
        """_compose_verdict on the lines with the outer prefixes off."""
        body = carry = 0
        for line in self._pasted():
            out = _strip_line(line, False, {}, {})
            if _compose_body(out):
                body += 1
                carry += _compose_carry(out)
        return _compose_verdict(body, carry, lambda: sum(
            1 for l in self._pasted() if _compose_body(o := _strip_line(l, False, {}, {})) and _compose_head(o)))

    def _plan_wrap(self) -> None:
        """(width, how) of a wrapped text: how is True where it was cut at the column (a line of
        the width ends with a space, which a word wrap drops; or lines of the width cut in three
        different shapes go on on the next line and none ends where a word would not have fitted,
        wider than a word wrap goes at a terminal's width), False where at words
        (two lines end where their next word would not have fitted), None where nothing tells (each
        line of the width then decides by itself; wider than a word wrap goes, none is joined).
        None: not wrapped. The width is the longest line."""
        width = self.width
        if self.lines <= 1 or not WRAP_WIDTHS[0] <= width <= WRAP_WIDTHS[1]:
            return
        words = candidates = 0
        cuts: set[str] = set()
        before = None  # the line before, and its length
        p = 0
        for line, n in self._stripped():
            if before is not None and not (p < width - _NEAR and p + 1 + (line.find(" ") % (len(line) + 1)) <= width):
                # (cheap first: most lines end far from the width and go on with a short word)
                if not line or line[:1].isspace() or _TIMED.match(line) or _RECORD.match(line):
                    candidates += p == width and line[:1] == " "  # (cut just before a space)
                else:
                    candidates += 1
                    if p == width:
                        if before.endswith(" ") and before.strip():
                            self.wrap = width, True
                            return
                        if len(cuts) < 3:
                            cuts.add(_shape(before[-8:]) + _shape(line))
                    elif p < width < p + 1 + len(line.split(" ", 1)[0]) and not _UNTIMED.match(line):
                        words += 1
            before, p = line, n
        if not candidates:
            return  # no line goes on where another reached the width
        if len(cuts) >= 3 and not words and (width <= WORD_WRAP_MAX or width in _TERMINAL_WIDTHS):
            self.wrap = width, True  # (lines of one shape wrapped at words can all fit exactly alike)
        elif width > WORD_WRAP_MAX:
            self.wrap = width, None
        else:
            self.wrap = width, False if words >= 2 and width <= WORD_WRAP_MAX else None

    def _vocabulary(self) -> frozenset[str]:
        """The words of the text's first 20000 lines but those next to a line of the width's end
        (cut or not); made on the first doubtful cut, from a reading of its own."""
        if self.vocabulary is None:
            width = self.wrap[0]
            seen: set[str] = set()
            kept = self.kinds, self.idents, self.marks, self.cleaned  # (this reading is not the repair's)
            p = None
            for line, n in itertools.islice(self._stripped(), 20000):
                words = _WORD.findall(line)
                if n == width:
                    words = words[:-1]
                if p == width:
                    words = words[1:]
                seen.update(words)
                p = n
            self.kinds, self.idents, self.marks, self.cleaned = kept
            self.vocabulary = frozenset(seen)
        return self.vocabulary


def repair_log_stream(source, write, keep: bool = False) -> Repaired:
    """Repair a log read as a stream (see the section comment): `source()` gives the text's lines
    with their ends (a file opened with newline=""), afresh on each call; `write` gets the repaired
    text in pieces. The Repaired returned says what was done; its text is empty. `keep`: the text
    is small or in memory anyway: its lines are kept between the passes instead of read again."""
    plan = _Plan(source, keep)
    plan.make()
    first = True
    for line in plan.repaired():
        if first:
            write(line)
            first = False
        else:
            write("\n" + line)
    cleaned = plan.cleaned or bool(plan.seen)
    return Repaired("", tuple((["docker-json"] if plan.docker else []) + list(plan.kinds)), tuple(plan.idents),
                    plan.joined, plan.split, cleaned, plan.marks)


def repair_log(text: str) -> Repaired:
    """One record per line, without the prefixes copying added (see the section comment); the
    text is repaired as a stream (repair_log_stream)."""
    parts: list[str] = []
    r = repair_log_stream(lambda: io.StringIO(text, newline=""), parts.append, keep=True)
    r.text = "".join(parts)
    return r
