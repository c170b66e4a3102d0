"""Guided questions: defaults, chat vs agents, explanations, bad answers."""
from __future__ import annotations

from llmdoctor.cli.guided import ask_workload


def scripted(*answers):
    asked, said = [], []
    it = iter(answers)

    def prompt(question, default):
        asked.append((question, default))
        return next(it, "")

    return prompt, said.append, asked, said


def test_chat_defaults_and_explanation():
    prompt, echo, asked, said = scripted("", "", "", "")
    w = ask_workload(prompt, echo)
    assert (w.users, w.turn_seconds, w.think_seconds) == (10, 15, 60)
    assert [d for _, d in asked] == ["chat", "10", "15", "60"]
    assert any("Little's law" in s for s in said) and any("slots cover" in s for s in said)


def test_agents_never_pause_and_measured_answer_time_is_the_default():
    prompt, echo, asked, said = scripted("agents", "6", "", "")
    w = ask_workload(prompt, echo, typical_answer_s=22.4)
    assert (w.users, w.turn_seconds, w.think_seconds) == (6, 22, 0)
    assert w.in_flight() == 6 and w.wanted_slots() == 6
    assert any("does not pause to read" in s for s in said)


def test_the_seed_in_answers():
    prompt, echo, *_ = scripted("chat", "20", "12", "78")
    w = ask_workload(prompt, echo)
    assert round(w.in_flight(), 1) == 2.7 and w.wanted_slots() == 5


def test_bad_answers_are_asked_again():
    prompt, echo, asked, said = scripted("robots", "chat", "many", "-3", "8", "x", "10", "30")
    w = ask_workload(prompt, echo)
    assert (w.users, w.turn_seconds, w.think_seconds) == (8, 10, 30)
    assert any("answer chat or agents" in s for s in said)
    assert any("please answer with a number" in s for s in said)
