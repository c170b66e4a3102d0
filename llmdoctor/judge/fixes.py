"""Every fix in the form it is applied, for any unit: a systemd drop-in (values quoted the
way systemd unquotes them), the commands that load and restart it, engine variables set
where the server runs (systemd, Windows, macOS, a container, a pod), and server flags.

Checks, the probe's advice and the tuner all render fixes here, so a drop-in reads the
same wherever it is proposed and a value with a quote or a backslash survives.
"""
from __future__ import annotations

from typing import Any, Mapping

from llmdoctor.redact import KEEP, REDACTED

# The unit the Ollama installer writes; callers that found the service pass its own name.
OLLAMA_UNIT = "ollama"


def unit_file_name(unit: str) -> str:
    """`ollama` -> `ollama.service`: systemctl takes either, a drop-in directory needs the suffix."""
    return unit if "." in unit else f"{unit}.service"


def kept_secret(name: str) -> str:
    """The line a fix has in place of a secret's value: pasting `<redacted>` would replace the real one."""
    return f"# {name}: {KEEP} (a secret, not shown: copy it from where it is set now)"


def environment_line(name: str, value: Any) -> str:
    """`Environment="NAME=value"` escaped as systemd unquotes it: backslash, double quote, `%`
    (a specifier) and line breaks. A redacted value is never written back: the line says to keep it."""
    if REDACTED in str(value):
        return kept_secret(name)
    text = (str(value).replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
            .replace("\n", "\\n").replace("\r", "\\r"))
    return f'Environment="{name}={text}"'


def dropin_path(unit: str, name: str = "override.conf") -> str:
    return f"/etc/systemd/system/{unit_file_name(unit)}.d/{name}"


def dropin(unit: str, values: Mapping[str, Any], name: str = "override.conf", path_comment: bool = True) -> str:
    """The drop-in that sets `values` for `unit` (what `systemctl edit UNIT` writes to override.conf)."""
    lines = ([f"# {dropin_path(unit, name)}"] if path_comment else []) + ["[Service]"]
    lines += [environment_line(k, v) for k, v in values.items()]
    return "\n".join(lines) + "\n"


def edit(unit: str) -> str:
    return f"systemctl edit {unit}"


def restart(unit: str) -> str:
    return f"systemctl restart {unit}"


def reload_and_restart(unit: str) -> str:
    return f"systemctl daemon-reload && systemctl restart {unit}"


def dropin_commands(unit: str) -> tuple[str, ...]:
    path = dropin_path(unit)
    return (f"mkdir -p {path.rsplit('/', 1)[0]}  # then write the drop-in below to {path}", reload_and_restart(unit))


def settings_fix(where: str | None, unit: str = OLLAMA_UNIT, **values: Any) -> tuple[tuple[str, ...], str]:
    """(commands, config) that set engine variables where the server runs."""
    pairs = [(k, str(v)) for k, v in values.items() if REDACTED not in str(v)]
    kept = tuple(kept_secret(k) for k, v in values.items() if REDACTED in str(v))
    if kept and where in ("windows", "macos", "container", "kubernetes"):
        commands, config = settings_fix(where, unit, **dict(pairs))
        return kept + commands, config
    if where == "windows":
        return (tuple(f'setx {k} "{v}"' for k, v in pairs)
                + ("# then quit Ollama from its tray icon and start it again (a running app keeps its old environment)",), "")
    if where == "macos":
        return (tuple(f'launchctl setenv {k} "{v}"' for k, v in pairs)
                + ("# then quit Ollama from the menu bar and open it again",), "")
    if where == "container":
        config = "# docker-compose.yml, under the ollama service\nenvironment:\n" + "".join(
            f'  - {k}={v}\n' for k, v in pairs)
        return (("docker compose up -d  # recreates the container with the new environment",
                 "docker run ... " + " ".join(f"-e {k}={v}" for k, v in pairs) + " ollama/ollama  # without compose"),
                config)
    if where == "kubernetes":
        config = "env:\n" + "".join(f'- name: {k}\n  value: "{v}"\n' for k, v in pairs)
        return (("kubectl rollout restart deploy/ollama  # after adding the env entries to the container spec",), config)
    return dropin_commands(unit), dropin(unit, values)


def plus_commands(fix: tuple[tuple[str, ...], str], before: tuple[str, ...] = (),
                  after: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str]:
    """A settings_fix with more commands around its own."""
    return before + fix[0] + after, fix[1]


def serve_flags_text(cmdline: Any, **flags: Any) -> str:
    """`vllm serve MODEL` with the given flags, keeping the model from the command line when known;
    `LLM(..., key=value)` when the engine was started from Python."""
    model = cmdline.get("model") if cmdline is not None else None
    if cmdline is not None and any(a.startswith(("LLM(", "llm=LLM(")) for a in cmdline.argv[:4]):
        kwargs = ", ".join(f"{k}={v!r}" if isinstance(v, str) and v else f"{k}={v if v != '' else True}"
                           for k, v in flags.items())
        return f"LLM(model={model or 'MODEL'!r}, ..., {kwargs})"
    parts = ["vllm serve", model or "MODEL"]
    parts += [f"--{k.replace('_', '-')}" + (f" {v}" if v != "" else "") for k, v in flags.items()]
    return " ".join(parts)


# Fixes for Ollama that are commands to run, not settings.
PIN_OLLAMA_OPTIONS = ("journalctl -u ollama | grep -E 'starting (llama server|runner|llama-server)'  # compare the runner flags",
                      "ollama show MODEL --modelfile > Modelfile && echo 'PARAMETER num_ctx 8192' >> Modelfile "
                      "&& ollama create MODEL-8k -f Modelfile")

# Why raising OLLAMA_MAX_QUEUE alone does not bound the wait.
OLLAMA_UNBOUNDED_QUEUE = ("Requests for a model that is already loaded skip this queue and wait without any bound "
                           "(ollama/ollama#7758), so a 503 means requests piled up behind a model load.")
