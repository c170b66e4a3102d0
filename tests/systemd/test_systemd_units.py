"""Unit-file parsing and drop-in precedence (pure), on real unit files and on garbage."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from llmdoctor.knowledge.systemd.units import (
    dropin_dir_names,
    expand_specifiers,
    file_environment,
    ignored_file_problems,
    normalize_unit,
    order_dropins,
    parse_unit_text,
    split_words,
)

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "systemd"
ETC = "/etc/systemd/system"


def env_of(unit: str, *texts: tuple[str, str]):
    return file_environment(unit, [parse_unit_text(t, p) for p, t in texts])


def test_install_sh_unit():
    f = parse_unit_text((FIX / "install_sh.service").read_text(), f"{ETC}/ollama.service")
    assert f.sections == ("Unit", "Service", "Install")
    assert not f.problems
    env = file_environment("ollama.service", [f])
    assert env.env == {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
    assert env.origin == {"PATH": f"{ETC}/ollama.service"}
    assert env.user == "ollama"
    assert env.settings["PATH"][0].lineno == 11


def test_systemd_exec_manual_example():
    """systemd.exec(5): VAR1="word1 word2", VAR2="word3", VAR3="$word 5 6"."""
    env = env_of("x.service", ("/d.conf", (FIX / "systemd_exec_example.conf").read_text()))
    assert env.env == {"VAR1": "word1 word2", "VAR2": "word3", "VAR3": "$word 5 6"}


def test_quoting_unit_matches_what_real_systemd_loaded():
    """quoting.service was loaded by systemd 252; show_quoting.txt is what it made of it."""
    from llmdoctor.knowledge.systemd.show import parse_show

    env = env_of("quoting.service", (f"{ETC}/quoting.service", (FIX / "quoting.service").read_text()))
    loaded = parse_show((FIX / "show_quoting.txt").read_text()).env
    assert env.env == loaded
    assert list(env.env) == list(loaded)  # same order, too
    assert "DROPPED" not in env.env  # `Environment=` reset it
    kinds = sorted(p.kind for p in env.problems)
    assert kinds == ["invalid-assignment"]  # "bad name=1" and 1BAD=2, one line
    assert "'bad name=1', '1BAD=2'" in env.problems[0].detail


def test_later_assignments_win_and_reset_clears():
    env = env_of(
        "ollama.service",
        (f"{ETC}/ollama.service", "[Service]\nEnvironment=A=1 B=2\n"),
        (f"{ETC}/ollama.service.d/10.conf", "[Service]\nEnvironment=A=3\n"),
        (f"{ETC}/ollama.service.d/20.conf", "[Service]\nEnvironment=\nEnvironment=C=4\n"),
    )
    assert env.env == {"C": "4"}
    assert len(env.resets) == 1
    env = env_of(
        "ollama.service",
        (f"{ETC}/ollama.service", "[Service]\nEnvironment=A=1 B=2\n"),
        (f"{ETC}/ollama.service.d/10.conf", "[Service]\nEnvironment=A=3\n"),
    )
    assert env.env == {"B": "2", "A": "3"}
    assert env.origin["A"].endswith("10.conf")
    assert [s.value for s in env.settings["A"]] == ["1", "3"]


def test_environment_file_refs():
    env = env_of("o.service", ("/u", "[Service]\nEnvironmentFile=-/etc/default/%p\nEnvironmentFile=/etc/o.env\n"))
    assert [(r.path, r.optional) for r in env.environment_files] == [("/etc/default/o", True), ("/etc/o.env", False)]
    env = env_of("o.service", ("/u", "[Service]\nEnvironmentFile=/a\nEnvironmentFile=\nEnvironmentFile=/b\n"))
    assert [r.path for r in env.environment_files] == ["/b"]


def test_sections_comments_continuations():
    text = ("Environment=OUTSIDE=1\n[Unit]\nEnvironment=INUNIT=1\n[Service]\n# Environment=C=1\n; Environment=D=1\n"
            "Environment=E=one \\\n  F=two\n[X-Custom]\nEnvironment=G=1\n")
    f = parse_unit_text(text, "/p.conf")
    env = file_environment("o.service", [f])
    assert env.env == {"E": "one", "F": "two"}
    kinds = [(p.kind, p.lineno) for p in f.problems]
    assert kinds == [("outside-section", 1), ("wrong-section", 3), ("wrong-section", 10)]


def test_split_words_and_specifiers():
    assert split_words(r'"A=x\"y" B=$HOME "C=back\\slash" E=é F= "G=a  b"') == [
        'A=x"y', "B=$HOME", "C=back\\slash", "E=é", "F=", "G=a  b"]
    assert split_words(r"A='single q' B=mid\x41 C=\u00e9") == ["A=single q", "B=midA", "C=é"]
    assert split_words('A="unterminated') == ["A=unterminated"]
    assert expand_specifiers("100%%", "o.service") == ("100%", True)
    assert expand_specifiers("%n/%N/%p/%i", "vllm@gpu0.service") == (
        "vllm@gpu0.service/vllm@gpu0/vllm/gpu0", True)
    assert expand_specifiers("%h/models", "o.service") == ("%h/models", False)


def test_dropin_dir_names():
    assert dropin_dir_names("ollama") == ["ollama.service.d", "service.d"]
    assert dropin_dir_names("llama-server-big.service") == [
        "llama-server-big.service.d", "llama-server-.service.d", "llama-.service.d", "service.d"]
    assert dropin_dir_names("vllm@gpu0.service") == ["vllm@gpu0.service.d", "vllm@.service.d", "service.d"]
    assert normalize_unit("ollama") == "ollama.service" and normalize_unit("x.socket") == "x.socket"


def test_order_dropins_masks_by_name_and_sorts_by_file_name():
    listing = {
        f"{ETC}/ollama.service.d": ["override.conf", "50-etc.conf", "notes.txt", ".#override.conf1a2b"],
        "/run/systemd/system/ollama.service.d": ["override.conf", "10-run.conf"],
        "/usr/lib/systemd/system/ollama.service.d": ["05-usr.conf", "50-etc.conf"],
        "/lib/systemd/system/ollama.service.d": ["05-usr.conf", "50-etc.conf"],  # merged /usr: same files
        f"{ETC}/service.d": ["20-all.conf"],
    }
    order = order_dropins("ollama.service", listing)
    assert order.paths == (
        "/usr/lib/systemd/system/ollama.service.d/05-usr.conf",
        "/run/systemd/system/ollama.service.d/10-run.conf",
        f"{ETC}/service.d/20-all.conf",
        f"{ETC}/ollama.service.d/50-etc.conf",
        f"{ETC}/ollama.service.d/override.conf",
    )
    assert sorted(order.masked) == [
        ("/run/systemd/system/ollama.service.d/override.conf", f"{ETC}/ollama.service.d/override.conf"),
        ("/usr/lib/systemd/system/ollama.service.d/50-etc.conf", f"{ETC}/ollama.service.d/50-etc.conf"),
    ]
    assert [p.path for p in order.ignored] == [f"{ETC}/ollama.service.d/notes.txt"]


def test_ignored_file_problems_only_for_environment_lines():
    assert ignored_file_problems("not-conf", "/x", "[Service]\nRestart=always\n", "d") == []
    (p,) = ignored_file_problems("not-conf", "/x", "[Service]\nEnvironment=OLLAMA_HOST=0.0.0.0\n", "d")
    assert (p.lineno, p.text) == (2, "Environment=OLLAMA_HOST=0.0.0.0")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_garbage_unit_text_never_raises(text):
    f = parse_unit_text(text, "/g.conf")
    env = file_environment("g.service", [f])
    assert all(isinstance(v, str) for v in env.env.values())
    split_words(text)
    expand_specifiers(text, "g.service")


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(
    st.sampled_from([f"{ETC}/o.service.d", "/run/systemd/system/o.service.d", "/usr/lib/systemd/system/o.service.d",
                     f"{ETC}/service.d", "/nowhere/o.service.d"]),
    st.lists(st.text(alphabet="ab.-_0conf", min_size=1, max_size=8), max_size=6)))
def test_order_dropins_invariants(listing):
    order = order_dropins("o.service", listing)
    names = [p.rsplit("/", 1)[1] for p in order.paths]
    assert names == sorted(set(names))
    assert all(n.endswith(".conf") for n in names)
    assert not any(p.startswith("/nowhere") for p in order.paths)


def test_order_dropins_priority_as_systemd_252_decides():
    """Recorded in nspawn: DropInPaths of llama-server-big.service for this layout was
    /etc/systemd/system/llama-.service.d/10.conf /run/systemd/system/llama-server-.service.d/20.conf
    /usr/lib/systemd/system/llama-.service.d/30.conf"""
    listing = {
        "/usr/lib/systemd/system/llama-server-big.service.d": ["10.conf", "20.conf"],
        f"{ETC}/service.d": ["10.conf", "30.conf"],
        f"{ETC}/llama-.service.d": ["10.conf"],
        "/run/systemd/system/llama-server-.service.d": ["20.conf"],
        "/usr/lib/systemd/system/llama-.service.d": ["30.conf"],
    }
    assert order_dropins("llama-server-big.service", listing).paths == (
        f"{ETC}/llama-.service.d/10.conf",
        "/run/systemd/system/llama-server-.service.d/20.conf",
        "/usr/lib/systemd/system/llama-.service.d/30.conf",
    )
