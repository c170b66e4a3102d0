"""Undo what copy and paste does to command output.

Evidence directories are often built by hand from a support ticket: the text comes
with Windows line endings, terminal colour codes, Markdown code fences, e-mail or
GitHub quote markers, and the shell prompt and command that produced it. Parsers
should see the output itself.
"""
from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
FENCE = re.compile(r"^\s*(```|~~~)[\w+-]*\s*$")
# A prompt followed by one of the commands whose output we read, e.g.
# `$ ollama ps`, `user@gpu:~$ sudo journalctl -u ollama`, `root@box:/# nvidia-smi`, `PS C:\> ollama ps`
PROMPT = re.compile(
    r"^\s*(?:\([^)]*\)\s*)?(?:[\w.@:~/\\-]*\s?[$#%>]|PS [^>]*>)\s*"
    r"(?:sudo\s+(?:-\S+\s+)*)?"
    r"(?:ollama|journalctl|systemctl|nvidia-smi|vmstat|cat|curl|docker|podman|tail|head|grep|less|vllm|llama-server|free|wget|http)\b"
)


def is_utf16(head: bytes) -> bool:
    """A UTF-16 byte-order mark, or ASCII text as UTF-16-LE without one (NUL every other byte)."""
    return head.startswith((b"\xff\xfe", b"\xfe\xff")) or (
        len(head) >= 4 and head[1:4:2] == b"\0\0" and head[0:4:2] != b"\0\0"
    )


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
    quoted = [l for l in lines if l.strip()]
    if quoted and all(l.lstrip().startswith(">") for l in quoted):
        lines = [re.sub(r"^\s*> ?", "", l) for l in lines]
    kept = [l for l in lines if not FENCE.match(l) and not PROMPT.match(l)]
    if len(kept) == len(lines):
        return "\n".join(lines)
    return "\n".join(kept)
