"""`hookconf benchmark`: N requests of a read-only tool or tools/list at concurrency C, against real fixture servers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.support import CliRun, http_server, stdio_server


def test_tools_list_at_concurrency_four(run_cli: Callable[..., CliRun], write_config: Callable[..., Path]) -> None:
    config = write_config(stdio_server("good_server.py"))
    run = run_cli("benchmark", str(config), "-r", "40", "-c", "4", "--output", "json")
    assert run.exit_code == 0, run.stderr
    result = run.json()
    assert (result["target"], result["requests"], result["concurrency"]) == ("tools/list", 40, 4)
    assert result["errors"] == 0
    assert 0 < result["p50_ms"] <= result["p95_ms"] <= result["p99_ms"] <= result["max_ms"]
    assert result["throughput_per_s"] > 0
    assert result["peak_rss_bytes"] > 0
    assert result["cpu_seconds"] >= 0


def test_a_read_only_tool_with_its_generated_arguments(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    config = write_config(stdio_server("good_server.py"))
    run = run_cli("benchmark", str(config), "--tool", "get_item", "-r", "20", "-c", "2", "--output", "json")
    assert run.exit_code == 0, run.stderr
    assert (run.json()["target"], run.json()["errors"]) == ("get_item", 0)


def test_errors_are_counted_and_the_first_one_shown(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    config = write_config(stdio_server("broken_server.py"))
    run = run_cli("benchmark", str(config), "--tool", "echo_error", "-r", "5")
    assert run.exit_code == 0, run.stderr
    assert "errors     5 of 5 (0 without an answer)" in run.stdout
    assert "first error: result has isError: true (Error executing tool echo_error" in run.stdout
    assert "p50 n/a" not in run.stdout  # an error is an answer: it is timed


def test_over_streamable_http(run_cli: Callable[..., CliRun], write_config: Callable[..., Path]) -> None:
    server = http_server("good_server.py")
    run = run_cli("benchmark", str(write_config(server)), "-r", "20", "-c", "3", "--output", "json")
    assert run.exit_code == 0, run.stderr
    assert run.json()["errors"] == 0


def test_a_tool_that_may_write_is_refused_and_unknown_ones_are_listed(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    config = write_config(stdio_server("good_server.py"))
    destructive = run_cli("benchmark", str(config), "--tool", "delete_item")
    assert destructive.exit_code == 2
    assert "not annotated readOnlyHint: true" in destructive.stderr
    unknown = run_cli("benchmark", str(config), "--tool", "nope")
    assert unknown.exit_code == 2
    assert "it has add_numbers, delete_item, get_item, list_items" in unknown.stderr
    bad_count = run_cli("benchmark", str(config), "-r", "0")
    assert bad_count.exit_code == 2
    assert "--requests must be between 1 and" in bad_count.stderr
