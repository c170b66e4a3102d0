"""Shared helpers for the Ollama tests: fixture paths and a fact store over an evidence dir."""
from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[2]
SAMPLES = TESTS / "fixtures" / "ollama"
EVIDENCE = TESTS / "fixtures" / "evidence"


@pytest.fixture
def sample():
    def read(name: str) -> str:
        return (SAMPLES / name).read_text()
    return read
