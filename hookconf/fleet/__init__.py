"""Fleets: many servers, many released versions of each, audited in isolation and compared.

The modules form a pipeline, each importing only those before it:

- `manifest`: TOML fleet manifests, validated; `versions` resolves ``latest:N`` and orders versions;
- `install`: one cached, isolated install per (package, version): a uv venv or an npm prefix;
- `outcome`: what one audit produced, as plain data;
- `worker`: one audit of one target (install, fresh workdir, setup, audit), in its own process;
- `execute`: fans targets out through a `concurrent.futures.Executor` and commits each outcome;
- `store`: the SQLite history of every audit;
- `tables` (pandas) and `render` (tabulate, matplotlib SVG, HTML): what the history says;
- `cli`: ``hookconf fleet run`` and ``hookconf fleet report``.

Two paths run through them. Auditing (`worker`, `execute`, `install`) imports the audit stack: the
runner, sessions, transports and checks. Reading (`store`, `tables`, `render`, ``fleet report``)
imports only `outcome`, `versions` and the errors, so a report never loads what audits a server
(tests/test_layers.py holds it to that). pandas and matplotlib are imported by `tables` and `render`
only, so auditing one server, and ``hookconf --help``, never pay for them.
"""
