"""Every fix in the form it is applied, for any unit: a systemd drop-in (values quoted the
way systemd unquotes them), the commands that load and restart it, engine variables set
where the server runs (systemd, Windows, macOS, a container, a pod), and server flags.

The one renderer of Remedies (llmdoctor.model): checks, the probe's advice and judge/
helpers say a change as values (`env`, `llama`, `vllm`, `sglang`, `flags`, `without`,
`either`), `render` alone turns one into commands and the file to write for its place, and
judge/remedy.py renders the merged values with it too; so a drop-in reads the same wherever it
is proposed, a value with a quote or a backslash survives, and the merge never parses text.
Adding a place (a Helm value, a Quadlet file) is a branch in `_environment`, nothing more.
"""
from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any, Mapping

from llmdoctor.model import Fix
from llmdoctor.redact import KEEP, REDACTED

if TYPE_CHECKING:
    from llmdoctor.model import Remedy

# The unit the Ollama installer writes; callers that found the service pass its own name.
OLLAMA_UNIT = "ollama"
# llmdoctor's own drop-in (as `tune` writes it): it sorts after the user's override.conf, so
# it wins without touching a file llmdoctor did not write.
DROPIN_NAME = "zz-llmdoctor.conf"


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


def dropin_path(unit: str, name: str = DROPIN_NAME) -> str:
    return f"/etc/systemd/system/{unit_file_name(unit)}.d/{name}"


def dropin(unit: str, values: Mapping[str, Any], name: str = DROPIN_NAME, path_comment: bool = True) -> str:
    """The drop-in that sets `values` for `unit`, as its own file (never the user's override.conf)."""
    lines = ([f"# {dropin_path(unit, name)}"] if path_comment else []) + ["[Service]"]
    lines += [environment_line(k, v) for k, v in values.items()]
    return "\n".join(lines) + "\n"


def edit(unit: str) -> str:
    return f"systemctl edit {unit}"


def restart(unit: str) -> str:
    return f"systemctl restart {unit}"


def reload_and_restart(unit: str) -> str:
    return f"systemctl daemon-reload && systemctl restart {unit}"


def dropin_commands(unit: str, name: str = DROPIN_NAME) -> tuple[str, ...]:
    path = dropin_path(unit, name)
    return (f"mkdir -p {path.rsplit('/', 1)[0]}  # for the drop-in below, {path}", reload_and_restart(unit))


def settings_fix(where: str | None, unit: str = OLLAMA_UNIT, **values: Any) -> tuple[tuple[str, ...], str]:
    """(commands, config) that set engine variables where the server runs (for systemd: the unit
    the deployment names, where it names one)."""
    return render(env(where, unit, **values))


# ---- Remedies: the constructors checks use, and the one renderer ----------------------------

def env(where: Any, unit: str = OLLAMA_UNIT, before: tuple[str, ...] = (), verify: tuple[str, ...] = (),
        restart: str = "restart", **values: Any) -> Remedy:
    """Engine variables set where the server runs (`where`: the deployment fact)."""
    from llmdoctor.model import Remedy, Setting

    return Remedy(tuple(Setting(k, v) for k, v in values.items()), where=where, unit=unit, before=before,
                  verify=verify, restart=restart)


def flags(server: str, values: Mapping[str, Any], model: str = "", notes: tuple[str, ...] = (),
          alternatives: tuple[Remedy, ...] = (), verify: tuple[str, ...] = (), argv: tuple[str, ...] = ()) -> Remedy:
    """Flags on a server's command line, by the names the server takes (`-np`, `--max-num-seqs`;
    "" a bare switch). `model`: the words between the program and the flags, when not the usual
    `-m MODEL` / `MODEL` placeholder."""
    from llmdoctor.model import Remedy, Setting

    return Remedy(tuple(Setting(k, v) for k, v in values.items()), server=server, model=model, notes=notes,
                  alternatives=alternatives, verify=verify, argv=tuple(argv))


def llama(values: Mapping[str, Any], **kw: Any) -> Remedy:
    """llama-server flags: `llama({"-np": 4, "-c": 16384})`."""
    return flags("llama-server", values, **kw)


def vllm(cmdline: Any, notes: tuple[str, ...] = (), **kwargs: Any) -> Remedy:
    """vLLM engine arguments by their Python names (`max_num_seqs=64`), for `vllm serve` or, where the
    engine was started from Python, `LLM(...)`; the model kept from the command line when known."""
    model = cmdline.get("model") if cmdline is not None else None
    python = cmdline is not None and any(a.startswith(("LLM(", "llm=LLM(")) for a in cmdline.argv[:4])
    return flags("vllm python" if python else "vllm serve", {_flag(k): v for k, v in kwargs.items()},
                 model=model or "", notes=notes)


def sglang(cmdline: Any, notes: tuple[str, ...] = (), **kwargs: Any) -> Remedy:
    """SGLang server arguments by their Python names (`max_running_requests=64`; True a bare switch)."""
    model = cmdline.get("model_path") if cmdline is not None else None
    return flags("SGLang", {_flag(k): v for k, v in kwargs.items()}, model=str(model) if model else "", notes=notes)


def without(remedy: Remedy, flag: str, argv: tuple[str, ...] = ()) -> Remedy:
    """`remedy` taking `flag` off the server's command line: the running one (`argv`) less the flag
    when known, else the template with a note saying which flag to leave out."""
    from dataclasses import replace

    from llmdoctor.model import REMOVE, Setting

    return replace(remedy, settings=remedy.settings + (Setting(flag, REMOVE),), argv=tuple(argv),
                   notes=remedy.notes + (() if argv else (f"without {flag}",)))


def either(*remedies: Remedy | None) -> Remedy | None:
    """The first remedy, with the others (and their own alternatives) as other ways after it."""
    from dataclasses import replace

    flat = [x for r in remedies if r is not None for x in (replace(r, alternatives=()), *r.alternatives)]
    return replace(flat[0], alternatives=tuple(flat[1:])) if flat else None


def _flag(python_name: str) -> str:
    return "--" + python_name.replace("_", "-")


def remedy_fix(summary: str, remedy: Remedy | None) -> Fix:
    """The finding's fix: the summary, and the remedy rendered for where the server runs."""
    if remedy is None:
        return Fix(summary)
    commands, config = render(remedy)
    return Fix(summary, commands, config, remedy=remedy)


def render(remedy: Remedy) -> tuple[tuple[str, ...], str]:
    """(commands, config) that apply `remedy` where it applies: the only place a fix becomes text."""
    if remedy.server:
        commands = (command_line(remedy),) + tuple(command_line(a) for a in remedy.alternatives)
        return commands + remedy.verify, ""
    commands, config = _environment(remedy.where, remedy.unit or OLLAMA_UNIT, remedy.restart,
                                    {s.name: s.value for s in remedy.settings})
    return remedy.before + commands + remedy.verify, config


def command_line(remedy: Remedy, argv: tuple[str, ...] | None = None, words: bool = False) -> str:
    """The server's command line with the remedy's flags: the running one (`argv`) with them set
    (or taken off) when known, else a template. `words`: for a list of arguments (a pod's `args:`),
    where a redacted value stays in place for the list's renderer to turn into a "keep it" line."""
    from llmdoctor.model import REMOVE

    values = {s.name: s.value for s in remedy.settings}
    note = "".join(f"  # {n}" for n in remedy.notes)
    argv = argv or remedy.argv
    if argv and REDACTED in argv and not words:  # a secret is never written back: the template, other flags as now
        argv, note = (), note + "  # other flags as they are now"
    if remedy.server == "vllm python":
        kwargs = ", ".join(f"{k[2:].replace('-', '_')}={v!r}" if isinstance(v, str) and v else
                           f"{k[2:].replace('-', '_')}={v if v != '' else True}" for k, v in values.items())
        return f"LLM(model={remedy.model or 'MODEL'!r}, ..., {kwargs})" + note
    if argv:
        words, args, i = [], list(argv), 0
        while i < len(args):
            name = ALIASES.get(args[i].split("=", 1)[0], args[i].split("=", 1)[0])
            if name in values:
                v = values[name]
                takes = not (v is True or v is REMOVE or v == "") and "=" not in args[i]
                i += 2 if takes and i + 1 < len(args) and not args[i + 1].startswith("-") else 1
                continue
            words.append(args[i])
            i += 1
        parts = [" ".join(shlex.quote(w) for w in words)]
    else:
        program, model = SERVER_PROGRAMS.get(remedy.server, (remedy.server, "MODEL"))
        parts = [program, remedy.model or model]
    parts += [k if v is True or v == "" else f"{k} {v}" for k, v in values.items() if v is not REMOVE]
    return " ".join(parts) + note


# llama-server and vLLM spell some flags several ways; the first is the one written.
ALIASES = {"--parallel": "-np", "--ctx-size": "-c", "--n-gpu-layers": "-ngl", "--gpu-layers": "-ngl",
           "--flash-attn": "-fa", "--cache-type-k": "-ctk", "--cache-type-v": "-ctv", "-kvu": "--kv-unified",
           "--model": "-m"}
# The program and the model placeholder of each server's command line, as the fixes write them.
SERVER_PROGRAMS = {"llama-server": ("llama-server", "-m MODEL"), "vllm serve": ("vllm serve", "MODEL"),
                   "SGLang": ("python -m sglang.launch_server --model-path", "MODEL")}


def _environment(where: Any, unit: str, restart_how: str, values: Mapping[str, Any]) -> tuple[tuple[str, ...], str]:
    if where == "systemd" and getattr(where, "name", None):
        unit = where.name
    pairs = [(k, str(v)) for k, v in values.items() if REDACTED not in str(v)]
    kept = tuple(kept_secret(k) for k, v in values.items() if REDACTED in str(v))
    if kept and where in ("windows", "macos", "container", "kubernetes"):
        commands, config = _environment(where, unit, restart_how, dict(pairs))
        return kept + commands, config
    if where == "windows":
        return (tuple(f'setx {k} "{v}"' for k, v in pairs)
                + ("# then quit Ollama from its tray icon and start it again (a running app keeps its old environment)",), "")
    if where == "macos":
        return (tuple(f'launchctl setenv {k} "{v}"' for k, v in pairs)
                + ("# then quit Ollama from the menu bar and open it again",), "")
    if where == "container":
        from llmdoctor.knowledge.ollama.deployment import container_name

        name = container_name(where)
        config = (f"# docker-compose.yml, under the service of container {name}\nenvironment:\n" + "".join(
            f'  - {k}={v}\n' for k, v in pairs))
        return (("docker compose up -d  # recreates the container with the new environment",
                 f"docker rm -f {name} && docker run --name {name} ... " + " ".join(f"-e {k}={v}" for k, v in pairs)
                 + " ollama/ollama  # without compose: its other options as before"),
                config)
    if where == "kubernetes":
        config = "env:\n" + "".join(f'- name: {k}\n  value: "{v}"\n' for k, v in pairs)
        return (("kubectl rollout restart deploy/ollama  # after adding the env entries to the container spec",), config)
    if restart_how == "edit":  # the probe's advice: `systemctl edit` opens the drop-in to paste into
        service = unit_file_name(unit)
        return ((f"sudo {edit(service)}   # opens a drop-in; add the lines below", f"sudo {restart(service)}"),
                dropin(service, values, path_comment=False))
    if restart_how == "edit+reload":
        return (edit(unit), reload_and_restart(unit)), dropin(unit, values)
    if restart_how == "reload":
        return (reload_and_restart(unit),), dropin(unit, values)
    return dropin_commands(unit), dropin(unit, values)


def assignment_line(form: str, name: str, value: str) -> str:
    """A variable's assignment written so that it assigns, in the form the user wrote it in (a shell's
    export, cmd.exe's set, setx, a unit's Environment=, docker's -e)."""
    if form == "export":
        return f"export {name}={value}"
    if form == "cmd-set":
        return f"set {name}={value.strip()}"
    if form == "setx":
        return f'setx {name} "{value}"'
    if form == "systemd":
        return environment_line(name, value)
    if form == "docker":
        return f"-e {name}={value}"
    return f"{name}={value}"


def container_env_recheck(name: str) -> tuple[str, ...]:
    """In a container the values live in its environment (docker run -e, compose environment:): recreate it
    after correcting one, and read the value the server took."""
    return ("docker compose up -d  # after correcting the value under environment: (docker run -e: recreate it)",
            f"docker logs {name} 2>&1 | grep 'server config'")


def container_memory_fix(name: str, limit: str) -> tuple[str, ...]:
    """A running Docker container's memory limit raised in place, and what it uses now."""
    return (f"docker update --memory {limit} --memory-swap {limit} {name}  # or mem_limit: in compose; size it "
            "to the model", f"docker stats --no-stream {name}")


def ollama_gpu_recheck(where: str | None, grep: str) -> tuple[str, ...] | None:
    """In a container: look at the GPU as the container sees it, restart it and read its log
    (None elsewhere: the caller's systemd commands apply)."""
    if where != "container":
        return None
    from llmdoctor.knowledge.ollama.deployment import container_name

    name = container_name(where)
    return (f"docker exec {name} nvidia-smi  # the GPU as the container sees it (none: recreate it with --gpus all)",
            f"docker restart {name}", f"docker logs {name} 2>&1 | grep -E '{grep}'")


IMAGES = {"ollama": "ollama/ollama", "vllm": "vllm/vllm-openai", "llamacpp": "ghcr.io/ggml-org/llama.cpp:server-cuda"}


def container_gpu_fix(engine: str | None, image: str | None = None, podman: bool = False,
                      requested: bool = False, name: str | None = None, amd: bool = False) -> tuple[tuple[str, ...], str]:
    """(commands, compose config) that pass the host's GPUs into the engine's container (by its
    name, where docker inspect gave it); when one was requested already, the commands that install
    and register the NVIDIA container toolkit. AMD GPUs go in as the /dev/kfd and /dev/dri devices
    (Ollama's docs/docker.md: `--device /dev/kfd --device /dev/dri ... ollama/ollama:rocm`)."""
    named = f"rm -f {name} && {'podman' if podman else 'docker'} run --name {name} " if name else "run "
    if amd:
        image = "ollama/ollama:rocm" if engine == "ollama" and (image or "ollama/ollama").split(":")[0] == "ollama/ollama" \
            else image or "IMAGE"
        cli = "podman" if podman else "docker"
        check = ("ls -l /dev/kfd /dev/dri/render*  # the container's user needs their groups (video, render)",)
        run = (f"{cli} {named}--device /dev/kfd --device /dev/dri ... {image}  # recreate the container: "
               "a running one keeps its devices",)
        config = ("# docker-compose.yml, under the engine's service\ndevices:\n  - /dev/kfd\n  - /dev/dri\n"
                  "group_add:\n  - video\n  - render\n")
        return ((check + run) if requested else (run + ("docker compose up -d  # with compose: recreates it",))), config
    image = image or IMAGES.get(engine or "", "IMAGE")
    toolkit = ("nvidia-ctk runtime configure --runtime=docker && systemctl restart docker  # after installing "
               "nvidia-container-toolkit", "docker run --rm --gpus all ubuntu nvidia-smi  # must list the GPU")
    if podman:
        run = (f"podman {named}--device nvidia.com/gpu=all ... {image}  # CDI: nvidia-ctk cdi generate "
               "--output=/etc/cdi/nvidia.yaml first",)
    else:
        run = (f"docker {named}--gpus all ... {image}  # recreate the container: a running one keeps its devices",)
    config = ("# docker-compose.yml, under the engine's service\ndeploy:\n  resources:\n    reservations:\n"
              "      devices:\n        - driver: nvidia\n          count: all\n          capabilities: [gpu]\n")
    return ((toolkit + run) if requested else (run + ("docker compose up -d  # with compose: recreates it",))), config


def plus_commands(fix: tuple[tuple[str, ...], str], before: tuple[str, ...] = (),
                  after: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str]:
    """A settings_fix with more commands around its own."""
    return before + fix[0] + after, fix[1]


def serve_flags_text(cmdline: Any, **flags: Any) -> str:
    """`vllm serve MODEL` with the given flags, keeping the model from the command line when known;
    `LLM(..., key=value)` when the engine was started from Python."""
    return command_line(vllm(cmdline, **flags))


def launch_flags_text(cmdline: Any, **flags: Any) -> str:
    """`python -m sglang.launch_server --model-path MODEL` with the given flags (True: a bare switch),
    keeping the model from the command line when known."""
    return command_line(sglang(cmdline, **flags))


# Where GPU memory is the limit, the levers cheapest first: fewer tokens per request costs
# nothing but the longest prompts; a quantised KV cache costs a little accuracy; GPUs cost money.
MEMORY_ORDER = ("Cheapest first: cap the context to the longest prompt+answer you serve, then quantise the KV "
                "cache, then add GPUs.")


# What a llama-server that fell back to the CPU sees of the GPUs (commands to run, not settings).
LIST_DEVICES = ("llama-server --list-devices", "vulkaninfo --summary", "nvidia-smi")

# Fixes for Ollama that are commands to run, not settings.
PIN_OLLAMA_OPTIONS = ("journalctl -u ollama | grep -E 'starting (llama server|runner|llama-server)'  # compare the runner flags",
                      "ollama show MODEL --modelfile > Modelfile && echo 'PARAMETER num_ctx 8192' >> Modelfile "
                      "&& ollama create MODEL-8k -f Modelfile")

# Why raising OLLAMA_MAX_QUEUE alone does not bound the wait.
OLLAMA_UNBOUNDED_QUEUE = ("Requests for a model that is already loaded skip this queue and wait without any bound "
                           "(ollama/ollama#7758), so a 503 means requests piled up behind a model load.")
