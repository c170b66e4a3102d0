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


def dropin_commands(unit: str, values: Mapping[str, Any] | None = None, name: str = DROPIN_NAME) -> tuple[str, ...]:
    """The drop-in written by one command a reader pastes, then loaded: `mkdir -p` and `tee` with a
    quoted here-document (no expansion inside, so `%%`, `\\"` and `$` arrive as written; a value's
    line break is already `\\n`, so no line of the file can read `EOF`), then daemon-reload and restart.
    Not `systemctl edit --drop-in=`: it opens an editor, and the `--stdin` that would read the file from a
    here-document is recent (in systemd's own tests, test/units/*.sh; its first release not checked here),
    while mkdir and tee work with any systemd."""
    path = dropin_path(unit, name)
    if values is None:  # (a caller showing the file itself)
        return (f"mkdir -p {path.rsplit('/', 1)[0]}  # for the drop-in below, {path}", reload_and_restart(unit))
    return (write_file(path, dropin(unit, values, name, path_comment=False)), reload_and_restart(unit))


def write_file(path: str, text: str) -> str:
    """One command that writes `text` to `path`, its directory made first."""
    return f"mkdir -p {path.rsplit('/', 1)[0]} && tee {path} >/dev/null <<'EOF'\n{text.rstrip()}\nEOF"


def writes(command: str, config: str) -> bool:
    """Whether `command` writes `config` itself (a here-document of it): the file is then not shown twice."""
    body = "\n".join(line for line in config.rstrip().splitlines() if not line.startswith("# /"))
    return "<<'EOF'\n" in command and bool(body) and body in command


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


def render(remedy: Remedy, audience: Any = None) -> tuple[tuple[str, ...], str]:
    """(commands, config) that apply `remedy` where it applies: the only place a fix becomes text
    (`audience`: the vLLM release, for its command's form; sudo is for_audience's)."""
    if remedy.server:
        commands = ((command_line(remedy, audience=audience),)
                    + tuple(command_line(a, audience=audience) for a in remedy.alternatives))
        return commands + remedy.verify, ""
    commands, config = _environment(remedy.where, remedy.unit or OLLAMA_UNIT, remedy.restart,
                                    {s.name: s.value for s in remedy.settings})
    return remedy.before + commands + remedy.verify, config


def command_line(remedy: Remedy, argv: tuple[str, ...] | None = None, words: bool = False, audience: Any = None) -> str:
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
        if remedy.server == "vllm serve" and audience is not None and audience.vllm_version:
            from llmdoctor.knowledge.vllm_cli import API_SERVER, has_serve

            if has_serve(audience.vllm_version) is False:  # `vllm serve` is 0.5.2's; before, the module
                program = API_SERVER
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
    # every way a unit's drop-in is applied ("restart", "reload", "edit", "edit+reload") is written the
    # same: one pasteable command that writes it, then daemon-reload and restart
    return dropin_commands(unit, values), dropin(unit, values)


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


# ---- The reader: who pastes the commands, and on what ---------------------------------------
# Checks render their fixes before anyone asked who reads them; diagnose then passes every fix and
# merged change through `for_audience` with what the evidence says of the reader and the host (an
# object with `root`, `journal`, `gpu`, `vllm_version`; None where unknown). This is the one place
# that decides `sudo`, GPU flags and the vLLM command's form.


class Unknown:
    """An audience nothing is known of: sudo kept, GPU flags kept, `vllm serve`."""

    root = journal = gpu = vllm_version = None


UNKNOWN = Unknown()

# GPU settings, by the name the fixes write (ALIASES map the others to these): llama.cpp's offload and
# device placement (common/arg.cpp: --n-gpu-layers, --main-gpu, --split-mode, --tensor-split, and the
# draft model's), vLLM's GPU memory share and GPU parallelism (vllm/engine/arg_utils.py), SGLang's
# (server_args.py: --mem-fraction-static, --tp-size), the variables that pick GPUs for CUDA/ROCm and
# Ollama's (envconfig/config.go: OLLAMA_GPU_OVERHEAD, OLLAMA_SCHED_SPREAD). Not flash attention:
# llama.cpp's CPU backend has it (ggml-cpu ops.cpp ggml_compute_forward_flash_attn_ext).
GPU_SETTINGS = frozenset({
    "-ngl", "-ngld", "--n-gpu-layers-draft", "--gpu-layers-draft", "-mg", "--main-gpu", "-sm", "--split-mode",
    "-ts", "--tensor-split", "--gpu-memory-utilization", "--tensor-parallel-size", "-tp", "--data-parallel-size",
    "--mem-fraction-static", "--tp-size", "--tp", "--dp-size",
    "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
    "OLLAMA_GPU_OVERHEAD", "OLLAMA_SCHED_SPREAD", "OLLAMA_NUM_GPU",
})


def gpu_setting(name: str) -> bool:
    return ALIASES.get(name, name) in GPU_SETTINGS


def for_host(remedy: Remedy, audience: Any = UNKNOWN) -> Remedy:
    """`remedy` less what the host cannot take: no GPU setting where the evidence shows no GPU,
    no vLLM flag its release lacks (knowledge/vllm_cli.FLAGS), each said in a note."""
    from dataclasses import replace

    drop: dict[str, str] = {}
    if audience.gpu is False:
        drop.update((s.name, "no GPU on this host") for s in remedy.settings if gpu_setting(s.name))
    if remedy.server in ("vllm serve", "vllm python") and audience.vllm_version:
        from llmdoctor.knowledge.vllm_cli import has_flag

        drop.update((s.name, f"not in vLLM {audience.vllm_version}") for s in remedy.settings
                    if has_flag(audience.vllm_version, s.name) is False)
    alternatives = tuple(for_host(a, audience) for a in remedy.alternatives)
    if not drop and alternatives == remedy.alternatives:
        return remedy
    kept = tuple(s for s in remedy.settings if s.name not in drop)
    notes = tuple(f"{n} left out: {why}" for n, why in drop.items())
    return replace(remedy, settings=kept, notes=remedy.notes + notes, alternatives=alternatives)


def for_audience(fix: Fix, audience: Any = UNKNOWN) -> Fix:
    """A finding's fix as this reader pastes it on this host: fit_host, then `sudo` where it is needed."""
    return with_sudo(fit_host(fix, audience), audience)


def fit_host(fix: Fix, audience: Any = UNKNOWN) -> Fix:
    """A finding's fix without what the host cannot take: its remedy rendered again (where the fix is that
    remedy's rendering) less GPU settings on a host without a GPU and flags its vLLM lacks, in its vLLM's form."""
    remedy = fix.remedy
    if remedy is None or (fix.commands, fix.config) != render(remedy):
        return fix
    fitted = for_host(remedy, audience)
    if fitted.settings or not remedy.settings:
        commands, config = render(fitted, audience)
    else:  # every setting was one the host cannot take: nothing to set
        commands, config = (f"# nothing to set: {'; '.join(fitted.notes) or 'no GPU on this host'}",), ""
    return Fix(fix.summary, commands, config, remedy=fitted)


def with_sudo(fix: Fix, audience: Any = UNKNOWN) -> Fix:
    """The fix's commands with `sudo` where this reader needs it (as_reader)."""
    commands = tuple(as_reader(c, audience) for c in fix.commands)
    return fix if commands == fix.commands else Fix(fix.summary, commands, fix.config, remedy=fix.remedy)


# What needs root, for a command's first word: systemctl's verbs that change the system manager
# (systemctl(1); org.freedesktop.systemd1.manage-units is an admin action in polkit's default policy),
# kernel modules, the NVIDIA container toolkit's runtime configuration (it edits /etc/docker/daemon.json),
# sysctl's writes, swap; file writes under the system's own directories (mkdir, tee, mv, cp, sed -i, rm).
ROOT_SYSTEMCTL = frozenset({"start", "stop", "restart", "reload", "try-restart", "reload-or-restart", "daemon-reload",
                            "enable", "disable", "reenable", "mask", "unmask", "edit", "set-property", "kill",
                            "reset-failed", "revert", "daemon-reexec", "preset", "link", "isolate"})
ROOT_PROGRAMS = frozenset({"rmmod", "modprobe", "insmod", "swapoff", "swapon", "sysctl", "nvidia-ctk",
                           "nvidia-persistenced", "apt", "apt-get", "dnf", "yum", "zypper", "update-initramfs",
                           "dracut", "mkswap"})
FILE_WRITERS = frozenset({"mkdir", "tee", "mv", "cp", "sed", "rm", "chmod", "chown", "ln", "install", "truncate"})
SYSTEM_PATHS = ("/etc/", "/usr/", "/lib/", "/opt/", "/var/lib/", "/boot/")
_OPERATORS = ("&&", "||", ";", "|")


def as_reader(command: str, audience: Any = UNKNOWN) -> str:
    """`command` as this reader runs it: `sudo ` before each part (of `a && b | c`) that needs root
    unless the reader is root, none where it is (a root shell needs none; sudo may not even be there);
    a here-document's body and a trailing comment are left alone. Unknown reader: sudo stays."""
    first, sep, body = command.partition("\n")
    code, comment = _split_comment(first)
    parts = _split_operators(code)
    out = []
    for part in parts:
        text = part.lstrip()
        if part in _OPERATORS or not text:
            out.append(part)
            continue
        had = text.startswith("sudo ")
        bare = text[5:].lstrip() if had else text
        sudo = audience.root is not True and (had or _needs_root(bare.split(), audience))
        out.append(part[:len(part) - len(text)] + ("sudo " if sudo else "") + bare)
    return "".join(out) + comment + sep + body


def _needs_root(words: list[str], audience: Any) -> bool:
    program = words[0].rsplit("/", 1)[-1]
    if program == "systemctl":
        if "--user" in words:
            return False
        verb = next((w for w in words[1:] if not w.startswith("-")), "")
        return verb in ROOT_SYSTEMCTL
    if program == "journalctl":
        return audience.journal is not True and "--user" not in words
    if program == "nvidia-smi":  # changing a GPU's settings (-pm, -pl, -c, -r, ...) takes root (nvidia-smi(1))
        return any(w in ("-pm", "--persistence-mode", "-pl", "--power-limit", "-r", "--gpu-reset", "-c",
                         "--compute-mode", "-lgc", "-rgc", "-ac", "-rac") for w in words[1:])
    if program in ROOT_PROGRAMS:
        return not (program == "sysctl" and "-w" not in words and not any("=" in w for w in words[1:]))
    if program in FILE_WRITERS:
        if program == "sed" and "-i" not in words and not any(w.startswith("-i") for w in words[1:]):
            return False
        return any(w.startswith(SYSTEM_PATHS) for w in words[1:])
    return False


def _split_comment(line: str) -> tuple[str, str]:
    """(code, `  # comment`) of one shell line: a `#` that starts a word outside quotes."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            j = i
            while j > 0 and line[j - 1] in " \t":
                j -= 1
            return line[:j], line[j:]
    return line, ""


def _split_operators(code: str) -> list[str]:
    """`a && b | c` -> ["a ", "&&", " b ", "|", " c"]: split outside quotes and `$( )`."""
    parts, start, quote, depth, i = [], 0, None, 0, 0
    while i < len(code):
        c = code[i]
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif code.startswith("$(", i):
            depth += 1
            i += 1
        elif c == ")" and depth:
            depth -= 1
        elif not depth:
            op = next((o for o in _OPERATORS if code.startswith(o, i)), None)
            if op:
                parts += [code[start:i], op]
                i += len(op)
                start = i
                continue
        i += 1
    return parts + [code[start:]]
