"""The 2026-07-28 era: detection, pinning, the stateless session, and its catalog against real fixture processes."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest

from hookconf import COMPLIANCE_SUITE, HOOK_SUITES, era
from hookconf.checks.compliance import CHECKS
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.engine.compliance import ComplianceOptions
from hookconf.era import connect
from hookconf.errors import ConfigError, ServerStartError, TransportClosedError
from hookconf.report.model import Report
from hookconf.session import McpSession, open_session
from tests.support import http_server, stdio_server

MODERN = "stateless_server.py"  # hand-written, 2026-07-28 only
DUAL = "good_server.py"  # the mcp SDK 2.x: serves server/discover and initialize
LEGACY = "compliance_server.py"  # hand-written, handshake era only
SEED_CATALOG = Path(__file__).parent / "fixtures" / "seed_catalog_2026_07_28.txt"

# defects that can share one fixture process; each must make its checks fail
STDIO_DEFECTS = {
    "bad-versions": ["lifecycle-discover-versions"],
    "no-discover-caching": ["lifecycle-discover-caching"],
    "meta-optional": ["lifecycle-meta-required"],
    "version-optional": ["lifecycle-meta-protocol-version-required"],
    "capabilities-optional": ["lifecycle-meta-client-capabilities-required"],
    "unsupported-version-32602": ["lifecycle-version-unsupported"],
    "serve-ping": ["lifecycle-removed-methods"],
    "declared-prompts-missing": ["lifecycle-capability-handlers-match"],
    "listen-no-ack": ["lifecycle-subscriptions-listen"],
    "unsolicited-logs": ["lifecycle-log-level-gating", "lifecycle-logging-capability"],  # no logging capability
    "no-list-caching": [
        "tools-list-caching",
        "resources-list-caching",
        "resources-read-caching",
        "resources-templates-caching",
    ],
    "input-required-list": ["schema-no-input-required-on-lists"],
    "resource-not-found-32002": ["resources-not-found", "error-retired-codes"],
    "server-request": ["transport-no-server-requests"],
    "shuffled-tools": ["tools-list-deterministic-order"],
}
# defects that break what the ones above rely on: a run of their own each
SOLO_DEFECTS = {
    "client-info-required": ["lifecycle-meta-client-info-optional"],
    "no-result-type": ["schema-result-type"],
    "bad-input-required": ["schema-input-required-shape"],
    "crash-on-cancel": ["stdio-cancellation"],
}
HTTP_DEFECTS = {
    "http-no-version-check": ["transport-header-version-required", "transport-header-version-mismatch"],
    "http-no-method-check": ["transport-header-method-required", "transport-header-method-mismatch"],
    "http-no-name-check": ["transport-header-name-mismatch"],
    "http-get-sse": ["transport-get-removed"],
    "http-delete-200": ["transport-delete-removed"],
    "http-session-404": ["transport-session-ignored"],
}


def server_for(transport: str, script: str, *args: str) -> dict[str, Any]:
    if transport == "stdio":
        return stdio_server(script, *args)
    server = http_server(script)
    server["args"] = [*server["args"], *args]
    return server


def audit(
    server: dict[str, Any], spec: str = "auto", suites: tuple[str, ...] = (COMPLIANCE_SUITE,), **options: Any
) -> Report:
    config = parse_config({"server": server, "suites": list(suites), "timeoutMs": 5000, "specVersion": spec})
    return run_audit(config, RunOptions(suites=suites, compliance=ComplianceOptions(**options)))


def statuses(report: Report) -> dict[str, str]:
    return {r.id: r.status for r in report.results if r.id}


def failures(report: Report, expected: list[str]) -> dict[str, tuple[str, str]]:
    """The expected checks that did not fail, with their verdicts."""
    by_id = {r.id: (r.status, r.details) for r in report.results if r.id}
    return {check: by_id.get(check, ("missing", "")) for check in expected if by_id.get(check, ("",))[0] != "fail"}


# --- the correct stateless fixture -------------------------------------------------------------------
@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_correct_modern_server_gets_no_false_verdicts(transport: str) -> None:
    report = audit(server_for(transport, MODERN), suites=(*HOOK_SUITES, COMPLIANCE_SUITE))
    wrong = {r.id: r.details for r in report.results if r.id and r.status in ("fail", "warn", "indeterminate")}
    assert wrong == {}
    assert (report.era, report.spec_version, report.server.protocol_version) == (
        "stateless",
        "2026-07-28",
        "2026-07-28",
    )
    assert report.detection == "server/discover answered with supportedVersions [2026-07-28]"
    assert report.grade == "A"
    assert report.server.server_info == {"name": "stateless-fixture", "version": "1.0"}
    assert report.warnings == []
    hook = [r for r in report.results if r.suite in HOOK_SUITES and r.tool == "echo"]
    assert {r.status for r in hook} <= {"pass", "indeterminate"}
    assert len(hook) == len(HOOK_SUITES)
    assert statuses(report)["schema-wire-valid"] == "pass"
    assert statuses(report)["lifecycle-dual-era"] == "pass"


def test_handshake_only_checks_skip_in_the_modern_era() -> None:
    report = audit(server_for("stdio", MODERN), only=["lifecycle"])
    status, details = next((r.status, r.details) for r in report.results if r.id == "lifecycle-ping")
    assert status == "skip"
    assert "this run grades 2026-07-28" in details


# --- broken stateless fixtures -----------------------------------------------------------------------
def test_modern_defects_fail_their_checks() -> None:
    args = [arg for name in STDIO_DEFECTS for arg in ("--defect", name)]
    report = audit(server_for("stdio", MODERN, *args))
    assert failures(report, [c for checks in STDIO_DEFECTS.values() for c in checks]) == {}


@pytest.mark.parametrize(("defect", "checks"), list(SOLO_DEFECTS.items()))
def test_modern_solo_defects_fail_their_checks(defect: str, checks: list[str]) -> None:
    assert failures(audit(server_for("stdio", MODERN, "--defect", defect)), checks) == {}


@pytest.mark.http
def test_modern_http_defects_fail_their_checks() -> None:
    args = [arg for name in HTTP_DEFECTS for arg in ("--defect", name)]
    report = audit(server_for("http", MODERN, *args), only=["transport"])
    assert failures(report, [c for checks in HTTP_DEFECTS.values() for c in checks]) == {}


@pytest.mark.http
def test_case_sensitive_headers_fail() -> None:
    report = audit(server_for("http", MODERN, "--defect", "http-case-sensitive-headers"), only=["transport"])
    assert failures(report, ["transport-header-case-insensitive"]) == {}


@pytest.mark.http
def test_a_listen_stream_of_keepalives_alone_fails_within_the_timeout() -> None:
    server = server_for("http", MODERN, "--defect", "http-listen-keepalive-only")
    audited: list[Report] = []
    worker = threading.Thread(
        target=lambda: audited.append(audit(server, only=["lifecycle-subscriptions-listen"])), daemon=True
    )
    worker.start()
    worker.join(timeout=30)  # the check waits at most its 5 s timeout, keep-alives or not
    assert not worker.is_alive(), "the audit is still waiting on the keep-alive stream"
    assert failures(audited[0], ["lifecycle-subscriptions-listen"]) == {}


@pytest.mark.http
def test_a_bodiless_4xx_to_listen_is_a_rejection() -> None:
    report = audit(
        server_for("http", MODERN, "--defect", "http-listen-reject-bodiless"), only=["lifecycle-subscriptions-listen"]
    )
    status, details = next((r.status, r.details) for r in report.results if r.id == "lifecycle-subscriptions-listen")
    assert (status, details) == ("pass", "not supported: rejected (HTTP 400, no answer)")


@pytest.mark.parametrize(
    ("transport", "expected"), [("stdio", "pass"), pytest.param("http", "fail", marks=pytest.mark.http)]
)
def test_only_the_acknowledgement_or_the_answer_opens_the_listen_stream(transport: str, expected: str) -> None:
    """On stdio any notification may come between the request and its acknowledgement; on the HTTP listen
    stream the first message is the stream's own."""
    report = audit(
        server_for(transport, MODERN, "--defect", "listen-notice-first"), only=["lifecycle-subscriptions-listen"]
    )
    assert statuses(report) == {"lifecycle-subscriptions-listen": expected}


def test_a_hung_server_is_named_by_the_liveness_request_actually_sent() -> None:
    report = audit(server_for("stdio", MODERN, "--defect", "hang-on-unknown-resource"), only=["resources-not-found"])
    status, details = next((r.status, r.details) for r in report.results if r.id == "resources-not-found")
    assert status == "fail"
    assert details.endswith(
        "the server hung under this check: a request timed out and a server/discover got no answer either"
    )


@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_a_tool_with_a_non_ascii_name_is_called(transport: str) -> None:
    report = audit(server_for(transport, MODERN, "--defect", "non-ascii-tool-name"), only=["tools-call"])
    assert [(r.status, r.details) for r in report.results if r.id == "tools-call"] == [
        ("pass", "écho returned 1 content item(s)")
    ]


def test_a_server_that_rejects_everything_is_not_credited_for_rejections() -> None:
    report = audit(server_for("stdio", MODERN, "--defect", "no-discover"), spec="2026-07-28")
    for check in (
        "lifecycle-discover",
        "lifecycle-meta-required",
        "lifecycle-meta-protocol-version-required",
        "lifecycle-meta-client-capabilities-required",
        "lifecycle-version-unsupported",
    ):
        status, details = next((r.status, r.details) for r in report.results if r.id == check)
        assert status == "fail", (check, details)
    assert "not evaluable" in next(r.details for r in report.results if r.id == "lifecycle-meta-required")


# --- detection and pinning ---------------------------------------------------------------------------
@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_a_handshake_era_server_is_detected_as_such(transport: str) -> None:
    report = audit(server_for(transport, LEGACY), only=["lifecycle-init"])
    assert (report.era, report.spec_version) == ("handshake", "2025-11-25")
    assert report.detection is not None
    assert report.detection.endswith(", legacy")
    assert statuses(report) == {"lifecycle-init": "pass"}


@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_dual_era_server_is_graded_modern_with_a_warning(transport: str) -> None:
    report = audit(server_for(transport, DUAL), only=["lifecycle-dual-era", "lifecycle-discover"])
    assert (report.era, report.spec_version) == ("stateless", "2026-07-28")
    assert statuses(report) == {"lifecycle-dual-era": "pass", "lifecycle-discover": "pass"}
    assert len(report.warnings) == 1
    assert "dual-era" in report.warnings[0]
    assert "--spec-version 2025-11-25" in report.warnings[0]


@pytest.mark.http
def test_an_http_probe_that_times_out_is_sent_once_more() -> None:
    server = server_for("http", MODERN, "--defect", "http-slow-first-discover")
    config = parse_config({"server": server, "suites": [COMPLIANCE_SUITE], "timeoutMs": 2000})
    report = run_audit(
        config, RunOptions(suites=(COMPLIANCE_SUITE,), compliance=ComplianceOptions(only=["lifecycle-discover"]))
    )
    assert (report.era, report.detection) == (
        "stateless",
        "server/discover answered with supportedVersions [2026-07-28]",
    )
    assert statuses(report) == {"lifecycle-discover": "pass"}


@pytest.mark.http
def test_the_setup_discover_is_sent_once_more_after_a_429() -> None:
    report = audit(
        server_for("http", MODERN, "--defect", "http-429-second-discover"),
        only=["lifecycle-discover", "transport-post", "lifecycle-meta-required"],
    )
    assert report.era == "stateless"
    assert statuses(report) == {
        "lifecycle-discover": "pass",
        "transport-post": "pass",
        "lifecycle-meta-required": "pass",
    }


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-11-25"])
def test_pinning_a_handshake_revision_offers_exactly_it(revision: str) -> None:
    report = audit(server_for("stdio", DUAL), spec=revision, only=["lifecycle-init", "lifecycle-proto-version"])
    assert (report.era, report.spec_version, report.detection) == (
        "handshake",
        revision,
        f"pinned with --spec-version {revision}",
    )
    assert set(statuses(report).values()) == {"pass"}


def test_pinning_the_stateless_revision_grades_a_handshake_era_server_as_not_evaluable() -> None:
    report = audit(
        server_for("stdio", LEGACY),
        spec="2026-07-28",
        only=["lifecycle-discover", "lifecycle-meta-required", "lifecycle-dual-era"],
    )
    assert report.spec_version == "2026-07-28"
    assert statuses(report)["lifecycle-discover"] == "fail"
    assert "not evaluable" in next(r.details for r in report.results if r.id == "lifecycle-meta-required")
    assert any("does not speak 2026-07-28" in w for w in report.warnings)
    # the hook suites had no tools: the report says so in a field of its own
    assert report.listing_error == "tools/list failed: JSON-RPC error -32600: not initialized: send initialize first"
    assert report.tools == []


def test_a_handshake_era_server_that_exits_on_the_probe_is_restarted_and_graded_in_its_era() -> None:
    report = audit(server_for("stdio", LEGACY, "--exit-on-discover"), only=["lifecycle-init", "lifecycle-ping"])
    assert (report.era, report.spec_version) == ("handshake", "2025-11-25")
    assert set(statuses(report).values()) == {"pass"}
    assert len(report.warnings) == 1
    assert re.search(r"exited with code 3 .*fatal: unknown method server/discover", report.warnings[0])
    assert "graded as 2025-11-25" in report.warnings[0]


def test_a_fresh_instance_that_refuses_initialize_is_not_said_to_exit() -> None:
    config = parse_config({"server": server_for("stdio", MODERN, "--defect", "exit-on-discover")})
    with pytest.raises(ServerStartError) as raised:
        connect(config.server, 5.0)
    assert str(raised.value).startswith("server refused initialize: JSON-RPC error -32601")


def test_the_fresh_instance_is_closed_whatever_its_initialize_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[McpSession] = []

    def recorded(*args: Any, **kwargs: Any) -> McpSession:
        opened.append(open_session(*args, **kwargs))
        return opened[-1]

    def lost(self: McpSession, offer: str = "") -> None:
        raise TransportClosedError("connection lost")

    monkeypatch.setattr(era, "open_session", recorded)
    monkeypatch.setattr(McpSession, "initialize", lost)
    config = parse_config({"server": server_for("stdio", MODERN, "--defect", "exit-on-discover")})
    with pytest.raises(TransportClosedError):
        connect(config.server, 5.0)
    assert len(opened) == 2
    assert [session.transport.closed_reason is not None for session in opened] == [True, True]


def test_spec_version_in_the_config_is_validated() -> None:
    with pytest.raises(ConfigError, match=r"specVersion: unknown MCP revision '2026-01-01' .*; choose one of auto"):
        parse_config({"server": {"name": "x", "command": "x"}, "specVersion": "2026-01-01"})


# --- the catalog against the seed ----------------------------------------------------------------------
def test_the_2026_catalog_keeps_the_seed_ids_categories_and_required_flags() -> None:
    seed = [
        line.split()
        for line in SEED_CATALOG.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert len(seed) == 103
    catalog = {c.id: c for c in CHECKS.values() if "2026-07-28" in c.revisions}
    found = {
        check_id: (catalog[check_id].category.value, catalog[check_id].required_for("2026-07-28"))
        for check_id, _, _ in seed
        if check_id in catalog
    }
    assert found == {check_id: (category, required == "required") for check_id, category, required in seed}
    extras = sorted(set(catalog) - {row[0] for row in seed})  # hookconf's own (mcp-lighthouse) checks
    assert all(
        catalog[e].lighthouse or not catalog[e].graded or e in LIGHTHOUSE_EXTRAS | SPEC_EXTRAS for e in extras
    ), extras


SPEC_EXTRAS = {"lifecycle-logging-capability"}  # a MUST of every revision that neither seed checks
LIGHTHOUSE_EXTRAS = {
    "tools-name-format",
    "error-response-format",
    "tools-call-missing-args",
    "tools-unique-names",
    "tools-list-time",
}


def test_a_discover_answered_after_the_probe_ping_still_selects_the_modern_era() -> None:
    # A server that handles requests concurrently can answer the probe's ping before a slow server/discover;
    # its refusal of the initialize that follows must not end the audit: the late answer decides.
    report = audit(
        server_for("stdio", MODERN, "--defect", "late-first-discover", "--defect", "serve-ping"),
        only=["lifecycle-discover", "tools-list"],
    )
    assert (report.era, report.spec_version) == ("stateless", "2026-07-28")
    assert statuses(report) == {"lifecycle-discover": "pass", "tools-list": "pass"}
    assert report.detection is not None
    assert "answered after" in report.detection
