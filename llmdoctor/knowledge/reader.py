"""Who will run a fix's commands: the user a pasted prompt shows, or the one `whoami` printed.

A fix is copied into a shell; `sudo` in front of a command that needs root is what makes that
paste work for a non-root user, and what a root shell does not need. The prompt tells the
user apart by its last character, as the shells write it: bash's `\\$` is "#" when the
effective UID is 0, else "$" (bash(1), PROMPTING); zsh's `%#` is "#" for a privileged shell,
else "%" (zshmisc(1), Prompt Expansion); `user@host:~$` and `root@host:/#` are Debian's and
Ubuntu's default PS1 (`\\u@\\h:\\w\\$`). PowerShell's `PS C:\\>` and cmd's `C:\\>` are Windows,
where no fix says sudo.
"""
from __future__ import annotations

import re

from llmdoctor.model import Record, record

WINDOWS = "windows"  # a Windows prompt: no sudo there, and no root either

# `user@host:~$ cmd`, `[user@host ~]$ cmd` (Fedora/RHEL), `root@host:/# cmd`, `$ cmd`, `# cmd` (a bare
# prompt: the character alone says root or not), `host% cmd` (zsh); a venv's `(name) ` before it.
_UNIX = re.compile(r"^\s*(?:\([^)]*\)\s*)?(?:\[?(?P<user>[a-z_][\w.-]*)@[\w.-]+(?::|\s)[^\s$#%\]]*\]?\s?|[\w.-]+\s?)?"
                   r"(?P<char>[$#%])(?:\s+\S|\s*$)")
_WINDOWS = re.compile(r"^\s*(?:PS [A-Za-z]:\\[^>]*>|[A-Za-z]:\\[^<>|\"]*>)\s*\S")


@record
class Reader(Record):
    """The user who will paste the fixes, as far as the evidence shows it. `root`: True, False, or
    None where nothing says (then the safe default, `sudo`, stays); `journal`: whether that user
    reads the system journal without sudo (root, or a member of systemd-journal, adm or wheel:
    journalctl(1), "Access Control"), None unknown; `source`: what said so."""

    user: str = ""
    root: object = None
    journal: object = None
    source: str = ""


# journalctl(1), "Access Control": members of these groups read every journal file.
JOURNAL_GROUPS = frozenset({"systemd-journal", "adm", "wheel"})


def prompt_user(line: str) -> tuple[str, bool | None] | None:
    """(user, root) of a shell prompt line that runs a command; ("windows", None) for a Windows
    prompt; None for a line that is no prompt. A `#` without a user (`# cmd`) is also how a comment
    starts, so it counts only with a user in front (`root@box:/#`)."""
    if _WINDOWS.match(line):
        return WINDOWS, None
    m = _UNIX.match(line)
    if m is None:
        return None
    user, char = m.group("user") or "", m.group("char")
    if char == "#" and not user:
        return None
    return user, char == "#" or user == "root"


def reader_of_prompts(prompts: list[tuple[str, bool | None]], source: str) -> Reader | None:
    """The reader a ticket's prompts show: root only where every prompt is root's (one `$` prompt
    means the commands may be pasted where sudo is needed); a Windows prompt says nothing of root."""
    unix = [p for p in prompts if p[0] != WINDOWS]
    if not unix:
        return Reader(WINDOWS, None, None, source) if prompts else None
    root = all(r for _, r in unix)
    user = next((u for u, _ in unix if u), "root" if root else "")
    return Reader(user, root, True if root else None, source)


# whoami.txt's lines for prompts without a user name (knowledge/ticket.py writes them)
WHOAMI_LINES = {"$": ("", False), "%": ("", False), "#": ("root", True), "PS>": (WINDOWS, None)}


def parse_whoami(text: str, source: str) -> Reader | None:
    """`whoami` / `id` output (what `collect` records, or a ticket's prompt user): the user, root
    when it is root (uid 0), and whether it reads the system journal (its groups, where `id` shows them)."""
    text = text.strip()
    if not text:
        return None
    m = re.match(r"uid=(\d+)\(([^)]*)\)", text)
    if m:
        groups = set(re.findall(r"\d+\(([^)]*)\)", text.split("groups=", 1)[1])) if "groups=" in text else None
        root = m.group(1) == "0"
        journal = True if root or (groups and groups & JOURNAL_GROUPS) else (False if groups is not None else None)
        return Reader(m.group(2), root, journal, source)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    prompts = [WHOAMI_LINES.get(line) or prompt_user(line)
               or ((line, line == "root") if re.fullmatch(r"[a-z_][\w.$-]*", line) else None) for line in lines]
    if len(lines) > 1 or lines[0] in WHOAMI_LINES or prompts[0] is not None:  # a ticket's prompts (ticket.py)
        known = [p for p in prompts if p is not None]
        return reader_of_prompts(known, f"{source} (the prompts of the pasted commands)") if known else None
    user = text
    if not re.fullmatch(r"[a-z_][\w.$-]*", user):  # not one user name: nothing said
        return None
    return Reader(user, user == "root", True if user == "root" else None, source)
