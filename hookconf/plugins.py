"""One module, one plugin: the output formats and the fleet executors are the modules of a package, found by
listing its directory, so that naming them (the CLI's choices, `--help`) imports none of them."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence


def module_names(path: Iterable[str], first: Sequence[str] = ()) -> list[str]:
    """The public modules (`name.py`) in the directories `path`, without importing any: those named in `first`
    in its order, then the others by name. A name starting with `_` is private, not a plugin."""
    # A listing of the directory, not pkgutil.iter_modules: pkgutil loads inspect, tens of milliseconds on
    # every start-up, --help included; the plugins are plain .py files.
    found: set[str] = set()
    for directory in path:
        with os.scandir(directory) as entries:
            found.update(
                entry.name.removesuffix(".py") for entry in entries if entry.name.endswith(".py") and entry.is_file()
            )
    public = {name for name in found if name.isidentifier() and not name.startswith("_")}
    return [name for name in first if name in public] + sorted(public - set(first))
