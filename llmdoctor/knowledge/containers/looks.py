"""Whether a text is `docker inspect` output (or the Env fragment of it), whatever file it was
pasted into (env.txt, tickets). A module of its own: every recording with an env.txt asks,
and few need the inspect parser itself."""
from __future__ import annotations

import re

from llmdoctor.parsing import LazyPattern

_LOOKS = LazyPattern(r'^\s*\[?\s*\{\s*"(?:Driver|Id|Created|Path|State|HostConfig|Config)"\s*:|^\s*"(?:Env|HostConfig|DeviceRequests)"\s*:\s*[\[{]',
                     re.M)


def looks_like_inspect(text: str) -> bool:
    """Is this `docker inspect` output (or its Env fragment), whatever file it was pasted into?"""
    return bool(_LOOKS.search(text[:64 * 1024]))
