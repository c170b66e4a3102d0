"""Run the command line with its stderr on a pseudo-terminal (python's pty), as a person at a
terminal sees it, and its stdout on a pipe, as a script reads it: what each one got."""
from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import threading
import time

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


def interruptible() -> None:
    """The child takes Ctrl-C as a terminal gives it, even where the test process was started in the
    background of a script (sh ignores SIGINT there, and a child inherits an ignored signal)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def on_a_terminal(args: list[str], env: dict, timeout: float = 60.0, columns: int = 100,
                  interrupt_when=None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr without colours) of `args`, its stderr a terminal `columns` wide.
    `interrupt_when(stderr_so_far)`: send SIGINT (Ctrl-C) once it says True. Killed after `timeout`."""
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env,
                         preexec_fn=interruptible)
    os.close(slave)
    out: list[bytes] = []
    reader = threading.Thread(target=lambda: out.append(p.stdout.read()), daemon=True)
    reader.start()
    err, end, sent = b"", time.monotonic() + timeout, False
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                err += data
            if interrupt_when is not None and not sent and interrupt_when(ANSI.sub("", err.decode("utf-8", "replace"))):
                p.send_signal(signal.SIGINT)
                sent = True
            if p.poll() is not None and not ready:
                break
        else:
            p.kill()
        code = p.wait(timeout=10)
    finally:
        os.close(master)
    reader.join(10)
    return code, (out[0] if out else b"").decode("utf-8", "replace"), ANSI.sub("", err.decode("utf-8", "replace"))
