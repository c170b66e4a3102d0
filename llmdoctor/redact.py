"""Secrets never leave the host: environment values whose names look like credentials."""
from __future__ import annotations

import re

REDACTED = "<redacted>"
_SECRET = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL", re.I)
# KEY=VALUE pairs inside free text (systemctl show Environment=, journald lines, cmdlines)
_PAIR = re.compile(r"(?P<name>\b(?=[A-Za-z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL))[A-Za-z_][A-Za-z0-9_]*)(?P<sep>[=:])(?P<value>\"[^\"]*\"|'[^']*'|[^\s\"']*)", re.I)
_URL_USERINFO = re.compile(r"(?P<scheme>\b[a-z][a-z0-9+.-]*://)(?P<user>[^/\s:@]*):(?P<password>[^/\s@]+)@", re.I)
_FLAG = re.compile(r"(?P<flag>--(?:api[-_]key|token|password|hf[-_]token)[= ])(?P<value>\S+)", re.I)


def is_secret_name(name: str) -> bool:
    return bool(_SECRET.search(name))


def redact_env(env: dict[str, str]) -> dict[str, str]:
    return {k: (REDACTED if is_secret_name(k) and v else v) for k, v in env.items()}


def redact_text(text: str) -> str:
    """Redact NAME=value pairs with secret-looking names, passwords in URLs
    (`http://user:pass@host`), and --api-key style flags."""
    def pair(m: re.Match[str]) -> str:
        if not is_secret_name(m.group("name")) or not m.group("value"):
            return m.group(0)
        return f"{m.group('name')}{m.group('sep')}{REDACTED}"

    text = _PAIR.sub(pair, text)
    text = _URL_USERINFO.sub(lambda m: f"{m.group('scheme')}{m.group('user')}:{REDACTED}@", text)
    return _FLAG.sub(lambda m: f"{m.group('flag')}{REDACTED}", text)
