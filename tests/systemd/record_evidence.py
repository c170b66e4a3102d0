"""Record the config-* evidence fixtures and the systemd parser fixtures from a real systemd.

    sudo .venv/bin/python -m tests.systemd.record_evidence [config-NAME ...]

Boots systemd 252 in systemd-nspawn (tests/support/nspawn.py), installs the unit that
Ollama's install.sh writes (with a stand-in /usr/local/bin/ollama that only sleeps),
sets up each CONFIG_NOT_APPLIED situation for real and writes what `llmdoctor collect`
would keep: unit.service / dropins/ (or systemctl_cat.txt), env.txt (`systemctl show`),
and copies of host files under files/<path>. Outputs are unedited except that the
recorded timestamps are whatever the clock said.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from llmdoctor.knowledge.systemd.show import PROPERTIES
from tests.support.nspawn import booted_container, skip_reason

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"
UNIT = "ollama.service"
DROPINS = "/etc/systemd/system/ollama.service.d"
SOURCE = ("recorded from systemd 252 (Debian 12) booted in systemd-nspawn by tests/systemd/record_evidence.py; "
          "unit from Ollama's scripts/install.sh with a stand-in ollama binary")
FAKE_OLLAMA = "#!/bin/sh\n# stand-in for the ollama binary: keeps the environment systemd gave it\nexec sleep infinity\n"
QUOTING_UNIT = r"""[Service]
ExecStart=/bin/sleep infinity
Environment=DROPPED=1
Environment=
Environment="A=x\"y" B=$HOME "C=back\\slash" "D=tab\there" E=é F= "G=a  b" H=100%% I='single q' J=semi;colon
Environment=L=with\x41hex "M=new\nline" N=%n
Environment="bad name=1" 1BAD=2 OK_AFTER_BAD=3
Environment=CONT=one \
  CONT2=two
# Environment=COMMENTED=1
; Environment=COMMENTED2=1
  Environment=LEADING_SPACE=1
"""


def show(c) -> str:
    return c.run(["systemctl", "show", UNIT, "-p", ",".join(PROPERTIES)], check=True).stdout


def main_pid(c) -> int:
    return int(c.run(["systemctl", "show", UNIT, "-p", "MainPID", "--value"]).stdout.strip())


def reset(c) -> None:
    c.run(["rm", "-rf", DROPINS, "/etc/systemd/system/ollama.d", "/root/.bashrc", "/usr/share/ollama/.profile"])
    c.run(["systemctl", "daemon-reload"], check=True)
    c.run(["systemctl", "restart", UNIT], check=True)


ONLY: set[str] = set()  # directory names given on the command line: record only those


def snapshot(c, out: Path, expected: list[str], note: str, extra_files=(), cat: bool = False) -> None:
    if ONLY and out.name not in ONLY:
        return
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "meta.json").write_text(json.dumps(
        {"host": "gpu-box", "engine": "ollama", "unit": UNIT, "notes": note}, indent=1) + "\n")
    (out / "expected.json").write_text(json.dumps({"checks": expected, "source": SOURCE}, indent=1) + "\n")
    if cat:
        (out / "systemctl_cat.txt").write_text(c.run(["systemctl", "cat", UNIT], check=True).stdout)
    else:
        (out / "unit.service").write_bytes(c.path(f"/etc/systemd/system/{UNIT}").read_bytes())
        d = c.path(DROPINS)
        if d.is_dir():
            (out / "dropins").mkdir()
            for f in sorted(d.iterdir()):
                (out / "dropins" / f.name).write_bytes(f.read_bytes())
    (out / "env.txt").write_text(show(c))
    pid = main_pid(c)
    if pid:
        extra_files = (f"/proc/{pid}/environ", *extra_files)
    for inside in extra_files:
        target = out / "files" / inside.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(c.path(inside).read_bytes())


def record(evidence_root: Path, systemd_root: Path) -> None:
    passwd = open("/etc/passwd").read() + "ollama:x:998:998::/usr/share/ollama:/bin/false\n"
    group = open("/etc/group").read() + "ollama:x:998:\n"
    install_unit = (systemd_root / "install_sh.service").read_text()
    with booted_container("record", {
        f"etc/systemd/system/{UNIT}": install_unit,
        "usr/local/bin/ollama": FAKE_OLLAMA,
        "etc/systemd/system/quoting.service": QUOTING_UNIT,
        "etc/passwd": passwd, "etc/group": group,
    }) as c:
        c.path("/usr/local/bin/ollama").chmod(0o755)
        c.run(["mkdir", "-p", "/usr/share/ollama"], check=True)
        c.run(["systemctl", "start", UNIT, "quoting.service"], check=True)

        # parser fixtures: systemd's own quoting in `show`, and the process environment it produced
        q = c.run(["systemctl", "show", "quoting.service", "-p", ",".join(PROPERTIES)], check=True).stdout
        (systemd_root / "quoting.service").write_text(QUOTING_UNIT)
        (systemd_root / "show_quoting.txt").write_text(q)
        qpid = int(c.run(["systemctl", "show", "quoting.service", "-p", "MainPID", "--value"]).stdout)
        (systemd_root / "environ_quoting.bin").write_bytes(c.path(f"/proc/{qpid}/environ").read_bytes())

        # healthy: a proper drop-in, reloaded and restarted
        c.write(f"{DROPINS}/override.conf", '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=4"\n'
                                            'Environment="OLLAMA_KEEP_ALIVE=30m"\n')
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        snapshot(c, evidence_root / "config-healthy", [], "drop-in applied: daemon-reload and restart done",
                 cat=True)
        (systemd_root / "cat_healthy.txt").write_text(c.run(["systemctl", "cat", UNIT], check=True).stdout)

        # the same drop-in edited, no daemon-reload
        c.write(f"{DROPINS}/override.conf", '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=8"\n'
                                            'Environment="OLLAMA_KEEP_ALIVE=30m"\n')
        snapshot(c, evidence_root / "config-no-reload", ["systemd-reload-pending"],
                 "override.conf edited (OLLAMA_NUM_PARALLEL 4 -> 8) without systemctl daemon-reload")
        (systemd_root / "show_need_reload.txt").write_text(show(c))

        # daemon-reload, no restart
        c.run(["systemctl", "daemon-reload"], check=True)
        snapshot(c, evidence_root / "config-no-restart", ["systemd-restart-pending"],
                 "daemon-reload done, service not restarted")
        reset(c)

        # an export in root's .bashrc, nothing in the unit
        c.write("/root/.bashrc", "# ~/.bashrc\nexport OLLAMA_HOST=0.0.0.0:11434\n")
        snapshot(c, evidence_root / "config-shell-export", ["systemd-env-outside-unit"],
                 "OLLAMA_HOST exported in /root/.bashrc only", extra_files=("/root/.bashrc",))
        reset(c)

        # a drop-in without [Service]
        c.write(f"{DROPINS}/override.conf", 'Environment="OLLAMA_HOST=0.0.0.0:11434"\n')
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        snapshot(c, evidence_root / "config-dropin-no-header", ["systemd-dropin-ignored"],
                 "override.conf written without a [Service] line; reloaded and restarted")
        reset(c)

        # a drop-in without .conf
        c.write(f"{DROPINS}/override", '[Service]\nEnvironment="OLLAMA_HOST=0.0.0.0:11434"\n')
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        snapshot(c, evidence_root / "config-dropin-not-conf", ["systemd-dropin-ignored"],
                 "drop-in named 'override' (no .conf); reloaded and restarted")
        reset(c)

        # a drop-in in /etc/systemd/system/ollama.d/
        c.write("/etc/systemd/system/ollama.d/override.conf", '[Service]\nEnvironment="OLLAMA_HOST=0.0.0.0:11434"\n')
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        snapshot(c, evidence_root / "config-dropin-wrong-dir", ["systemd-dropin-ignored"],
                 "drop-in written to /etc/systemd/system/ollama.d/; reloaded and restarted",
                 extra_files=("/etc/systemd/system/ollama.d/override.conf",))
        reset(c)

        # the unit file itself edited (systemctl edit --full): the next install.sh run wipes it
        edited = install_unit.replace('[Install]', 'Environment="OLLAMA_NUM_PARALLEL=4"\n\n[Install]')
        c.write(f"/etc/systemd/system/{UNIT}", edited)
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        snapshot(c, evidence_root / "config-unit-edited", ["systemd-env-in-unit-file"],
                 "OLLAMA_NUM_PARALLEL added to /etc/systemd/system/ollama.service itself")
        c.write(f"/etc/systemd/system/{UNIT}", install_unit)
        reset(c)

        # two drop-ins set one variable
        c.write(f"{DROPINS}/override.conf", '[Service]\nEnvironment="OLLAMA_KEEP_ALIVE=24h"\n')
        c.write(f"{DROPINS}/10-tuning.conf", '[Service]\nEnvironment="OLLAMA_KEEP_ALIVE=30m"\n')
        c.run(["systemctl", "daemon-reload"], check=True)
        c.run(["systemctl", "restart", UNIT], check=True)
        snapshot(c, evidence_root / "config-dropin-conflict", ["systemd-env-conflict"],
                 "two drop-ins set OLLAMA_KEEP_ALIVE; override.conf sorts last and wins")
        reset(c)


if __name__ == "__main__":
    reason = skip_reason()
    if reason:
        sys.exit(f"cannot record: {reason}")
    ONLY.update(sys.argv[1:])
    systemd_out = FIXTURES / "systemd"
    if ONLY:  # leave the parser fixtures alone
        import tempfile

        systemd_out = Path(tempfile.mkdtemp())
        shutil.copy(FIXTURES / "systemd" / "install_sh.service", systemd_out)
    record(FIXTURES / "evidence", systemd_out)
    print("recorded")
