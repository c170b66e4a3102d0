"""model.record: a Record from annotated fields, the same as a hand-written one."""
from __future__ import annotations

import pytest

from llmdoctor.model import Record, Unavailable, record


@record
class Point(Record):
    """Two fields, one with a default, and a method."""

    x: int
    y: int = 0

    def total(self) -> int:
        return self.x + self.y


class HandWritten(Record):
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int = 0) -> None:
        self.x = x
        self.y = y


def test_behaves_as_the_hand_written_record() -> None:
    p = Point(2, y=3)
    assert (p.x, p.y, p.total()) == (2, 3, 5)
    assert Point(2) == Point(2, 0) and hash(Point(2)) == hash(Point(x=2))
    assert Point(1) != Point(2)
    assert repr(Point(1, 2)) == "Point(x=1, y=2)"
    assert Point.__slots__ == HandWritten.__slots__ == ("x", "y")
    assert Point.__doc__.startswith("Two fields") and Point.__qualname__ == "Point"
    assert not hasattr(p, "__dict__")
    with pytest.raises(AttributeError):
        p.z = 1  # type: ignore[attr-defined]
    assert Point(1) != HandWritten(1)  # a record equals only its own class


def test_wrong_calls_fail_as_a_written_init_would() -> None:
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, 3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, z=3)  # type: ignore[call-arg]


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError):
        @record
        class Bad(Record):
            a: int = 0
            b: int


def test_no_fields() -> None:
    @record
    class Empty(Record):
        pass

    assert Empty() == Empty() and repr(Empty()) == "Empty()"


def test_converted_records() -> None:
    assert Unavailable("gpu", "no nvidia-smi") == Unavailable(fact="gpu", reason="no nvidia-smi")
    assert Unavailable.__slots__ == ("fact", "reason")


def _hand_written_records(source: str) -> list[str]:
    """Record subclasses whose __init__ only stores its parameters, in __slots__ order, with
    immutable defaults: what @record writes."""
    import ast

    out = []
    for cls in ast.parse(source).body:
        if not isinstance(cls, ast.ClassDef) or cls.decorator_list or [ast.unparse(b) for b in cls.bases] != ["Record"]:
            continue
        slots = next((s.value for s in cls.body if isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "__slots__"), None)
        init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        if not isinstance(slots, ast.Tuple) or init is None:
            continue
        params = [a.arg for a in init.args.args[1:]]
        stores = [ast.unparse(s) for s in init.body]
        immutable = all(isinstance(d, ast.Constant) or (isinstance(d, ast.Tuple) and not d.elts) for d in init.args.defaults)
        if (params == [ast.literal_eval(e) for e in slots.elts] and stores == [f"self.{p} = {p}" for p in params]
                and immutable and not (init.args.vararg or init.args.kwarg or init.args.kwonlyargs)):
            out.append(cls.name)
    return out


# Hand-written records left where another change was under way when @record came (facts/ and
# hosts/: issue 26 items 4-5; the Ollama and vLLM/SGLang scanners, paste repair, recognition:
# issue 28; Prometheus: issue 31). Each is a mechanical change to @record; shrink this list.
LEFT = {
    "llmdoctor/facts/declared.py": ["DeclaredSettings"],
    "llmdoctor/facts/progress.py": ["EngineProgress"],
    "llmdoctor/facts/vllm.py": ["VllmLog", "VllmMetricsSample"],
    "llmdoctor/facts/sglang.py": ["SglangLog", "SglangMetricsSample"],
    "llmdoctor/facts/llamacpp.py": ["LlamaLog"],
    "llmdoctor/hosts/base.py": ["CommandResult"],
    "llmdoctor/knowledge/messages.py": ["Example", "Message"],
    "llmdoctor/knowledge/pasted.py": ["Repaired"],
    "llmdoctor/knowledge/ollama/log.py": ["Example", "Signal", "Load", "Startup", "RequestTiming", "ColdStart", "GinLine"],
    "llmdoctor/knowledge/recognize.py": ["Hit"],
    "llmdoctor/knowledge/prom.py": ["Sample", "Histo"],
    "llmdoctor/knowledge/sglang/log.py": ["BatchLine", "Run"],
    "llmdoctor/knowledge/vllm/records.py": ["StatsLine", "KvCapacity", "MaxSeqLenError", "MemoryShort", "Run"],
    "llmdoctor/knowledge/vllm/metrics.py": ["PreemptionRate"],
}


def test_hand_written_records_only_where_listed() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = {}
    for path in sorted((root / "llmdoctor").rglob("*.py")):
        names = _hand_written_records(path.read_text(encoding="utf-8"))
        if names:
            found[str(path.relative_to(root))] = names
    extra = {k: [n for n in v if n not in LEFT.get(k, [])] for k, v in found.items()}
    extra = {k: v for k, v in extra.items() if v}
    assert not extra, f"write these as @record (llmdoctor.model.record): {extra}"
