#!/usr/bin/env python3
"""A `docker` stand-in for the container-host tests: no daemon runs containers here.

It replays recorded real outputs (tests/fixtures/containers, see SOURCES.md there) and
appends the exact argv of every call to $FAKE_DOCKER_LOG (one JSON list per line), so
the tests assert quoting, `--` and `--since`. Environment:

  FAKE_DOCKER_NAME     the one container that exists
  FAKE_DOCKER_INSPECT  file answered to `inspect`
  FAKE_DOCKER_LOGS     file answered to `logs` (on stderr, as Ollama writes its log)
  FAKE_DOCKER_FILES    directory whose files stand for the container's (`exec NAME head -c N -- /path`)

Messages for a missing container and a missing executable are the real ones
(`Error: No such container: x`; the OCI runtime line quoted in ollama/ollama#9781).
"""
import json
import os
import sys

argv = sys.argv[1:]
with open(os.environ["FAKE_DOCKER_LOG"], "a") as f:
    f.write(json.dumps(argv) + "\n")
name = os.environ.get("FAKE_DOCKER_NAME", "ollama")


def container_after_dashdash(args):
    if "--" not in args:
        sys.stderr.write("fake docker: expected `--` before the container name\n")
        sys.exit(2)
    rest = args[args.index("--") + 1:]
    if not rest or rest[0] != name:
        sys.stderr.write(f"Error: No such container: {rest[0] if rest else ''}\n")
        sys.exit(1)
    return rest[1:]


cmd = argv[0] if argv else ""
if cmd == "inspect":
    container_after_dashdash(argv)
    sys.stdout.write(open(os.environ["FAKE_DOCKER_INSPECT"]).read())
elif cmd == "logs":
    container_after_dashdash(argv)
    for n, line in enumerate(open(os.environ["FAKE_DOCKER_LOGS"]).read().splitlines()):
        sys.stderr.write(f"2024-09-17T15:04:{n % 60:02d}.000000000Z {line}\n")
elif cmd == "exec":
    rest = container_after_dashdash(argv)
    if rest[:2] == ["head", "-c"] and rest[3:4] == ["--"]:
        path = os.path.join(os.environ["FAKE_DOCKER_FILES"], rest[4].lstrip("/"))
        try:
            sys.stdout.write(open(path).read()[: int(rest[2])])
        except OSError:
            sys.stderr.write(f"head: cannot open '{rest[4]}' for reading: No such file or directory\n")
            sys.exit(1)
    else:
        sys.stderr.write('OCI runtime exec failed: exec failed: unable to start container process: exec: '
                         f'"{rest[0]}": executable file not found in $PATH: unknown\n')
        sys.exit(126)
else:
    sys.stderr.write(f"fake docker: unexpected command {argv!r}\n")
    sys.exit(2)
