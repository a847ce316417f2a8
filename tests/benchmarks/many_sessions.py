"""One client opens 1,500 sessions from ``gcv mcp --http`` under ``ulimit -n 1024``.

    .venv/bin/python -m tests.benchmarks.many_sessions [COUNT] [--max-open N]

Starts the service on a free loopback port with the descriptor limit of the issue (1,024)
over a new folder, creates COUNT sessions (default 1,500) through ``open_session``, one
request each, then appends a turn to the first and last session and reads the first
back.  Prints how many creates succeeded and how many were refused (and with which
code), the files left in the folder that are not stores (SQLite's companions of the
open sessions, and anything a refused create left behind: must be none), and the
server's CPU time.  Exit 0 when every create succeeded or was refused leaving nothing,
and the service still serves.  About a minute.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.test_mcp_http import _create, _host, _post

_TICKS = 100


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def main(argv: list[str]) -> int:
    """Run it; print the figures."""
    count = int(argv[0]) if argv and argv[0].isdigit() else 1500
    max_open = argv[argv.index("--max-open") + 1] if "--max-open" in argv else "64"
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(
            [
                *(sys.executable, "-m", "gcv.cli", "mcp", "--sessions", folder),
                *("--http", "--max-open", max_open),
            ],
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024)),
        )
        try:
            assert server.stderr is not None
            port = int(server.stderr.readline().rsplit(":", 1)[1].split("/")[0])
            host = {"Host": _host(port)}
            started = time.perf_counter()
            outcomes: Counter[str] = Counter()
            for k in range(count):
                status, answer = _post(port, _create(f"m{k}"), host)
                if status != 200 or not isinstance(answer, dict):
                    outcomes[f"http {status}"] += 1
                    continue
                content = answer["result"]["structuredContent"]
                outcomes[content.get("error", {}).get("code", "created")] += 1
            wall = time.perf_counter() - started
            turn = {"speaker": "a", "operations": [{"op": "observe", "id": "o1", "claim": "x"}]}
            served = []
            for name in ("m0", f"m{count - 1}"):
                message = _create(name)
                message["params"] = {"name": "append_turn", "arguments": {"session": name, **turn}}
                status, answer = _post(port, message, host)
                served.append(status == 200 and not answer["result"].get("isError"))  # type: ignore[index,union-attr]
            stores = [p for p in Path(folder).iterdir() if p.name.endswith(".gcv")]
            others = [p.name for p in Path(folder).iterdir() if not p.name.endswith(".gcv")]
            leftovers = [name for name in others if not name.endswith(("-wal", "-shm"))]
            print(
                f"{count} sessions under ulimit -n 1024, at most {max_open} open: "
                f"{dict(outcomes)}; {len(stores)} stores; {len(others)} other files "
                f"({len(leftovers)} not beside an open session: {leftovers[:5]}); "
                f"appends after: {served}; {wall:.1f} s wall, server CPU "
                f"{_cpu(server.pid):.1f} s"
            )
            ok = (
                set(outcomes) <= {"created", "store-error"}
                and not leftovers
                and len(stores) == outcomes["created"]
                and all(served)
            )
            return 0 if ok else 1
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
