"""Newline-delimited JSON-RPC over a subprocess's stdin and stdout."""

from __future__ import annotations

import threading

from hookconf.errors import TransportClosedError
from hookconf.wire.process import ServerProcess
from hookconf.wire.recording import Recording
from hookconf.wire.transport import Transport


class StdioTransport(Transport):
    def __init__(self, process: ServerProcess, recording: Recording) -> None:
        super().__init__(recording)
        self.process = process
        self._write_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_stdout, name="hookconf-stdout", daemon=True)
        self._reader.start()

    def _read_stdout(self) -> None:
        stdout = self.process.popen.stdout
        assert stdout is not None
        # readline() has no line-length limit: real tools/list answers exceed 100 KB.
        for line in iter(stdout.readline, b""):
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if text:
                self.deliver(text)
        code = self.process.exit_code(wait_s=1.0)
        self.mark_closed("server closed its stdout" if code is None else f"server exited with code {code}")

    def send_raw(self, raw: str) -> None:
        stdin = self.process.popen.stdin
        assert stdin is not None
        try:
            with self._write_lock:
                stdin.write(raw.encode("utf-8") + b"\n")
                stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as exc:
            reason = self.closed_reason or "server closed its stdin (broken pipe)"
            self.mark_closed(reason)
            raise TransportClosedError(reason) from exc

    def close(self) -> None:
        self.process.stop()
        self._reader.join(timeout=2)
