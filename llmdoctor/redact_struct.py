"""Values in structured evidence kept by name, not by shape: the keep-list.

Why: a list of token shapes always trails the next provider's prefix, but the structure of
the evidence says where a secret can be. In an environment listing (`NAME=value` in env
files, `/proc/PID/environ`, unit `Environment=` lines, a container's `Env`, compose's
`environment:`, a pod's `env:` in either key order) and on a command line (argv, JSON and
YAML lists, `docker inspect`'s `Args`/`Cmd`, `kubectl describe`'s `Args:` block, Python
reprs, shell-quoted values with spaces) a value is kept only when its name is a setting the
diagnosis reads (settings_names.py) or the value is plainly not a secret (a number,
a boolean, a size, a duration, a path, an address, a placeholder). Any other value becomes
`<redacted>` with its name kept, and `Withheld` counts them for the report (distinct values:
one secret in an evidence line and again in a fix is one value withheld).

Each pass starts at a cheap literal (`--`, `=`, `name`, `:`) so a log without structure
costs a few `find`s.
"""
from __future__ import annotations

import re
import threading
from functools import cache

from llmdoctor.settings_names import is_setting_flag, is_setting_variable

REDACTED = "<redacted>"
_withheld = [0]
_local = threading.local()  # the Withheld tally open in this thread (targets are diagnosed in threads)


def withheld(reset: bool = False) -> int:
    """How many values the keep-list withheld since the last reset (every thread, each time)."""
    n = _withheld[0]
    if reset:
        _withheld[0] = 0
    return n


class Withheld:
    """`with Withheld() as w:` ... `w.count`: the distinct values the keep-list withheld in this
    thread while it was open (a report's, a bundle's). Tallies nest: an outer one sees the inner's."""

    def __init__(self) -> None:
        self.values: set[int] = set()  # hashes: a count is all that leaves, never a value
        self._outer: Withheld | None = None

    def __enter__(self) -> "Withheld":
        self._outer = getattr(_local, "tally", None)
        _local.tally = self
        return self

    def __exit__(self, *exc) -> None:
        _local.tally = self._outer
        if self._outer is not None:
            self._outer.values |= self.values

    @property
    def count(self) -> int:
        return len(self.values)


# what a value may be and still be shown under any name
_PLAIN = re.compile(r"""(?ix)
    [-+]?\d+(?:[.,]\d+)?(?:e[-+]?\d+)?%?                       # a number
  | [-+]?0x[0-9a-f]{1,16}
  | true|false|yes|no|on|off|none|null|nil|auto|enabled?|disabled?|default
  | \d+(?:\.\d+)?[ ]?(?:[kmgtpe]i?b?|b|bytes?)                 # a size
  | (?:[-+]?\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d|w))+           # a duration
  | (?:/|\./|\.\./|~/)[^\s"'<>|;&`$]*                         # a path
  | [\w.-]+\.(?:gguf|ggml|bin|safetensors|pt|pth|onnx|json|jinja|jinja2|yaml|yml|toml|txt|log|py|sock)
  | [a-z][a-z0-9+.-]*://[^\s@/?#"']*(?:/[^\s?#@"']*)?          # a URL with no user part or query
  | (?:\d{1,3}\.){3}\d{1,3}(?::\d+)?|\[?[0-9a-f:]*::[0-9a-f:]*\]?(?::\d+)?|[a-z][\w.-]*:\d{1,5}  # an address
  | [a-z]{1,3}\d?(?:_[a-z0-9]{1,4})?                           # a short code: q8_0, f16, fp8
  | (?:(?:cuda|rocm|vulkan|metal|sycl|cpu|gpu|hip|mps|npu):?\d*,?)+  # devices: ROCm0, cuda:0,1
  | <[^<>\n]*>(?:\s.*)?|\$\{?\w+\}?|%\w+%|\*+|x+|\.\.\.|…|-    # a placeholder or an expansion
  | (?-i:[A-Z][A-Z_]{0,15})                                    # a placeholder in capitals (PATH, N)
""")


def plain(value: str) -> bool:
    """A number, boolean, size, duration, path, address or placeholder: not a secret."""
    v = value.strip().rstrip("*")  # (a trailing * is llmdoctor's own mark of an engine's default)
    return not v or v == "?" or bool(_PLAIN.fullmatch(v))


def _count(value: str) -> None:
    """One value withheld: counted, and added to this thread's open tally."""
    _withheld[0] += 1
    tally = getattr(_local, "tally", None)
    if tally is not None:
        tally.values.add(hash(value.strip().strip("\"'\\")))


def _keep(name_ok: bool, value: str) -> bool:
    if name_ok or plain(value):
        return True
    _count(value)
    return False


# -- command lines ------------------------------------------------------------------------
_FLAG = re.compile(r"(?<![\w-])--(?P<name>[A-Za-z][A-Za-z0-9_.-]*)")
_QUOTES = ('\\"', '"', "'")
_STOP = " \t\r\n\0,;]})\"'`|&"


def _quote_at(text: str, i: int) -> str:
    for q in _QUOTES:
        if text.startswith(q, i):
            return q
    return ""


def _quote_before(text: str, i: int) -> str:
    for q in _QUOTES:
        if i >= len(q) and text[i - len(q):i] == q:
            return q
    return ""


def _line_head(text: str, i: int) -> tuple[int, str] | None:
    """(indent, marker) when `i` is the first word of its line (after blanks, an optional
    `- ` and quote); else None. The marker is `-` for a YAML list item, '' for a block."""
    lo = max(0, i - 120)  # an indent and a list marker: never a long way back
    start = max(text.rfind("\n", lo, i), text.rfind("\\n", lo, i) + 1) + 1
    if start == 0 and lo > 0:
        return None
    head = text[start:i]
    m = re.fullmatch(r"([ \t]*)(-[ \t]+)?(?:\\?[\"'])?", head)
    if not m:
        return None
    return len(m.group(1)), "-" if m.group(2) else ""


def _next_line_value(text: str, i: int, head: tuple[int, str]) -> int | None:
    """Where the value starts when the flag ended its line and the next line is the next
    item of the same list (same indent, same `- `)."""
    j = i
    if text.startswith("\r\n", j):
        j += 2
    elif text.startswith("\n", j):
        j += 1
    elif text.startswith("\\n", j):
        j += 2
    else:
        return None
    m = re.compile(r"([ \t]*)(-[ \t]+)?").match(text, j)
    if len(m.group(1)) != head[0] or ("-" if m.group(2) else "") != head[1]:
        return None
    return m.end()


def _value_end(text: str, i: int, quote: str) -> int:
    if quote:
        end = text.find(quote, i)
        nl = text.find("\n", i)
        if end < 0 or (0 <= nl < end):
            return nl if nl >= 0 else len(text)
        return end
    j = i
    while j < len(text) and text[j] not in _STOP and not text.startswith("\\n", j):
        j += 1
    return j


_GAP = re.compile(r"[ \t\0]*(?:,[ \t]*)?(?:\\\r?\n[ \t]*)?")  # blanks, a list's comma, a shell's `\⏎`


_NEXT_LINE = re.compile(r"(?:(?:\r?\n|\\n)[ \t]*)?")


def _flag_value(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    """(start, end) of the value that belongs to the flag matched by `m`, in any form:
    `--k=v`, `--k v`, `--k "a b"`, `"--k=a b"`, `"--k", "v"`, `'--k', 'v'`, `- --k⏎- v`,
    `--k⏎v` (kubectl describe), `--k\\0v` (/proc/PID/cmdline)."""
    opener = _quote_before(text, m.start())
    i = m.end()
    if text.startswith("=", i):
        i += 1
        q = _quote_at(text, i)
        if q:
            return i + len(q), _value_end(text, i + len(q), q)
        return i, _value_end(text, i, opener)
    if opener:
        if not text.startswith(opener, i):
            return None
        i += len(opener)
    gap = _GAP.match(text, i)
    if opener and "," in gap.group():
        i = _NEXT_LINE.match(text, gap.end()).end()  # a pretty-printed JSON list: the next line
    elif not opener and gap.group() and "," not in gap.group():
        i = gap.end()
    elif not gap.group():
        head = _line_head(text, m.start())
        nxt = _next_line_value(text, i, head) if head else None
        if nxt is None:
            return None
        i = nxt
    else:
        return None
    q = _quote_at(text, i)
    if q:
        return i + len(q), _value_end(text, i + len(q), q)
    if text.startswith("-", i) and not re.match(r"-\d", text[i:i + 2]):
        return None  # the next flag: this one is a switch
    if text.startswith("#", i) or text.startswith("\\", i) and text[i + 1:i + 2] in ("", "\n", "\r"):
        return None
    end = _value_end(text, i, "")
    return (i, end) if end > i else None


def _flags(text: str, is_secret_name) -> str:
    out, pos = [], 0
    for m in _FLAG.finditer(text):
        if m.start() < pos or m.group("name").endswith("."):
            continue  # (a flag's name never ends in ".": `lower --max-num-seqs. Beyond that` is prose)
        span = _flag_value(text, m)
        if span is None:
            continue
        start, end = span
        value = text[start:end]
        name = m.group("name")
        if value == REDACTED:
            continue
        secret = is_secret_name(name)
        if not secret and _keep(is_setting_flag(name), value):
            continue
        if secret and plain(value) and not value.strip().isdigit():
            continue  # `--api-key $KEY`, `--hf-token <TOKEN>`
        if secret:
            _count(value)
        out.append(text[pos:start])
        out.append(REDACTED)
        pos = end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


# -- environment listings -----------------------------------------------------------------
# NAME=value where NAME is a variable's name in capitals, standing where a listing puts it
_ENV = re.compile(r"(?:(?<=[\s\"'\[,(\0{;])|(?<=Environment=)|(?<=\\[nt])|^)(?P<name>[A-Z][A-Z0-9_]*[A-Z0-9])=", re.M)
# `  NAME: value` (compose's mapping, kubectl describe's Environment:), `"NAME": "value"`
_ENV_MAP = re.compile(r"""(?m)^(?P<pre>[ \t]*(?:-[ \t]+)?(?P<q>\\?["']?)(?P<name>[A-Z][A-Z0-9]*_[A-Z0-9_]*)(?P=q)[ \t]*:[ \t]+)"""
                      r"""(?P<value>[^\n]*?)[ \t]*(?P<end>,?[ \t]*(?:\r?$|\\n))""")


_NEXT_PAIR = re.compile(r"\s[A-Z][A-Z0-9_]*=")


def _env_pairs(text: str, is_secret_name) -> str:
    out, pos = [], 0
    for m in _ENV.finditer(text):
        if m.start() < pos:
            continue
        name, i = m.group("name"), m.end()
        opener = _quote_before(text, m.start())
        q = _quote_at(text, i)
        if q:
            start, end = i + len(q), _value_end(text, i + len(q), q)
        else:
            start, end = i, _value_end(text, i, opener)
            if opener and _NEXT_PAIR.search(text, start, end):  # `"A=1 B=2"`: a listing, not one value
                end = _value_end(text, i, "")
        value = text[start:end]
        if not value or value == REDACTED:
            continue
        if is_secret_name(name):
            if plain(value) and not value.strip().isdigit():
                continue
            _count(value)
        elif _keep(is_setting_variable(name), value):
            continue
        out.append(text[pos:start])
        out.append(REDACTED)
        pos = end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


_LISTING = re.compile(r"[A-Za-z_]:(?:\s|$|\])")


def _env_map(m: re.Match[str], is_secret_name) -> str:
    name, value = m.group("name"), m.group("value")
    bare = value.strip("\"'\\")
    if not bare or bare == REDACTED or (bare.startswith("<") and ">" in bare) or _LISTING.search(bare):
        return m.group()  # `OLLAMA_X: OLLAMA_Y:` of a Go map cut across lines is no value
    if is_secret_name(name):
        if plain(bare) and not bare.isdigit():
            return m.group()
        _count(bare)
    elif _keep(is_setting_variable(name), bare):
        return m.group()
    q = value[0] if value[:1] in "\"'" else ""
    return m.group("pre") + q + REDACTED + q + m.group("end")


# a pod's env entry: `name:` and `value:` under one list item, in either order, YAML or JSON
_Q = r"""(?:\\?["'])?"""
_V = r"""(?P<value>\\?"(?:[^"\\\n]|\\[^"\n])*\\?"|'[^'\n]*'|[^\s,}\]\\"']+)"""
_N = r"""(?P<nq>\\?["']|)(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P=nq)"""
_SEP = r"""[ \t]*,?[ \t]*(?:\r?\n|\\n)?[ \t]*(?:-[ \t]+)?"""
_NAME_VALUE = re.compile(rf"""(?P<pre>{_Q}name{_Q}[ \t]*:[ \t]*{_N}{_SEP}{_Q}value{_Q}[ \t]*:[ \t]*){_V}""")
_VALUE_NAME = re.compile(rf"""(?P<pre>{_Q}value{_Q}[ \t]*:[ \t]*){_V}(?P<post>{_SEP}{_Q}name{_Q}[ \t]*:[ \t]*{_N})""")


def _named(m: re.Match[str], is_secret_name) -> str:
    name, value = m.group("name"), m.group("value")
    bare = value.strip("\"'\\")
    if not bare or bare == REDACTED:
        return m.group()
    if is_secret_name(name):
        if plain(bare) and not bare.isdigit():
            return m.group()
        _count(bare)
    elif _keep(is_setting_variable(name) or is_setting_flag(name), bare):
        return m.group()
    q = '\\"' if value.startswith('\\"') else value[0] if value[:1] in "\"'" else ""
    return m.group("pre") + q + REDACTED + q + (m.groupdict().get("post") or "")


def redact_structure(text: str, is_secret_name) -> str:
    """Every value of an environment listing or a command line in `text` that is neither a
    setting's nor plainly harmless, as `<redacted>`."""
    if "--" in text:
        text = _flags(text, is_secret_name)
    if "=" in text:
        text = _env_pairs(text, is_secret_name)
    if ":" in text:
        if "name" in text and "value" in text:
            text = _NAME_VALUE.sub(lambda m: _named(m, is_secret_name), text)
            text = _VALUE_NAME.sub(lambda m: _named(m, is_secret_name), text)
        if _has_env_map(text):
            text = _ENV_MAP.sub(lambda m: _env_map(m, is_secret_name), text)
    return text


@cache
def _env_map_hint() -> re.Pattern:
    return re.compile(r"[A-Z0-9]_[A-Z0-9_]*\\?[\"']?[ \t]*:[ \t]")


def _has_env_map(text: str) -> bool:
    return bool(_env_map_hint().search(text))
