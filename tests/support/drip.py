"""A hostile HTTP server for deadline tests: it reads the request, then answers one byte
a second and never finishes, so a per-recv() timeout never fires. In-process
(DripServer, a thread) or as a process (`python drip.py --port N`, started under the name
`llama-server` so that local discovery finds it as an engine)."""
from __future__ import annotations

import socket
import sys
import threading
import time

ANSWER = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"status": "ok", "x": "' + b"a" * 100000


class DripServer:
    def __init__(self, port: int = 0, every_s: float = 1.0, answers: dict[str, bytes] | None = None) -> None:
        """`answers`: GET paths answered at once (others 404) - only POSTs drip then, as a
        server that passes detection but trickles its streams."""
        self.every_s = every_s
        self.answers = answers
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.stop = threading.Event()
        self.connections = 0

    def start(self) -> "DripServer":
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        conn.settimeout(2.0)
        try:
            try:
                request = conn.recv(65536)  # the request (enough of it)
            except socket.timeout:
                request = b""
            if self.answers is not None and request.startswith(b"GET "):
                path = request.split(b" ", 2)[1].decode("latin-1")
                body = self.answers.get(path)
                status = b"200 OK" if body is not None else b"404 Not Found"
                body = body if body is not None else b"{}"
                conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
                return
            for i in range(len(ANSWER)):
                if self.stop.is_set():
                    return
                conn.sendall(ANSWER[i:i + 1])
                time.sleep(self.every_s)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.sock.close()

    def __enter__(self) -> "DripServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()


if __name__ == "__main__":
    port = int(sys.argv[sys.argv.index("--port") + 1])
    DripServer(port).start()
    print("ready", flush=True)
    threading.Event().wait()
