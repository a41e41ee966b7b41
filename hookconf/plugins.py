"""One module, one plugin: the output formats and the fleet executors are the modules of a package, found by
listing its directory, so that naming them (the CLI's choices, `--help`) imports none of them."""

from __future__ import annotations

import pkgutil
from collections.abc import Iterable, Sequence


def module_names(path: Iterable[str], first: Sequence[str] = ()) -> list[str]:
    """The public modules in the directories `path`, without importing any: those named in `first` in its order,
    then the others by name. A name starting with `_` is private, not a plugin."""
    found = {module.name for module in pkgutil.iter_modules(path) if not module.ispkg}
    found = {name for name in found if not name.startswith("_")}
    return [name for name in first if name in found] + sorted(found - set(first))
