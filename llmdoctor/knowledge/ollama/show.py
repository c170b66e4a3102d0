"""A model's own parameters (its Modelfile's PARAMETER lines) as Ollama prints them.

Three forms carry the same text, `resp.Parameters` of /api/show (server/routes.go writes one
`%-*s %s` line per parameter, key padded to 30):
- `/show parameters` in `ollama run` (cmd/interactive.go): `Model defined parameters:` then
  those lines (and `User defined parameters:` first, for `/set parameter` of the session);
- `ollama show MODEL` (cmd/cmd.go showInfo): a `Parameters` section of a table, the rows
  indented, key and value split on whitespace;
- /api/show JSON: its "parameters" string.

Why it matters: Ollama builds a request's options as defaults (num_ctx from
OLLAMA_CONTEXT_LENGTH) < the model's parameters < the request's options (server/routes.go
modelOptions, v0.1.x-v0.32), so a Modelfile's num_ctx wins over the server-wide setting.
"""
from __future__ import annotations

from llmdoctor.model import Record
from llmdoctor.parsing import LazyPattern

_MODEL_DEFINED = "Model defined parameters:"
_USER_DEFINED = "User defined parameters:"
# `ollama show`'s section titles (cmd/cmd.go tableRender): a title ends the section before it
_SECTIONS = ("Model", "Capabilities", "Projector", "Parameters", "System", "License", "Metadata", "Tensors")
_ROW = LazyPattern(r"^\s*([a-z][a-z0-9_]*)\s+(\S.*?)\s*$")
# the command that printed it: `ollama run NAME` / `ollama show NAME` (in a prompt or a comment)
_ARCH = LazyPattern(r"^\s+architecture\s+(\w[\w.-]*)\s*$")
_COMMAND = LazyPattern(r"\bollama(?:\.exe)?\s+(?:run|show)\s+(?:--?\w[\w-]*\s+)*([\w.:/-]+)")


class ModelParameters(Record):
    """One printout of a model's parameters: `values` (key -> value; a repeated key, such as
    `stop`, keeps its first), `model` (the name the command named, "" when none), `lines`
    (key -> the line as printed, for evidence), `session` (/set parameter values of an
    interactive session, which apply to it alone), `architecture` (`ollama show`'s Model
    section, or /api/show's general.architecture; "" when not printed)."""

    __slots__ = ("model", "values", "lines", "session", "source", "architecture")

    def __init__(self, model: str, values: dict[str, str], lines: dict[str, str],
                 session: dict[str, str] | None = None, source: str = "", architecture: str = "") -> None:
        self.model = model
        self.values = values
        self.lines = lines
        self.session = {} if session is None else session
        self.source = source
        self.architecture = architecture

    def num_ctx(self) -> int | None:
        v = self.values.get("num_ctx", "")
        return int(v) if v.isdecimal() and 0 < int(v) < 1 << 31 else None


_SECTION_TITLE = LazyPattern(r"(?m)^[ \t]+Parameters[ \t]*$")


def looks_like_parameters(text: str) -> bool:
    """The cheap test before parsing: a literal of one of the printed forms (then, for
    `ollama show`, its section title on a line of its own)."""
    return _MODEL_DEFINED in text or ("Parameters" in text and _SECTION_TITLE.search(text) is not None)


def parse_parameters(text: str, source: str = "") -> tuple[ModelParameters, ...]:
    """Every printout of model parameters in `text` (a terminal paste of several sessions
    holds one per `/show parameters`). Anything else -> ()."""
    out: list[ModelParameters] = []
    model = arch = ""
    values: dict[str, str] = {}
    lines: dict[str, str] = {}
    session: dict[str, str] = {}
    into = None  # "model" | "user" | None: the list being read

    def close() -> None:
        nonlocal values, lines, session
        if values:
            out.append(ModelParameters(model, values, lines, session, source, arch))
        values, lines, session = {}, {}, {}

    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        cmd = _COMMAND.search(line) if "ollama" in line else None
        if cmd:
            close()
            into, model, arch = None, cmd.group(1), ""
            continue
        if stripped == _USER_DEFINED:
            close()
            into = "user"
            continue
        if stripped == _MODEL_DEFINED or (stripped == "Parameters" and line != stripped):
            if into != "user":  # (the session's list comes first and belongs to this one)
                close()
            into = "model"
            continue
        if into is None:
            a = _ARCH.match(line) if "architecture" in line else None
            arch = a.group(1) if a and not arch else arch  # (the Model section's, not the Projector's)
            continue
        if not stripped and into == "user":
            continue  # the blank line between the two lists
        m = _ROW.match(line) if stripped and not stripped.startswith(">>>") and stripped not in _SECTIONS else None
        if m is None:
            close()
            into = None
            continue
        if into == "user":
            session.setdefault(m.group(1), m.group(2))
        else:
            values.setdefault(m.group(1), m.group(2))
            lines.setdefault(m.group(1), stripped)
    close()
    return tuple(p for p in out if p.values)


def from_api_show(show: dict, source: str = "/api/show") -> ModelParameters | None:
    """The "parameters" string of an /api/show answer, as the same record (None without one)."""
    text = show.get("parameters") if isinstance(show, dict) else None
    if not isinstance(text, str) or not text.strip():
        return None
    values: dict[str, str] = {}
    lines: dict[str, str] = {}
    for raw in text.splitlines():
        m = _ROW.match(raw)
        if m:
            values.setdefault(m.group(1), m.group(2))
            lines.setdefault(m.group(1), raw.strip())
    model = str(show.get("_model") or "")
    info = show.get("model_info")
    arch = str(info.get("general.architecture") or "") if isinstance(info, dict) else ""
    return ModelParameters(model, values, lines, None, source, arch) if values else None


def model_parameters(show: dict | None) -> tuple[ModelParameters, ...]:
    """Every parameter printout the `ollama_show` fact holds: /api/show's own, then pasted ones."""
    if not isinstance(show, dict):
        return ()
    own = from_api_show(show, str(show.get("_source") or "/api/show"))
    printed = tuple(p for p in show.get("_printouts") or () if isinstance(p, ModelParameters))
    return ((own,) if own else ()) + printed


def same_model(a: str, b: str) -> bool:
    """Two names of one model: `test` is `test:latest` (Ollama's default tag)."""
    def norm(n: str) -> str:
        n = n.strip().lower()
        return n if ":" in n.rsplit("/", 1)[-1] else n + ":latest"
    return bool(a and b) and norm(a) == norm(b)
