"""A warm ``pyasc-opt``: one process that has imported pyasc's dialects, passes and targets forks a
child per request, so a suite that runs ``pyasc-opt`` hundreds of times (lit) pays start-up once.

    python -m pyasc.opt_server SOCKET

A client connects to the Unix socket ``SOCKET`` and sends one request: a length-prefixed JSON object
``{"argv": [...], "cwd": ..., "env": {...}}`` together with its standard input, output and error as
file descriptors (``SCM_RIGHTS``). The child takes those descriptors as its own 0, 1 and 2, the
client's working directory and environment, runs ``pyasc.opt.main`` and answers with the exit code
(4 bytes, little-endian, signed). Output therefore goes straight to the client's streams, in order.
The server serves until it is terminated; children are reaped by the kernel (``SIGCHLD`` ignored).
"""

from __future__ import annotations

import gc
import json
import os
import signal
import socket
import sys
import traceback

HEADER = 8          # bytes of the request length
MAX_REQUEST = 1 << 24


def preload() -> None:
    """Import everything a ``pyasc-opt`` run may need, so that children start warm."""
    import pyasc.opt  # noqa: F401
    from pyasc.dialects import get_all_dialects, make_context
    from pyasc.dialects.lazy_format import check_formats
    from pyasc.lowering import get_all_passes
    from pyasc.lowering.emit import get_all_targets

    make_context()
    for factory in list(get_all_passes().values()) + list(get_all_targets().values()):
        factory()
    for factory in get_all_dialects().values():   # the assembly formats, compiled once for every child
        check_formats(factory())


def _read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < HEADER:
        chunk = conn.recv(HEADER - len(data))
        if not chunk:
            raise ConnectionError("the client closed the connection")
        data += chunk
    size = int.from_bytes(data[:HEADER], "little")
    if size > MAX_REQUEST:
        raise ValueError(f"a request of {size} bytes")
    body = data[HEADER:]
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise ConnectionError("the client closed the connection")
        body += chunk
    return json.loads(body), fds


def _exit_code(e: SystemExit) -> int:
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code
    print(e.code, file=sys.stderr)
    return 1


def _run_child(conn: socket.socket, request: dict, fds: list[int]) -> int:
    for target, fd in zip((0, 1, 2), fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = list(request["argv"])
    from pyasc.opt import main

    try:
        main(sys.argv[1:])
        code = 0
    except SystemExit as e:
        code = _exit_code(e)
    except BaseException:  # noqa: BLE001 - main reports its own errors; this is the server's
        traceback.print_exc()
        code = 2
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            pass
    return code


def serve(path: str) -> None:
    """Listen on the Unix socket ``path`` and fork a warm child per request (never returns)."""
    preload()
    gc.freeze()  # the preloaded modules' objects: never collected, so a child's collections neither visit nor copy them
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    while True:
        conn, _ = server.accept()
        pid = os.fork()
        if pid:
            conn.close()
            continue
        server.close()
        code = 2
        try:
            request, fds = _read_request(conn)
            code = _run_child(conn, request, fds)
        except BaseException:  # noqa: BLE001 - a broken request: tell the client, never kill the server
            traceback.print_exc()
        try:
            conn.sendall(int(code).to_bytes(4, "little", signed=True))
        finally:
            os._exit(0)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m pyasc.opt_server SOCKET")
    serve(sys.argv[1])
