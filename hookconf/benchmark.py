"""`hookconf benchmark`: N requests of one read-only tool (or of tools/list) at concurrency C.

The server is started (in an audit sandbox) and connected as for an audit, in the era it speaks; one request warms
it up and is not counted. Then every request is timed from send to answer: the percentiles (nearest rank) over the
requests that got an answer (an error too), the throughput over the wall time, the errors (a JSON-RPC error, a tool
result with isError, no answer within timeoutMs), and the server's peak RSS and the CPU time its process tree spent
during the requests. The times include hookconf's own side of each exchange (validating the answer).
"""

from __future__ import annotations

import contextlib
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from hookconf.errors import ConfigError

if TYPE_CHECKING:
    from hookconf.config import AuditConfig
    from hookconf.session import McpSession
    from hookconf.wire.process import ResourceFigures
    from hookconf.wire.transport import JsonObject

LIST_TOOLS = "tools/list"
MAX_REQUESTS = 100_000
MAX_CONCURRENCY = 64


@dataclass(frozen=True)
class Sample:
    ms: float
    error: str | None  # None: answered with a result
    timed_out: bool = False


@dataclass(frozen=True)
class BenchmarkResult:
    server: str
    target: str  # "tools/list" or the tool's name
    requests: int
    concurrency: int
    wall_s: float
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    throughput_per_s: float
    errors: int
    timeouts: int
    first_error: str | None
    peak_rss_bytes: int | None
    cpu_seconds: float | None  # the server's process tree, during the timed requests

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)


def run_benchmark(config: AuditConfig, tool: str | None, requests: int, concurrency: int) -> BenchmarkResult:
    """Benchmark the configured server; a ConfigError for a bad request count, concurrency or tool."""
    if not 1 <= requests <= MAX_REQUESTS:
        raise ConfigError(f"--requests must be between 1 and {MAX_REQUESTS}")
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise ConfigError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
    from hookconf.era import connect
    from hookconf.wire.sandbox import audit_sandbox

    with audit_sandbox(config.server) as sandbox:
        if sandbox is not None:
            config = sandbox.applied(config)
        connection = connect(config.server, config.timeout_ms / 1000, config.spec_version)
        with contextlib.closing(connection.session) as session:
            send = _request_maker(session, config, tool)
            send()  # warm-up, not counted
            cpu_before = _server_cpu(session)
            started = time.monotonic()
            with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="hookconf-bench") as pool:
                samples = list(pool.map(lambda _: send(), range(requests)))
            wall_s = time.monotonic() - started
            cpu_after = _server_cpu(session)
            figures = session.resource_figures()
    cpu_s = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
    return _result(
        server=config.server.name,
        target=tool or LIST_TOOLS,
        samples=samples,
        concurrency=concurrency,
        wall_s=wall_s,
        figures=figures,
        cpu_s=cpu_s,
    )


def _request_maker(session: McpSession, config: AuditConfig, tool: str | None) -> Any:
    """A function that sends one request and times it."""
    timeout_s = config.timeout_ms / 1000
    if tool is None:
        return lambda: _timed(lambda: _listing_error(session.request(LIST_TOOLS, {}, timeout_s=timeout_s)))
    definition = _callable_tool(session, config, tool)
    arguments = _arguments(config, definition)

    def call() -> Sample:
        outcome = session.call_tool(tool, arguments, timeout_s=timeout_s)
        return Sample(outcome.duration_ms, outcome.describe_failure() if outcome.failed else None, outcome.timed_out)

    return call


def _callable_tool(session: McpSession, config: AuditConfig, name: str) -> JsonObject:
    from hookconf.checks.context import is_read_only

    tools = {str(t.get("name")): t for t in session.list_tools()}
    if name not in tools:
        raise ConfigError(f"--tool {name}: the server has no such tool; it has {', '.join(sorted(tools)) or 'none'}")
    if not is_read_only(tools[name]) and name not in config.allow_destructive:
        raise ConfigError(
            f"--tool {name}: not annotated readOnlyHint: true, so it is not called; "
            "name it in the config's allowDestructive to benchmark it anyway"
        )
    return tools[name]


def _arguments(config: AuditConfig, tool: JsonObject) -> JsonObject:
    from hookconf.checks.arguments import generated_arguments

    probe = config.probe_for(str(tool.get("name")))
    if probe is not None and probe.args is not None:
        return dict(probe.args)
    return generated_arguments(tool.get("inputSchema"))[0]


def _timed(send: Any) -> Sample:
    from hookconf.errors import RequestTimeoutError, TransportClosedError

    started = time.monotonic()
    try:
        error, timed_out = send(), False
    except RequestTimeoutError:
        error, timed_out = "no answer within the timeout", True
    except TransportClosedError as exc:
        error, timed_out = str(exc), False
    return Sample((time.monotonic() - started) * 1000, error, timed_out)


def _listing_error(response: JsonObject) -> str | None:
    error = response.get("error")
    return f"JSON-RPC error {error.get('code')}: {error.get('message')}" if isinstance(error, dict) else None


def _server_cpu(session: McpSession) -> float | None:
    process = session.process
    if process is None:
        return None
    process.monitor.sample()
    return process.monitor.cpu_seconds


def _result(
    *,
    server: str,
    target: str,
    samples: list[Sample],
    concurrency: int,
    wall_s: float,
    figures: ResourceFigures | None,
    cpu_s: float | None,
) -> BenchmarkResult:
    from hookconf.checks.latency import percentile

    answered = [s.ms for s in samples if not s.timed_out]  # a result or an error: either way, an answer
    failed = [s for s in samples if s.error is not None]
    return BenchmarkResult(
        server=server,
        target=target,
        requests=len(samples),
        concurrency=concurrency,
        wall_s=round(wall_s, 3),
        p50_ms=round(percentile(answered, 0.50), 2) if answered else None,
        p95_ms=round(percentile(answered, 0.95), 2) if answered else None,
        p99_ms=round(percentile(answered, 0.99), 2) if answered else None,
        max_ms=round(max(answered), 2) if answered else None,
        throughput_per_s=round(len(samples) / wall_s, 1) if wall_s > 0 else 0.0,
        errors=len(failed),
        timeouts=sum(s.timed_out for s in failed),
        first_error=failed[0].error if failed else None,
        peak_rss_bytes=figures.peak_rss_bytes if figures is not None else None,
        cpu_seconds=round(cpu_s, 3) if cpu_s is not None else None,
    )


def render_human(result: BenchmarkResult) -> str:
    def ms(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f} ms"

    rss = "n/a" if result.peak_rss_bytes is None else f"{result.peak_rss_bytes / 1024 / 1024:.1f} MiB"
    cpu = "n/a" if result.cpu_seconds is None else f"{result.cpu_seconds:.2f} s"
    lines = [
        f"{result.server}: {result.requests} x {result.target} at concurrency {result.concurrency}",
        f"  latency    p50 {ms(result.p50_ms)}   p95 {ms(result.p95_ms)}   p99 {ms(result.p99_ms)}   "
        f"max {ms(result.max_ms)}  (answered requests)",
        f"  throughput {result.throughput_per_s:.1f} requests/s over {result.wall_s:.2f} s",
        f"  errors     {result.errors} of {result.requests} ({result.timeouts} without an answer)",
        f"  server     peak RSS {rss}, CPU {cpu} during the requests",
    ]
    if result.first_error:
        from hookconf.safe_text import safe_text

        lines.append(f"  first error: {safe_text(result.first_error)}")
    return "\n".join(lines)
