"""llmdoctor's own systemd drop-in: render it, diff it, and check precedence against
every other file that sets the service's environment.

systemd reads the unit file, then all drop-ins (`<unit>.d/*.conf` and `service.d/*.conf`
from every unit directory; a name in /etc hides the same name in /run and /usr/lib)
in the lexical order of their file names; for `Environment=` the last assignment
wins, an empty `Environment=` clears what came before, and `EnvironmentFile=` values
beat `Environment=` whatever the order (systemd.exec(5)). llmdoctor writes only
`zz-llmdoctor.conf`, which sorts after `override.conf` (what `systemctl edit`
writes) and after numbered files, so its values win over them without touching them.
A file that still sorts later and sets the same variable is a conflict: the tuner
stops and names it rather than guessing.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from llmdoctor.judge.fixes import DROPIN_NAME, environment_line
from llmdoctor.knowledge.systemd.environ import parse_env_file
from llmdoctor.knowledge.systemd.units import split_words
from llmdoctor.hosts import system_files

MARKER = "# Managed by llmdoctor"
HEADER = (
    f"{MARKER} (llmdoctor tune ollama). Do not edit: the next tune overwrites it.\n"
    "# Undo with: llmdoctor tune ollama --rollback\n"
)
# Unit directories in systemd's priority order (systemd.unit(5), "Unit File Load Path").
UNIT_DIRS = (
    "etc/systemd/system.control", "run/systemd/system.control", "run/systemd/transient",
    "run/systemd/generator.early", "etc/systemd/system", "etc/systemd/system.attached",
    "run/systemd/system", "run/systemd/generator", "usr/local/lib/systemd/system",
    "usr/lib/systemd/system", "lib/systemd/system", "run/systemd/generator.late",
)


def dropin_path(root: Path, unit: str) -> Path:
    return Path(root) / "etc/systemd/system" / f"{unit}.d" / DROPIN_NAME


def is_confined(root: Path, path: Path) -> bool:
    """Whether `path`, every symlink and `..` resolved, stays under `root`: a hostile unit
    name or a planted link must not make the tuner write outside --root."""
    base = Path(root).resolve()
    try:
        Path(path).resolve().relative_to(base)
    except ValueError:
        return False
    return True


def is_ours(content: str) -> bool:
    return content.startswith(MARKER)


def render(values: dict[str, str], provenance: dict[str, tuple[str, ...]] | None = None) -> str:
    """The drop-in for `values` (sorted, so the same values give the same bytes). `provenance`:
    the settings written on diagnose's advice -> its checks, said in a comment above each, so a
    later tune keeps them once the finding is gone (judge/tune_merge)."""
    lines = [HEADER, "[Service]\n"]
    for name in sorted(values):
        if (provenance or {}).get(name):
            lines.append(f"# {name}: {_PROVENANCE} ({', '.join(provenance[name])})\n")
        lines.append(environment_line(name, values[name]) + "\n")
    return "".join(lines)


_PROVENANCE = "as diagnose's What to change asks"
_PROVENANCE_LINE = re.compile(r"^# ([A-Za-z_][A-Za-z0-9_]*): " + re.escape(_PROVENANCE) + r" \((.*)\)$")


def provenance_of(content: str) -> dict[str, tuple[str, ...]]:
    """Which settings of llmdoctor's drop-in an earlier tune wrote on diagnose's advice."""
    out = {}
    for line in content.splitlines():
        if m := _PROVENANCE_LINE.match(line.strip()):
            out[m.group(1)] = tuple(x.strip() for x in m.group(2).split(",") if x.strip())
    return out


def unified_diff(old: str | None, new: str | None, path: str) -> str:
    a = (old or "").splitlines(keepends=True)
    b = (new or "").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, fromfile=path if old is not None else "/dev/null",
                                        tofile=path if new is not None else "/dev/null"))


# -- reading unit files ---------------------------------------------------------------

@dataclass(frozen=True)
class EnvLine:
    """One environment statement in a unit file."""

    kind: str  # "set" | "reset" | "file"
    name: str = ""  # variable (set) or EnvironmentFile path (file)
    value: str = ""
    optional: bool = False  # EnvironmentFile=-path


def parse_env_lines(content: str) -> list[EnvLine]:
    """Environment=/EnvironmentFile= statements of the [Service] section, in order."""
    out: list[EnvLine] = []
    section = ""
    logical: list[str] = []
    for raw in content.splitlines():
        if logical:
            logical.append(raw)
            if raw.endswith("\\"):
                continue
            line = " ".join(p.rstrip("\\") for p in logical)
            logical = []
        else:
            stripped = raw.strip()
            if stripped.startswith(("#", ";")) or not stripped:
                continue
            if raw.endswith("\\"):
                logical = [raw]
                continue
            line = raw
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        if section != "Service" or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if key == "Environment":
            if not value:
                out.append(EnvLine("reset"))
                continue
            for word in split_words(value):
                if "=" in word:
                    n, _, v = word.partition("=")
                    out.append(EnvLine("set", n, v))
        elif key == "EnvironmentFile":
            if not value:
                out.append(EnvLine("file", "", "reset"))
                continue
            optional = value.startswith("-")
            out.append(EnvLine("file", value.lstrip("-"), optional=optional))
    return out


def unit_files(root: Path, unit: str) -> tuple[Path | None, list[Path]]:
    """(fragment, drop-ins in the order systemd applies them) under `root`."""
    root = Path(root)
    fragment = None
    for d in UNIT_DIRS:
        p = root / d / unit
        if not system_files.masked_or_missing(p):
            fragment = p
            break
    suffix = unit.rpartition(".")[2]
    by_name: dict[str, Path] = {}
    # Which of two same-named files wins (systemd 252, checked in nspawn by the systemd
    # collector's tests): the unit's own <unit>.d in any directory ranks above the
    # type-level service.d in any directory; within each, the directory's priority.
    candidates = [root / d / f"{unit}.d" for d in UNIT_DIRS] + [root / d / f"{suffix}.d" for d in UNIT_DIRS]
    for base in candidates:
        try:
            names = system_files.conf_names(base)
        except OSError:
            continue
        for name in names:
            by_name.setdefault(name, base / name)  # the higher-ranked directory wins
    return fragment, [by_name[n] for n in sorted(by_name)]


def _read(path: Path) -> str:
    return system_files.read_or_empty(path)


def inside(root: Path, path: Path) -> str:
    """The path as the system sees it (without the root prefix)."""
    try:
        return "/" + str(Path(path).relative_to(root)).lstrip("/")
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Precedence:
    wins_over: tuple[str, ...]  # "override.conf sets OLLAMA_X=1" - earlier files we override
    conflicts: tuple[str, ...]  # later files / EnvironmentFile that would beat our values
    file_env: dict[str, tuple[str, str]]  # effective var -> (value, file) from the files


def check_precedence(root: Path, unit: str, names: set[str]) -> Precedence:
    """Where `names` are set besides llmdoctor's drop-in, and whether ours would win."""
    root = Path(root)
    fragment, dropins = unit_files(root, unit)
    ours = dropin_path(root, unit)
    files = ([fragment] if fragment else []) + dropins
    wins, conflicts = [], []
    env: dict[str, tuple[str, str]] = {}
    env_files: list[tuple[str, bool, str]] = []
    for f in files:
        is_our_file = f.name == DROPIN_NAME and f.parent.name == f"{unit}.d"
        # Ours may not exist yet: what matters is where its name sorts.
        after_ours = f != fragment and f.name > DROPIN_NAME
        if is_our_file:
            if f != ours:
                conflicts.append(f"{inside(root, f)} has llmdoctor's file name in another directory and hides "
                                 f"{inside(root, ours)}")
        label = inside(root, f)
        for line in parse_env_lines(_read(f)):
            if line.kind == "reset":
                if after_ours and not is_our_file:
                    conflicts.append(f"{label} clears the environment with an empty Environment= after llmdoctor's drop-in")
                env.clear()
            elif line.kind == "set":
                env[line.name] = (line.value, label)
                if line.name in names and not is_our_file:
                    if after_ours:
                        conflicts.append(f"{label} sets {line.name}={line.value} and sorts after {DROPIN_NAME}")
                    else:
                        wins.append(f"{label} sets {line.name}={line.value}; {DROPIN_NAME} sorts after it and wins "
                                    f"({label} is left untouched)")
            elif line.kind == "file":
                if line.value == "reset":
                    env_files.clear()
                else:
                    env_files.append((line.name, line.optional, label))
    for path, optional, label in env_files:
        content = _read(root / path.lstrip("/"))
        for k, v in {s.name: s.value for s in parse_env_file(content, path)}.items():  # the last one counts
            env[k] = (v, path)
            if k in names:
                conflicts.append(f"{path} (EnvironmentFile= in {label}) sets {k}={v}; EnvironmentFile= values "
                                 f"beat every Environment= line")
    return Precedence(tuple(wins), tuple(conflicts), env)
