"""The series' time cap (thresholds.seriesTimeMs): a slow tool gets the calls that fit in the cap, at least one,
and every verdict that rests on fewer calls than it asks for says how many and why."""

from __future__ import annotations

from typing import Any

import pytest

from hookconf import HOOK_SUITES
from hookconf.checks.context import series_cap_note
from hookconf.config import Thresholds, example_config, parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.errors import ConfigError
from hookconf.report.model import Report, ResultEntry
from tests.support import stdio_server

SLOW = "slow_tool"  # sleeps 0.3 s a call
FAST = "undocumented"  # answers at once
CAP_NAME = "thresholds.seriesTimeMs"


def audit(series_time_ms: float, *tools: str) -> Report:
    config = parse_config(
        {
            "server": stdio_server("broken_server.py"),
            "tries": 3,
            "timeoutMs": 5000,
            "toolFilter": list(tools),
            "thresholds": {"seriesTimeMs": series_time_ms},
        }
    )
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    return Report.model_validate_json(report.model_dump_json(by_alias=True))  # what the JSON report says


def calls(report: Report, tool: str) -> int:
    return next(t.calls for t in report.tools if t.name == tool)


def outcome(report: Report, tool: str, suite: str) -> ResultEntry:
    return next(r for r in report.results if r.tool == tool and r.suite == suite)


@pytest.fixture(scope="module")
def capped() -> Report:
    # 0.3 s a call: a second one would take the series to 0.6 s, past the 500 ms cap
    return audit(500, SLOW, FAST)


def test_a_slow_tool_is_called_once_under_a_small_cap(capped: Report) -> None:
    assert calls(capped, SLOW) == 1


def test_the_tool_entry_notes_the_cut(capped: Report) -> None:
    slow, fast = (next(t for t in capped.tools if t.name == name) for name in (SLOW, FAST))
    assert (slow.note or "").startswith("the series stopped after 1 call: it took 0.")
    assert (slow.note or "").endswith(f"another would pass {CAP_NAME} (500 ms)")
    assert fast.note is None


@pytest.mark.parametrize("suite", ["idempotency", "determinism"])
def test_one_call_leaves_the_comparing_suites_indeterminate_naming_the_cap(capped: Report, suite: str) -> None:
    entry = outcome(capped, SLOW, suite)
    assert entry.status == "indeterminate", entry.details
    details = entry.details or ""
    assert details.startswith(
        "one call alone cannot show whether identical calls agree; the series stopped after 1 call: it took 0."
    )
    assert details.endswith(f" s, and another would pass {CAP_NAME} (500 ms)")


def test_latency_passes_over_the_warm_up_and_says_so(capped: Report) -> None:
    entry = outcome(capped, SLOW, "latency")
    assert entry.status == "pass", entry.details
    details = entry.details or ""
    assert " ms over the warm-up call alone (no timed call was made; " in details
    assert details.endswith(f" s, and another would pass {CAP_NAME} (500 ms)")
    assert float(details.split("p50 ")[1].split(" ms")[0]) >= 300  # the warm-up call's own figure


def test_a_cut_series_is_not_scored_as_a_failure(capped: Report) -> None:
    tool = next(t for t in capped.tools if t.name == SLOW)
    # latency pass 100 (weight 20), dsgvo pass 100 (10); idempotency, determinism indeterminate 50 (30, 15), and
    # side-effects without a stateProbe 50 (25): a latency counted as a failure would make it 45
    assert tool.score == 65.0


def test_a_fast_tool_is_unaffected_by_the_cap(capped: Report) -> None:
    assert calls(capped, FAST) == 6
    assert outcome(capped, FAST, "idempotency").details == "3 identical calls returned the same output"
    assert (outcome(capped, FAST, "latency").details or "").endswith(" ms over 5 samples")


def test_without_a_cap_the_full_series_runs() -> None:
    report = audit(0, SLOW)
    assert calls(report, SLOW) == 6
    assert outcome(report, SLOW, "idempotency").details == "3 identical calls returned the same output"
    assert (outcome(report, SLOW, "latency").details or "").endswith(" ms over 5 samples")
    assert CAP_NAME not in (outcome(report, SLOW, "determinism").details or "")


def test_a_cap_that_fits_two_calls_judges_over_those_and_says_how_many() -> None:
    # a second call fits in 895 ms while the first took under 447 ms; a third never does (3 x 0.3 s = 0.9 s)
    report = audit(895, SLOW)
    assert calls(report, SLOW) == 2
    idempotency = outcome(report, SLOW, "idempotency")
    assert idempotency.status == "pass", idempotency.details
    assert (idempotency.details or "").startswith(
        "2 identical calls returned the same output; the series stopped after 2 calls: they took 0."
    )
    assert (outcome(report, SLOW, "determinism").details or "").startswith(
        "one shape over 2 calls, no float drift; the series stopped after 2 calls"
    )
    latency = outcome(report, SLOW, "latency")
    assert latency.status == "pass", latency.details
    assert " ms over 1 of 5 samples; the series stopped after 2 calls: " in (latency.details or "")


def test_a_warm_up_over_the_p95_budget_fails_and_names_the_cut() -> None:
    config = parse_config(
        {
            "server": stdio_server("broken_server.py"),
            "tries": 3,
            "timeoutMs": 5000,
            "toolFilter": [SLOW],
            "thresholds": {"seriesTimeMs": 500, "latencyP95Ms": 100},
        }
    )
    report = run_audit(config, RunOptions(suites=("latency",)))
    entry = outcome(report, SLOW, "latency")
    assert (entry.status, entry.code) == ("fail", "LAT-001"), entry.details
    assert "over the warm-up call alone" in (entry.details or "")
    assert "; budget p95 100 ms; the series stopped after 1 call: " in (entry.details or "")
    assert calls(report, SLOW) == 1


# --- the stopping rule ---------------------------------------------------------------------------------------


def test_a_ten_second_call_leaves_no_room_for_another_under_the_default_cap() -> None:
    assert series_cap_note([10_000.0], Thresholds.model_validate({}).series_cap_ms) == (
        "the series stopped after 1 call: it took 10.0 s, and another would pass thresholds.seriesTimeMs (15000 ms)"
    )


def test_a_two_and_a_half_second_tool_gets_all_six_calls() -> None:
    cap = Thresholds.model_validate({}).series_cap_ms
    assert all(series_cap_note([2500.0] * made, cap) is None for made in range(6))


def test_the_pace_is_the_slowest_call_so_far() -> None:
    note = series_cap_note([1000.0, 6000.0], 10_000)
    assert note == (
        "the series stopped after 2 calls: they took 7.0 s, the slowest 6.0 s, and another would pass "
        "thresholds.seriesTimeMs (10000 ms)"
    )
    assert series_cap_note([1000.0, 2000.0], 10_000) is None


def test_the_first_call_is_always_made_and_zero_means_no_cap() -> None:
    assert series_cap_note([], 1) is None
    assert series_cap_note([60_000.0] * 5, Thresholds.model_validate({"seriesTimeMs": 0}).series_cap_ms) is None


# --- the config ------------------------------------------------------------------------------------------------


def test_the_cap_defaults_to_fifteen_seconds_and_init_writes_it() -> None:
    assert Thresholds.model_validate({}).series_time_ms == 15000
    written: dict[str, Any] = example_config("my-server")
    assert written["thresholds"]["seriesTimeMs"] == 15000
    assert parse_config(written).thresholds.series_time_ms == 15000


@pytest.mark.parametrize("value", [-1, "slow"])
def test_a_bad_cap_names_the_field(value: object) -> None:
    with pytest.raises(ConfigError, match=r"thresholds\.seriesTimeMs"):
        parse_config({"server": stdio_server("broken_server.py"), "thresholds": {"seriesTimeMs": value}})
