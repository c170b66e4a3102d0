"""CONFIG_NOT_APPLIED against a real, booted systemd (systemd-nspawn, TESTBED.md).

One container per module: an `ollama.service` whose ExecStart is a harmless
long-running process, installed from the real install.sh unit shape (FACTS.md §1).
The collectors run through ContainerHost (nsenter for commands, the container's
root for files), the checks run as the diagnosis would run them.
"""
from __future__ import annotations

import pytest

from llmdoctor.knowledge.engines import OLLAMA, EngineInstance
from llmdoctor.facts import Context, FactStore
from tests.support.nspawn import ContainerHost, booted_container, skip_reason
from tests.systemd.helpers import config_checks, findings_by_check

pytestmark = [pytest.mark.real, pytest.mark.root]

# scripts/install.sh configure_systemd() shape; ExecStart swapped for a harmless process.
INSTALL_SH_UNIT = """[Unit]
Description=Ollama Service
After=network-online.target

[Service]
ExecStart=/bin/sleep infinity
User=ollama
Group=ollama
Restart=always
RestartSec=3
Environment="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

[Install]
WantedBy=default.target
"""
PASSWD_LINE = "ollama:x:998:998::/usr/share/ollama:/bin/false\n"
GROUP_LINE = "ollama:x:998:\n"
UNIT = "ollama.service"
DROPIN = "/etc/systemd/system/ollama.service.d/override.conf"


@pytest.fixture(scope="module")
def container():
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    passwd = open("/etc/passwd").read() + PASSWD_LINE
    group = open("/etc/group").read() + GROUP_LINE
    with booted_container("config", {
        "etc/systemd/system/ollama.service": INSTALL_SH_UNIT,
        "etc/passwd": passwd,
        "etc/group": group,
    }) as c:
        c.run(["mkdir", "-p", "/usr/share/ollama"], check=True)
        c.run(["systemctl", "start", UNIT], check=True)
        yield c


def diagnose(c) -> dict[str, list]:
    """Run the systemd collectors and the CONFIG_NOT_APPLIED checks; findings by check id."""
    return findings_by_check(FactStore(Context(ContainerHost(c)), preset={
        "engines": (EngineInstance(OLLAMA, unit=UNIT, found_by="systemd unit"),)}))


def test_healthy_unit_reports_nothing(container):
    assert diagnose(container) == {}


def test_reload_then_restart_sequence(container):
    c = container
    try:
        # (a) a drop-in written, no daemon-reload: the files are ahead of systemd
        c.write(DROPIN, '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=4"\nEnvironment="OLLAMA_API_KEY=s3cret"\n')
        found = diagnose(c)
        assert set(found) == {"systemd-reload-pending"}, found
        (f,) = found["systemd-reload-pending"]
        texts = [e.text for e in f.evidence]
        assert any("OLLAMA_NUM_PARALLEL=4" in t for t in texts), texts
        assert any(e.source == f"{DROPIN}:2" for e in f.evidence), f.evidence
        assert "daemon-reload" in f.fix.commands[0] and UNIT in f.fix.commands[0]
        assert all("s3cret" not in e.text for e in f.evidence), f.evidence

        # (b) daemon-reload but no restart: systemd is ahead of the process
        c.run(["systemctl", "daemon-reload"], check=True)
        found = diagnose(c)
        assert set(found) == {"systemd-restart-pending"}, found
        (f,) = found["systemd-restart-pending"]
        texts = " | ".join(e.text for e in f.evidence)
        assert "Environment= has OLLAMA_NUM_PARALLEL=4" in texts
        assert "has no OLLAMA_NUM_PARALLEL" in texts
        assert "s3cret" not in texts and "<redacted>" in texts
        assert f.fix.commands == (f"systemctl restart {UNIT}",)

        # (c) restarted: nothing left to report
        c.run(["systemctl", "restart", UNIT], check=True)
        assert diagnose(c) == {}

        # an existing drop-in edited without reload: NeedDaemonReload=yes is quoted
        c.write(DROPIN, '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=8"\n')
        found = diagnose(c)
        assert set(found) == {"systemd-reload-pending"}, found
        assert any(e.text == "NeedDaemonReload=yes" for e in found["systemd-reload-pending"][0].evidence)
    finally:
        c.run(["rm", "-rf", "/etc/systemd/system/ollama.service.d"])
        c.run(["systemctl", "daemon-reload"])
        c.run(["systemctl", "restart", UNIT])


def test_ignored_dropins_and_shell_exports(container):
    c = container
    try:
        c.write("/etc/systemd/system/ollama.service.d/10-noheader.conf", "Environment=OLLAMA_KEEP_ALIVE=24h\n")
        c.write("/etc/systemd/system/ollama.service.d/override", "[Service]\nEnvironment=OLLAMA_FLASH_ATTENTION=1\n")
        c.write("/etc/systemd/system/ollama.d/override.conf", "[Service]\nEnvironment=OLLAMA_NUM_PARALLEL=2\n")
        c.write("/root/ollama.service.d/override.conf", "[Service]\nEnvironment=OLLAMA_NUM_PARALLEL=3\n")
        c.write("/etc/systemd/system/ollama.service.d/20-a.conf", "[Service]\nEnvironment=OLLAMA_MAX_QUEUE=64\n")
        c.write("/etc/systemd/system/ollama.service.d/30-b.conf", "[Service]\nEnvironment=OLLAMA_MAX_QUEUE=128\n")
        c.write("/root/.bashrc", "export OLLAMA_CONTEXT_LENGTH=8192\n")
        c.write("/usr/share/ollama/.profile", "OLLAMA_MODELS=/srv/models; export OLLAMA_MODELS\n")
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        # systemd itself agrees: the header-less assignment is ignored
        show = c.run(["systemctl", "show", UNIT, "-p", "Environment"]).stdout
        assert "OLLAMA_KEEP_ALIVE" not in show and "OLLAMA_FLASH_ATTENTION" not in show
        assert "OLLAMA_MAX_QUEUE=128" in show
        found = diagnose(c)
        assert set(found) == {"systemd-dropin-ignored", "systemd-env-outside-unit", "systemd-env-conflict"}, found
        titles = " | ".join(f.title for f in found["systemd-dropin-ignored"])
        assert "10-noheader.conf has no [Service] header" in titles
        assert "override does not end in .conf" in titles
        assert "ollama.d/override.conf is in a directory systemd never reads" in titles
        assert "/root/ollama.service.d/override.conf is in a directory systemd never reads" in titles
        (conflict,) = found["systemd-env-conflict"]
        assert "30-b.conf wins with OLLAMA_MAX_QUEUE=128" in conflict.title
        (shell,) = found["systemd-env-outside-unit"]
        sources = {e.source for e in shell.evidence}
        assert "/root/.bashrc:1" in sources and "/usr/share/ollama/.profile:1" in sources
        assert 'Environment="OLLAMA_CONTEXT_LENGTH=8192"' in shell.fix.config
    finally:
        c.run(["rm", "-rf", "/etc/systemd/system/ollama.service.d", "/etc/systemd/system/ollama.d",
               "/root/.bashrc", "/usr/share/ollama/.profile", "/root/ollama.service.d"])
        c.run(["systemctl", "daemon-reload"])
        c.run(["systemctl", "restart", UNIT])


def test_dropin_precedence_matches_real_systemd(container):
    """The files-on-disk view equals what systemd itself loads, across /etc, /run, /usr/lib."""
    c = container
    files = {
        "/etc/systemd/system/ollama.service.d/50-same.conf": "[Service]\nEnvironment=OLLAMA_MAX_QUEUE=1\n",
        "/run/systemd/system/ollama.service.d/50-same.conf": "[Service]\nEnvironment=OLLAMA_MAX_QUEUE=2\n",
        "/run/systemd/system/ollama.service.d/10-run.conf": "[Service]\nEnvironment=OLLAMA_DEBUG=1\n",
        "/usr/lib/systemd/system/ollama.service.d/05-usr.conf": "[Service]\nEnvironment=OLLAMA_DEBUG=0 OLLAMA_KEEP_ALIVE=1h\n",
        "/usr/lib/systemd/system/ollama.service.d/60-usr.conf": "[Service]\nEnvironment=OLLAMA_KEEP_ALIVE=2h\n",
        "/etc/systemd/system/service.d/20-all.conf": "[Service]\nEnvironment=ALL_SERVICES=1\n",
        "/etc/systemd/system/ollama.service.d/70-reset.conf": "[Service]\nEnvironment=\nEnvironment=OLLAMA_NUM_PARALLEL=3\n",
        "/etc/systemd/system/ollama.service.d/80-after.conf": "[Service]\nEnvironment=OLLAMA_ORIGINS=\"a b\"\n",
    }
    try:
        for path, text in files.items():
            c.write(path, text)
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        store = FactStore(Context(ContainerHost(c)), preset={
            "engines": (EngineInstance(OLLAMA, unit=UNIT, found_by="systemd unit"),)})
        (u,) = store.get("systemd_units")
        assert u.loaded_dropin_paths == u.dropin_paths
        assert "/run/systemd/system/ollama.service.d/50-same.conf" not in u.dropin_paths
        assert u.file_env == u.loaded_env == {"OLLAMA_NUM_PARALLEL": "3", "OLLAMA_ORIGINS": "a b"}
        assert u.need_daemon_reload is False
        assert all(u.process_env[k] == v for k, v in u.loaded_env.items())
        # the /run drop-in's OLLAMA_MAX_QUEUE=2 never applies: hidden by /etc's file of the same name
        found = diagnose(c)
        assert set(found) == {"systemd-dropin-ignored"}, found
        (f,) = found["systemd-dropin-ignored"]
        assert f.title.startswith("ollama.service: /run/systemd/system/ollama.service.d/50-same.conf is hidden")
    finally:
        c.run(["rm", "-rf", "/etc/systemd/system/ollama.service.d", "/run/systemd/system/ollama.service.d",
               "/usr/lib/systemd/system/ollama.service.d", "/etc/systemd/system/service.d"])
        c.run(["systemctl", "daemon-reload"])
        c.run(["systemctl", "restart", UNIT])


def test_collectors_degrade_without_root_view(container):
    """A unit that is not running: no process environment, a note saying why, no finding."""
    c = container
    try:
        c.run(["systemctl", "stop", UNIT], check=True)
        store = FactStore(Context(ContainerHost(c)), preset={
            "engines": (EngineInstance(OLLAMA, unit=UNIT, found_by="systemd unit"),)})
        (u,) = store.get("systemd_units")
        assert u.process_env is None and u.main_pid is None
        assert any("not running" in n for n in u.notes)
        assert diagnose(c) == {}
    finally:
        c.run(["systemctl", "start", UNIT])


EDGE_DROPINS = {
    "10-bom.conf": "\ufeff[Service]\r\nEnvironment=OLLAMA_BOM=1\r\n",  # BOM and CRLF: accepted
    "20-lower.conf": "[service]\nEnvironment=OLLAMA_LOWER=1\n",  # "Unknown section 'service'"
    "30-badname.conf": '[Service]\nEnvironment="OLLAMA HOST=1" OLLAMA_GOOD=1\n',  # one word rejected
    "40-space.conf": "[Service]\nEnvironment = OLLAMA_SPACED=1\n",  # accepted
    "50-inline.conf": "[Service]\nEnvironment=OLLAMA_INLINE=1 # comment\n",  # '#' and 'comment' rejected
    "60-unitsec.conf": "[Unit]\nEnvironment=OLLAMA_UNITSEC=1\n",  # "Unknown key 'Environment' in section [Unit]"
    "70-dup.conf": "[Service]\n[Service]\nEnvironment=OLLAMA_DUP=1\n",  # accepted
}


def test_edge_cases_parse_like_real_systemd(container):
    """Each file's fate as real systemd decides it, and the problems llmdoctor reports for it."""
    c = container
    try:
        for name, text in EDGE_DROPINS.items():
            c.write(f"/etc/systemd/system/ollama.service.d/{name}", text)
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        store = FactStore(Context(ContainerHost(c)), preset={
            "engines": (EngineInstance(OLLAMA, unit=UNIT, found_by="systemd unit"),)})
        (u,) = store.get("systemd_units")
        engine = {k: v for k, v in u.loaded_env.items() if k.startswith("OLLAMA_")}
        assert engine == {"OLLAMA_BOM": "1", "OLLAMA_GOOD": "1", "OLLAMA_SPACED": "1", "OLLAMA_INLINE": "1",
                          "OLLAMA_DUP": "1"}
        assert u.file_env == u.loaded_env
        problems = sorted((p.path.rsplit("/", 1)[1], p.kind) for p in u.problems)
        assert problems == [("20-lower.conf", "wrong-section"), ("30-badname.conf", "invalid-assignment"),
                            ("50-inline.conf", "invalid-assignment"),
                            ("60-unitsec.conf", "wrong-section")]
        inline = next(p for p in u.problems if p.path.endswith("50-inline.conf"))
        assert "'#', 'comment'" in inline.detail and "no end-of-line comments" in inline.detail
        found = diagnose(c)
        assert set(found) == {"systemd-dropin-ignored"}
        assert len(found["systemd-dropin-ignored"]) == 4  # one finding per file
    finally:
        c.run(["rm", "-rf", "/etc/systemd/system/ollama.service.d"])
        c.run(["systemctl", "daemon-reload"])
        c.run(["systemctl", "restart", UNIT])


def test_environment_file_edit_needs_only_a_restart(container):
    """EnvironmentFile= is read at each start: an edit needs a restart, never a daemon-reload."""
    c = container
    try:
        c.write(DROPIN, "[Service]\nEnvironmentFile=-/etc/ollama.env\n")
        c.write("/etc/ollama.env", "OLLAMA_NUM_PARALLEL=2\n")
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        assert diagnose(c) == {}
        c.write("/etc/ollama.env", "# raised for five users\nOLLAMA_NUM_PARALLEL=6\n")
        found = diagnose(c)
        assert set(found) == {"systemd-restart-pending"}, found
        pairs = [(e.source, e.text) for e in found["systemd-restart-pending"][0].evidence]
        assert ("/etc/ollama.env:2", "OLLAMA_NUM_PARALLEL=6") in pairs
        assert any(s.endswith("/environ") and t.endswith("has OLLAMA_NUM_PARALLEL=2") for s, t in pairs)
        c.run(["systemctl", "restart", UNIT], check=True)
        assert diagnose(c) == {}
    finally:
        c.run(["rm", "-rf", "/etc/systemd/system/ollama.service.d", "/etc/ollama.env"])
        c.run(["systemctl", "daemon-reload"])
        c.run(["systemctl", "restart", UNIT])


def test_fix_snippet_quoting_round_trips_through_real_systemd(container):
    """The drop-in llmdoctor prints as a fix (every fix renders through judge/fixes.py) gives the
    service exactly the value the operator meant."""
    import random

    from llmdoctor.judge.fixes import dropin as snippet
    nasty = ['0.0.0.0:11434', 'a b  c', 'x"y', "it's", "back\\slash", "tail\\", "100%", "%h%n", "$HOME ${X}",
             "semi;colon # hash", "é ü 中", "new\nline", "tab\there", "", " lead", "trail ", '"quoted"', "=eq=",
             "\\x41 not an escape"]
    rng = random.Random(1234)
    alphabet = "ab Z9_-:/.,;#%$\"'\\=*?[]{}()!&|<>`~é\t"
    nasty += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24))) for _ in range(40)]
    env = {f"OLLAMA_T{i}": v for i, v in enumerate(nasty)}
    c = container
    try:
        c.write(DROPIN, snippet(UNIT, env))
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        store = FactStore(Context(ContainerHost(c)), preset={
            "engines": (EngineInstance(OLLAMA, unit=UNIT, found_by="systemd unit"),)})
        (u,) = store.get("systemd_units")
        got = {k: v for k, v in u.process_env.items() if k.startswith("OLLAMA_T")}
        assert got == env
        assert {k: u.loaded_env[k] for k in env} == env  # our `systemctl show` parser agrees
        assert {k: u.file_env[k] for k in env} == env  # and so does our unit-file parser
    finally:
        c.run(["rm", "-rf", "/etc/systemd/system/ollama.service.d"])
        c.run(["systemctl", "daemon-reload"])
        c.run(["systemctl", "restart", UNIT])


def _collect(c, out) -> None:
    """What `llmdoctor collect` keeps for systemd (env.txt, systemctl_cat.txt, files/)."""
    import json

    from llmdoctor.redact import redact_text
    from llmdoctor.app.collect_systemd import evidence_files
    from llmdoctor.knowledge.systemd.show import PROPERTIES

    host = ContainerHost(c)
    store = FactStore(Context(host), preset={"engines": (EngineInstance(OLLAMA, unit=UNIT, found_by="systemd unit"),)})
    out.mkdir()
    (out / "meta.json").write_text(json.dumps({"engine": "ollama", "unit": UNIT}))
    (out / "env.txt").write_text(redact_text(c.run(["systemctl", "show", UNIT, "-p", ",".join(PROPERTIES)]).stdout))
    (out / "systemctl_cat.txt").write_text(redact_text(c.run(["systemctl", "cat", UNIT]).stdout))
    from llmdoctor.hosts.bundle import EvidenceWriter

    bundle = EvidenceWriter(out)
    for path, text in evidence_files(host, store.get("systemd_units"), store.optional("shell_exports", ())).items():
        bundle.copy(path, text)


def test_collected_evidence_diagnoses_like_the_live_host(container, tmp_path):
    """Each situation diagnosed live and from what collect keeps: the same checks fire."""
    from llmdoctor.hosts.evidence import EvidenceHost
    from tests.systemd.test_systemd_checks import run_mine

    c = container
    steps = [
        ("no-reload", lambda: c.write(DROPIN, '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=4" "OLLAMA_API_KEY=k3y"\n')),
        ("no-restart", lambda: c.run(["systemctl", "daemon-reload"], check=True)),
        ("restarted", lambda: c.run(["systemctl", "restart", UNIT], check=True)),
        ("shell-and-ignored", lambda: (c.write("/root/.bashrc", "export OLLAMA_KEEP_ALIVE=24h\n"),
                                       c.write("/etc/systemd/system/ollama.service.d/x.conf.disabled2",
                                               "[Service]\nEnvironment=OLLAMA_DEBUG=1\n"))),
    ]
    try:
        for name, step in steps:
            step()
            live = sorted(diagnose(c))
            _collect(c, tmp_path / name)
            offline, _ = run_mine(EvidenceHost(tmp_path / name))
            assert sorted(offline) == live, (name, live, offline)
            assert "k3y" not in "".join(p.read_text(errors="replace") for p in (tmp_path / name).rglob("*") if p.is_file())
        assert live == ["systemd-dropin-ignored", "systemd-env-outside-unit"]
    finally:
        c.run(["rm", "-rf", "/etc/systemd/system/ollama.service.d", "/root/.bashrc"])
        c.run(["systemctl", "daemon-reload"])
        c.run(["systemctl", "restart", UNIT])


def test_dash_prefix_and_type_level_priority_matches_real_systemd(container):
    """Same file name in unit, dash-prefix and type-level dirs across /etc, /run, /usr/lib."""
    c = container
    unit = "llama-server-big.service"
    layout = {
        "/usr/lib/systemd/system/llama-server-big.service.d/10.conf": "usr-unit",
        "/etc/systemd/system/service.d/10.conf": "etc-type",
        "/etc/systemd/system/llama-.service.d/10.conf": "etc-dash1",
        "/run/systemd/system/llama-server-.service.d/20.conf": "run-dash2",
        "/usr/lib/systemd/system/llama-server-big.service.d/20.conf": "usr-unit20",
        "/etc/systemd/system/service.d/30.conf": "etc-type30",
        "/usr/lib/systemd/system/llama-.service.d/30.conf": "usr-dash30",
        "/etc/systemd/system/llama-server-big.service.d/40.conf": "etc-unit40",
        "/etc/systemd/system/llama-server-.service.d/40.conf": "etc-dash40",
        "/run/systemd/system/llama-server-big.service.d/50.conf": "run-unit50",
        "/etc/systemd/system/llama-.service.d/50.conf": "etc-dash50",
        "/run/systemd/system/service.d/60.conf": "run-type60",
        "/usr/lib/systemd/system/service.d/60.conf": "usr-type60",
    }
    try:
        c.write(f"/etc/systemd/system/{unit}", "[Service]\nExecStart=/bin/sleep infinity\n")
        for path, value in layout.items():
            name = path.rsplit("/", 1)[1][:2]
            c.write(path, f"[Service]\nEnvironment=LLAMA_ARG_T{name}={value}\n")
        c.run(["systemctl", "daemon-reload"], check=True)
        store = FactStore(Context(ContainerHost(c)), preset={
            "engines": (EngineInstance("llamacpp", unit=unit, found_by="systemd unit"),)})
        (u,) = store.get("systemd_units")
        assert u.dropin_paths == u.loaded_dropin_paths
        assert u.file_env == u.loaded_env
        assert u.loaded_env["LLAMA_ARG_T40"] == "etc-unit40" and u.loaded_env["LLAMA_ARG_T50"] == "etc-dash50"
    finally:
        c.run(["rm", "-rf", f"/etc/systemd/system/{unit}", "/etc/systemd/system/service.d",
               "/etc/systemd/system/llama-.service.d", "/etc/systemd/system/llama-server-.service.d",
               "/etc/systemd/system/llama-server-big.service.d", "/run/systemd/system/llama-server-.service.d",
               "/run/systemd/system/llama-server-big.service.d", "/run/systemd/system/service.d",
               "/usr/lib/systemd/system/llama-server-big.service.d", "/usr/lib/systemd/system/llama-.service.d",
               "/usr/lib/systemd/system/service.d"])
        c.run(["systemctl", "daemon-reload"])
