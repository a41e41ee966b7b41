"""Fleet errors, each under hookconf's root error so the CLI prints them without a traceback."""

from hookconf.errors import ConfigError, HookconfError


class ManifestError(ConfigError):
    """A fleet manifest is missing, not TOML, or has a field with a wrong value (exit 2)."""


class InstallError(HookconfError):
    """A server version could not be installed; recorded as that target's result."""


class SetupError(HookconfError):
    """A manifest `setup` command failed before the audit; recorded as that target's result."""


class StoreError(HookconfError):
    """The SQLite store is missing, unreadable or was written by a newer hookconf."""


class FleetInterruptedError(HookconfError):
    """Ctrl-C during a fleet run: what finished is stored, the rest runs next time."""

    exit_code = 130


class DiscoverError(HookconfError):
    """`fleet discover` could not read the MCP Registry: unreachable, or an answer not shaped like its API."""


class DiscoverInputError(ConfigError):
    """`fleet discover` was given no source, an unreadable export, or an output that would overwrite (exit 2)."""
