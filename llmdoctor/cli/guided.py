"""The few questions the sizing needs, asked in a terminal when no workload flags
were given. Never used without a TTY (the caller checks), so scripts get flags only.

Chat users and agents differ: a person reads and types between turns, an agent
sends its next request as soon as the answer arrives (think time 0), so ten agents
keep ten requests in flight while ten people keep two or three.
"""
from __future__ import annotations

from typing import Callable

from llmdoctor.judge.sizing import COVERAGE, Workload

Prompt = Callable[[str, str], str]  # (question, default) -> answer
Echo = Callable[[str], None]


def _number(prompt: Prompt, echo: Echo, question: str, default: float, integer: bool = False) -> float:
    for _ in range(5):
        raw = prompt(question, f"{default:g}").strip() or f"{default:g}"
        try:
            value = float(raw)
        except ValueError:
            echo(f"  please answer with a number (e.g. {default:g})")
            continue
        if value < 0 or (integer and (value != int(value) or value < 1)):
            echo("  please answer with a positive " + ("whole number" if integer else "number"))
            continue
        return int(value) if integer else value
    return default


def ask_workload(prompt: Prompt, echo: Echo, typical_answer_s: float | None = None) -> Workload:
    """Ask, explain, and return the workload. `typical_answer_s`: a default measured from
    the access log (requests that had the server to themselves), when there is one."""
    echo("A few questions size the slots from your workload (Enter keeps the default).")
    kind = ""
    for _ in range(5):
        kind = prompt("Who sends the requests: people chatting, or programs/agents? [chat/agents]", "chat").strip().lower() or "chat"
        if kind in ("chat", "c", "people", "agents", "agent", "a", "programs"):
            break
        echo("  answer chat or agents")
    agents = kind.startswith(("a", "p"))
    answer_default = round(typical_answer_s) if typical_answer_s else 15
    if agents:
        users = _number(prompt, echo, "How many agents or programs send requests at the busiest time?", 4, True)
        turn = _number(prompt, echo, "How long does one answer take to generate, in seconds?", answer_default)
        echo("  An agent does not pause to read: it sends the next request when the answer arrives.")
        think = _number(prompt, echo, "Seconds an agent spends between requests (tool calls), if any?", 0)
    else:
        users = _number(prompt, echo, "How many people use it at the busiest time?", 10, True)
        turn = _number(prompt, echo, "How long does one answer take to generate, in seconds?", answer_default)
        think = _number(prompt, echo, "How long does a person read and type before the next message, in seconds?", 60)
    w = Workload(users=int(users), turn_seconds=turn, think_seconds=think)
    echo(f"→ {w.describe()} (Little's law: each keeps a request in flight {turn:g} s out of every {turn + think:g} s).")
    echo(f"→ {w.wanted_slots()} slots cover the number in flight {int(COVERAGE * 100)} % of the time; "
         f"the rest wait briefly in the queue.")
    return w
