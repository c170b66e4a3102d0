"""Derive llmdoctor/redact_rules_data.py from gitleaks' config/gitleaks.toml.

    python bench/gitleaks_rules.py GITLEAKS.TOML COMMIT > llmdoctor/redact_rules_data.py

gitleaks (MIT, https://github.com/gitleaks/gitleaks) writes its rules for Go's RE2; Python's
`re` differs in three ways handled here: a `(?i)` after the start becomes a scoped `(?i:...)`
to the end of its group, `\\z` becomes `\\Z`, and a rule that still does not compile is left
out (and named in the header). `generic-api-key` is left out: llmdoctor's name-based rules
(redact.is_secret_name) already withhold a value by the name it stands under.
"""
from __future__ import annotations

import re
import sys
import tomllib

SKIP = {"generic-api-key"}


def scoped_flags(rx: str) -> str:
    """`a(?i)b|c` (RE2: case-insensitive from there to the end of the group) -> `a(?i:b|c)`."""
    while True:
        at = rx.find("(?i)", 1)
        if at < 0:
            return rx
        depth, i, in_class = 0, at + 4, False
        while i < len(rx):
            ch = rx[i]
            if ch == "\\":
                i += 2
                continue
            if in_class:
                in_class = ch != "]"
            elif ch == "[":
                in_class = True
                if rx[i + 1:i + 2] == "]":
                    i += 1
            elif ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    break
                depth -= 1
            i += 1
        rx = rx[:at] + "(?i:" + rx[at + 4:i] + ")" + rx[i:]


POSIX = {"[:alnum:]": "A-Za-z0-9", "[:alpha:]": "A-Za-z", "[:digit:]": "0-9", "[:upper:]": "A-Z",
         "[:lower:]": "a-z", "[:xdigit:]": "0-9A-Fa-f", "[:space:]": "\\s", "[:word:]": "\\w"}


# gitleaks' "semi-generic" rules start with the name around the keyword; the secret stands
# after it, and the lazy prefix makes each position of a text try 50 lengths: dropped
_NAME_PREFIX = "(?i)[\\w.-]{0,50}?(?:"


def convert(rx: str) -> str:
    if rx.startswith(_NAME_PREFIX):
        rx = "(?i)(?:" + rx[len(_NAME_PREFIX):]
    for posix, chars in POSIX.items():
        rx = rx.replace(posix, chars)
    return scoped_flags(rx.replace("\\z", "\\Z"))


def main(path: str, commit: str) -> None:
    config = tomllib.load(open(path, "rb"))
    kept, dropped = [], []
    for rule in config["rules"]:
        if rule["id"] in SKIP or "regex" not in rule:
            dropped.append(rule["id"])
            continue
        rx = convert(rule["regex"])
        try:
            compiled = re.compile(rx)
        except re.error:
            dropped.append(rule["id"])
            continue
        group = rule.get("secretGroup", 0) or (1 if compiled.groups else 0)
        keywords = tuple(sorted({k.lower() for k in rule.get("keywords", ())}))
        kept.append((rule["id"], keywords, rx, group, float(rule.get("entropy", 0))))
    print('"""Secret rules derived from gitleaks\' config/gitleaks.toml (generated: do not edit; see')
    print("bench/gitleaks_rules.py).\n")
    print(f"Source: https://github.com/gitleaks/gitleaks, commit {commit}, config/gitleaks.toml.")
    print("License of the rules: MIT, Copyright (c) 2019 Zachary Rice (the gitleaks authors).")
    print(f"{len(kept)} rules kept; left out: {', '.join(dropped)}.")
    print('\nEach rule: (id, keywords in lower case, regex, group holding the secret, minimum entropy)."""\n')
    print("RULES = (")
    for r in kept:
        print(f"    {r!r},")
    print(")")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
