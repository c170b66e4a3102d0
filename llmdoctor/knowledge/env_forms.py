"""How an engine variable was set, read from the form of the line that sets it.

Users paste the line they believe configures the server. Its form decides whether the
server ever sees the value:

| form | example | reaches |
|---|---|---|
| systemd | `Environment="OLLAMA_NUM_PARALLEL=4"` | the unit, after daemon-reload and restart |
| env-prefix | `OLLAMA_NUM_PARALLEL=4 ollama serve` | that one process |
| export | `export OLLAMA_NUM_PARALLEL=4` | programs started later from that shell (or script) |
| shell | `OLLAMA_NUM_PARALLEL=4` in a shell file | not even those, unless exported |
| cmd-set | `set OLLAMA_HOST=0.0.0.0` (cmd.exe) | programs started from that console |
| powershell | `$env:OLLAMA_HOST="0.0.0.0"` | programs started from that PowerShell |
| setx | `setx OLLAMA_HOST 0.0.0.0`, `[Environment]::SetEnvironmentVariable(...)` | programs started after it, once Ollama (the tray app) is quit and started again |
| launchctl | `launchctl setenv OLLAMA_HOST 0.0.0.0` | macOS apps started after it (quit and reopen Ollama) |
| docker | `docker run -e OLLAMA_NUM_PARALLEL=4 ...` | the container (a new one: `docker restart` keeps the old env) |
| compose | `environment:` list (`- A=B`) or map (`A: B`) | the container, on `docker compose up -d` |
| kubernetes | `- name: A` / `value: "B"` | the pod, on its next rollout |
| listing | `NAME=value` lines the user listed (env.txt) | unknown: what the user says the server has |

A line can look like an assignment and assign nothing: bash's `export A:B` and
`export A = B` set no variable ("not a valid identifier"), cmd's `set A = B` sets a variable
named `A ` (with the space), systemd drops `Environment=` lines with typographic quotes.
Those come back with `problem` set. Pure: text in, assignments out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from llmdoctor.knowledge.systemd.names import is_engine_var
from llmdoctor.parsing import LazyPattern

REACHES = {
    "systemd": "the service, after daemon-reload and restart",
    "env-prefix": "the process started on that line",
    "export": "programs started later from that shell or script",
    "shell": "nothing outside that shell (it is not exported)",
    "cmd-set": "programs started from that console window",
    "powershell": "programs started from that PowerShell window",
    "setx": "programs started after it: quit Ollama (the tray app) and start it again",
    "launchctl": "macOS apps started after it: quit Ollama and open it again",
    "docker": "a container created with it (docker restart keeps the old environment)",
    "compose": "the container, once `docker compose up -d` recreates it",
    "kubernetes": "the pod, on its next rollout",
    "listing": "unknown (listed by hand)",
}
# Forms whose value the server running as a service (systemd, the Windows/macOS app, a
# container) never sees unless it was started from that very shell.
SESSION_ONLY = ("export", "shell", "cmd-set", "powershell")
DELIVERED = ("systemd", "env-prefix", "docker", "compose", "kubernetes", "listing")
ENGINE_LAUNCH = LazyPattern(r"(?:^|[\s/\\])(?:ollama(?:\.exe)?\s+serve|vllm\s+serve|llama-server|"
                            r"python3?\s+-m\s+vllm\.entrypoints|sglang\.launch_server)\b")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_EXPORT = LazyPattern(rf"^(?:export|declare\s+-\w*x\w*|typeset\s+-\w*x\w*)\s+(.*)$")
_MALFORMED_EXPORT = LazyPattern(rf"^({_NAME})\s*(:|\s+=|=\s+)\s*(.*)$")
# cmd.exe's `set "NAME=value"` quotes the whole assignment (the quotes go); `set NAME="value"`
# keeps them in the value (cmd.exe's set takes everything after '=' as it is)
_CMD_SET = LazyPattern(r'^set\s+(?:/\w\s+)?(?:"([^=\s"]+)(\s*)=(\s*)(.*?)"|([^=\s"]+)(\s*)=(\s*)(.*?))\s*$', re.I)
_SETX = LazyPattern(r"^setx(?:\.exe)?\s+(.+)$", re.I)
_PWSH = LazyPattern(rf"^\$env:({_NAME})\s*=\s*(.*)$", re.I)
_DOTNET = LazyPattern(rf"SetEnvironmentVariable\(\s*['\"]({_NAME})['\"]\s*,\s*['\"]([^'\"]*)['\"]", re.I)
_LAUNCHCTL = LazyPattern(rf"^launchctl\s+setenv\s+({_NAME})\s+(.*)$")
_SYSTEMD = LazyPattern(r"^Environment\s*=\s*(.*)$")
_CURLY = "“”‘’„‟«»"
_DOCKER_RUN = LazyPattern(r"\b(?:docker|podman|nerdctl)\s+(?:container\s+)?(?:run|create)\b")
_COMPOSE_LIST = LazyPattern(rf"^-\s+['\"]?({_NAME})=(.*?)['\"]?\s*$")
_COMPOSE_MAP = LazyPattern(rf"^({_NAME}):\s*(.*?)\s*$")
_K8S_NAME = LazyPattern(rf"^-\s+name:\s*['\"]?({_NAME})['\"]?\s*$")
_K8S_VALUE = LazyPattern(r"^value:\s*(.*?)\s*$")


@dataclass(frozen=True)
class Assignment:
    """One engine variable as a line sets it (or means to), in the form it was written."""

    name: str
    value: str | None  # None when the line assigns nothing
    form: str  # a key of REACHES
    line: str
    lineno: int
    source: str
    problem: str | None = None  # why the line does not set what it says
    intended: str | None = None  # the value the line meant to set, where it sets none

    @property
    def reaches(self) -> str:
        return REACHES[self.form]

    @property
    def session_only(self) -> bool:
        return self.form in SESSION_ONLY


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _cmd_set(m, line: str, n: int, source: str) -> Assignment:
    """cmd.exe's `set`: spaces around '=' and quotes inside the value are kept, as part of the
    name or the value. Ollama strips quotes from its variables (envconfig.Var trims `"` and `'`,
    since 0.2.0; OLLAMA_HOST since 0.1.33); the other engines read the value as it is:
    llama-server fails to start (`error while handling environment variable "LLAMA_ARG_...":
    stoi`, common/arg.cpp) or binds to a host named with quotes, vLLM and SGLang take the
    quotes as part of a path or a host."""
    whole = m.group(1) is not None  # set "NAME=value": the quotes are cmd's, not the value's
    name, spaced, value = (m.group(1), m.group(2), m.group(4)) if whole else (m.group(5), m.group(6), m.group(8))
    if spaced:
        return Assignment(name, None, "cmd-set", line, n, source,
                          f"cmd.exe keeps the spaces: this sets a variable named '{name} ', not {name}",
                          intended=_unquote(value))
    if whole or not any(q in value for q in "\"'"):
        return Assignment(name, value, "cmd-set", line, n, source)
    if name.upper().startswith("OLLAMA_"):
        return Assignment(name, value.strip().strip("\"'"), "cmd-set", line, n, source)
    return Assignment(name, value, "cmd-set", line, n, source,
                      f"cmd.exe keeps the quotes: the server reads {name} as {value}, quotes included "
                      f"(write set {name}={_unquote(value)} or set \"{name}={_unquote(value)}\")",
                      intended=_unquote(value))


def _words(text: str) -> list[str]:
    import shlex  # (here: most recordings have no line that needs splitting)

    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


def _systemd(rest: str, line: str, n: int, source: str) -> list[Assignment]:
    if any(c in rest for c in _CURLY):
        plain = rest.translate({ord(c): " " for c in _CURLY})
        pairs = re.findall(rf"({_NAME})=(\S*)", plain)
        return [Assignment(name, None, "systemd", line, n, source,
                           "typographic quotes (“ ”) are not quotes to systemd: it logs 'Invalid environment "
                           "assignment, ignoring' and drops the whole line", intended=value)
                for name, value in pairs if is_engine_var(name)]
    out = []
    for word in _words(rest):
        name, eq, value = word.partition("=")
        if eq and is_engine_var(name):
            out.append(Assignment(name, value, "systemd", line, n, source))
        elif not eq and is_engine_var(name.rstrip(":")):
            out.append(Assignment(name.rstrip(":"), None, "systemd", line, n, source,
                                  "no '=' between name and value: systemd ignores the assignment"))
    return out


def _exported(rest: str, line: str, n: int, source: str) -> list[Assignment]:
    m = _MALFORMED_EXPORT.match(rest.strip())
    if m and is_engine_var(m.group(1)):
        how = "a ':' instead of '='" if m.group(2) == ":" else "spaces around '='"
        return [Assignment(m.group(1), None, "export", line, n, source,
                           f"{how}: the shell says 'not a valid identifier' and sets nothing, so the server starts "
                           f"with its default", intended=_unquote(m.group(3)))]
    out = []
    for word in _words(rest):
        name, eq, value = word.partition("=")
        if eq and is_engine_var(name):
            out.append(Assignment(name, value, "export", line, n, source))
    return out


def _plain(line: str, n: int, source: str, listing: bool) -> list[Assignment]:
    """`A=B` alone (a listing or an unexported shell variable), or `A=B cmd` (a prefix)."""
    words = _words(line)
    assigns = []
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if not eq or not re.fullmatch(_NAME, name):
            break
        assigns.append((i, name, value))
    if not assigns:
        return []
    prefix = len(assigns) < len(words)
    if prefix and not ENGINE_LAUNCH.search(" " + " ".join(words[len(assigns):])):
        return []
    form = "env-prefix" if prefix else ("listing" if listing else "shell")
    return [Assignment(name, value, form, line, n, source) for _, name, value in assigns if is_engine_var(name)]


def _docker(line: str, n: int, source: str) -> list[Assignment]:
    words = _words(line)
    out = []
    for i, word in enumerate(words):
        value = None
        if word in ("-e", "--env") and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith("--env="):
            value = word[len("--env="):]
        elif word.startswith("-e") and len(word) > 2 and "=" in word:
            value = word[2:]
        if value is None:
            continue
        name, eq, val = value.partition("=")
        if is_engine_var(name):
            out.append(Assignment(name, val if eq else None, "docker", line, n, source,
                                  None if eq else "-e NAME without '=' passes the variable of the shell that runs "
                                                  "docker, which may be unset"))
    return out


def unit_file_assignments(text: str, source: str) -> list[Assignment]:
    """Environment= lines of a drop-in or unit file, with what systemd does to those outside
    [Service]: it ignores them (a drop-in without its header is the classic way to lose them)."""
    out: list[Assignment] = []
    section = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line
            continue
        m = _SYSTEMD.match(line)
        if not m:
            continue
        for a in _systemd(m.group(1), line, n, source):
            if section != "[Service]" and a.problem is None:
                where = "before any section header" if section is None else f"in {section}"
                a = Assignment(a.name, None, "systemd", a.line, a.lineno, a.source,
                               f"Environment= {where}: systemd reads it only under [Service] and ignores this line",
                               intended=a.value)
            out.append(a)
    return out


def assignments_in(text: str, source: str, listing: bool = False) -> list[Assignment]:
    """Every engine-variable assignment in `text`, with its form. `listing`: bare `NAME=value`
    lines are the user's list of the server's variables (env.txt), not a shell file's."""
    out: list[Assignment] = []
    section = None  # "environment" inside a compose file, "env" inside a Kubernetes container
    indent = 0
    k8s_name: tuple[str, str, int] | None = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";", "//")):
            continue
        lead = len(raw) - len(raw.lstrip())
        if section is not None and lead <= indent and not line.startswith("-"):
            section = None
        if "env" in line and re.match(r"^-?\s*(?:environment|env):\s*$", line):
            section, indent = ("environment" if "environment" in line else "env"), lead
            continue
        if section == "env":
            m = _K8S_NAME.match(line)
            if m:
                k8s_name = (m.group(1), raw, n)
                continue
            m = _K8S_VALUE.match(line)
            if m and k8s_name is not None:
                if is_engine_var(k8s_name[0]):
                    out.append(Assignment(k8s_name[0], _unquote(m.group(1)), "kubernetes", k8s_name[1].strip(), n,
                                          source))
                k8s_name = None
                continue
        if section == "environment":
            m = _COMPOSE_LIST.match(line) or _COMPOSE_MAP.match(line)
            if m:
                if is_engine_var(m.group(1)):
                    out.append(Assignment(m.group(1), _unquote(m.group(2)), "compose", line, n, source))
                continue
        # (each pattern is tried, and compiled, only on lines that start as its matches do)
        m = _SYSTEMD.match(line) if line.startswith("Environment") else None
        if m:
            out += _systemd(m.group(1), line, n, source)
            continue
        m = _EXPORT.match(line) if line.startswith(("export", "declare", "typeset")) else None
        if m:
            out += _exported(m.group(1), line, n, source)
            continue
        set_word = line[:3].casefold() == "set"  # (casefold: re.I lets "ſ" stand for "s")
        m = _CMD_SET.match(line) if set_word else None
        if m and is_engine_var((m.group(1) or m.group(5)).strip()):
            out.append(_cmd_set(m, line, n, source))
            continue
        m = _SETX.match(line) if set_word else None
        if m:
            words = [w for w in _words(m.group(1).replace("\\", "\\\\")) if not w.startswith("/")]
            if words and "=" in words[0] and is_engine_var(words[0].split("=", 1)[0]):
                out.append(Assignment(words[0].split("=", 1)[0], None, "setx", line, n, source,
                                      "setx takes the name and the value as two words (setx NAME VALUE), not NAME=VALUE",
                                      intended=words[0].split("=", 1)[1]))
            elif len(words) >= 2 and is_engine_var(words[0]):
                out.append(Assignment(words[0], words[1], "setx", line, n, source))
            continue
        m = _PWSH.match(line) if line.startswith("$") else None
        if m:
            if is_engine_var(m.group(1)):
                out.append(Assignment(m.group(1), _unquote(m.group(2)), "powershell", line, n, source))
            continue
        m = _DOTNET.search(line) if "(" in line else None
        if m:
            if is_engine_var(m.group(1)):
                out.append(Assignment(m.group(1), m.group(2), "setx", line, n, source))
            continue
        m = _LAUNCHCTL.match(line) if line.startswith("launchctl") else None
        if m:
            if is_engine_var(m.group(1)):
                out.append(Assignment(m.group(1), _unquote(m.group(2)), "launchctl", line, n, source))
            continue
        if any(w in line for w in ("docker", "podman", "nerdctl")) and _DOCKER_RUN.search(line) \
                or line.startswith(("-e ", "--env")):
            out += _docker(line, n, source)
            continue
        out += _plain(line, n, source, listing)
    return out


def launches_engine(text: str) -> str | None:
    """The line of `text` that starts an engine server (a script's `ollama serve`), if any."""
    for raw in text.splitlines():
        if ENGINE_LAUNCH.search(" " + raw.strip()) and not raw.strip().startswith("#"):
            return raw.strip()
    return None
