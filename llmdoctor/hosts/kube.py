"""An engine in a Kubernetes pod, reached with the user's own `kubectl` and kubeconfig.

`k8s://[CONTEXT/]NAMESPACE/POD` names a pod; `k8s://[CONTEXT/]NAMESPACE/deploy/NAME` a
Deployment, resolved to one of its pods (`kubectl get deploy` for its selector, then `kubectl
get pods -l SELECTOR`: a Running and ready pod first) and the pick said in the report. Names
are validated (knowledge/containers/pod.py) before they reach a command line, `--context` is
passed only when the target names one, and every call has a timeout.

- the pod: `kubectl get pod POD -n NS -o json`, once per run (env, command/args, resources,
  restarts, last state, node); `kubectl describe pod` and `kubectl get events` for `collect`
  and the OOM evidence
- commands and files: `kubectl exec POD -n NS -c CONTAINER -- argv...` (`head -c LIMIT -- PATH`)
- logs: `kubectl logs POD -n NS -c CONTAINER --timestamps --since=Ns --tail=N`, after the
  `--previous` container's when it restarted (the log of the run that died is the evidence)
- HTTP and the probe: `kubectl port-forward pod/POD :PORT --address 127.0.0.1` (kubectl picks
  a free loopback port and prints it), started once per port with a deadline and stopped on
  close(), at exit and on SIGTERM.
"""
from __future__ import annotations

import atexit
import os
import re
import shlex
import subprocess
import threading
import time
import weakref

from llmdoctor.knowledge.containers.kube_target import KubeTarget, parse_kube_target
from llmdoctor.hosts.base import (
    DEFAULT_TIMEOUT,
    CommandNotFound,
    CommandResult,
    HostError,
    HostUnreachable,
    HttpResponse,
    Unanswerable,
)
from llmdoctor.hosts.container import ExecFiles
from llmdoctor.hosts.live import BaseHost
from llmdoctor.hosts.terminate import on_terminate
from llmdoctor.redact import redact_text

KUBECTL = "kubectl"
GET_TIMEOUT = 20.0
LOG_TIMEOUT = 60.0
LOG_TAIL = 200_000
FORWARD_READY_S = 15.0
_FORWARDING = re.compile(r"^Forwarding from 127\.0\.0\.1:(\d+) -> (\d+)")
_NO_EXEC = re.compile(r"executable file not found|not found in \$PATH|no such file or directory", re.I)

_forwards: "weakref.WeakSet[PortForward]" = weakref.WeakSet()


def _stop_all() -> None:
    for f in list(_forwards):
        f.stop()


atexit.register(_stop_all)
on_terminate(_stop_all)


def _why(res: CommandResult) -> str:
    """kubectl's own one-line reason (`Error from server (Forbidden): ...`)."""
    lines = [ln.strip() for ln in res.stderr.splitlines() if ln.strip()]
    line = next((ln for ln in reversed(lines) if ln.startswith(("Error", "error"))), lines[-1] if lines else "")
    return line[:240] or f"exit {res.returncode}"


class PortForward:
    """One `kubectl port-forward` process: a loopback port that leads to the pod's `port`."""

    def __init__(self, argv: list[str], remote: int) -> None:
        self.argv, self.remote = argv, remote
        self.local: int | None = None
        self.proc: subprocess.Popen | None = None
        self._lines: list[str] = []

    def start(self, ready_s: float = FORWARD_READY_S) -> int:
        try:
            self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, env=dict(os.environ, LC_ALL="C"))
        except FileNotFoundError:
            raise HostUnreachable("the kubectl command is not installed") from None
        _forwards.add(self)
        ready = threading.Event()

        def read() -> None:
            for raw in self.proc.stdout:  # type: ignore[union-attr]
                line = raw.decode("utf-8", "replace").rstrip()
                if len(self._lines) < 50:
                    self._lines.append(line)
                m = _FORWARDING.match(line)
                if m and self.local is None:
                    self.local = int(m.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True, name="kubectl-port-forward").start()
        ready.wait(ready_s)
        if self.local is None:
            self.stop()
            said = next((ln for ln in reversed(self._lines) if ln), "")
            raise HostUnreachable(f"kubectl port-forward to port {self.remote}: "
                                  f"{said[:240] or f'no Forwarding line within {ready_s:g} s'}")
        return self.local

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        p = self.proc
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(2)
            except subprocess.TimeoutExpired:
                p.kill()
                try:
                    p.wait(2)
                except subprocess.TimeoutExpired:
                    pass
        _forwards.discard(self)


class KubeHost(ExecFiles, BaseHost):
    """A pod as a host, through kubectl on this machine."""

    kind = "k8s"
    live_kind = "pod"

    def __init__(self, target: str | KubeTarget, kubectl: str = KUBECTL) -> None:
        self.target = target if isinstance(target, KubeTarget) else parse_kube_target(target)
        self.name = str(self.target)
        self.cli = kubectl
        self.pod: str | None = self.target.name if self.target.kind == "pod" else None
        self._pod_json: str | None = None
        self._spec = None
        self._forwards: dict[int, PortForward] = {}
        self._lock = threading.Lock()
        self.meta = {"context": self.target.context} if self.target.context else {}

    # -- kubectl ---------------------------------------------------------------------
    def kubectl(self, args: list[str], timeout: float) -> CommandResult:
        argv = [self.cli] + (["--context", self.target.context] if self.target.context else []) + args
        from llmdoctor.hosts.local import LocalHost

        try:
            return LocalHost("kubectl").run(argv, timeout=timeout)
        except CommandNotFound:
            raise HostUnreachable(f"{self.name}: the kubectl command is not installed") from None

    def _ns(self) -> list[str]:
        return ["-n", self.target.namespace]

    def _get(self, args: list[str], what: str) -> str:
        res = self.kubectl(["get", *args, *self._ns(), "-o", "json"], GET_TIMEOUT)
        if not res.ok:
            raise HostUnreachable(f"{self.name}: {what}: {_why(res)}")
        return res.stdout

    def connect(self) -> None:
        """Find the pod (a Deployment's running one) and read it once; HostUnreachable with
        kubectl's reason (no kubectl, no context, forbidden, not found)."""
        self.container_inspect()

    def _resolve(self) -> None:
        from llmdoctor.knowledge.containers.pod import deployment_selector, pick_running, pod_names
        from llmdoctor.parsing import ParseError
        import json

        name = self.target.name
        try:
            selector = deployment_selector(self._get(["deployment", name], f"kubectl get deployment {name}"))
            pods = pod_names(self._get(["pods", "-l", selector], f"kubectl get pods -l {selector}"))
            if not pods:
                raise HostUnreachable(f"{self.name}: deploy/{name} has no pods (selector {selector})")
            pod, why = pick_running(pods)
        except ParseError as e:
            raise HostUnreachable(f"{self.name}: {e}") from None
        self.pod = str((pod.get("metadata") or {}).get("name"))
        self.meta["picked"] = f"pod {self.pod} of deploy/{name} ({why}; {len(pods)} pod(s) match {selector})"
        self._pod_json = json.dumps(pod, indent=4)

    def container_inspect(self) -> CommandResult:
        """`kubectl get pod POD -o json` (stdout: the pod's JSON)."""
        with self._lock:
            if self._pod_json is None:
                if self.target.kind == "deploy":
                    self._resolve()
                else:
                    self._pod_json = self._get(["pod", self.pod], f"kubectl get pod {self.pod}")
                self._pod_json = redact_text(self._pod_json)  # before anything reads it
        return CommandResult((self.cli, "get", "pod", str(self.pod)), 0, self._pod_json,
                             source=f"kubectl get pod {self.pod}")

    def spec(self):
        """The engine's container, parsed (None when the pod JSON cannot be read)."""
        if self._spec is None:
            from llmdoctor.knowledge.containers.pod import parse_pod
            from llmdoctor.parsing import ParseError

            try:
                self._spec = parse_pod(self.container_inspect().stdout, context=self.target.context)
            except ParseError:
                return None
        return self._spec

    def _container(self) -> list[str]:
        spec = self.spec()
        return ["-c", spec.container] if spec is not None and spec.container else []

    def pod_events(self) -> CommandResult:
        """`kubectl get events --field-selector involvedObject.name=POD -o json`."""
        self.connect()
        res = self.kubectl(["get", "events", *self._ns(), "--field-selector", f"involvedObject.name={self.pod}",
                            "-o", "json"], GET_TIMEOUT)
        if not res.ok:
            raise HostError(f"kubectl get events: {_why(res)}")
        return CommandResult(res.argv, 0, res.stdout, source=f"kubectl get events {self.pod}")

    def pod_describe(self) -> CommandResult:
        self.connect()
        res = self.kubectl(["describe", "pod", str(self.pod), *self._ns()], GET_TIMEOUT)
        if not res.ok:
            raise HostError(f"kubectl describe pod: {_why(res)}")
        return CommandResult(res.argv, 0, res.stdout, source=f"kubectl describe pod {self.pod}")

    # -- Host protocol --------------------------------------------------------------
    def run(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        if not argv:
            raise ValueError("empty argv")
        self.connect()
        res = self.kubectl(["exec", str(self.pod), *self._ns(), *self._container(), "--", *argv], timeout)
        if _NO_EXEC.search(res.stderr) and (res.returncode in (126, 127) or "exec failed" in res.stderr
                                            or re.search(r"exit code 12[67]\b", res.stderr)):
            raise CommandNotFound(f"{argv[0]}: command not found in {self.name}")
        if res.returncode != 0 and re.search(r"\bError from server\b|forbidden", res.stderr) \
                and "command terminated" not in res.stderr:
            raise HostError(f"kubectl exec: {_why(res)}")
        err = "\n".join(ln for ln in res.stderr.splitlines() if not ln.startswith("command terminated with exit code"))
        return CommandResult(tuple(argv), res.returncode, res.stdout, err,
                             source=f"kubectl exec {self.pod} {shlex.join(argv[:2])}")

    def journal(self, unit, engine, since_seconds, state=None, directory=None):
        raise Unanswerable(f"{self.name}: a pod has no systemd journal (its log is `kubectl logs`)")

    def container_log(self, engine, since_seconds, state=None):
        from llmdoctor.hosts.logs.container import ContainerLogSource

        source = ContainerLogSource(self, engine, since_seconds)
        try:
            self.connect()
        except HostError:
            return source  # its probe() says why the log cannot be read
        source.name = f"kubectl logs {self.pod}"
        return source

    def logs(self, since_seconds: float | None) -> str:
        """The previous container's log (when it restarted), then the running one's, inside the window."""
        self.connect()
        base = ["logs", str(self.pod), *self._ns(), *self._container(), "--timestamps", f"--tail={LOG_TAIL}"]
        if since_seconds:
            base.append(f"--since={int(since_seconds)}s")
        spec = self.spec()
        parts = []
        if spec is not None and spec.restart_count:
            prev = self.kubectl([*base, "--previous"], LOG_TIMEOUT)
            if prev.ok:
                parts.append(prev.stdout)
        res = self.kubectl(base, LOG_TIMEOUT)
        if not res.ok:
            raise HostError(f"kubectl logs {self.pod}: {_why(res)}")
        parts.append(res.stdout)
        return "\n".join(p.rstrip("\n") for p in parts if p.strip())

    def _forward(self, port: int) -> int:
        with self._lock:
            fwd = self._forwards.get(port)
            if fwd is not None and fwd.alive():
                return fwd.local  # type: ignore[return-value]
        self.connect()
        argv = [self.cli] + (["--context", self.target.context] if self.target.context else []) + [
            "port-forward", *self._ns(), f"pod/{self.pod}", f":{int(port)}", "--address", "127.0.0.1"]
        fwd = PortForward(argv, port)
        local = fwd.start()
        with self._lock:
            self._forwards[port] = fwd
        return local

    def http(self, method, port, path, body=None, timeout=DEFAULT_TIMEOUT, headers=None) -> HttpResponse:
        from llmdoctor.hosts.http import http_request

        local = self._forward(port)
        try:
            r = http_request("127.0.0.1", local, method, path, body, timeout, headers)
        except HostError as e:
            raise type(e)(f"{self.name}:{port} (port-forward :{local}): {e}") from None
        return HttpResponse(r.status, r.body, r.headers, f"{method.upper()} {self.name}:{port}{path.split('?', 1)[0]}")

    def base_url(self, port: int) -> str:
        return f"http://127.0.0.1:{self._forward(port)}"

    def close(self) -> None:
        with self._lock:
            forwards, self._forwards = list(self._forwards.values()), {}
        for f in forwards:
            f.stop()


def wait_closed(host: KubeHost, seconds: float = 2.0) -> bool:
    """True once every port-forward of `host` has exited (tests)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not any(f.alive() for f in list(_forwards)):
            return True
        time.sleep(0.05)
    return False
