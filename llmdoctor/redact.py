"""Secrets never leave the host. Four layers, each over every output (reports, fixes, every
file `collect` writes, exporter labels, progress lines, error messages):

1. structure (redact_struct.py): in environment listings and command lines a value is kept
   only under a setting's name (settings_names.py) or when plainly no secret;
2. names: values under a secret's name (an environment variable, a JSON/YAML/dict key, a
   header, a flag, a URL's user part), wherever they stand;
3. rules (redact_rules.py): gitleaks' maintained rules as data, plus a few shapes of our own
   (`hf_…`, `sk-…`, PEM private keys, .netrc), and random words (detect-secrets' idea);
4. `collect --clean` (app/clean.py) for host names, addresses and users: pseudonyms, not here.

It runs over whole logs, so a text over 64 KiB is searched by literal tests only
(bytes.find, literal-led patterns, bytes.translate: _candidate_lines) and only the lines
they pick are redacted, each as a small text (a small text is redacted whole, so a value on
the line after its flag is found). Each pattern is compiled when first used.
"""
from __future__ import annotations

import re
from functools import cache

from llmdoctor.redact_rules import apply_rules, entropy
from llmdoctor.redact_struct import redact_structure

REDACTED = "<redacted>"
KEEP = "keep your current value"


@cache
def _compiled(pattern: str | bytes) -> re.Pattern:
    """A pattern of this module, compiled on its first use."""
    return re.compile(pattern)


# -- names ------------------------------------------------------------------------------
# A name is secret when one of its parts (split at _ . - and camelCase) is one of these.
_SECRET_PARTS = frozenset({
    "token", "key", "secret", "secrets", "password", "passwd", "pass", "passphrase", "pwd", "auth",
    "authorization", "credential", "credentials", "cookie", "apikey", "accesskey", "secretkey",
    "privatekey", "accesstoken", "authtoken", "sessionid", "signature", "sig", "bearer",
})
# ...when no part says it counts (`max_token=4096`)...
_COUNT_PARTS = frozenset({"max", "min", "num", "n", "total", "count", "per"})
# ...and it is the last part, or followed only by parts like these (`DB_PASSWORD_MAIN`):
# `key_length`, `num_key_value_heads` and `bos_token_id` describe something else
_TRAILING_PARTS = frozenset({
    "value", "str", "string", "raw", "b64", "base64", "hex", "main", "primary", "secondary", "old", "new",
    "prod", "dev", "test", "ro", "rw", "admin", "user", "plain", "plaintext", "enc", "encrypted", "v",
})
# whole names that are not secrets although a part says so (`PWD` is the working directory)
_NOT_SECRET = frozenset({"pwd", "oldpwd", "key", "keys", "passthrough"})
_PARTS = r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+"
# a tokenizer's special tokens and flags (`pad_token`, `add_bos_token`, `eot_token`) and the
# keys of a cache or a table (`cache_key`, `sort_key`): names of things, not credentials
_TOKENIZER_PARTS = frozenset({
    "bos", "eos", "pad", "unk", "mask", "sep", "cls", "eot", "eom", "nl", "fim", "pre", "suf", "mid", "special",
    "image", "audio", "video", "start", "end", "stop", "think", "tool", "vision", "boi", "eoi", "middle", "prefix",
    "suffix", "additional",
})
_ID_PARTS = frozenset({"cache", "sort", "partition", "primary", "foreign", "routing", "lookup", "index", "map", "dict",
                       "group", "shard", "kv", "hash", "metric", "label", "lora", "adapter", "config", "dedup"})


def is_secret_name(name: str) -> bool:
    """`HF_TOKEN`, `api_key`, `X-Api-Key`, `accessToken`, `DB_PASSWORD_2`: yes.
    `max_num_batched_tokens`, `key_length`, `num_key_value_heads`, `bos_token_id`, `PWD`: no."""
    if name.lower().strip("-_.") in _NOT_SECRET:
        return False
    parts = [p.lower() for p in _compiled(_PARTS).findall(name)]
    if _COUNT_PARTS.intersection(parts):
        return False
    for i, part in enumerate(parts):
        if part in _SECRET_PARTS and all(p in _TRAILING_PARTS or p.isdigit() for p in parts[i + 1:]):
            before = parts[i - 1] if i else ""
            if part in ("token", "tokens") and before in _TOKENIZER_PARTS or part == "key" and before in _ID_PARTS:
                continue
            return True
    return False


# -- the scan ---------------------------------------------------------------------------
_KEYWORD = r"(?:[Tt][Oo][Kk][Ee][Nn]|[Kk][Ee][Yy]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Pp][Aa][Ss][Ss]|[Pp][Ww][Dd]|[Aa][Uu][Tt][Hh]|[Cc][Rr][Ee][Dd][Ee][Nn][Tt][Ii][Aa][Ll]|[Cc][Oo][Oo][Kk][Ii][Ee]|[Ss][Ii][Gg])"
_DQ, _SQ = r'"(?:\\.|[^"\\\n])*"', r"'(?:\\.|[^'\\\n])*'"
_STRINGS = rf"\[[ \t]*(?:{_DQ}|{_SQ})(?:[ \t]*,[ \t]*(?:{_DQ}|{_SQ}))*[ \t]*,?[ \t]*\]"  # ['k1', 'k2']
_EDQ = r'\\"(?:[^"\\\n]|\\[^"\n])*\\"'  # \"a quoted value\" inside a JSON string
_VALUE = (rf"(?P<value>{_DQ}|{_SQ}|{_EDQ}|{_STRINGS}"
          r"|(?:\\[^nrt\"]|[^\s\"'`,;{}\[\]\\])+(?:[ \t]+(?![\w.-]+[=:])(?:\\[^nrt\"]|[^\s\"'`,;{}\[\]\\=])+)*)")
# known token shapes: each branch starts with a literal
_SHAPE_LIST = [
    r"hf_[A-Za-z0-9]{20,}", r"api_org_[A-Za-z0-9]{20,}",
    r"sk-ant-[A-Za-z0-9_-]{20,}", r"sk-proj-[A-Za-z0-9_-]{20,}", r"sk-or-v1-[A-Za-z0-9]{20,}",
    r"sk-(?:svcacct-|admin-)?[A-Za-z0-9_-]{20,}", r"sk_(?:live|test)_[A-Za-z0-9]{16,}", r"rk_(?:live|test)_[A-Za-z0-9]{16,}", r"whsec_[A-Za-z0-9]{20,}",
    r"gh[pousr]_[A-Za-z0-9]{30,}", r"github_pat_[A-Za-z0-9_]{20,}",
    r"xox[abposr]-[A-Za-z0-9-]{10,}", r"xapp-[A-Za-z0-9-]{10,}",
    r"A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA)[A-Z0-9]{16}",
    r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    r"gl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat)-[A-Za-z0-9_-]{20,}",
    r"AIza[0-9A-Za-z_-]{30,}", r"ya29\.[0-9A-Za-z_-]{20,}", r"GOCSPX-[0-9A-Za-z_-]{20,}",
    r"npm_[A-Za-z0-9]{30,}", r"pypi-[A-Za-z0-9_-]{50,}", r"dckr_pat_[A-Za-z0-9_-]{20,}",
    r"gsk_[A-Za-z0-9]{30,}", r"r8_[A-Za-z0-9]{30,}", r"pplx-[A-Za-z0-9]{30,}", r"nvapi-[A-Za-z0-9_-]{30,}",
    r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", r"do[opr]_v1_[a-f0-9]{40,}", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
    r"dapi[a-f0-9]{32}", r"hv[sb]\.[A-Za-z0-9_-]{24,}", r"ATATT[A-Za-z0-9_=-]{50,}", r"lin_api_[A-Za-z0-9]{30,}",
    r"ntn_[A-Za-z0-9]{30,}", r"secret_[A-Za-z0-9]{40,}", r"tskey-[a-z]+-[A-Za-z0-9-]{16,}", r"PMAK-[A-Za-z0-9-]{30,}",
    r"AGE-SECRET-KEY-1[A-Z0-9]{50,}", r"SK[0-9a-f]{32}", r"key-[0-9a-f]{32}", r"fw_[A-Za-z0-9]{20,}",
    r"bot[0-9]{8,10}:[A-Za-z0-9_-]{35}",  # core.telegram.org/bots/api: /bot<token>/method
    r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+", r"https://discord(?:app)?\.com/api/webhooks/[0-9A-Za-z/_-]+",
]
_SHAPES = "|".join(_SHAPE_LIST)


def _by_first_char(patterns: list[str]) -> str:
    """`a…|b…|a…` as `a(?:…|…)|b(?:…)`: the regex engine tries one group per position, not
    every branch (every pattern starts with a literal character)."""
    groups: dict[str, list[str]] = {}
    for p in patterns:
        groups.setdefault(p[0], []).append(p[1:])
    return "|".join(f"{re.escape(c)}(?:{'|'.join(rest)})" for c, rest in groups.items())
_PEM = (r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,20000}?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:\\[nr]|[A-Za-z0-9+/=\s:,-])*)")
# a line of a key's body on its own (a report quotes evidence line by line): mixed-case base64
_KEY_BODY = (r"(?m)^(?P<indent>[ \t]*)(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*[0-9])"
             r"[A-Za-z0-9+/]{40,}={0,2}[ \t]*$")
_SCAN = "|".join([
    rf"(?P<shape>{_SHAPES})",
    # Authorization/Cookie headers: the value to the end of the line or quote
    r"(?P<header>(?:[Pp]roxy-)?[Aa]uthorization|(?:[Ss]et-)?[Cc]ookie|AUTHORIZATION|COOKIE)"
    r"(?P<hq>[\"']?)(?P<hsep>[ \t]*[:=][ \t]*)(?P<hvalue>[\"']?[^\r\n\"']+)",
    # bearer tokens wherever they stand
    r"(?P<bearer>[Bb]earer|BEARER)[ \t]+(?P<bvalue>[A-Za-z0-9._~+/=-]{8,})",
    # user info of a URL: `https://user:pass@host`, `https://ghp_x@host`
    r"(?P<url>://)(?P<userinfo>[^/\s@\"'<>?#]+)@",
    # `https://admin:pw` cut before its @ (an error message quoting the user part): a "port" that is no number
    r"(?P<cut>://)(?P<cuser>[^/\s:@\"'<>?#\[\]]+):(?P<cpass>[^/\s@\"'<>?#]*[A-Za-z_][^/\s@\"'<>?#]*)(?=[\"'])",
    # --api-key VALUE, --hf-token=VALUE
    rf"(?P<flag>--[A-Za-z0-9-]*{_KEYWORD}[A-Za-z0-9-]*)(?P<fsep>=|[ \t]+)(?P<fvalue>[^\s\"']+)",
    # NAME=value, NAME: value, "name": "value", 'name': ['value'] (the name is found around the keyword)
    rf"(?P<kw>{_KEYWORD})(?P<tail>[A-Za-z0-9_.-]*)(?P<q>\\?[\"']|)(?P<sep>[ \t]*[=:][ \t]*)" + _VALUE,
])
# The pre-filter: on the text's bytes in lower case, literal-led branches the regex engine
# finds fast. It matches wherever a _SCAN branch would (a superset), so only the lines it
# hits are scanned.
_KEYWORD_LOWER = r"(?:token|key|secret|pass|pwd|auth|credential|cookie|sig)"
_TRIGGER = "|".join([
    _by_first_char([p.lower() for p in _SHAPE_LIST]),
    rf"{_KEYWORD_LOWER}[a-z0-9_.-]*\\?[\"']?[ \t]*[=:]",
    rf"--[a-z0-9-]*{_KEYWORD_LOWER}[a-z0-9-]*(?:=|[ \t]+)[^\s\"']",
    r"bearer[ \t]+[a-z0-9._~+/=-]{8}",
    r"://[^/\s@\"'<>?#]+@",
    r"://[^/\s:@\"'<>?#\[\]]+:[^/\s@\"'<>?#]*[a-z_]",
]).encode()
_SMALL = 64 * 1024  # shorter texts are scanned whole
# What each branch of _TRIGGER needs: one of these words (bearer, URLs, two short shapes); a
# keyword and a `=`, `:` or `--` (names and flags); else a token shape, 20 characters or more
# without a space. A short text with none of them cannot match, and the pre-filter (~2 ms to
# compile) is not even compiled for it (the report's own lines, start-up time).
_TRIGGER_WORDS = (b"://", b"bearer", b"xox", b"xapp-")
_KEYWORDS = (b"token", b"key", b"secret", b"pass", b"pwd", b"auth", b"credential", b"cookie", b"sig")
_SHAPE_MIN = 20  # the shortest shape without a word above (A(?:KIA|...)[A-Z0-9]{16})
_KEY_BODY_MIN = 40  # _KEY_BODY's line of base64, as one word


def _shape_heads(patterns: list[str]) -> tuple[bytes, ...]:
    """The literal text every match of each shape starts with, in lower case: `hf_`, `gh`,
    `akia`...`anva` and `ghp_`...`ghr_` (a leading group of literal alternatives, or a class
    of letters, is spelled out), `sg.`."""
    heads: list[bytes] = []
    for p in patterns:
        head, i = "", 0
        while i < len(p) and (p[i].isalnum() or p[i] in "_-" or p[i:i + 2] in ("\\.", "\\-")):
            head, i = head + p[i + (p[i] == "\\")], i + 1 + (p[i] == "\\")
        alts: list[str] = []
        if p.startswith("(?:", i):
            alts, end = p[i + 3:p.index(")", i)].split("|"), p.index(")", i) + 1
        elif p.startswith("[", i):
            alts, end = list(p[i + 1:p.index("]", i)]), p.index("]", i) + 1
        if alts and p[end:end + 1] not in ("?", "*", "{") and all(a.isalnum() for a in alts):
            heads += [(head + a).lower().encode() for a in alts]
        else:
            heads.append(head.lower().encode())
    return tuple(dict.fromkeys(heads))


_SHAPE_HEADS = _shape_heads(_SHAPE_LIST)
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.-")
_FLAG_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789-")


def _keyword_then_separator(data: bytes) -> bool:
    """_TRIGGER's name branch, done by hand: a keyword, name characters, an optional `\\`
    and quote, blanks, then `=` or `:` (none of the characters after the name can be one of
    its characters, so no backtracking is missed)."""
    for k in _KEYWORDS:
        at = data.find(k)
        while at >= 0:
            i = at + len(k)
            while i < len(data) and data[i] in _NAME_BYTES:
                i += 1
            i += data[i:i + 1] == b"\\"
            i += data[i:i + 1] in (b'"', b"'")
            while data[i:i + 1] in (b" ", b"\t"):
                i += 1
            if data[i:i + 1] in (b"=", b":"):
                return True
            at = data.find(k, at + 1)
    return False


def _secret_flag(data: bytes) -> bool:
    """_TRIGGER's flag branch, done by hand (a superset): `--`, then flag characters among which
    a keyword, then `=` or a blank (`--hf-token=...`, `--api-key ...`; not `--kv-unified`)."""
    at = data.find(b"--")
    while at >= 0:
        i = at + 2
        while i < len(data) and data[i] in _FLAG_BYTES:
            i += 1
        if data[i:i + 1] in (b"=", b" ", b"\t") and any(k in data[at + 2:i] for k in _KEYWORDS):
            return True
        at = data.find(b"--", at + 1)
    return False


def _may_trigger(data: bytes) -> bool:
    """False when _TRIGGER cannot match `data` (a short text: it splits it into words). Most
    reports speak of tokens and long numbers: the keyword must stand before a separator, and
    a long word must hold the start of a shape, for the pre-filter to be compiled (~2 ms)."""
    if any(w in data for w in _TRIGGER_WORDS):
        return True
    if any(k in data for k in _KEYWORDS) and (_keyword_then_separator(data) or _secret_flag(data)):
        return True
    return any(len(w) >= _SHAPE_MIN and any(h in w for h in _SHAPE_HEADS) for w in data.split())


# `{"name": "DB_PASSWORD", "value": "…"}` and `- name: DB_PASSWORD⏎  value: …` (Kubernetes env
# in JSON or YAML, compose's long form): the name and its value stand under two keys, often on
# two lines, so the NAME=value scan does not see them; kubectl sorts `name` before `value`
_Q = r"""(?:\\?["'])?"""
_NAMED = (
    rf"""(?P<pre>{_Q}name{_Q}[ \t]*:[ \t]*(?P<nq>\\?["']|)(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P=nq)[ \t]*,?"""
    rf"""[ \t]*(?:\r?\n|\\n)?[ \t]*{_Q}value{_Q}[ \t]*:[ \t]*)"""
    rf"""(?P<value>{_DQ}|{_SQ}|{_EDQ}|[^\s,}}\]\\"']+)""")
_NAMED_HINT = rf"""name\\?["']?[ \t]*:[ \t]*\\?["']?[a-z0-9_.-]*{_KEYWORD_LOWER}""".encode()


def _named_value(m: re.Match[str]) -> str:
    if not is_secret_name(m.group("name")) or _harmless(m.group("value")):
        return m.group()
    return m.group("pre") + _requote(m.group("value"))


# what a value may be without being a secret
# (placeholders such as `<TOKEN>` or `<s>`, shell expansions, comments)
_HARMLESS = r"(?is)(?:|<[^<>]*>|\*+|x+|\.\.\.|…|null|none|nil|true|false|-+|\(not set\)|\$.*|%\w+%|#.*)"
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_PLAIN_SCHEMES = ("ssh", "sftp", "scp", "rsync", "ssh+git", "git+ssh")


def _name_start(text: str, i: int) -> int:
    while i > 0 and text[i - 1] in _NAME_CHARS:
        i -= 1
    if i > 0 and text[i - 1] == "\\" and text[i:i + 1] in ("n", "t", "r"):
        i += 1  # `\nHF_TOKEN=` in a JSON string: the name starts after the escape
    return i


def _quoted_rest(text: str, start: int, quote: str) -> int:
    """End of a quoted region that began before `start` (`"NAME=a b c"`): the closing quote."""
    i = start
    while i < len(text) and text[i] not in "\n" + quote:
        i += 2 if text[i] == "\\" else 1
    return min(i, len(text))


def _harmless(value: str) -> bool:
    if _compiled(r"""\\?["']?\[[A-Z_]{1,12}\]\\?["']?""").fullmatch(value.strip()):
        return True  # a special token: "[PAD]", "[MASK]"
    return bool(_compiled(_HARMLESS).fullmatch(value.strip("\\\"'[] ")))


def _token_count(name: str, value: str) -> bool:
    """`#cached_token: 330.`, `new_tokens=2172`: a number of tokens, which LLM servers log all
    the time, not a credential (those are long strings): "token" is the name's only secret part
    and the value a number of at most 7 digits."""
    words = value.strip("\"' ").split(None, 1)
    first = words[0].rstrip(".,;") if words else ""
    parts = {p.lower() for p in _compiled(_PARTS).findall(name)}
    return first.isdigit() and len(first) <= 7 and bool(parts & {"token", "tokens"}) \
        and not (parts & _SECRET_PARTS) - {"token", "tokens"}


def _requote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return f"{value[0]}{REDACTED}{value[0]}"
    if value.startswith('\\"'):
        return f'\\"{REDACTED}\\"'
    if value.startswith("["):
        return f"[{REDACTED}]"
    return REDACTED


def _pair(m: re.Match[str], text: str) -> tuple[str, int]:
    """(replacement, end) for a NAME<sep>value match; `end` may reach past the match when
    the pair sat in a quoted string (`Environment="KEY=a b c"`)."""
    start = _name_start(text, m.start("kw"))
    name = text[start:m.end("tail")]
    value, end = m.group("value"), m.end()
    if not re.search(r":\s$", m.group("sep")) and not value.startswith(("\"", "'", "[", '\\"')):
        value = value.split(None, 1)[0]  # words after the first belong to a YAML value (`key: a b`) only
        end = m.start("value") + len(value)
    if not is_secret_name(name) or _harmless(value) or _token_count(name, value):
        return text[m.start():m.start("value")], m.start("value")  # the scan goes on inside the value
    opener = text[start - 1] if start > 0 else ""
    if opener in "\"'" and not m.group("q") and not value.startswith(("\"", "'")):
        end = max(end, _quoted_rest(text, m.start("value"), opener))  # the whole quoted value
    return text[m.start():m.start("value")] + _requote(value), end


def _replace(m: re.Match[str], text: str) -> tuple[str, int]:
    kind = "shape" if m.lastgroup == "shape" else next(
        k for k in ("header", "bearer", "url", "cut", "flag", "kw") if m.group(k) is not None)
    if kind == "shape":
        before = text[m.start() - 1] if m.start() else ""
        escape = before in "ntr" and text[m.start() - 2:m.start() - 1] == "\\"  # `\\n` in a JSON string
        if before.isalnum() and not escape:  # part of a longer word
            return m.group(), m.end()
        return REDACTED, m.end()
    if kind == "header":
        v = m.group("hvalue")
        return (m.group() if _harmless(v) else
                m.group("header") + m.group("hq") + m.group("hsep") + (v[0] if v[0] in "\"'" else "") + REDACTED), m.end()
    if kind == "bearer":
        return f"{m.group('bearer')} {REDACTED}", m.end()
    if kind == "url":
        scheme = text[_name_start(text, m.start()):m.start()].lower()
        user, sep, _password = m.group("userinfo").partition(":")
        if sep:
            return f"://{user}:{REDACTED}@", m.end()
        return (m.group() if scheme.rsplit(".", 1)[-1] in _PLAIN_SCHEMES or not scheme else f"://{REDACTED}@"), m.end()
    if kind == "cut":
        return f"://{m.group('cuser')}:{REDACTED}", m.end()
    if kind == "flag":
        name = m.group("flag")
        if not is_secret_name(name) or _harmless(m.group("fvalue")):
            return m.group(), m.end()
        return f"{name}{m.group('fsep')}{REDACTED}", m.end()
    return _pair(m, text)


def redact_text(text: str) -> str:
    """Redact secret-named values (environment pairs, JSON/YAML/dict keys, headers, flags),
    values of structured evidence whose name is no setting (redact_struct), URL credentials,
    PEM private keys, known token shapes and gitleaks' rules wherever they stand."""
    if not text:
        return text
    if "-----BEGIN" in text:
        text = _compiled(_PEM).sub(REDACTED, text)
    if len(text) > _SMALL:
        return _redact_large(text)
    return _redact_small(text)


def _redact_small(text: str) -> str:
    """A text scanned whole: a structure (a YAML list, a pod's env) may span its lines."""
    if any(len(w) >= _KEY_BODY_MIN for w in text.split()):
        text = _compiled(_KEY_BODY).sub(lambda m: m.group("indent") + REDACTED, text)
    text = redact_structure(text, is_secret_name)
    data = text.encode("utf-8", "replace").lower()  # one byte per ASCII character, newlines kept
    if b"name" in data and _compiled(_NAMED_HINT).search(data):
        text = _compiled(_NAMED).sub(_named_value, text)
        data = text.encode("utf-8", "replace").lower()
    if _may_trigger(data) and _compiled(_TRIGGER).search(data):
        text = _scan(text)
    text = apply_rules(text, REDACTED)
    if "machine" in text and "password" in text:
        text = _compiled(_NETRC).sub(lambda m: m.group("pre") + REDACTED, text)
    return _compiled(_RANDOM).sub(_random_word, text) if _long_word(text) else text


# a .netrc entry (`machine HOST login USER password SECRET`, GNU inetutils' format)
_NETRC = r"(?P<pre>(?:\b|(?<=\\n))machine[ \t]+\S+(?:[ \t]+(?:login|account)[ \t]+\S+)*[ \t]+password[ \t]+)(?P<value>[^\s\\\"']+)"
# a random word under no name (detect-secrets' high-entropy strings): 32 characters or more
# of letters, digits, `_`, `-`, `.`, `+`, `/` (and `=` padding), with capitals, small letters and digits, and
# as random as a token (4.2 bits a character; hex digests, UUIDs and words are far below or lack a case)
_RANDOM = r"(?<![A-Za-z0-9_+/=.-])(?=[A-Za-z0-9_.+/-]*[a-z])(?=[A-Za-z0-9_.+/-]*[A-Z])(?=[A-Za-z0-9_.+/-]*[0-9])[A-Za-z0-9_.+/-]{32,}={0,2}"
_RANDOM_BITS = 4.2


def _long_word(text: str) -> bool:
    return any(len(w) >= 32 for w in text.split())


def _random_word(m: re.Match[str]) -> str:
    word = m.group()
    if REDACTED in word or "/" in word.strip("/") and word.count("/") > 2 or entropy(word) < _RANDOM_BITS:
        return word
    if max(len(run) for run in _compiled(r"[A-Za-z0-9]+").findall(word)) < 16:
        return word  # bartowski/Qwen2.5-Coder-32B-Instruct-GGUF: short words joined, not a token
    core = word.split("-", 1)[1] if word[:9].split("-", 1)[0].isalpha() and "-" in word[:9] else word
    if not core.replace("-", "").lower().strip("0123456789abcdef"):
        return word  # GPU-5b1c6f3e-8d2a-…: a UUID or a digest behind a short name
    return REDACTED


def _redact_large(text: str) -> str:
    """A log: only the lines a literal pre-filter picks (_candidate_lines) are redacted, each
    as a small text; a pod's env (name and value on two lines) is found over the whole text."""
    data = text.encode("utf-8", "replace").lower()
    if b"name" in data and _compiled(_NAMED_HINT).search(data):
        text = _compiled(_NAMED).sub(_named_value, text)
        data = text.encode("utf-8", "replace").lower()
    if not text.isascii():  # byte offsets of `data` are character offsets only for ASCII
        lines = text.split("\n")
        return "\n".join(_redact_small(line) if _candidate_lines(line.encode("utf-8", "replace").lower(),
                                                                   line.encode("utf-8", "replace")) else line
                          for line in lines)
    starts = _candidate_lines(data, text.encode())
    if not starts:
        return text
    out, pos = [], 0
    for start in sorted(starts):
        if start < pos:
            continue
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        out.append(text[pos:start])
        out.append(_redact_line(text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _redact_line(line: str) -> str:
    """One line of a log; a line longer than a small text (a JSON document with `\\n`
    escapes) is redacted by its escaped lines."""
    if len(line) <= _SMALL:
        return _redact_small(line)
    parts = line.split("\\n")
    return "\\n".join(_redact_small(p) if _candidate_lines(p.encode().lower(), p.encode()) else p for p in parts)


_ALNUM = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_RUN = 16  # a run of letters, digits, `_` and `-` this long may be a token (gitleaks' rules, shapes)
_RUNS = bytes.maketrans(_ALNUM + b"_-", b"a" * (len(_ALNUM) + 2))
_UPPER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_abcdefghijklmnopqrstuvwxyz",
                         b"A" * 37 + b"a" * 26)
_HEX_DIGITS = b"0123456789abcdef"
_DIGESTS = (b"sha256", b"sha512", b"sha1", b"md5", b"gpu", b"mig")  # sha256-6a07…, GPU-5b1c6f3e-…
_ENV_BEFORE = frozenset(b" \t\n\"'[,(\0{;")


def _candidate_lines(data: bytes, raw: bytes) -> set[int]:
    """Starts of the lines that may hold a secret or a structured value, found by literal
    searches (bytes.find, bytes.translate) only: a keyword before `=`/`:` (not a count of
    tokens), `--` before a letter, a URL's user part, `bearer`, an UPPER_CASE name before `=`,
    and a run of 16 letters and digits that is no digest, number or plain word."""
    hits: list[int] = []
    for k in _KEYWORDS:  # a literal-led pattern: the regex engine skips to the keyword
        for m in _compiled(re.escape(k) + rb"[a-z0-9_.-]*\\?[\"']?[ \t]*[=:]").finditer(data):
            if k != b"token" or _not_a_count(data, m.start(), m.end()):
                hits.append(m.start())
    for w in _TRIGGER_WORDS + (b"--",):
        at = data.find(w)
        while at >= 0:
            if w != b"--" or data[at + 2:at + 3].isalpha():
                hits.append(at)
            at = data.find(w, at + len(w))
    shape = raw.translate(_UPPER)
    at = shape.find(b"A=")
    while at >= 0:
        i = at
        while i > 0 and shape[i - 1] == 65:  # A
            i -= 1
        if raw[i:i + 1].isupper() and (i == 0 or raw[i - 1] in _ENV_BEFORE):
            hits.append(at)
        at = shape.find(b"A=", at + 2)
    runs = data.translate(_RUNS)
    run = b"a" * _RUN
    at = runs.find(run)
    while at >= 0:
        end = _compiled(rb"a*").match(runs, at + _RUN).end()
        word = data[at:end].translate(None, b"_-")
        for digest in _DIGESTS:
            if word.startswith(digest):
                word = word[len(digest):]
        if word.strip(_HEX_DIGITS):  # not a digest, not a number
            if not (word.isalpha() and (raw[at:end].islower() or raw[at:end].isupper())):  # not a word
                hits.append(at)
        at = runs.find(run, end)
    return {data.rfind(b"\n", 0, h) + 1 for h in hits}


def _not_a_count(data: bytes, at: int, sep: int) -> bool:
    """`token…=` at `at` whose value is no count of tokens (`n_prompt_tokens = 2048`)."""
    num = _compiled(rb"[ \t]*(\d{1,7})(?![a-z0-9])").match(data, sep)
    if num is None:
        return True
    s = at
    while s > 0 and data[s - 1] in _NAME_BYTES:
        s -= 1
    name = data[s:sep].rstrip(b" \t=:\"'\\").decode("ascii", "replace")
    return not _token_count(name, num.group(1).decode())


def _scan(text: str) -> str:
    out: list[str] = []
    pos = 0
    scan = _compiled(_SCAN)
    while True:
        m = scan.search(text, pos)
        if m is None:
            break
        out.append(text[pos:m.start()])
        piece, end = _replace(m, text)
        out.append(piece)
        if end <= m.start():  # an empty match: move on by one character
            out.append(text[m.start():m.start() + 1])
            end = m.start() + 1
        pos = end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def redact_env(env: dict[str, str]) -> dict[str, str]:
    return {k: redact_value(k, v) for k, v in env.items()}


def redact_value(name: str, value: str) -> str:
    """One variable's value as it may be shown: REDACTED under a secret name, else with any
    secret it carries redacted."""
    if not value:
        return value
    return REDACTED if is_secret_name(name) else redact_text(value)


_ENV_LINE = r"""^(?P<indent>\s*)(?:Environment=["']?|export |setx |launchctl setenv |-e |- name: |- )?(?P<name>[A-Za-z_][A-Za-z0-9_]*)"""


def redact_fix(text: str) -> str:
    """A fix's command or configuration with no secret in it, and no `<redacted>` a person
    could paste back over their real value: such a line becomes a comment naming the
    variable (or the flag, for a value alone on its line in an `args:` list) and saying to
    keep its current value. The text is redacted whole first, so a value on the line after
    its flag (a YAML list, kubectl describe) is withheld too."""
    if not text:
        return text
    originals = text.split("\n")
    shown = redact_text(text).split("\n")
    if len(shown) != len(originals):  # a private key's lines became one
        shown = [redact_text(line) for line in originals]
    lines = []
    for n, (line, out) in enumerate(zip(originals, shown)):
        if REDACTED not in out:
            lines.append(out)
            continue
        m = _compiled(_ENV_LINE).match(line)
        flag = _compiled(r"--[A-Za-z][\w.-]*").findall(line) or (
            _compiled(r"--[A-Za-z][\w.-]*").findall(originals[n - 1])[-1:] if n else [])
        name = flag[-1] if flag else m.group("name") if m else "the secret"
        indent = m.group("indent") if m else ""
        lines.append(f"{indent}# {name}: {KEEP} (a secret, not shown: copy it from where it is set now)")
    return "\n".join(lines)
