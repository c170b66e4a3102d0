"""The shared test infrastructure: the tiny GGUF and the llama-server fixture's skip."""
import importlib.util

import pytest

from tests.support import llamaserver, tinymodel


def test_tiny_gguf_is_a_deterministic_llama_model(tmp_path):
    gguf = pytest.importorskip("gguf")
    a = tinymodel.write_tiny_gguf(tmp_path / "a.gguf", "small")
    b = tinymodel.write_tiny_gguf(tmp_path / "b.gguf", "small")
    assert a.read_bytes() == b.read_bytes()
    reader = gguf.GGUFReader(str(a))
    fields = reader.fields
    arch = bytes(fields["general.architecture"].parts[-1]).decode()
    assert arch == "llama"
    assert "tokenizer.chat_template" in fields and "tokenizer.ggml.tokens" in fields
    assert int(fields["llama.embedding_length"].parts[-1][0]) == 64
    tokens, _, types, sampleable = tinymodel._vocab()
    assert types.count(tinymodel.BYTE) == 256
    assert not any(s for s, t in zip(sampleable, types) if t != tinymodel.NORMAL)  # EOS, control, bytes


def test_cache_key_follows_the_parameters():
    assert tinymodel.params_key("small") != tinymodel.params_key("medium")
    assert tinymodel.tiny_gguf("small").parent == tinymodel.cache_dir()
    with pytest.raises(ValueError):
        tinymodel.params_for("huge")


def test_missing_xllamacpp_skips_with_a_reason(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "xllamacpp" else real(name, *a))
    assert "xllamacpp is not installed" in llamaserver.skip_reason()
    with pytest.raises(pytest.skip.Exception, match="xllamacpp"):
        with llamaserver.running_llama_server("/nonexistent.gguf"):
            pass
