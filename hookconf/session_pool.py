"""Every session of one audited server: the main one and those that replace it after a death or a hang, a
spare started ahead, fresh sessions handed out to checks; closed together when the pool's block ends."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from types import TracebackType

from hookconf.config import ServerConfig
from hookconf.session import McpSession, open_session
from hookconf.wire.recording import Recording


class SessionPool:
    """The sessions hookconf holds to one server, and their recordings.

    `with SessionPool(...) as pool:` closes every session on the way out (the kept ones side by side, the
    rest in the background) and waits for all of them, also when the block raises."""

    def __init__(self, server: ServerConfig, timeout_s: float, main: McpSession | None = None) -> None:
        self.server = server
        self.timeout_s = timeout_s
        self._kept: list[McpSession] = [main] if main is not None else []  # the main session and its replacements
        self._spare: McpSession | None = None  # a fresh stdio server started ahead, booting while checks run
        self._closing: list[threading.Thread] = []  # sessions on their way out
        # Of fresh sessions (the spare's from its start) and of servers replaced, in the order they came:
        # with the main session's first, every recording of the audit (ComplianceContext.recordings).
        self.recordings: list[Recording] = []

    def __enter__(self) -> SessionPool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # --- the session factory (a test replaces it: a transcript's sessions have no process) ---------
    def open_fresh(self) -> McpSession:
        """A new process (stdio) or a new session with the running HTTP server, not yet initialized."""
        return open_session(self.server, self.timeout_s, start_process=False)

    def open_replacement(self) -> McpSession:
        """A server started anew (stdio or HTTP) for the one that died or hung, not yet initialized."""
        return open_session(self.server, self.timeout_s)

    # --- the spare ----------------------------------------------------------------------------------
    @property
    def spare(self) -> McpSession | None:
        """The fresh stdio session started ahead, until it is handed out."""
        return self._spare

    def start_spare(self) -> None:
        """Start the process of the next fresh stdio session now, so its start-up overlaps other work."""
        if self.server.transport == "stdio" and self._spare is None:
            self._spare = self._opened(self.open_fresh())

    def close_spare(self) -> None:
        """Stop the spare if nothing took it (in the background, as fresh sessions are)."""
        if self._spare is not None:
            self.close_in_background(self._spare)
            self._spare = None

    # --- handing sessions out -----------------------------------------------------------------------
    @contextlib.contextmanager
    def fresh(self, recorded: bool = True) -> Iterator[McpSession]:
        """The spare or a new fresh session, closed in the background afterwards. Without `recorded` its
        recording is left out of `recordings`."""
        session, self._spare = self._spare or self._opened(self.open_fresh()), None
        if not recorded:
            self.recordings.remove(session.transport.recording)
        try:
            yield session
        finally:
            self.close_in_background(session)

    def replace(self, session: McpSession) -> McpSession:
        """A server for the one in `session`, which died or hung: the spare, which has booted already, else
        one started now; kept (closed on exit). The spare's recording becomes the main one, `session`'s is
        one of the others now."""
        self.recordings.append(session.transport.recording)
        spare, self._spare = self._spare, None
        if spare is not None:
            self.recordings.remove(spare.transport.recording)
        replacement = spare or self.open_replacement()
        self._kept.append(replacement)
        return replacement

    def _opened(self, session: McpSession) -> McpSession:
        self.recordings.append(session.transport.recording)
        return session

    # --- closing --------------------------------------------------------------------------------------
    def close_in_background(self, session: McpSession) -> None:
        """Stop a server nothing talks to any more while the audit goes on; `close` waits for it."""
        if session in self._kept:
            self._kept.remove(session)
        self._closing.append(session.close_in_background())

    def close(self) -> None:
        """Close every session at once (rather than one exit grace after another) and wait until all have."""
        self.close_spare()
        for session in self._kept:
            self._closing.append(session.close_in_background())
        self._kept.clear()
        for closing in self._closing:
            closing.join()
        self._closing.clear()
