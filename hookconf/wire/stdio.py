"""Newline-delimited JSON-RPC over a subprocess's stdin and stdout."""

from __future__ import annotations

import threading
from typing import IO

from hookconf.errors import TransportClosedError
from hookconf.wire.process import ServerProcess
from hookconf.wire.recording import FRAMING, Recording
from hookconf.wire.transport import Transport

# A line longer than this is not read to its end: the memory a server can make hookconf hold stays bounded.
# Real tools/list answers reach a few MB on one line.
MAX_LINE_BYTES = 32 * 1024 * 1024
# How long a process whose stdout ended may take to exit before the end is reported as a closed stdout.
EXIT_AFTER_EOF_S = 0.1


def decode_line(line: bytes) -> tuple[str, str | None]:
    """A stdout line as text, and what breaks the framing rule about it (invalid UTF-8), or None."""
    try:
        return line.decode("utf-8").rstrip("\r\n"), None
    except UnicodeDecodeError as exc:
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        bad = line[exc.start : exc.end].hex(" ")
        return text, f"invalid UTF-8 at byte offset {exc.start} of a {len(line)}-byte stdout line (bytes {bad})"


def pump_lines(stream: IO[bytes], transport: Transport, max_line_bytes: int = MAX_LINE_BYTES) -> bool:
    """Hand each line of `stream` to the transport until the stream ends (True), or until a line runs past
    `max_line_bytes` (False: that is recorded as a framing fault, and the transport is closed)."""
    while line := stream.readline(max_line_bytes + 1):
        if len(line) > max_line_bytes and not line.endswith(b"\n"):
            _oversized(transport, line, max_line_bytes)
            return False
        deliver_line(transport, line)
    return True


def deliver_line(transport: Transport, line: bytes) -> None:
    """One line of stdout: checked for UTF-8, then handed on like any message."""
    text, fault = decode_line(line)
    if fault is not None:
        transport.recording.add_fault(FRAMING, fault)
    if text.strip():
        transport.deliver(text)


def _oversized(transport: Transport, start: bytes, max_line_bytes: int) -> None:
    limit = f"{max_line_bytes // (1024 * 1024)} MiB" if max_line_bytes >= 1024 * 1024 else f"{max_line_bytes} bytes"
    detail = (
        f"a stdout line longer than {limit} (it starts {start[:80].decode('utf-8', 'replace')!r}); "
        "hookconf stopped reading stdout"
    )
    transport.recording.add("received", start[:4096].decode("utf-8", "replace"), None)
    transport.recording.add_fault(FRAMING, detail)
    transport.mark_closed(f"the server wrote {detail}")


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
        try:
            if not pump_lines(stdout, self):
                return
        except (OSError, ValueError) as exc:  # the pipe was closed under the reader by close()
            self.mark_closed(f"stdout could not be read: {exc}")
            return
        self.mark_closed(self._end_of_stdout())

    def _end_of_stdout(self) -> str:
        code = self.process.exit_code(wait_s=EXIT_AFTER_EOF_S)
        if code is None:
            return "server closed its stdout (the process is still running)"
        return f"server exited with code {code}"

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
