"""``pyasc-opt`` through the warm server of ``pyasc.opt_server`` (standard library only, so it starts
in milliseconds). Without a reachable server (``PYASC_OPT_SERVER`` unset or dead) it runs the
ordinary ``pyasc-opt`` instead."""

import json
import os
import socket
import sys


def main() -> int:
    argv = ["pyasc-opt", *sys.argv[1:]]
    path = os.environ.get("PYASC_OPT_SERVER")
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path or "")
    except OSError:
        os.execvp("pyasc-opt", argv)
    body = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    socket.send_fds(conn, [len(body).to_bytes(8, "little") + body], [0, 1, 2])
    answer = b""
    while len(answer) < 4:
        chunk = conn.recv(4 - len(answer))
        if not chunk:
            print("pyasc-opt: the warm pyasc-opt server ended without an answer", file=sys.stderr)
            return 2
        answer += chunk
    return int.from_bytes(answer, "little", signed=True)


if __name__ == "__main__":
    sys.exit(main())
