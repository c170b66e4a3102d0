"""What `collect` writes through hosts/bundle.py is what an EvidenceHost answers the same
question from: the writer and the reader share hosts/evidence.py's tables, so no file name is
spelled twice (and none outside hosts/)."""
from __future__ import annotations

import json

import pytest

from llmdoctor.hosts.bundle import RECORDS, EvidenceWriter, command_file
from llmdoctor.hosts.evidence import COMMANDS, HTTP, EvidenceHost

ARGV = {  # a command line collect runs, per COMMANDS key
    ("ollama", "ps"): ["ollama", "ps"],
    ("systemctl", "show"): ["systemctl", "show", "-p", "Environment,MainPID", "--", "ollama.service"],
    ("systemctl", "cat"): ["systemctl", "cat", "--", "ollama.service"],
    ("vmstat",): ["vmstat", "1", "3"],
    ("nvidia-smi", "-q"): ["nvidia-smi", "-q"],
    ("nvidia-smi",): ["nvidia-smi"],
    ("journalctl", "-k"): ["journalctl", "-k", "-b"],
    ("dmesg",): ["dmesg"],
    ("amd-smi", "metric"): ["amd-smi", "metric", "--mem-usage", "--json"],
    ("amd-smi", "static"): ["amd-smi", "static", "--asic", "--driver", "--json"],
    ("rocm-smi",): ["rocm-smi", "--showmeminfo", "vram", "--json"],
    ("id",): ["id"],
}


def test_every_command_has_an_argv_here():
    assert set(ARGV) == set(COMMANDS)


@pytest.mark.parametrize("key", sorted(ARGV), ids=" ".join)
def test_a_command_answer_is_read_back(tmp_path, key):
    argv = ARGV[key]
    text = f"output of {argv[0]}\n"
    EvidenceWriter(tmp_path).command(argv, text)
    res = EvidenceHost(tmp_path).run(argv)
    assert res.stdout == text and res.source == command_file(argv)


@pytest.mark.parametrize("method,path", sorted(HTTP))
def test_an_http_answer_is_read_back(tmp_path, method, path):
    text = json.dumps({"answer": path})
    EvidenceWriter(tmp_path).response(method, path, text)
    assert EvidenceHost(tmp_path).http(method, 11434, path).text == text


def test_reads_copies_records_and_logs_are_read_back(tmp_path):
    bundle = EvidenceWriter(tmp_path)
    bundle.read("/proc/meminfo", "MemTotal: 1 kB\n")
    bundle.read("/proc/4242/cmdline", "/usr/bin/ollama serve\n")
    bundle.copy("/etc/systemd/system/ollama.service.d/override.conf", "[Service]\nEnvironment=OLLAMA_NUM_PARALLEL=4\n")
    bundle.copy("/sys/class/drm/card1/device/vendor", "0x1002\n")
    for what in ("cpu", "progress", "probe"):
        bundle.record(what, "{}\n")
    bundle.record("docker inspect", '[{"Id": "abc", "Config": {"Env": []}}]\n')
    bundle.record("pod describe", "Name: p\n")
    bundle.record("pod events", '{"items": []}\n')
    bundle.record("pod log", "one line\n")
    bundle.journal("vllm", "INFO vllm line\n")
    bundle.journal(None, "ollama line\n")
    bundle.record("meta", json.dumps({"host": "gpu1", "engine": "ollama"}))
    host = EvidenceHost(tmp_path)
    assert host.read("/proc/meminfo") == b"MemTotal: 1 kB\n"
    assert host.read("/proc/4242/cmdline").strip() == b"/usr/bin/ollama serve"
    assert b"OLLAMA_NUM_PARALLEL=4" in host.read("/etc/systemd/system/ollama.service.d/override.conf")
    assert host.read("/sys/class/drm/card1/device/vendor").strip() == b"0x1002"
    assert host.where("/sys/class/drm") == "files/sys/class/drm"  # a copied directory answers where()
    for what in ("cpu", "progress", "probe"):
        assert host.kept(what) == (RECORDS[what],)
    assert '"abc"' in host.container_inspect().stdout
    assert host.pod_describe().stdout == "Name: p\n" and host.pod_events().stdout == '{"items": []}\n'
    assert set(host.recorded_logs()) >= {"vllm.log", "journal.log", "pod.log"}
    assert host.kept("vllm log") == ("vllm.log",) and host.kept("ollama log") == ("journal.log",)
    assert host.meta["host"] == "gpu1" and host.name == "gpu1"
    assert sorted(bundle.written) == sorted(set(bundle.written)) == host.files()


def test_nothing_is_written_outside_the_bundle(tmp_path):
    bundle = EvidenceWriter(tmp_path / "b")
    for bad in ("relative/path", "/etc/../../x", "/a/.."):
        with pytest.raises(ValueError):
            bundle.copy(bad, "x")
    with pytest.raises(KeyError):
        bundle.command(["rm", "-rf"], "x")
    assert bundle.written == []


def test_values_are_redacted_on_their_way_to_disk(tmp_path):
    bundle = EvidenceWriter(tmp_path)
    bundle.command(["systemctl", "show", "ollama"], "Environment=OLLAMA_HOST=0.0.0.0 HF_TOKEN=hf_q7AbCdEfGhIjKlMnOpQrStUvWxYz12\n")
    text = (tmp_path / command_file(["systemctl", "show"])).read_text()
    assert "hf_q7" not in text and "OLLAMA_HOST=0.0.0.0" in text


# ---- who runs the fixes: whoami.txt, the reader fact's evidence (issue 27, item 3) ----------------

ID_ALICE = "uid=1000(alice) gid=1000(alice) groups=1000(alice),4(adm),27(sudo)\n"


@pytest.mark.parametrize("reader, id_output, want", [
    # `id` output agrees with the host's reader: kept as it is, groups and all (adm reads the journal)
    (("alice", False, False), ID_ALICE, ("alice", False, True)),
    (("root", True, True), "uid=0(root) gid=0(root) groups=0(root)\n", ("root", True, True)),
    # no `id` (or one run through --sudo, which says root): the reader as a whoami line
    (("alice", False, None), "", ("alice", False, None)),
    (("alice", False, None), "uid=0(root) gid=0(root) groups=0(root)\n", ("alice", False, None)),
    (("", False, None), "", ("", False, None)),  # an SSH login with --sudo, name not known
    (("root", True, True), "", ("root", True, True)),
])
def test_who_runs_the_fixes_is_read_back(tmp_path, reader, id_output, want):
    from llmdoctor.facts.reader import _whoami
    from llmdoctor.knowledge.reader import Reader

    EvidenceWriter(tmp_path).whoami(Reader(*reader, "the user running llmdoctor"), id_output)
    got = _whoami(EvidenceHost(tmp_path))
    assert (got.user, got.root, got.journal) == want and got.source.startswith("whoami.txt")


def test_collect_records_this_users_whoami_and_the_bundle_gives_the_same_sudo(tmp_path):
    """A collection on this machine keeps its user; diagnosing the bundle decides `sudo` as the live
    run would (the reader fact from whoami.txt equals LocalHost's own answer)."""
    from llmdoctor.app.collect import _whoami as collect_whoami
    from llmdoctor.facts.reader import _whoami
    from llmdoctor.hosts.local import LocalHost

    host = LocalHost()
    bundle = EvidenceWriter(tmp_path)
    collect_whoami(host, bundle)
    assert bundle.written == ["whoami.txt"]
    live, kept = host.reader(), _whoami(EvidenceHost(tmp_path))
    assert (kept.user, kept.root) == (live.user, live.root)
    assert kept.journal in (live.journal, None) and (kept.journal is not None or not live.root)


def test_no_whoami_where_the_host_does_not_know_its_reader(tmp_path):
    from llmdoctor.app.collect import _whoami as collect_whoami

    class Pod:
        def reader(self):
            return None

    bundle = EvidenceWriter(tmp_path)
    collect_whoami(Pod(), bundle)
    assert bundle.written == []
