"""The figures at the end of an Ollama answer, wherever a user pasted or kept them.

Ollama ends every /api/generate, /api/chat and /api/embed answer (the last chunk of a stream,
or the whole body) with the request's own bookkeeping, api/types.go `Metrics` (json tags at
api/types.go:106-108 @ v0.1.32, :198-200 @ v0.3.14, :364-366 @ v0.12.0, :558-560 @ v0.33.0-rc2):
`total_duration`, `load_duration`, `prompt_eval_count`, `prompt_eval_duration`, `eval_count`,
`eval_duration` (durations in nanoseconds, zero values left out) and `done_reason`. `ollama run
--verbose` prints the same numbers as text (Metrics.Summary: "total duration:       9.98s",
"prompt eval count:    1026 token(s)"; api/types.go:284-292 @ v0.1.32, :965-973 @ v0.33.0-rc2).

load_duration is the time from the request's arrival to a runner being ready for it
(server/routes.go:330 and :503 @ v0.12.0: checkpointLoaded - checkpointStart), so a load, or a
wait for the scheduler; prompt_eval_count is the prompt tokens the runner was given (after its
own truncation), prompt_eval_duration the time it took to evaluate them.

AnswerReader takes lines one at a time, so a pretty-printed body (one field a line), a stream
(one chunk a line) and a pasted tail (x618: a line starting mid-object) read alike: an answer ends
where one of its fields comes again. It reports what it read; judge/ollama.py decides.
"""
from __future__ import annotations

from collections import deque

from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern

MAX_ANSWERS = 400  # the last answers kept (the judge sums over them)
MAX_EXCERPT_CHARS = 480  # characters of a long line kept around the first figure (a body can hold the whole answer)

_JSON = LazyPattern(r'"(total_duration|load_duration|prompt_eval_count|prompt_eval_duration|eval_count|eval_duration'
                    r'|done_reason)"\s*:\s*("[^"\n]{0,40}"|\d{1,20})(?![\d.])')
_TEXT = LazyPattern(r"\b(total duration|load duration|prompt eval count|prompt eval duration|eval count|eval duration)"
                    r":[ \t]+\**([0-9][0-9.]*(?:[a-zµμ]+[0-9.]*)*)")  # (`**1.2s**`: bold in a markdown paste)
_NAMES = {"total_duration": "total_ns", "load_duration": "load_ns", "prompt_eval_count": "prompt_tokens",
          "prompt_eval_duration": "prompt_ns", "eval_count": "eval_tokens", "eval_duration": "eval_ns",
          "done_reason": "done_reason"}
# what a line must hold for either pattern to match (a cheap test before the patterns)
WORDS = ('_duration"', '_count"', '"done_reason"', "duration:", "count:")


@record
class Answer(Record):
    """One answer's bookkeeping (None: the field was not there)."""

    total_ns: int | None
    load_ns: int | None
    prompt_tokens: int | None
    prompt_ns: int | None
    eval_tokens: int | None
    eval_ns: int | None
    done_reason: str | None
    source: str
    line: str  # the line that held its first figure (cut around it when long)

    @property
    def prompt_rate(self) -> float | None:
        """Prompt tokens evaluated per second."""
        if not self.prompt_tokens or not self.prompt_ns:
            return None
        return self.prompt_tokens / (self.prompt_ns / 1e9)

    @property
    def eval_rate(self) -> float | None:
        if not self.eval_tokens or not self.eval_ns:
            return None
        return self.eval_tokens / (self.eval_ns / 1e9)


def pairs(text: str) -> list[tuple[str, object, int]]:
    """(field, value, offset) of every figure in a line: JSON fields as written, `--verbose` text."""
    out: list[tuple[str, object, int]] = []
    if '"' in text:
        for m in _JSON.finditer(text):
            key, raw = _NAMES[m.group(1)], m.group(2)
            if (key == "done_reason") != raw.startswith('"'):
                continue  # a figure must be a number and the reason a string (a hand-edited or fuzzed body)
            out.append((key, raw[1:-1] if key == "done_reason" else int(raw), m.start()))
    if ":" in text and not out:
        from llmdoctor.knowledge.ollama.env import parse_go_duration

        for m in _TEXT.finditer(text):
            key = _NAMES[m.group(1).replace(" ", "_")]
            raw = m.group(2)
            try:
                value = int(raw) if key.endswith("tokens") else parse_go_duration(raw)
            except (ValueError, TypeError):
                continue
            if isinstance(value, int) and value >= 0:
                out.append((key, value, m.start()))
    return out


class AnswerReader:
    """Streams lines into Answers; bounded (the last MAX_ANSWERS)."""

    def __init__(self) -> None:
        self.cur: dict[str, object] = {}
        self.where: tuple[str, str] | None = None
        self.answers: deque[Answer] = deque(maxlen=MAX_ANSWERS)
        self.count = 0

    def feed(self, text: str, source: str) -> bool:
        """True when the line held a figure of an answer."""
        found = pairs(text)
        for key, value, at in found:
            if key in self.cur:
                self.close()
            if self.where is None or key == "prompt_tokens" and self.where[1] != text.strip():
                # the line that holds the prompt's count (a pretty-printed body has one field a line)
                cut = text[max(0, at - MAX_EXCERPT_CHARS // 4):at + MAX_EXCERPT_CHARS * 3 // 4]
                self.where = (source, (text if len(text) <= MAX_EXCERPT_CHARS else cut).strip())
            self.cur[key] = value
        return bool(found)

    def close(self) -> None:
        """The answer read so far ends here (a field came again, a paste's fragment ended, the input ended)."""
        cur, where = self.cur, self.where
        self.cur, self.where = {}, None
        # a final chunk always has total_duration (zero values are left out: every answer takes time) and
        # the prompt's figures; a lone "eval count: 3" in someone's text is not an answer
        if where is None or not cur.get("total_ns") or cur.get("prompt_tokens") is None and cur.get("prompt_ns") is None:
            return
        self.count += 1
        g = cur.get
        self.answers.append(Answer(g("total_ns"), g("load_ns"), g("prompt_tokens"), g("prompt_ns"), g("eval_tokens"),
                                   g("eval_ns"), g("done_reason"), where[0], where[1]))


def read(lines, source: str = "answer") -> tuple[Answer, ...]:
    """Every answer in a stream of lines (pure)."""
    r = AnswerReader()
    for line in lines:
        r.feed(line, source)
    r.close()
    return tuple(r.answers)
