"""llmdoctor's drop-in: rendering, unit-file parsing, precedence against other files."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from llmdoctor.knowledge.systemd.environ import parse_env_file
from llmdoctor.app.tune import dropin
# Ollama's install script unit (FACTS.md §1, scripts/install.sh configure_systemd()).
UNIT = """[Unit]
Description=Ollama Service
After=network-online.target

[Service]
ExecStart=/usr/local/bin/ollama serve
User=ollama
Group=ollama
Restart=always
RestartSec=3
Environment="PATH=/usr/local/bin:/usr/bin:/bin"

[Install]
WantedBy=default.target
"""


def make_root(tmp_path: Path, dropins: dict[str, str], unit: str = UNIT) -> Path:
    etc = tmp_path / "etc/systemd/system"
    (etc / "ollama.service.d").mkdir(parents=True)
    (etc / "ollama.service").write_text(unit)
    for name, text in dropins.items():
        (etc / "ollama.service.d" / name).write_text(text)
    return tmp_path


def test_render_is_deterministic_and_marked():
    a = dropin.render({"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_CONTEXT_LENGTH": "8192"})
    b = dropin.render({"OLLAMA_CONTEXT_LENGTH": "8192", "OLLAMA_NUM_PARALLEL": "4"})
    assert a == b and dropin.is_ours(a)
    assert a.splitlines()[2:] == ["[Service]", 'Environment="OLLAMA_CONTEXT_LENGTH=8192"',
                                  'Environment="OLLAMA_NUM_PARALLEL=4"']
    assert not dropin.is_ours("[Service]\nEnvironment=X=1\n")


def test_diff_from_nothing_and_between_versions():
    new = dropin.render({"OLLAMA_NUM_PARALLEL": "4"})
    d = dropin.unified_diff(None, new, "/etc/x.conf")
    assert d.startswith("--- /dev/null\n+++ /etc/x.conf") and '+Environment="OLLAMA_NUM_PARALLEL=4"' in d
    d2 = dropin.unified_diff(new, dropin.render({"OLLAMA_NUM_PARALLEL": "5"}), "/etc/x.conf")
    assert '-Environment="OLLAMA_NUM_PARALLEL=4"' in d2 and '+Environment="OLLAMA_NUM_PARALLEL=5"' in d2


def test_parse_environment_lines_like_systemd():
    text = ('[Service]\n# comment\nEnvironment="A=1" B=2 \'C=x y\'\nEnvironment=D=with\\ space\n'
            'Environment=\nEnvironmentFile=-/etc/default/ollama\n[Install]\nEnvironment=NOT=this\n'
            'Environment="E=1" \\\n  "F=2"\n')
    lines = dropin.parse_env_lines(text)
    sets = [(x.name, x.value) for x in lines if x.kind == "set"]
    assert sets[:4] == [("A", "1"), ("B", "2"), ("C", "x y"), ("D", "with space")]
    assert ("NOT", "this") not in sets
    assert [x.kind for x in lines][4:6] == ["reset", "file"]
    assert lines[5].name == "/etc/default/ollama" and lines[5].optional


def test_continuation_lines_in_the_service_section():
    lines = dropin.parse_env_lines('[Service]\nEnvironment="E=1" \\\n  "F=2"\n')
    assert [(x.name, x.value) for x in lines] == [("E", "1"), ("F", "2")]


def test_override_conf_sorts_before_ours_and_loses(tmp_path):
    root = make_root(tmp_path, {"override.conf": '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=2"\n'})
    p = dropin.check_precedence(root, "ollama.service", {"OLLAMA_NUM_PARALLEL"})
    assert not p.conflicts
    assert p.wins_over == ("/etc/systemd/system/ollama.service.d/override.conf sets OLLAMA_NUM_PARALLEL=2; "
                           "zz-llmdoctor.conf sorts after it and wins (/etc/systemd/system/ollama.service.d/"
                           "override.conf is left untouched)",)


def test_a_later_file_setting_the_same_variable_is_a_conflict(tmp_path):
    root = make_root(tmp_path, {"zzz-site.conf": '[Service]\nEnvironment="OLLAMA_MAX_QUEUE=100"\n',
                                "zzzz-reset.conf": "[Service]\nEnvironment=\n"})
    p = dropin.check_precedence(root, "ollama.service", {"OLLAMA_MAX_QUEUE"})
    assert any("zzz-site.conf sets OLLAMA_MAX_QUEUE=100 and sorts after zz-llmdoctor.conf" in c for c in p.conflicts)
    assert any("zzzz-reset.conf clears the environment" in c for c in p.conflicts)


def test_environment_file_beats_every_environment_line(tmp_path):
    root = make_root(tmp_path, {}, UNIT.replace("[Service]\n", "[Service]\nEnvironmentFile=-/etc/default/ollama\n"))
    (tmp_path / "etc/default").mkdir(parents=True)
    (tmp_path / "etc/default/ollama").write_text("# site\nOLLAMA_NUM_PARALLEL='3'\n")
    p = dropin.check_precedence(root, "ollama.service", {"OLLAMA_NUM_PARALLEL"})
    assert p.conflicts and "EnvironmentFile= values beat every Environment= line" in p.conflicts[0]
    assert p.file_env["OLLAMA_NUM_PARALLEL"] == ("3", "/etc/default/ollama")


def test_drop_ins_from_all_directories_in_name_order(tmp_path):
    root = make_root(tmp_path, {"10-a.conf": "[Service]\nEnvironment=X=etc\n"})
    lib = tmp_path / "usr/lib/systemd/system/ollama.service.d"
    lib.mkdir(parents=True)
    (lib / "10-a.conf").write_text("[Service]\nEnvironment=X=lib\n")  # hidden by /etc's file of the same name
    (lib / "05-b.conf").write_text("[Service]\nEnvironment=Y=lib\n")
    top = tmp_path / "etc/systemd/system/service.d"
    top.mkdir(parents=True)
    (top / "01-all.conf").write_text("[Service]\nEnvironment=Z=all\n")
    (top / "10-a.conf").write_text("[Service]\nEnvironment=X=type-level\n")  # ranks below lib's ollama.service.d
    fragment, dropins = dropin.unit_files(root, "ollama.service")
    assert fragment == tmp_path / "etc/systemd/system/ollama.service"
    assert [d.name for d in dropins] == ["01-all.conf", "05-b.conf", "10-a.conf"]
    env = dropin.check_precedence(root, "ollama.service", set()).file_env
    assert env["X"][0] == "etc" and env["Y"][0] == "lib" and env["Z"][0] == "all"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_garbage_unit_text_never_tracebacks(text):
    for line in dropin.parse_env_lines("[Service]\n" + text):
        assert line.kind in ("set", "reset", "file")
    parse_env_file(text, "/etc/default/ollama")
    dropin.split_words(text)


def test_the_units_own_directory_outranks_service_d_of_a_higher_directory(tmp_path):
    root = make_root(tmp_path, {})
    lib = tmp_path / "usr/lib/systemd/system/ollama.service.d"
    lib.mkdir(parents=True)
    (lib / "50-x.conf").write_text("[Service]\nEnvironment=X=unit-dir\n")
    top = tmp_path / "etc/systemd/system/service.d"
    top.mkdir(parents=True)
    (top / "50-x.conf").write_text("[Service]\nEnvironment=X=type-level\n")
    _, dropins = dropin.unit_files(root, "ollama.service")
    assert dropins == [lib / "50-x.conf"]
