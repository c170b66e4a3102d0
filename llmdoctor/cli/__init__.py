"""The `llmdoctor` command line. Thin: options -> use case -> renderer.

Every command is listed here: diagnose, collect, checks and facts are defined in this
module; the others (COMMANDS) in a module of this package each, imported only when the
command line names one of them or asks for help (start-up time). No `from __future__ import
annotations` here: typer reads the commands' annotations on every run, and would evaluate
each one from a string, twice.
"""

import importlib
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from llmdoctor import __version__
from llmdoctor.cli.complete import ENGINES, check_ids_and_causes, choices
from llmdoctor.model import ExitCode

app = typer.Typer(
    add_completion=False,  # `llmdoctor completion SHELL` instead: no shell detection, no rc-file edits
    rich_markup_mode=None,  # help is plain text: "[user@]host" stays as written
    no_args_is_help=True,
    help="Find why a self-hosted LLM server (Ollama, vLLM, llama.cpp) gets slow under concurrent use: "
    "the cause, the evidence line that proves it, and the fix.",
    epilog="""\b
Examples:
  llmdoctor diagnose                           # this host: the cause, its evidence line, the fix
  llmdoctor diagnose --probe                   # and time a few live requests
  llmdoctor diagnose -H admin@gpu1 -H admin@gpu2 -f json
  llmdoctor probe http://127.0.0.1:11434 --sweep   # users within a TTFT target
  llmdoctor collect -o evidence/               # for a ticket, or for later
""",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)

FORMATS = ("text", "json", "markdown", "nagios", "html")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"llmdoctor {__version__}")
        raise typer.Exit(ExitCode.OK)


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
    config: Optional[Path] = typer.Option(None, "--config", envvar="LLMDOCTOR_CONFIG", help="Site configuration (TOML: [thresholds]); default /etc/llmdoctor/config.toml when it exists."),
) -> None:
    """llmdoctor: diagnose self-hosted LLM servers."""
    from llmdoctor.config import ConfigError, apply

    try:  # before any check is imported: the checks read the thresholds at import
        apply(str(config) if config else None)
    except ConfigError as e:
        fail(str(e))


def fail(message: str, code: int = ExitCode.UNKNOWN) -> None:
    from llmdoctor.redact import redact_text

    typer.echo(redact_text(f"llmdoctor: {message}"), err=True)  # a message may quote a URL with its password
    raise typer.Exit(code)


def _units(units: List[str]) -> tuple[str, ...]:
    """--unit values checked against systemd's unit-name rules before any command sees them."""
    from llmdoctor.knowledge.systemd.names import BadUnitName, check_unit

    try:
        return tuple(check_unit(u) for u in units)
    except BadUnitName as e:
        fail(f"--unit: {e}")
        raise  # (fail exits)


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        fail(f"unknown --format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return fmt


def _seconds(text: str, option: str) -> float:
    from llmdoctor.parsing import ParseError, parse_duration

    try:
        value = parse_duration(text)
    except ParseError as e:
        fail(f"{option}: {e}")
    if value < 0:
        fail(f"{option}: must not be negative")
    return value


def ticket_directory(path: Path) -> Path:
    """A pasted ticket (one file of several command outputs) as an evidence directory."""
    import io
    import json

    from llmdoctor.knowledge.pasted import pasted_encoding
    from llmdoctor.knowledge.ticket import split_ticket_into

    from llmdoctor.scratch import scratch_dir

    out = Path(scratch_dir("llmdoctor-ticket-"))
    files: dict[str, io.TextIOWrapper] = {}

    def write(name: str, text: str) -> None:
        if name not in files:
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            files[name] = open(out / name, "w", encoding="utf-8")
        files[name].write(text)

    try:  # streamed: a 200 MB paste is split line by line, never held whole
        with open(path, "rb") as raw:
            encoding = pasted_encoding(raw.read(4))
            raw.seek(0)
            lines = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline=None)
            split_ticket_into((line[:-1] if line.endswith("\n") else line for line in lines), write)
    except OSError as e:
        fail(f"--evidence {path}: {e.strerror or e}")
    finally:
        for f in files.values():
            f.close()
    if not (out / "meta.json").exists():
        (out / "meta.json").write_text(json.dumps({"host": path.name}))
    return out


def build_targets(
    evidence: Optional[Path],
    hosts: List[str],
    inventory: Optional[Path],
    sudo: bool,
    accept_new_host_keys: bool,
    ssh_config: Optional[str],
    connect_timeout: float,
):
    """(labels, host factories); a bad target is rejected before anything runs."""
    if evidence is not None:
        if hosts or inventory:
            fail("--evidence cannot be combined with --host/--inventory")
        from llmdoctor.hosts.evidence import EvidenceHost

        if evidence.is_file():
            evidence = ticket_directory(evidence)
        try:
            host = EvidenceHost(evidence)
        except NotADirectoryError as e:
            fail(str(e))
        return [host.name], [host]
    names = list(hosts)
    if inventory is not None:
        from llmdoctor.knowledge.inventory import parse_inventory

        try:
            names += parse_inventory(inventory.read_text())
        except OSError as e:
            fail(f"--inventory {inventory}: {e.strerror or e}")
        except ValueError as e:
            fail(f"--inventory {inventory}: {e}")
        if not names:
            fail(f"--inventory {inventory}: no hosts in it")
    if not names:
        from llmdoctor.hosts.local import LocalHost

        host = LocalHost()
        return [host.name], [host]
    from llmdoctor.knowledge.inventory import is_container_target, parse_container_target, parse_target

    for n in names:
        try:
            (parse_container_target if is_container_target(n) else parse_target)(n)
        except ValueError as e:
            fail(str(e) if "invalid host" in str(e) else f"invalid host {n!r}: {e}")

    def factory(target: str):
        def ssh(name: str):
            from llmdoctor.hosts.ssh import SSHHost

            return SSHHost(
                name,
                sudo=sudo,
                accept_new_host_keys=accept_new_host_keys,
                connect_timeout=connect_timeout,
                ssh_config=ssh_config,
            )

        def connect():
            if is_container_target(target):  # docker://NAME, podman://NAME, ssh://host/docker://NAME
                from llmdoctor.hosts.container import ContainerHost

                t = parse_container_target(target)
                if t.runtime == "k8s":  # k8s://[CONTEXT/]NAMESPACE/POD, k8s://[CONTEXT/]NAMESPACE/deploy/NAME
                    from llmdoctor.hosts.kube import KubeHost

                    h = KubeHost(t)
                else:
                    h = ContainerHost(t, via=ssh(str(t.via)) if t.via else None)
            else:
                h = ssh(target)
            h.connect()
            return h

        return connect

    return names, [factory(n) for n in names]


DIAGNOSE_EXAMPLES = """\b
Examples:
  llmdoctor diagnose                          # this host
  llmdoctor diagnose --probe                  # ... and measure TTFT/ITL live
  llmdoctor diagnose -H gpu1 -H admin@gpu2    # over SSH
  llmdoctor diagnose -H docker://ollama       # an engine in a container
  llmdoctor diagnose -H k8s://ai/deploy/vllm  # a Deployment's pod, through kubectl
  llmdoctor diagnose -i hosts.ini --forks 20  # a fleet
  llmdoctor diagnose -e ticket.txt            # a pasted ticket or an evidence directory
  llmdoctor diagnose -f nagios                # one monitoring-plugin line, exit 0-3
  llmdoctor diagnose -q || page-someone       # the summary line only
"""


def _url_port(url: str) -> int:
    """--url's port (the instance listens there on the diagnosed host's loopback)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError as e:
        fail(f"--url {url}: {e}")
    if parts.scheme not in ("http", "https") or not port:
        fail(f"--url {url}: expected http://HOST:PORT")
    return port


@app.command(epilog=DIAGNOSE_EXAMPLES)
def diagnose(
    evidence: Optional[Path] = typer.Option(None, "--evidence", "-e", help="Diagnose an evidence directory (or one file of pasted command outputs) instead of a live host."),
    host: List[str] = typer.Option([], "--host", "-H", help="[user@]host[:port] to diagnose over SSH, or a container: docker://NAME, podman://NAME, ssh://host/docker://NAME, or a Kubernetes pod through kubectl: k8s://[CONTEXT/]NAMESPACE/POD, k8s://[CONTEXT/]NAMESPACE/deploy/NAME (a / in CONTEXT as %2F) (repeatable)."),
    inventory: Optional[Path] = typer.Option(None, "--inventory", "-i", help="File with one host per line (Ansible INI accepted)."),
    forks: int = typer.Option(10, "--forks", min=1, max=256, help="Hosts diagnosed at once."),
    unit: List[str] = typer.Option([], "--unit", "-u", help="systemd unit of the engine, if not ollama/vllm*/llama* (repeatable)."),
    fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(FORMATS), help="text, json, markdown, nagios (one monitoring-plugin line with performance data) or html (one self-contained page)."),
    width: Optional[int] = typer.Option(None, "--width", min=0, max=1000, help="Wrap text at this many columns (default: the terminal's, $COLUMNS, else 80; 0: never)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the summary line (the exit code says the rest)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also say on stderr what was read and how long each fact took."),
    only: List[str] = typer.Option([], "--only", autocompletion=check_ids_and_causes, help="Run only these checks (id or cause; repeatable)."),
    checks_dir: List[Path] = typer.Option([], "--checks-dir", help="Extra directory of site checks (repeatable)."),
    sample_seconds: float = typer.Option(2.0, "--sample-seconds", min=0.0, max=300.0, help="One window, in seconds, over which CPU use, swap traffic and the engines' metrics are sampled together."),
    since: str = typer.Option("24h", "--since", help="How far back to read logs (e.g. 30m, 24h, 7d)."),
    log: List[Path] = typer.Option([], "--log", help="Extra engine log file to read (repeatable)."),
    url: Optional[str] = typer.Option(None, "--url", help="Diagnose only the engine instance at this URL (http://127.0.0.1:8081), where a host runs several."),
    probe: bool = typer.Option(False, "--probe", help="Also run the light live probe (13 requests, at most 2 at once, <= 20 tokens each)."),
    probe_deadline: float = typer.Option(60.0, "--probe-deadline", min=5.0, max=600.0, help="With --probe: overall time limit per engine, seconds."),
    model: Optional[str] = typer.Option(None, "--model", help="With --probe: the model to probe (default: the loaded one)."),
    state_dir: Optional[Path] = typer.Option(None, "--state-dir", help="Remember log positions here so the next run reads only new lines."),
    sudo: bool = typer.Option(False, "--sudo", help="Over SSH, run commands with sudo -n (never prompts)."),
    accept_new_host_keys: bool = typer.Option(False, "--accept-new-host-keys", help="Over SSH, accept keys of hosts not yet known (never changed ones)."),
    ssh_config: Optional[str] = typer.Option(None, "--ssh-config", help="ssh_config file to use (default: the user's)."),
    connect_timeout: float = typer.Option(10.0, "--connect-timeout", min=1.0, max=120.0, help="SSH connect timeout, seconds."),
    prometheus: Optional[str] = typer.Option(None, "--prometheus", help="Diagnose every engine instance whose series a Prometheus server holds, over the --since window (http(s)://HOST:PORT; credentials from --prometheus-auth-file or LLMDOCTOR_PROMETHEUS_TOKEN / _USER and _PASSWORD)."),
    selector: str = typer.Option("", "--selector", help="With --prometheus: only the engine series matching this label selector, e.g. '{job=\"vllm\"}'."),
    prometheus_auth_file: Optional[Path] = typer.Option(None, "--prometheus-auth-file", help="With --prometheus: a file holding a bearer token, or user= and password= lines."),
    prometheus_timeout: float = typer.Option(15.0, "--prometheus-timeout", min=0.5, max=300.0, help="With --prometheus: seconds each query may take (the whole read: four times this, at least 60 s)."),
) -> None:
    """Diagnose this host (default), remote hosts over SSH, an evidence directory, or a fleet's Prometheus."""
    from llmdoctor.app.diagnose import DiagnoseOptions, UnknownCheck, diagnose as run_diagnosis

    _check_format(fmt)
    if quiet and (fmt != "text" or verbose):
        fail("--quiet prints the summary line only; it cannot be combined with --format or --verbose")
    unit = list(_units(unit))
    local_logs = evidence is None and not host and inventory is None
    for p in log:
        if local_logs and not p.is_file():
            fail(f"--log {p}: {'not a file' if p.exists() else 'no such file'}")
        if local_logs and not os.access(p, os.R_OK):
            fail(f"--log {p}: not readable (try sudo, or add yourself to the group that owns it)")
    from llmdoctor.facts import RunOptions

    options = RunOptions(probe=probe, probe_deadline=probe_deadline, probe_model=model,
                         log_files=tuple(str(p) for p in log), state_dir=str(state_dir) if state_dir else None,
                         instance_port=_url_port(url) if url else None)
    opts = DiagnoseOptions(
        units=tuple(unit),
        since_seconds=_seconds(since, "--since"),
        sample_seconds=sample_seconds,
        only=tuple(only),
        checks_dirs=tuple(str(d) for d in checks_dir),
        options=options,
    )
    if prometheus is not None:
        if evidence is not None or host or inventory is not None or url or probe:
            fail("--prometheus reads a Prometheus server; it cannot be combined with -e, -H, -i, --url or --probe")
        report, results = _from_prometheus(prometheus, selector, prometheus_auth_file, prometheus_timeout, opts,
                                           quiet or fmt == "nagios")
        sys.stdout.write(_rendered(report, results, fmt, width, quiet))
        raise typer.Exit(report.exit_code())
    elif selector or prometheus_auth_file is not None:
        fail("--selector and --prometheus-auth-file go with --prometheus")
    names, targets = build_targets(evidence, host, inventory, sudo, accept_new_host_keys, ssh_config, connect_timeout)
    with _progress(f"diagnosing {len(names)} host(s)" if len(names) > 1 else f"diagnosing {names[0]}",
                   quiet or fmt == "nagios", verbose):
        try:
            report, results = run_diagnosis(targets, opts, forks=forks, names=names)
        except UnknownCheck as e:
            fail(str(e))
        except KeyboardInterrupt:  # no half report: say what was cut (a probe says its own), exit 130
            from llmdoctor.steps import cut

            probe_cut = getattr(sys.modules.get("llmdoctor.facts.live_probe"), "ProbeInterrupted", None)
            if not (probe_cut and probe_cut.last):
                cut(f"diagnosing {', '.join(names) if len(names) <= 3 else f'{len(names)} hosts'} was cut "
                    f"before its report; nothing was diagnosed")
            raise typer.Exit(INTERRUPTED)
    sys.stdout.write(_rendered(report, results, fmt, width, quiet))
    if verbose:
        from llmdoctor.render.verbose import what_was_read

        sys.stderr.write(what_was_read(results))
    raise typer.Exit(report.exit_code())


def _from_prometheus(url: str, selector: str, auth_file: Optional[Path], timeout: float, opts, silent: bool):
    """diagnose --prometheus: one line and exit 3 when the server cannot be read."""
    from llmdoctor.app.diagnose import UnknownCheck
    from llmdoctor.app.prometheus import PrometheusError, diagnose_prometheus
    from llmdoctor.hosts.prometheus import PrometheusClient, auth_headers, server_name

    try:
        client = PrometheusClient(url, auth_headers(str(auth_file) if auth_file is not None else None),
                                  query_timeout=timeout, deadline=max(60.0, 4 * timeout))
        with _progress(f"reading {server_name(url)}", silent):
            return diagnose_prometheus(client, opts.since_seconds, selector, opts)
    except PrometheusError as e:
        fail(str(e))
    except UnknownCheck as e:
        fail(str(e))
    raise AssertionError("unreachable")


def _rendered(report, results, fmt: str, width: Optional[int] = None, quiet: bool = False) -> str:
    """The report in fmt; in text, Markdown and HTML with the probe's timeline and charts when
    one ran (its figures and measurements are in the report itself, for JSON and nagios)."""
    from llmdoctor.render.unavailable import HtmlUnavailable
    from llmdoctor.render.report import RENDERERS, render_text

    if quiet:
        from llmdoctor.render.oneline import render_summary_line

        return render_summary_line(report)
    probes = tuple(x for r in results for x in getattr(r.facts.get("probe"), "results", ()))
    try:
        if not probes or fmt not in ("text", "markdown", "html"):
            if fmt == "text" and width is not None:
                return render_text(report, width=width or None)
            return RENDERERS[fmt](report)
        from llmdoctor.knowledge.probe.result import ProbeRuns
        from llmdoctor.render.probe import ProbeView, probe_html, probe_report

        view = ProbeView(report, ProbeRuns(probes))
        return probe_html(view) if fmt == "html" else probe_report(fmt, 0 if width is None else (width or None))(view)
    except HtmlUnavailable as e:
        fail(str(e))
        raise


class _progress:
    """A spinner on stderr while something slow runs, and above it one line per long step
    (llmdoctor/steps.py: the probe's requests, a sampling window, each host of a fleet);
    silent when stderr is not a terminal, except the step lines with -v."""

    def __init__(self, message: str, quiet: bool = False, verbose: bool = False) -> None:
        self.message = message
        self.quiet = quiet
        self.status = None
        self.steps = None
        self.verbose = verbose

    def __enter__(self):
        from llmdoctor.cli.progress import step_printer, steps_to

        if sys.stderr.isatty() and not self.quiet and not os.environ.get("LLMDOCTOR_QUIET"):
            from rich.console import Console

            self.status = Console(stderr=True).status(self.message)
            self.status.__enter__()
        self.steps = steps_to(None if self.quiet else step_printer(verbose=self.verbose))
        self.steps.__enter__()
        return self

    def __exit__(self, *exc):
        self.steps.__exit__(*exc)
        if self.status is not None:
            self.status.__exit__(*exc)
        return False


def _cut_collection(name: str, output: Path, created: bool) -> None:
    """Ctrl-C inside `collect`: the directory was empty (or not there) before, so what is in it
    now is this run's half; it goes, since a bundle without its missing files would read as
    evidence that those things were fine. What was cut is said on the way out (main)."""
    import shutil
    from llmdoctor.steps import cut

    files = sum(1 for p in output.rglob("*") if p.is_file()) if output.is_dir() else 0
    if created:
        shutil.rmtree(output, ignore_errors=True)
    else:
        for p in list(output.iterdir()) if output.is_dir() else ():
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() and not p.is_symlink() else p.unlink(missing_ok=True)
    probe = sys.modules.get("llmdoctor.facts.live_probe")
    during = probe.ProbeInterrupted.last if probe is not None and probe.ProbeInterrupted.last else ""
    kept = (f"nothing had been written to {output} yet" if not files else
            f"the {files} file{'s' if files != 1 else ''} it had written to {output} were removed, since an "
            f"incomplete bundle would read as evidence that the missing parts were fine")
    cut(f"collecting from {name} was cut{' (' + during + ')' if during else ''}; {kept}: run it again")


def _withheld_in(output: Path) -> int:
    """How many values the bundle withheld, as its meta.json says (read through the evidence host)."""
    from llmdoctor.hosts.evidence import EvidenceHost

    try:
        n = EvidenceHost(output).meta.get("withheld")
    except OSError:
        return 0
    return n if isinstance(n, int) else 0


def _bundle_page(output: Path) -> str:
    """report.html in the bundle: what the evidence just written diagnoses to, as a page."""
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose as run_diagnosis
    from llmdoctor.hosts.evidence import EvidenceHost
    from llmdoctor.render.unavailable import HtmlUnavailable

    try:
        report, results = run_diagnosis([EvidenceHost(output)], DiagnoseOptions(), names=[output.name])
        (output / "report.html").write_text(_rendered(report, results, "html"))
    except HtmlUnavailable as e:
        return f"not written: report.html ({e})"
    return "report.html"


@app.command(epilog="""\b
Examples:
  llmdoctor collect -o evidence/                     # this host
  llmdoctor collect -o evidence/ -H admin@gpu1 --sudo   # over SSH
  llmdoctor collect -o evidence/ --probe --clean     # with live timings; host names and IPs pseudonymised
  llmdoctor diagnose -e evidence/                    # diagnose it later, anywhere
""")
def collect(
    output: Path = typer.Option(..., "--output", "-o", help="Directory to write the evidence to (created; must be empty)."),
    host: Optional[str] = typer.Option(None, "--host", "-H", help="[user@]host[:port] to collect from over SSH, or docker://NAME, podman://NAME, ssh://host/docker://NAME, k8s://[CONTEXT/]NAMESPACE/POD, k8s://[CONTEXT/]NAMESPACE/deploy/NAME."),
    unit: List[str] = typer.Option([], "--unit", "-u", help="systemd unit of the engine (repeatable)."),
    since: str = typer.Option("24h", "--since", help="How far back to copy logs."),
    sudo: bool = typer.Option(False, "--sudo", help="Over SSH, run commands with sudo -n."),
    ssh_config: Optional[str] = typer.Option(None, "--ssh-config", help="ssh_config file to use."),
    probe: bool = typer.Option(False, "--probe", help="Also run the light live probe and keep its timings as probe.json."),
    probe_deadline: float = typer.Option(60.0, "--probe-deadline", min=5.0, max=600.0, help="With --probe: overall time limit per engine, seconds."),
    clean: bool = typer.Option(False, "--clean", help="Replace host names, IP and MAC addresses, user names and model directories with stable pseudonyms in every file."),
    keyword: List[str] = typer.Option([], "--keyword", help="With --clean: a site word to replace too (repeatable)."),
    state_dir: Optional[Path] = typer.Option(None, "--state-dir", help="With --clean: where the pseudonym mapping is kept (mode 0600, never in the bundle; default ~/.local/state/llmdoctor)."),
) -> None:
    """Write an evidence directory (secrets redacted) for offline diagnosis or a support ticket."""
    from llmdoctor.app.collect import collect_evidence

    unit = list(_units(unit))
    if output.exists() and (not output.is_dir() or any(output.iterdir())):
        fail(f"{output} exists and is not an empty directory; refusing to overwrite")
    names, targets = build_targets(None, [host] if host else [], None, sudo, False, ssh_config, 10.0)
    target = targets[0]
    from llmdoctor.redact_struct import Withheld

    with Withheld() as withheld:  # (open while connecting: a pod's spec is redacted as it is read)
        try:
            h = target() if callable(target) and not hasattr(target, "run") else target
        except Exception as e:
            fail(f"{names[0]}: {e}")
        created = not output.exists()
        try:
            with _progress(f"collecting from {names[0]}"):
                written, notes = collect_evidence(h, output, units=tuple(unit),
                                                  since_seconds=_seconds(since, "--since"), probe=probe,
                                                  withheld=withheld, probe_deadline=probe_deadline)
        except KeyboardInterrupt:
            _cut_collection(names[0], output, created)
            raise typer.Exit(INTERRUPTED)
        finally:
            h.close()
    if clean or keyword:
        from llmdoctor.app.clean import Cleaner, clean_bundle

        cleaner = Cleaner(state_dir, tuple(keyword))
        n = clean_bundle(output, cleaner, names[0])
        typer.echo(f"cleaned {n} files; the mapping stays on this host: {cleaner.save()}")
    page = _bundle_page(output)
    if page.startswith("not written"):
        notes = [*notes, page]
    else:
        written = [*written, page]
    typer.echo(f"wrote {len(written)} files to {output}")
    withheld = _withheld_in(output)
    if withheld:
        typer.echo(f"  withheld: {withheld} value{'s' if withheld != 1 else ''} under names the diagnosis does not "
                   "read (possible secrets: the names are kept, the values are not)")
    for n in notes:
        typer.echo(f"  not collected: {n}")


@app.command("checks", epilog="""\b
Examples:
  llmdoctor checks                          # id, cause and purpose of every check
  llmdoctor checks --checks-dir /etc/llmdoctor/checks -f json
  llmdoctor diagnose --only ollama-one-slot  # run one of them
""")
def list_checks(
    checks_dir: List[Path] = typer.Option([], "--checks-dir", help="Extra directory of site checks (repeatable)."),
    fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(("text", "json")), help="text or json."),
) -> None:
    """List the checks: id, cause and purpose."""
    import json

    from llmdoctor.plugins import load_checks

    specs, errors = load_checks([str(d) for d in checks_dir])
    specs.sort(key=lambda s: (s.cause.value, s.id))
    if fmt == "json":
        typer.echo(json.dumps([{"id": s.id, "cause": s.cause.value, "purpose": s.purpose, "origin": s.origin,
                                "engines": list(s.engines), "facts": list(s.params), "needs": list(s.needs)}
                               for s in specs], indent=2))
    else:
        from llmdoctor.render.layout import output_width, wrap_text

        width = max((len(s.id) for s in specs), default=10)
        columns = output_width(sys.stdout)
        for s in specs:
            origin = "" if s.origin == "built-in" else f"  [{s.origin}]"
            if columns - width - 22 >= 40:  # room for the purpose beside: it continues under itself
                typer.echo(wrap_text(f"{s.id:<{width}}  {s.cause.value:<18}  {s.purpose}{origin}", columns, hang=width + 22))
            else:  # a narrow terminal: the purpose below, indented
                typer.echo(f"{s.id}  {s.cause.value}")
                typer.echo(wrap_text(f"    {s.purpose}{origin}", columns, hang=0))
    for e in errors:
        typer.echo(f"warning: {e}", err=True)


@app.command("facts", epilog="""\b
Examples:
  llmdoctor facts          # what a site check can ask for, with its type
  llmdoctor facts -f json
""")
def list_facts(fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(("text", "json")), help="text or json.")) -> None:
    """List the facts a check can ask for: name, type and purpose."""
    import json

    from llmdoctor.facts.catalogue import CATALOGUE

    if fmt == "json":
        typer.echo(json.dumps([{"name": f.name, "type": f.type, "purpose": f.purpose} for f in CATALOGUE], indent=2))
        return
    from llmdoctor.render.layout import output_width, wrap_text

    width = max(len(f.name) for f in CATALOGUE)
    columns = output_width(sys.stdout)
    for f in CATALOGUE:
        kind = f.type.replace("llmdoctor.", "")
        typer.echo(wrap_text(f"{f.name:<{width}}  {f.purpose}", columns, hang=width + 2))
        typer.echo(wrap_text(f"{'':<{width}}  -> {kind}", columns))


@app.command("messages", epilog="""\b
Examples:
  llmdoctor messages                 every engine's catalogue, with its coverage
  llmdoctor messages vllm            one engine's
  llmdoctor messages ollama -f json  as JSON (id, versions, source, pattern, facts, causes, examples)""")
def list_messages(
    engine: Optional[str] = typer.Argument(None, autocompletion=choices(ENGINES), help="ollama, vllm, llamacpp (llama-server and the shared llama.cpp lines), sglang, or llama.cpp (the shared lines only)."),
    fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(("text", "json")), help="text or json."),
) -> None:
    """List the engine messages llmdoctor understands: what prints each (source file and line, versions), what it tells, the causes it supports."""
    from llmdoctor.knowledge.messages import ENGINE_NAMES, catalogue, coverage
    from llmdoctor.render.messages import messages_json, messages_text

    if engine is not None and engine not in ENGINE_NAMES:
        fail(f"unknown engine {engine!r}: one of {', '.join(ENGINE_NAMES)}")
    rows = catalogue(engine)
    if fmt == "json":
        typer.echo(messages_json(rows))
    else:
        import sys

        from llmdoctor.render.layout import output_width

        typer.echo(messages_text(rows, coverage(), output_width(sys.stdout)), nl=False)


@app.command("schema", epilog="""\b
Examples:
  llmdoctor schema > report.schema.json
  llmdoctor schema | jq '.properties | keys'   # what a report holds
""")
def schema() -> None:
    """Print the JSON Schema of the report that `diagnose --format json` prints."""
    from llmdoctor.schema import report_schema_text

    sys.stdout.write(report_schema_text())


SHELLS = ("bash", "zsh", "fish")


@app.command("completion", epilog="""\b
Examples:
  llmdoctor completion bash | sudo tee /etc/bash_completion.d/llmdoctor
  echo 'eval "$(llmdoctor completion zsh)"' >> ~/.zshrc
  llmdoctor completion fish > ~/.config/fish/completions/llmdoctor.fish
""")
def completion(shell: str = typer.Argument(..., autocompletion=choices(SHELLS), help="bash, zsh or fish.")) -> None:
    """Print the shell completion script for llmdoctor (commands, options, values)."""
    if shell not in SHELLS:
        fail(f"no completion for {shell!r}; choose one of {', '.join(SHELLS)}")
    from typer._completion_shared import get_completion_script  # typer is pinned below 0.25

    typer.echo(get_completion_script(prog_name="llmdoctor", complete_var="_LLMDOCTOR_COMPLETE", shell=shell))


# command -> the module of this package that defines it (its `register(app)`)
COMMANDS = {"exporter": "exporter", "explain": "explain", "history": "history", "plan": "plan", "probe": "probe",
            "ready": "ready", "tune": "tune"}


def _register_commands() -> None:
    for name in dict.fromkeys(COMMANDS.values()):
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except Exception as e:  # a broken command module must not take the CLI down
            print(f"llmdoctor: command module {name} failed to load: {e}", file=sys.stderr)
            continue
        module.register(app)


def _command_name(info) -> str:
    return info.name or info.callback.__name__.lower().replace("_", "-")


def _names_builtin_command(argv: list[str]) -> bool:
    """True when argv[1] is a command defined in this module: then the add-on commands
    need not be imported and built (typer builds every registered command on each run,
    which costs start-up time; `llmdoctor --help` and unknown names still see them all)."""
    if len(argv) < 2:
        return False
    return argv[1] in {_command_name(c) for c in app.registered_commands if c.callback}


def _only(name: str) -> typer.Typer:
    """The app with only the command `name` registered (its help, options and errors are the
    same): typer builds a click command for every registered one before running any."""
    import copy

    one = copy.copy(app)
    one.registered_commands = [c for c in app.registered_commands if c.callback and _command_name(c) == name]
    return one


def usage_line(message: str, command: str) -> str:
    """A usage error as one line: the message once (click and typer may both have added the
    same suggestion), and where help is."""
    import re

    sentences = re.split(r"(?<=[.?!])\s+", " ".join(message.split()))
    text = " ".join(dict.fromkeys(s for s in sentences if s))
    return f"llmdoctor: {text} (see `llmdoctor {command + ' ' if command else ''}--help`)"


def main() -> None:
    """Run the command line. A usage error (an unknown option, a value out of range, a missing
    argument) is one line on stderr and exit 3, UNKNOWN: a monitor reads 2 as CRITICAL."""
    from llmdoctor import collect_garbage_less

    collect_garbage_less(sys.argv)  # (the `llmdoctor` script comes here first; `python -m llmdoctor` did it already)
    import click

    from llmdoctor.hosts.terminate import install, on_terminate
    from llmdoctor.scratch import remove_all

    on_terminate(remove_all)  # temporary evidence copies go with a SIGTERM too
    install()  # SIGTERM removes SSH control directories and temporary copies, then exits 143
    completing = "_LLMDOCTOR_COMPLETE" in os.environ  # the shell asks for completions (`llmdoctor completion`)
    run = app
    if not _names_builtin_command(sys.argv):
        _register_commands()
    elif not completing:
        run = _only(sys.argv[1])
    if completing:
        from typer.completion import completion_init

        completion_init()
    try:
        code = run(prog_name="llmdoctor", standalone_mode=False)
    except click.UsageError as e:
        command = e.ctx.command_path.partition(" ")[2] if e.ctx is not None else ""
        from llmdoctor.redact import redact_text

        print(redact_text(usage_line(e.format_message(), command)), file=sys.stderr)
        code = ExitCode.UNKNOWN
    except click.Abort:  # Ctrl-C at a prompt
        print("llmdoctor: interrupted", file=sys.stderr)
        code = ExitCode.UNKNOWN
    except click.ClickException as e:  # e.g. a file option that cannot be opened
        from llmdoctor.redact import redact_text

        print(redact_text(f"llmdoctor: {e.format_message()}"), file=sys.stderr)
        code = ExitCode.UNKNOWN
    if code == INTERRUPTED:  # typer turns Ctrl-C into exit 130 and says nothing: say what was cut
        print(f"llmdoctor: interrupted{_what_was_cut()}", file=sys.stderr)
    sys.exit(code if isinstance(code, int) else ExitCode.OK)


INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a Ctrl-C


def _what_was_cut() -> str:
    steps = sys.modules.get("llmdoctor.steps")  # what a command said it cut (collect), else the probe's
    cut = steps.CUT if steps is not None else ""
    probe = sys.modules.get("llmdoctor.facts.live_probe")  # (only where a probe ran)
    cut = cut or (probe.ProbeInterrupted.last if probe is not None else "")
    return f": {cut}" if cut else ""


if __name__ == "__main__":
    main()
