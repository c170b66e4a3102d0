#!/usr/bin/env python3
"""A `kubectl` stand-in for the Kubernetes tests: there is no cluster here.

It answers from the directory $FAKE_KUBECTL_DIR (written by tests/support/kube_pods.py from
real recorded outputs, see tests/fixtures/k8s/SOURCES.md) and appends the exact argv of every
call to $FAKE_KUBECTL_LOG (one JSON list per line), so the tests assert `-n`, `-c`, `--`,
`--since=` and `--context`. Error messages are kubectl's real ones (`Error from server
(NotFound): pods "x" not found`, the RBAC Forbidden line, `error: context "x" does not exist`).

`port-forward` opens a real loopback listener on a free port, prints kubectl's own two lines
(`Forwarding from 127.0.0.1:PORT -> 8000`, `Forwarding from [::1]:PORT -> 8000`) and relays
each connection to 127.0.0.1:$FAKE_KUBECTL_UPSTREAM until it is stopped.

  FAKE_KUBECTL_POD, FAKE_KUBECTL_NS, FAKE_KUBECTL_DEPLOY  the objects that exist
  FAKE_KUBECTL_CONTEXT  the one context in the kubeconfig ("" : none given is fine)
  FAKE_KUBECTL_FORBID=1 every get is forbidden
  FAKE_KUBECTL_FILES    directory standing for the container's files (exec head -c N -- PATH)
"""
import json
import os
import socket
import sys
import threading

argv = sys.argv[1:]
with open(os.environ["FAKE_KUBECTL_LOG"], "a") as f:
    f.write(json.dumps(argv) + "\n")
D = os.environ["FAKE_KUBECTL_DIR"]
POD, NS = os.environ.get("FAKE_KUBECTL_POD", ""), os.environ.get("FAKE_KUBECTL_NS", "default")
DEPLOY = os.environ.get("FAKE_KUBECTL_DEPLOY", "")


def die(msg, code=1):
    sys.stderr.write(msg + "\n")
    sys.exit(code)


def opt(name):
    return argv[argv.index(name) + 1] if name in argv else None


if "--context" in argv:
    ctx = opt("--context")
    if ctx != os.environ.get("FAKE_KUBECTL_CONTEXT"):
        die(f'error: context "{ctx}" does not exist')
    i = argv.index("--context")
    del argv[i:i + 2]
ns = opt("-n") or "default"
if ns != NS:
    die(f'Error from server (NotFound): namespaces "{ns}" not found')
verb = argv[0]
if os.environ.get("FAKE_KUBECTL_FORBID") and verb == "get":
    die(f'Error from server (Forbidden): {argv[1]} "{argv[2] if len(argv) > 2 and not argv[2].startswith("-") else ""}" '
        f'is forbidden: User "system:serviceaccount:{ns}:default" cannot get resource "{argv[1]}" in API group "" '
        f'in the namespace "{ns}"')


def read(name):
    return open(os.path.join(D, name)).read()


def check_pod(name):
    if name != POD:
        die(f'Error from server (NotFound): pods "{name}" not found')


if verb == "get":
    what = argv[1]
    if what == "pod":
        check_pod(argv[2])
        assert argv[-2:] == ["-o", "json"], argv
        sys.stdout.write(read("pod.json"))
    elif what == "deployment":
        if argv[2] != DEPLOY:
            die(f'Error from server (NotFound): deployments.apps "{argv[2]}" not found')
        sys.stdout.write(read("deploy.json"))
    elif what == "pods":
        sel = opt("-l")
        deploy = json.loads(read("deploy.json"))
        want = ",".join(f"{k}={v}" for k, v in deploy["spec"]["selector"]["matchLabels"].items())
        sys.stdout.write(read("pods.json") if sel == want else '{"apiVersion": "v1", "items": [], "kind": "List"}\n')
    elif what == "events":
        assert opt("--field-selector") == f"involvedObject.name={POD}", argv
        sys.stdout.write(read("events.json"))
    else:
        die(f"fake kubectl: unexpected {argv!r}", 2)
elif verb == "describe":
    check_pod(argv[2])
    sys.stdout.write(read("describe.txt"))
elif verb == "logs":
    check_pod(argv[1])
    assert "--timestamps" in argv, argv
    text = read("previous.txt" if "--previous" in argv else "logs.txt")
    if "--previous" in argv and not text:
        die(f'Error from server (BadRequest): previous terminated container "x" in pod "{POD}" not found')
    for n, line in enumerate(text.splitlines()):
        sys.stdout.write(f"2024-03-18T03:{n // 60 % 60:02d}:{n % 60:02d}.000000000Z {line}\n")
elif verb == "exec":
    check_pod(argv[1])
    rest = argv[argv.index("--") + 1:]
    if rest[:2] == ["head", "-c"] and rest[3:4] == ["--"]:
        path = os.path.join(os.environ.get("FAKE_KUBECTL_FILES", "/nonexistent"), rest[4].lstrip("/"))
        try:
            sys.stdout.write(open(path).read()[: int(rest[2])])
        except OSError:
            sys.stderr.write(f"head: cannot open '{rest[4]}' for reading: No such file or directory\n"
                             "command terminated with exit code 1\n")
            sys.exit(1)
    else:
        die('error: Internal error occurred: error executing command in container: failed to exec in container: '
            f'failed to start exec "x": OCI runtime exec failed: exec failed: unable to start container process: '
            f'exec: "{rest[0]}": executable file not found in $PATH: unknown', 1)
elif verb == "port-forward":
    check_pod(argv[argv.index("-n") + 2].split("/", 1)[1])
    remote = int(argv[argv.index("-n") + 3].lstrip(":"))
    upstream = int(os.environ["FAKE_KUBECTL_UPSTREAM"])
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    port = srv.getsockname()[1]
    print(f"Forwarding from 127.0.0.1:{port} -> {remote}", flush=True)
    print(f"Forwarding from [::1]:{port} -> {remote}", flush=True)

    def pipe(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    while True:
        conn, _ = srv.accept()
        print(f"Handling connection for {port}", flush=True)
        up = socket.create_connection(("127.0.0.1", upstream), timeout=10)
        threading.Thread(target=pipe, args=(conn, up), daemon=True).start()
        threading.Thread(target=pipe, args=(up, conn), daemon=True).start()
else:
    die(f"fake kubectl: unexpected command {argv!r}", 2)
