"""One root error type; each subclass carries a message that tells the user what to do."""


class HookconfError(Exception):
    """Base of every error hookconf reports to the user instead of a traceback."""

    exit_code = 1


class ConfigError(HookconfError):
    """The config file is missing, unreadable or invalid."""

    exit_code = 2


class ServerStartError(HookconfError):
    """The audited server could not be started, or exited before it answered."""


class TransportClosedError(HookconfError):
    """The connection to the server is gone (the process exited or the HTTP endpoint vanished)."""


class RequestTimeoutError(HookconfError):
    """No answer arrived within the request timeout."""


class NoUsableAnswerError(RequestTimeoutError):
    """The request will get no usable answer, and that is known at once: the answer could not be read, or the
    HTTP endpoint refused the request. Whoever handles a timeout handles this too; the message names the cause."""


class ConnectionFailedError(TransportClosedError):
    """The HTTP endpoint cannot be reached: connection refused, DNS failure, TLS error."""
