"""The ways a log reaches us besides as a file: re-pastings of a log's text, for tests that
ask whether the diagnosis depends on how the lines were copied (real reports show all of
these: tests/fixtures/realcases)."""
from __future__ import annotations

import json
import re
import textwrap

JOURNALD = re.compile(r"^\S{1,12} {1,2}\d{1,2} \d\d:\d\d:\d\d ")


def journald(text: str, ident: str = "ollama", month: str = "Nov") -> str:
    """As `journalctl -u UNIT` prints a plain log's lines (lines that have a prefix keep it)."""
    return "\n".join(line if not line or JOURNALD.match(line) else f"{month} 29 10:00:00 gpu-box {ident}[1234]: {line}"
                     for line in text.split("\n"))


def compose(text: str, service: str = "ollama-1") -> str:
    """`docker compose logs`: the service column, padded."""
    return "\n".join(f"{service:<10}| {line}" if line else line for line in text.split("\n"))


def kubectl(text: str) -> str:
    """`kubectl logs --prefix --timestamps`."""
    return "\n".join(f"[pod/llm-0/server] 2026-11-29T10:00:00.123456789Z {line}" if line else line
                     for line in text.split("\n"))


def docker_json(text: str) -> str:
    """Docker's json-file driver, as found in /var/lib/docker/containers/*/*-json.log."""
    return "\n".join(json.dumps({"log": line + "\n", "stream": "stderr", "time": "2026-11-29T10:00:00.000000001Z"})
                     for line in text.split("\n") if line) + "\n"


def wrapped(text: str, width: int = 100) -> str:
    """Hard-wrapped at a word, continuation lines indented (an e-mail, a maintainer's quote)."""
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        parts = textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
        out.append(parts[0])
        out += [" " + p for p in parts[1:]]
    return "\n".join(out)


def fenced(text: str, command: str = "journalctl -u ollama --no-pager") -> str:
    return f"```\nuser@gpu:~$ {command}\n{text}```\n"


def crlf_zsh(text: str) -> str:
    """Windows line endings, and zsh's % after the last line."""
    return text.rstrip("\n").replace("\n", "\r\n") + "%"


VARIANTS = {"journald-de": lambda t, ident="ollama": journald(t, ident, month="Dez"),
            "journald-zh": lambda t, ident="ollama": journald(t, ident, month="11月"),
            "compose": compose, "kubectl": kubectl, "docker-json": docker_json, "wrapped": wrapped,
            "fenced": fenced, "crlf-zsh": crlf_zsh}


def _one(fn):
    return lambda line, engine: fn(line)


# One message pasted on its own, the ways a ticket carries it (the catalogue test).
LINE_FORMS = {
    "plain": lambda line, engine: line,
    "journald": lambda line, engine: journald(line, engine),
    "journald-de": lambda line, engine: journald(line, engine, month="Dez"),
    "compose": _one(compose), "kubectl": _one(kubectl), "docker-json": _one(docker_json),
    "wrapped-indented": _one(wrapped), "fenced": _one(fenced), "crlf-zsh": _one(crlf_zsh),
}
