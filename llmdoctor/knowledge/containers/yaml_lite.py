"""The block YAML of Kubernetes manifests and `kubectl get -o yaml`, read without a YAML library.

Why: a ticket far more often holds the user's Deployment (or `kubectl get pod -o yaml`) than
`-o json`, and the tool depends on no YAML package. Read here: `---`-separated documents of
nested maps, sequences (`- ` items, also at their key's indentation, as kubectl writes them),
plain, single- and double-quoted scalars, `#` comments, flow sequences and maps on one line or
over several (`args: [` ... `]`, as the vLLM docs write them), and `|`/`>` block scalars.
Anchors, tags and multi-document merges are not Kubernetes' output and are not read; what
cannot be read raises ParseError. Scalars stay strings (the readers convert what they need).
"""
from __future__ import annotations

import json
import re

from llmdoctor.parsing import ParseError

MAX_LINES = 200_000
_KEY = re.compile(r"""^(?P<key>"[^"]*"|'[^']*'|[^\s'"#\-][^:#]*?|-[^\s:#][^:#]*?)\s*:(?:\s+(?P<rest>.*))?$""")


def _strip_comment(line: str) -> str:
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out).rstrip()


def _scalar(text: str):
    text = text.strip()
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        try:
            return json.loads(text)
        except ValueError:
            return text[1:-1]
    if text.startswith("'") and text.endswith("'") and len(text) >= 2:
        return text[1:-1].replace("''", "'")
    if text.startswith(("[", "{")):
        return _flow(text)
    return "" if text in ("~", "null") else text


def _flow(text: str):
    """`["a", b, 'c']` / `{k: v}` on one line."""
    inner = text.strip()[1:-1]
    items, depth, quote, cur = [], 0, None, []
    for ch in inner:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        items.append("".join(cur))
    if text.strip().startswith("["):
        return [_scalar(i) for i in items if i.strip()]
    out = {}
    for item in items:
        k, _, v = item.partition(":")
        out[str(_scalar(k))] = _scalar(v)
    return out


def _lines(text: str) -> list[tuple[int, str]]:
    """(indent, content) of the meaningful lines; flow collections over several lines joined."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    depth = 0
    for raw in text.replace("\t", "    ").splitlines()[:MAX_LINES]:
        line = _strip_comment(raw)
        if not line.strip():
            continue
        if pending:
            pending.append(line.strip())
            depth += line.count("[") + line.count("{") - line.count("]") - line.count("}")
            if depth <= 0:
                ind, first = pending[0].split("\0", 1)
                out.append((int(ind), first + " ".join(pending[1:])))
                pending, depth = [], 0
            continue
        ind = len(line) - len(line.lstrip(" "))
        body = line.strip()
        opened = body.count("[") + body.count("{") - body.count("]") - body.count("}")
        if opened > 0 and re.search(r"(?::|^-)\s*[\[{]", body):
            pending, depth = [f"{ind}\0{body}"], opened
            continue
        out.append((ind, body))
    if pending:
        raise ParseError("a flow collection ([ or {) is never closed")
    return out


def _block(lines: list[tuple[int, str]], i: int, indent: int, raw: list[str] | None = None):
    """The node whose lines start at i with this indentation; returns (value, next i)."""
    if i >= len(lines):
        return None, i
    if lines[i][1].startswith("- ") or lines[i][1] == "-":
        seq = []
        while i < len(lines) and lines[i][0] == indent and (lines[i][1].startswith("- ") or lines[i][1] == "-"):
            rest = lines[i][1][2:].strip() if lines[i][1] != "-" else ""
            if not rest:
                value, i = _block(lines, i + 1, lines[i + 1][0], raw) if i + 1 < len(lines) and \
                    lines[i + 1][0] > indent else ("", i + 1)
                seq.append(value)
                continue
            if _KEY.match(rest):
                # `- key: value` opens a map whose other keys sit at the item's indentation + 2
                sub = [(indent + 2, rest)]
                j = i + 1
                while j < len(lines) and lines[j][0] > indent:
                    sub.append(lines[j])
                    j += 1
                value, _ = _block(sub, 0, indent + 2, raw)
                seq.append(value)
                i = j
                continue
            seq.append(_scalar(rest))
            i += 1
        return seq, i
    out: dict = {}
    while i < len(lines) and lines[i][0] == indent:
        m = _KEY.match(lines[i][1])
        if not m:
            if not out:
                return _scalar(lines[i][1]), i + 1
            raise ParseError(f"not a `key: value` line: {lines[i][1][:80]!r}")
        key, rest = str(_scalar(m.group("key"))), (m.group("rest") or "").strip()
        i += 1
        if rest in ("|", "|-", ">", ">-", "|+", ">+"):
            block = []
            while i < len(lines) and lines[i][0] > indent:
                block.append(lines[i][1])
                i += 1
            out[key] = ("\n" if rest.startswith("|") else " ").join(block)
        elif rest:
            out[key] = _scalar(rest)
        elif i < len(lines) and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1].startswith("-"))):
            out[key], i = _block(lines, i, lines[i][0], raw)
        else:
            out[key] = None
    return out, i


def load_all(text: str) -> list:
    """The documents of a YAML stream (`---` separated)."""
    docs = []
    for part in re.split(r"(?m)^---[^\n]*$", text):
        lines = _lines(part)
        if not lines:
            continue
        value, i = _block(lines, 0, lines[0][0])
        if i < len(lines):
            raise ParseError(f"unexpected indentation at {lines[i][1][:80]!r}")
        docs.append(value)
    return docs
