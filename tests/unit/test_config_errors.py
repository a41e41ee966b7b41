"""A bad config is reported at once, every field at fault named, with the near miss a typo may be."""

from __future__ import annotations

import pytest

from hookconf.config import parse_config
from hookconf.errors import ConfigError


def problems(data: object) -> list[str]:
    with pytest.raises(ConfigError) as raised:
        parse_config(data)
    return [line.removeprefix("  - ") for line in str(raised.value).splitlines()[1:]]


def test_every_problem_is_reported_at_once_with_the_key_it_may_be() -> None:
    found = problems(
        {
            "server": {"name": "x", "comand": "node"},
            "tryes": 3,
            "suites": ["idempotncy", "latency"],
            "thresholds": {"latencyP95ms": 3},
            "probes": [{"name": "a", "stateprobe": {"tool": "b"}}],
            "specVersion": "2025-11-52",
        }
    )
    assert found == [
        "server.comand: unknown key (did you mean 'command'?)",
        "suites: unknown suite 'idempotncy' (did you mean 'idempotency'?); known: "
        "idempotency, side-effects, latency, determinism, dsgvo, compliance",
        "thresholds.latencyP95ms: unknown key (did you mean 'latencyP95Ms'?)",
        "probes.0.stateprobe: unknown key (did you mean 'stateProbe'?)",
        "specVersion: unknown MCP revision '2025-11-52' (did you mean '2025-11-25'?); choose one of "
        "auto, 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28",
        "tryes: unknown key (did you mean 'tries'?)",
    ]


def test_a_key_like_no_other_is_only_called_unknown() -> None:
    assert problems({"server": {"name": "x", "command": "node"}, "zzz": 1}) == ["zzz: unknown key (check its spelling)"]
