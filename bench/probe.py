"""Send one chosen request to an MCP server and print every line it answers, raw, with timestamps.

The instrument behind bench/ledger.toml: a FAIL or WARN of hookconf is judged by what the server
really says to a single request, with no client library between the two. The server is spawned
fresh (stdio) or reached by URL (streamable HTTP); optionally the handshake goes first
(`initialize` + `notifications/initialized`, or the 2026-07-28 `server/discover` with `_meta`);
then the one request, then every line on stdout and stderr until the answer has come and the server
has been quiet for `--settle` seconds, or `--wait` seconds have passed.

    python bench/probe.py --method tools/list -- node server.js
    python bench/probe.py --handshake none --raw '{"jsonrpc":"2.0","id":1,"method":42}' -- node server.js
    python bench/probe.py --target targets/corpus.toml:tavily-mcp@0.2.22 --method tools/call \\
        --params '{"name":"tavily_search","arguments":{"query":"x"}}'
    python bench/probe.py --handshake discover --method tools/list --url http://127.0.0.1:3001/mcp

Output lines: `+0.412s > ...` (sent), `+0.530s out ...` (stdout), `+0.531s err ...` (stderr),
`+0.600s http ...` (HTTP status and headers), `+0.601s exit N`. `--target MANIFEST:SERVER@VERSION`
runs a fleet target exactly as `hookconf fleet run` would (its install from the cache, its env,
args, setup and a fresh workdir), so a ledger entry's command is short and reproducible.
"""

from __future__ import annotations

import argparse
import json
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2 as httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hookconf.wire.process import clean_environment  # noqa: E402

if TYPE_CHECKING:
    from hookconf.config import ServerConfig
    from hookconf.fleet.manifest import Target

META = "io.modelcontextprotocol/"
HANDSHAKE_VERSION = "2025-11-25"
STATELESS_VERSION = "2026-07-28"
CLIENT_INFO = {"name": "hookconf-probe", "version": "0"}
PROBE_ID = 9001  # the chosen request's id, unless --raw or --id says otherwise


@dataclass(frozen=True)
class ServerSpec:
    command: list[str]
    env: dict[str, str]
    cwd: Path | None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


class Clock:
    def __init__(self, cut: int = 0) -> None:
        self._start = time.monotonic()
        self._cut = cut

    def stamp(self, channel: str, text: str) -> None:
        if self._cut and len(text) > self._cut:
            text = f"{text[: self._cut]}... ({len(text)} chars)"
        print(f"+{time.monotonic() - self._start:6.3f}s {channel} {text}", flush=True)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="probe.py",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Give the server as COMMAND after --, or --url, or --target.",
    )
    where = parser.add_argument_group("server")
    where.add_argument(
        "--target",
        metavar="MANIFEST:SERVER@VERSION",
        help="a fleet target, run as `hookconf fleet run` runs it (installs it when not cached)",
    )
    where.add_argument("--url", help="a streamable HTTP endpoint instead of a command")
    where.add_argument(
        "-H", "--header", action="append", default=[], metavar="NAME: VALUE", help="an HTTP header; repeat for several"
    )
    where.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an environment variable for the server (it gets a clean environment otherwise)",
    )
    where.add_argument("--cwd", type=Path, help="the server's working directory (default: a fresh temporary one)")
    what = parser.add_argument_group("request")
    what.add_argument(
        "--handshake",
        choices=("initialize", "discover", "none"),
        default="initialize",
        help="what goes before the request (default: initialize + notifications/initialized)",
    )
    what.add_argument(
        "--protocol-version",
        help=f"offered in the handshake (default {HANDSHAKE_VERSION}, {STATELESS_VERSION} for discover)",
    )
    what.add_argument("--method", help="the request's method")
    what.add_argument("--params", default=None, help="the request's params, JSON (default {})")
    what.add_argument("--id", default=None, help=f"the request's id, JSON (default {PROBE_ID}; 'none': a notification)")
    what.add_argument(
        "--meta",
        action="store_true",
        help="add the 2026-07-28 _meta envelope to the request's params (automatic with discover)",
    )
    what.add_argument(
        "--raw",
        action="append",
        default=[],
        metavar="LINE",
        help="send this line verbatim instead of --method; repeat to send several",
    )
    timing = parser.add_argument_group("timing")
    timing.add_argument("--wait", type=float, default=8.0, help="stop after this many seconds (default 8)")
    parser.add_argument(
        "--cut",
        type=int,
        default=0,
        metavar="N",
        help="print at most N characters of each line (default: all), for ledger evidence",
    )
    timing.add_argument(
        "--settle",
        type=float,
        default=1.0,
        help="once the answer came (or for --raw, from the last line sent), stop after this many "
        "quiet seconds (default 1)",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the server's command line, after --")
    args = parser.parse_args(argv)
    if args.command and args.command[0] == "--":
        args.command = args.command[1:]
    if sum(bool(x) for x in (args.target, args.url, args.command)) != 1:
        parser.error("give exactly one of: COMMAND after --, --url, --target")
    if not args.method and not args.raw:
        parser.error("give --method or --raw")
    return args


def meta(version: str) -> dict[str, Any]:
    return {f"{META}protocolVersion": version, f"{META}clientCapabilities": {}, f"{META}clientInfo": CLIENT_INFO}


def handshake_messages(kind: str, version: str | None) -> list[dict[str, Any]]:
    if kind == "initialize":
        return [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": version or HANDSHAKE_VERSION,
                    "capabilities": {},
                    "clientInfo": CLIENT_INFO,
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ]
    if kind == "discover":
        return [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "server/discover",
                "params": {"_meta": meta(version or STATELESS_VERSION)},
            }
        ]
    return []


def probe_lines(args: argparse.Namespace) -> tuple[list[str], Any]:
    """The lines to send after the handshake, and the id whose answer ends the wait (None: wait for quiet)."""
    if args.raw:
        return list(args.raw), None
    params: dict[str, Any] = json.loads(args.params) if args.params else {}
    if args.meta or args.handshake == "discover":
        version = args.protocol_version or STATELESS_VERSION
        params = {**params, "_meta": {**meta(version), **params.get("_meta", {})}}
    request_id = PROBE_ID if args.id is None else (None if args.id == "none" else json.loads(args.id))
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": args.method, "params": params}
    if request_id is not None:
        message["id"] = request_id
    return [json.dumps(message, separators=(",", ":"))], request_id


def answer_id(line: str) -> Any:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message.get("id") if isinstance(message, dict) and ("result" in message or "error" in message) else None


# ------------------------------------------------------------------------------------------- stdio


def run_stdio(
    spec: ServerSpec, handshake: list[dict[str, Any]], lines: list[str], wanted: Any, args: argparse.Namespace
) -> int:
    clock = Clock(args.cut)
    clock.stamp("$", " ".join(spec.command))
    process = subprocess.Popen(
        spec.command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=spec.env,
        cwd=spec.cwd,
        start_new_session=True,
    )
    received: queue.Queue[tuple[str, str]] = queue.Queue()
    for channel, stream in (("out", process.stdout), ("err", process.stderr)):
        threading.Thread(target=_pump, args=(channel, stream, received), daemon=True).start()
    deadline = time.monotonic() + args.wait
    try:
        for message in handshake:
            _send(process, json.dumps(message, separators=(",", ":")), clock)
            if "id" in message and not _await(received, clock, deadline, message["id"], settle=None):
                clock.stamp("#", "no answer to the handshake")
                return 1
        for line in lines:
            _send(process, line, clock)
        _await(received, clock, deadline, wanted, settle=args.settle)
    finally:
        _stop(process, received, clock)
    return 0


def _pump(channel: str, stream: Any, received: queue.Queue[tuple[str, str]]) -> None:
    for raw in iter(stream.readline, b""):
        received.put((channel, raw.decode("utf-8", "replace").rstrip("\r\n")))
    received.put((channel, ""))  # end of stream marker: an empty string never comes from readline


def _send(process: subprocess.Popen[bytes], line: str, clock: Clock) -> None:
    assert process.stdin is not None
    clock.stamp(">", line)
    try:
        process.stdin.write(line.encode() + b"\n")
        process.stdin.flush()
    except BrokenPipeError:
        clock.stamp("#", "stdin closed by the server")


def _await(
    received: queue.Queue[tuple[str, str]], clock: Clock, deadline: float, wanted: Any, settle: float | None
) -> bool:
    """Print lines until the answer to `wanted` came (then `settle` quiet seconds), or the deadline."""
    answered = wanted is None
    quiet_until = time.monotonic() + settle if answered and settle is not None else None
    closed: set[str] = set()
    while True:
        now = time.monotonic()
        limit = deadline if quiet_until is None else min(deadline, quiet_until)
        if now >= limit or len(closed) == 2:
            return answered
        try:
            channel, text = received.get(timeout=limit - now)
        except queue.Empty:
            continue
        if text == "":
            closed.add(channel)
            continue
        clock.stamp(channel, text)
        if not answered and channel == "out" and answer_id(text) == wanted:
            answered = True
            if settle is None:
                return True
        if answered and settle is not None:
            quiet_until = time.monotonic() + settle


def _stop(process: subprocess.Popen[bytes], received: queue.Queue[tuple[str, str]], clock: Clock) -> None:
    if process.stdin is not None:
        with suppress(BrokenPipeError):
            process.stdin.close()
    try:
        code = process.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            code = process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
    while not received.empty():
        channel, text = received.get()
        if text:
            clock.stamp(channel, text)
    clock.stamp("exit", str(code))


# -------------------------------------------------------------------------------------------- HTTP


def run_http(spec: ServerSpec, handshake: list[dict[str, Any]], lines: list[str], args: argparse.Namespace) -> int:
    assert spec.url is not None
    clock = Clock(args.cut)
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **spec.headers}
    with httpx.Client(timeout=args.wait) as client:
        for message in handshake:
            response = _post(client, spec.url, json.dumps(message, separators=(",", ":")), headers, clock)
            session = response.headers.get("mcp-session-id") if response is not None else None
            if session:
                headers["Mcp-Session-Id"] = session
            if message.get("method") == "initialize" and response is not None:
                version = args.protocol_version or HANDSHAKE_VERSION
                headers["MCP-Protocol-Version"] = version
        for line in lines:
            _post(client, spec.url, line, headers, clock)
    return 0


def _post(client: httpx.Client, url: str, body: str, headers: dict[str, str], clock: Clock) -> httpx.Response | None:
    clock.stamp(">", f"POST {url} {body}")
    try:
        with client.stream("POST", url, content=body, headers=headers) as response:
            clock.stamp("http", f"{response.status_code} {dict(response.headers)}")
            for text in response.iter_lines():
                if text:
                    clock.stamp("out", text)
            return response
    except httpx.HTTPError as exc:
        clock.stamp("#", f"{type(exc).__name__}: {exc}")
        return None


# ----------------------------------------------------------------------------------------- targets


@contextmanager
def server_spec(args: argparse.Namespace) -> Iterator[ServerSpec]:
    env = dict(item.split("=", 1) for item in args.env)
    headers = {name.strip(): value.strip() for name, value in (h.split(":", 1) for h in args.header)}
    if args.target:
        with target_spec(args.target) as spec:
            yield ServerSpec(
                spec.command, {**spec.env, **env}, args.cwd or spec.cwd, spec.url, {**spec.headers, **headers}
            )
        return
    workdir = Path(tempfile.mkdtemp(prefix="probe-")) if args.cwd is None else None
    try:
        yield ServerSpec(list(args.command), clean_environment(env), args.cwd or workdir, args.url, headers)
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)


@contextmanager
def target_spec(reference: str) -> Iterator[ServerSpec]:
    """A fleet target's command line, env and workdir, set up as `hookconf fleet run` sets them up."""
    with prepared_target(find_target(reference)) as (config, workdir):
        yield ServerSpec(
            [config.command, *config.args] if config.command else [],
            clean_environment(dict(config.env)),
            Path(config.cwd) if config.cwd else workdir,
            config.url,
            dict(config.headers),
        )


def find_target(reference: str) -> Target:
    """MANIFEST:SERVER@VERSION (or MANIFEST:SERVER, its last version) as a fleet target."""
    from hookconf.fleet.manifest import load_targets

    manifest, _, server_version = reference.rpartition(":")
    server, _, version = server_version.partition("@")
    targets = load_targets([Path(manifest)], [server], version or None)
    if not targets:
        raise SystemExit(f"probe.py: no target {server_version} in {manifest}")
    return targets[-1]


@contextmanager
def prepared_target(target: Target, *, sandboxed: bool = True) -> Iterator[tuple[ServerConfig, Path]]:
    """The target's server config and a fresh workdir, as `hookconf fleet run` prepares them: installed
    (from the cache when it is there), placeholders filled, setup run in the workdir. `sandboxed`: inside
    an audit sandbox of its own (its HOME and TMPDIR in the config's env, setup run there too), as in a fleet
    run; without it, the config as a user would give it to `hookconf check`, which makes its own sandbox.
    Raises InstallError or SetupError from hookconf.fleet.errors."""
    from hookconf.fleet.install import INSTALLERS
    from hookconf.fleet.worker import audit_config, placeholder_values, run_setup
    from hookconf.wire.sandbox import audit_sandbox

    installer = INSTALLERS.get(target.source)
    installed = installer.ensure(target, ROOT / ".hookconf-cache") if installer else None
    workdir = Path(tempfile.mkdtemp(prefix="probe-"))
    try:
        values = placeholder_values(target, workdir, installed)
        config = audit_config(target, values, installed).server
        if not sandboxed:
            run_setup(target, values, workdir)
            yield config, workdir
            return
        with audit_sandbox(config) as sandbox:  # its own HOME and TMPDIR, as in a fleet run
            run_setup(target, values, workdir, sandbox.environment() if sandbox else None)
            yield (sandbox.applied_to_server(config) if sandbox else config), workdir
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    handshake = handshake_messages(args.handshake, args.protocol_version)
    lines, wanted = probe_lines(args)
    with server_spec(args) as spec:
        if spec.url and not spec.command:
            return run_http(spec, handshake, lines, args)
        return run_stdio(spec, handshake, lines, wanted, args)


if __name__ == "__main__":
    sys.exit(main())
