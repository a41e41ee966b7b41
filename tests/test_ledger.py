"""bench/ledger.py: reasons normalised so that a rerun matches the same ledger entry, and matching."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from ledger import Entry, Flag, flags_of, normalise, parse_ledger, parse_missed, stub, tally  # noqa: E402


def test_normalise_masks_what_changes_between_runs() -> None:
    one = normalise("79 of 106 received messages do not validate:\n- at 0.53 s, JSONRPCResultResponse: ...")
    two = normalise("81 of 110 received messages do not validate:\n- at 0.61 s, something else")
    assert one == two == "<n> of <n> received messages do not validate:"


def test_normalise_keeps_error_codes_and_revisions() -> None:
    reason = "protocolVersion 1999-01-01 got error -32601 (Method not found), expected -32022"
    assert normalise(reason) == reason


def test_normalise_masks_paths_and_timings_but_not_method_names() -> None:
    reason = "read failed in 12.5 ms at /tmp/hookconf-x-1a2b/files/a.txt after resources/templates/list"
    assert normalise(reason) == "read failed in <measure> at <path> after resources/templates/list"


def test_normalise_of_nothing_is_empty() -> None:
    assert normalise(None) == normalise("  \n ") == ""


def _flag(
    check: str = "error-parse-code",
    tool: str | None = None,
    target: str = "srv@1.0",
    reason: str = "no answer to invalid JSON; JSON-RPC requires a -32700 error",
) -> Flag:
    return Flag(target, check, tool, "fail", normalise(reason))


def test_entry_matches_by_server_glob_check_reason_glob_and_tool() -> None:
    entry = Entry(
        servers=("srv@*",), check="DSGVO-001", reason="Destructive tool*", verdict="FALSE", why="", tools=("*_search",)
    )
    hit = _flag("DSGVO-001", "web_search", reason="Destructive tool lacks deletion / retention documentation")
    assert entry.matches(hit)
    assert not entry.matches(Flag(hit.target, hit.check, "delete_record", hit.status, hit.reason))
    assert not entry.matches(Flag("other@1.0", hit.check, hit.tool, hit.status, hit.reason))
    assert not entry.matches(Flag(hit.target, "DSGVO-002", hit.tool, hit.status, hit.reason))


def test_tally_counts_verdicts_and_lists_the_unjudged() -> None:
    entries = parse_ledger(
        {
            "entry": [
                {
                    "servers": ["*"],
                    "check": "error-parse-code",
                    "reason": "no answer to invalid JSON*",
                    "verdict": "real",
                    "why": "silent",
                },
                {"server": "srv@1.0", "check": "DSGVO-001", "tools": "read_*", "verdict": "FALSE", "why": "read tool"},
            ]
        }
    )
    flags = [
        _flag(),
        _flag(target="other@2"),
        _flag("DSGVO-001", "read_a"),
        _flag("DSGVO-001", "read_b"),
        _flag("DSGVO-001", "write_c"),
    ]
    per_target, total, unjudged = tally(flags, entries)
    assert (total.verdicts, total.real, total.false, total.unjudged) == (5, 2, 2, 1)
    assert total.false_share() == "50.0 %"
    assert per_target["other@2"].real == 1
    assert [(item.check, sorted(item.tools)) for item in unjudged] == [("DSGVO-001", ["write_c"])]


def test_parse_ledger_refuses_an_unknown_verdict() -> None:
    with pytest.raises(ValueError, match="REAL or FALSE"):
        parse_ledger({"entry": [{"check": "x", "verdict": "MAYBE"}]})


def test_flags_of_takes_fail_and_warn_only() -> None:
    report = {
        "results": [
            {
                "suite": "compliance",
                "tool": "(server)",
                "status": "fail",
                "id": "error-parse-code",
                "code": None,
                "details": "no answer",
            },
            {"suite": "dsgvo", "tool": "t", "status": "warn", "id": None, "code": "DSGVO-002", "details": "x"},
            {"suite": "latency", "tool": "t", "status": "pass", "id": None, "code": None, "details": "fast"},
            {"suite": "compliance", "tool": "(server)", "status": "indeterminate", "id": "a", "details": "?"},
        ]
    }
    flags = flags_of("srv@1", report)
    assert [(flag.check, flag.tool, flag.status) for flag in flags] == [
        ("error-parse-code", None, "fail"),
        ("DSGVO-002", "t", "warn"),
    ]


def test_a_stub_is_a_ledger_entry_that_matches_its_group() -> None:
    flags = [_flag(reason="outside 20-500 characters: resolve-library-id (2006) [x]*?", check="bp-description-length")]
    _, _, unjudged = tally(flags, [])
    text = stub(unjudged[0], "targets/corpus.toml").replace('verdict = ""', 'verdict = "REAL"')
    entries = parse_ledger(tomllib.loads(text))
    assert entries[0].matches(flags[0])


def test_a_known_defect_is_caught_only_by_its_check_on_its_server_and_tool() -> None:
    [missed] = parse_missed({"missed": [{"servers": ["srv@*"], "check": "CALL-003", "tools": ["search"], "why": "x"}]})
    assert missed.caught_by(_flag("CALL-003", "search"))
    assert not missed.caught_by(_flag("CALL-003", "other_tool"))
    assert not missed.caught_by(_flag("CALL-003", "search", target="elsewhere@1"))
    assert not missed.caught_by(_flag("DSGVO-002", "search"))


def test_the_ledger_in_the_repo_is_complete() -> None:
    from ledger import DEFAULT_LEDGER, load_ledger

    entries, missed = load_ledger(DEFAULT_LEDGER)
    assert entries
    assert missed
    for entry in entries:
        assert entry.why, entry
        assert entry.probe.startswith("python bench/probe.py"), entry
        assert entry.evidence, entry
        assert entry.verdict == "REAL" or entry.cause, f"a FALSE entry names its cause: {entry.check}"
