"""The wordings of a backend out of reach that servers write in words rather than as a transport error code, and
the tools' own input errors that must never be taken for one."""

from __future__ import annotations

import pytest

from hookconf.checks.backend import unreachable_backend
from hookconf.checks.compliance.answers import backend_failure

ARXIV_OFFLINE = (
    '{"status": "error", "message": "Could not connect to arXiv after 3 attempts. Please check your '
    'network connection and retry shortly."}'
)


@pytest.mark.parametrize(
    "text",
    [
        ARXIV_OFFLINE,  # arxiv-mcp-server 0.8.2, search_papers offline
        "Could not connect to the database server at db.internal:5432",
        "curl: (7) Couldn't connect to server",
        "Couldn\u2019t connect to the search service",
        "Unable to connect to the remote server",
        "Failed to connect to api.github.com port 443 after 3 ms",
        "The request did not complete. Please check your internet connection and try again.",
        "Search is unavailable: no internet connection",
        "AxiosError: Network Error",
        "🌐 Network Error: fetch failed. Check if the SEARXNG_URL is correct",
        "Request to the search index failed: Host is unreachable",
        "lookup failed: EAI_NONAME api.example.com",
        "socket.gaierror: [Errno -5] No address associated with hostname",
    ],
)
def test_a_backend_out_of_reach_in_words_is_recognised(text: str) -> None:
    assert unreachable_backend(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        '{"status": "error", "message": "invalid arXiv ID format"}',  # arxiv-mcp-server, the same audit
        "Paper hookconf not found in storage. You may need to download it first using download_paper",
        'URL Format Error: Invalid URL "hookconf"',  # mcp-searxng
        "MCP error -32602: Tool 'firecrawl_scrape' parameter validation failed: root: Provide exactly one of url or "
        "alexandria. Please check the parameter types and values according to the tool's schema.",
        "Please check your input and try again",
        "The connection string is invalid: missing host",
        "No connection named 'hookconf' is configured",
        "Network 'hookconf' not found",
        "Could not connect node hookconf: it has no edges",
        "Network error rate over the last hour: 0.2 %",  # a monitoring tool's output, not its failure
    ],
)
def test_a_tools_own_input_error_names_no_backend(text: str) -> None:
    assert unreachable_backend(text) is None


def test_the_arxiv_answer_is_a_backend_failure_as_the_checks_read_it() -> None:
    answer = {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"isError": True, "content": [{"type": "text", "text": ARXIV_OFFLINE}]},
    }
    assert backend_failure(answer) == f"isError: {ARXIV_OFFLINE}"
