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


def docker_t(text: str) -> str:
    """`docker logs --timestamps` (kubectl `--timestamps` without `--prefix` prints the same)."""
    return "\n".join(f"2026-11-29T10:00:00.123456789Z {line}" if line else line for line in text.split("\n"))


def kubectl_prefix(text: str) -> str:
    """`kubectl logs --prefix` without stamps."""
    return "\n".join(f"[pod/llm-0/server] {line}" if line else line for line in text.split("\n"))


def quoted(text: str, depth: int = 1) -> str:
    """A GitHub or e-mail reply quoting the log (`> `, nested `> > `)."""
    mark = "> " * depth
    return "\n".join(mark + line if line else mark.rstrip() for line in text.split("\n"))


def html_escaped(text: str) -> str:
    """Copied out of a web page's source or an HTML mail: `&quot;`, `&lt;`, `&gt;`, `&amp;`, `&#39;`."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("'", "&#39;"))


def gutter(text: str, style: str = "bar") -> str:
    """Line numbers in front of each line: a viewer's `  12 | `, grep -n's `12:`, an editor's `  12  `."""
    lines = text.split("\n")
    width = len(str(len(lines)))
    fmt = {"bar": "{n:>{w}} | {l}", "colon": "{n}:{l}", "editor": "{n:>{w}}  {l}"}[style]
    return "\n".join(fmt.format(n=i, w=width, l=line) for i, line in enumerate(lines, 1))


def prompted(text: str, prompt: str = "C:\\Users\\me>", command: str = "docker logs ollama") -> str:
    """The command and its prompt before the output (cmd, PowerShell, sh, a root shell)."""
    return f"{prompt}{command}\n{text}"


def hard_wrapped(text: str, width: int = 80) -> str:
    """Cut at exactly `width` columns, mid-word, nothing indented (a terminal's copy, a fixed-width box)."""
    out = []
    for line in text.split("\n"):
        out += [line[i:i + width] for i in range(0, len(line), width)] or [""]
    return "\n".join(out)


def word_wrapped(text: str, width: int = 80) -> str:
    """Wrapped at a word, nothing indented (a mail client, a chat window, `fold -s`)."""
    out = []
    for line in text.split("\n"):
        out += textwrap.wrap(line, width, break_on_hyphens=False, drop_whitespace=True) or [line]
    return "\n".join(out)


# where a record of a log starts (Go slog, Go log, gin, vLLM, SGLang, Python logging, llama-server)
RECORD = re.compile(r"^(?:time=|\[GIN\]|\d{4}[-/]\d\d[-/]\d\d|(?:INFO|WARNING|ERROR|DEBUG) \d\d-\d\d|\[\d{4}-"
                    r"|\d+\.\d\d\.\d{3}\.\d{3} |\w+ +\w+: )")


def fragments(text: str) -> str:
    """The log pasted as two fragments (`...` between them), as a reporter pastes what they
    picked from two moments: cut before a record in its second half (before the first line if
    none is there)."""
    lines = text.rstrip("\n").split("\n")
    half = len(lines) // 2
    cut = next((i for i in range(max(half, 1), len(lines)) if RECORD.match(lines[i])), 0)
    return "\n".join(lines[:cut] + ["..."] + lines[cut:]) + "\n"


VARIANTS = {"journald-de": lambda t, ident="ollama": journald(t, ident, month="Dez"),
            "journald-zh": lambda t, ident="ollama": journald(t, ident, month="11月"),
            "compose": compose, "kubectl": kubectl, "docker-json": docker_json, "wrapped": wrapped,
            "fenced": fenced, "crlf-zsh": crlf_zsh,
            "docker-t": docker_t, "kubectl-prefix": kubectl_prefix,
            "quoted": quoted, "quoted-nested": lambda t: quoted(t, 2), "html": html_escaped,
            "gutter-bar": gutter, "gutter-colon": lambda t: gutter(t, "colon"),
            "gutter-editor": lambda t: gutter(t, "editor"),
            "prompt-cmd": prompted, "prompt-ps": lambda t: prompted(t, "PS C:\\Users\\me> "),
            "prompt-sh": lambda t: prompted(t, "$ ", "journalctl -u ollama --no-pager"),
            "prompt-root": lambda t: prompted(t, "# ", "tail -n 500 /var/log/server.log"),
            "hard-60": lambda t: hard_wrapped(t, 60), "hard-80": hard_wrapped,
            "hard-120": lambda t: hard_wrapped(t, 120),
            "word-60": lambda t: word_wrapped(t, 60), "word-80": word_wrapped,
            "word-120": lambda t: word_wrapped(t, 120), "fragments": fragments}


def _one(fn):
    return lambda line, engine: fn(line)


# One message pasted on its own, the ways a ticket carries it (the catalogue test).
LINE_FORMS = {
    "plain": lambda line, engine: line,
    "journald": lambda line, engine: journald(line, engine),
    "journald-de": lambda line, engine: journald(line, engine, month="Dez"),
    "compose": _one(compose), "kubectl": _one(kubectl), "docker-json": _one(docker_json),
    "wrapped-indented": _one(wrapped), "fenced": _one(fenced), "crlf-zsh": _one(crlf_zsh),
    **{name: _one(VARIANTS[name]) for name in (
        "docker-t", "kubectl-prefix", "quoted", "quoted-nested", "html", "gutter-bar", "gutter-colon",
        "gutter-editor", "prompt-cmd", "prompt-ps", "prompt-sh", "prompt-root", "hard-60", "hard-80",
        "hard-120", "word-60", "word-80", "word-120", "fragments")},
}
