"""The dsgvo heuristic on the descriptions of real servers (the corpus, targets/corpus.toml), judged in
bench/ledger.toml: a verdict judged REAL must stay, one judged FALSE must go, a MISSED one must appear."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookconf.checks.dsgvo import describes_changes, describes_data_flow, judge_description

RECORDED = Path(__file__).parent / "fixtures" / "corpus_tool_descriptions.json"
# Each entry: a tool of a corpus server as tools/list gave it, and the ledger's judgement of the dsgvo
# verdict the corpus run (should 9fc0b68) gave it: {"check": code, "verdict": "REAL" | "FALSE" | "MISSED"}.
CORPUS_TOOLS: list[dict[str, Any]] = json.loads(RECORDED.read_text(encoding="utf-8"))


@pytest.mark.parametrize("tool", CORPUS_TOOLS, ids=lambda tool: f"{tool['server']}:{tool['name']}")
def test_corpus_verdicts_hold(tool: dict[str, Any]) -> None:
    code = judge_description(tool).code
    for judged in tool["ledger"]:
        if judged["verdict"] == "FALSE":
            assert code != judged["check"], tool["description"]
    missed = [judged["check"] for judged in tool["ledger"] if judged["verdict"] == "MISSED"]
    real = [judged["check"] for judged in tool["ledger"] if judged["verdict"] == "REAL"]
    if missed or real:  # a MISSED verdict is caught (it replaces the weaker DSGVO-002), a REAL one stays
        assert code == (missed or real)[0], tool["description"]


def test_the_recorded_corpus_has_both_kinds() -> None:
    verdicts = {(judged["check"], judged["verdict"]) for tool in CORPUS_TOOLS for judged in tool["ledger"]}
    assert {
        ("DSGVO-002", "REAL"),
        ("DSGVO-002", "FALSE"),
        ("DSGVO-001", "REAL"),
        ("DSGVO-001", "FALSE"),
        ("DSGVO-001", "MISSED"),
    } <= verdicts


@pytest.mark.parametrize(
    "description",
    [
        # a named service or API the data goes to or comes from
        "Retrieves and queries up-to-date documentation and code examples from Context7 for any programming library",
        "Searches the web using SearXNG and returns a list of results, each with a title, URL, and content snippet.",
        "Returns autocomplete suggestions from the configured SearXNG instance.",
        "Enumerate URLs indexed under one website through Firecrawl without fetching each page's content.",
        "Performs an image search using the Brave Search API.",
        "Searches Brave's Place Search API. A single call may populate any combination of 'results' (POIs)",
        # the internet, a fetched URL
        "Fetches a URL from the internet and optionally extracts its contents as markdown.",
        # a verb that keeps or hands on what it is given
        "Records schema-validated quality feedback for a prior `firecrawl_search` UUID `searchId`.",
        "Submit concise quality feedback for a completed search, scrape, parse, or map job.",
        # the keywords that were there before
        "Reads the local index; stores nothing; sends nothing over the network.",
    ],
)
def test_a_description_that_says_where_data_goes_documents_data_flow(description: str) -> None:
    assert describes_data_flow(description)


@pytest.mark.parametrize(
    "description",
    [
        "Search the web for current information on any topic. Returns snippets and source URLs.",  # tavily: via whom?
        "Extract content from URLs. Returns raw page content in markdown or text format.",
        "Scrape one URL and return its content: markdown by default, or HTML, links, screenshots.",
        "Resolves a package/product name to a Context7-compatible library ID and returns matching libraries.",
        "List all databases available in the connection. Useful when multiple DuckDB databases are attached or "
        "when connected to MotherDuck.",
        "Extract all text from a Word document.",
        "Extract all comments from a Word document.",
        "List records from a table",
        "List monitors for the authenticated account with optional pagination controls. Returns one page of monitor "
        "records and pagination metadata.",
        "Export BibTeX citations for one or more arXiv papers using authoritative arXiv metadata "
        "(title, authors, year)",
        "Notion | Retrieve a user\nError Responses:\n400: 400",
        "Generate a word cloud chart to show word frequency or weight through text size variation, such as, analyzing "
        "common words in social media, reviews, or feedback.",
    ],
)
def test_a_description_that_says_nothing_of_data_flow_does_not(description: str) -> None:
    assert not describes_data_flow(description)


@pytest.mark.parametrize(
    ("description", "changes"),
    [
        # duckduckgo expand_link: the subject of "replace" is the search results, "save space" economises
        (
            "Expand a shortened ref://<id> link token from search results back into the full URL. Search results "
            "replace very long URLs with short ref:// tokens to save space.",
            False,
        ),
        # arxiv download_paper: what is overwritten is a cached copy of a public paper
        (
            "Download a paper from arXiv and return its text content. Set force=true to re-fetch and overwrite a "
            "cached paper (required to replace a newer stored arXiv version with an older one).",
            False,
        ),
        ("Saves the note to disk.", True),
        ("Overwrite the file if it exists.", True),
        # office-word replace_paragraph_block_below_header, and the same kind of statement in German and French
        ("Reemplaza el bloque de párrafos debajo de un encabezado, evitando modificar TOC.", True),
        ("Elimina el registro indicado.", True),
        ("Löscht die Datei aus dem Arbeitsverzeichnis.", True),
        ("Ersetzt den Absatz unter der Überschrift.", True),
        ("Supprime le fichier donné.", True),
        ("Remplace le texte du paragraphe.", True),
        ("Leer el archivo y devolver su contenido.", False),  # Spanish "read", not German "leer"
        ("Liest die Datei und gibt den Text zurück.", False),
        ("Lit le fichier et renvoie son texte.", False),
        ("Beschreibt die Tabelle.", False),
    ],
)
def test_describes_changes_on_real_wording(description: str, changes: bool) -> None:
    assert describes_changes(description) is changes
