"""Start an audited server with a clean environment, watch its resources, kill its whole tree."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hookconf.errors import ServerStartError

if TYPE_CHECKING:
    import psutil

    from hookconf.config import ServerConfig

# What an audited server may see of the auditor's environment; the config adds the rest.
ENV_ALLOWLIST = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "USER", "LOGNAME", "SYSTEMROOT")
TERMINATE_GRACE_S = 2.0
# How long a server may take to exit on its own once its stdin closes, before SIGTERM. Most exit
# within 50 ms; some keep a timer alive and never do, and the audit is over by then either way.
STDIN_CLOSE_GRACE_S = 0.2
SAMPLE_INTERVAL_S = 0.05
STDERR_TAIL_LINES = 40


def clean_environment(extra: dict[str, str]) -> dict[str, str]:
    env = {key: os.environ[key] for key in ENV_ALLOWLIST if key in os.environ}
    env.update(extra)
    return env


@dataclass(frozen=True)
class ResourceFigures:
    startup_ms: float | None
    peak_rss_bytes: int
    cpu_seconds: float
    peak_threads: int
    peak_children: int


class ResourceMonitor:
    """Samples the process tree in a background thread: peak RSS, CPU, threads and children."""

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._root: psutil.Process | None = None
        self._stop = threading.Event()
        self._cpu_by_pid: dict[int, float] = {}
        self.peak_rss_bytes = 0
        self.peak_threads = 0
        self.peak_children = 0
        self._thread = threading.Thread(target=self._run, name="hookconf-monitor", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # psutil is imported here, not before the server is spawned: a server boots while hookconf imports
        import psutil

        try:
            self._root = psutil.Process(self._pid)
        except psutil.Error:
            return
        while True:
            self.sample()
            if self._stop.wait(SAMPLE_INTERVAL_S):
                return

    def sample(self) -> None:
        import psutil

        if self._root is None:
            return
        try:
            tree = [self._root, *self._root.children(recursive=True)]
        except psutil.Error:
            return
        rss = threads = 0
        for proc in tree:
            try:
                with proc.oneshot():
                    rss += proc.memory_info().rss
                    threads += proc.num_threads()
                    times = proc.cpu_times()
                    self._cpu_by_pid[proc.pid] = times.user + times.system
            except psutil.Error:
                continue
        self.peak_rss_bytes = max(self.peak_rss_bytes, rss)
        self.peak_threads = max(self.peak_threads, threads)
        self.peak_children = max(self.peak_children, len(tree) - 1)

    @property
    def cpu_seconds(self) -> float:
        return sum(self._cpu_by_pid.values())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1)


class ServerProcess:
    """A server subprocess in its own session, with stdin/stdout pipes and a stderr tail."""

    def __init__(self, command: str, args: list[str], env: dict[str, str], cwd: str | None) -> None:
        self.argv = [command, *args]
        self.started_at = time.monotonic()
        self._stopped = False
        try:
            self.popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=clean_environment(env),
                cwd=cwd,
                start_new_session=True,
                bufsize=-1,  # buffered: readline() on a raw pipe makes a system call per byte
            )
        except OSError as exc:
            raise ServerStartError(
                f"cannot start server {' '.join(self.argv)!r}: {exc.strerror}; "
                "check server.command and server.args in the config"
            ) from exc
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_thread = threading.Thread(target=self._drain_stderr, name="hookconf-stderr", daemon=True)
        self._stderr_thread.start()
        self.monitor = ResourceMonitor(self.popen.pid)

    def _drain_stderr(self) -> None:
        assert self.popen.stderr is not None
        for line in iter(self.popen.stderr.readline, b""):
            self._stderr_tail.append(line.decode("utf-8", "replace").rstrip("\n"))

    @property
    def pid(self) -> int:
        return self.popen.pid

    def exit_code(self, wait_s: float = 0.0) -> int | None:
        """The exit code, or None while it runs; `wait_s` allows a dying process time to finish."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.popen.wait(timeout=wait_s) if wait_s else self.popen.poll()
        return None

    def stderr_tail(self, lines: int = 10) -> str:
        self._stderr_thread.join(timeout=0.2 if self.exit_code() is not None else 0)
        return "\n".join(list(self._stderr_tail)[-lines:])

    def stop(self) -> None:
        """Close stdin, then SIGTERM and finally SIGKILL the whole process tree. Safe to call again."""
        if self._stopped:
            return
        self._stopped = True
        # The group id is the server's pid, which is ours to signal only until that pid is reaped and
        # may be reused (the sandbox ends what a server that died earlier left behind).
        own_group = self.popen.returncode is None
        self.monitor.sample()
        self.monitor.stop()
        # Taken before stdin closes: once the server exits, its children are reparented and no
        # longer show up as its descendants.
        tree = process_tree(self.popen.pid)
        if self.popen.stdin and not self.popen.stdin.closed:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=STDIN_CLOSE_GRACE_S)
        if own_group:
            signal_group(self.popen.pid, signal.SIGTERM)
        terminate(tree + process_tree(self.popen.pid))
        self.popen.wait(timeout=TERMINATE_GRACE_S)
        if own_group:  # what is left in the group has left the tree (a double fork without setsid)
            signal_group(self.popen.pid, signal.SIGKILL)

    def figures(self, startup_ms: float | None) -> ResourceFigures:
        return ResourceFigures(
            startup_ms=startup_ms,
            peak_rss_bytes=self.monitor.peak_rss_bytes,
            cpu_seconds=round(self.monitor.cpu_seconds, 3),
            peak_threads=self.monitor.peak_threads,
            peak_children=self.monitor.peak_children,
        )


def start_server(server: ServerConfig) -> ServerProcess | None:
    """Spawn the configured server; None for an HTTP server that hookconf does not start itself."""
    if not server.command:
        return None
    return ServerProcess(server.command, server.args, server.env, server.cwd)


def process_tree(pid: int) -> list[psutil.Process]:
    import psutil

    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def signal_group(pgid: int, signum: signal.Signals) -> None:
    """Signal a process group; the server leads its own (start_new_session), so this reaches only its own."""
    if hasattr(os, "killpg"):  # POSIX
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signum)


def terminate(processes: list[psutil.Process]) -> None:
    """SIGTERM each process still running, then SIGKILL what is left after the grace period."""
    import psutil

    running = [p for p in dict.fromkeys(processes) if p.is_running()]  # is_running also guards pid reuse
    for proc in running:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.terminate()
    _, alive = psutil.wait_procs(running, timeout=TERMINATE_GRACE_S)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    psutil.wait_procs(alive, timeout=TERMINATE_GRACE_S)
