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
