"""The compliance catalog: one registry of checks, each with its id, category, gating and texts."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from hookconf import HANDSHAKE_REVISIONS, STATELESS_REVISIONS
from hookconf.checks.registry import CheckDeclaration
from hookconf.protocol import spec_url
from hookconf.verdicts import Status, Verdict, advised, failed, passed, skipped, undecided, warned

if TYPE_CHECKING:
    from hookconf.checks.compliance.context import ComplianceContext

# The verdict helpers the compliance modules import from here, declared in hookconf.verdicts.
__all__ = ["advised", "failed", "passed", "skipped", "undecided", "warned"]

ALL_REVISIONS: tuple[str, ...] = (*HANDSHAKE_REVISIONS, *STATELESS_REVISIONS)
HANDSHAKE: tuple[str, ...] = HANDSHAKE_REVISIONS  # initialize, sessions, ping
STATELESS: tuple[str, ...] = STATELESS_REVISIONS  # server/discover, _meta on every request


class Category(StrEnum):
    TRANSPORT = "transport"
    LIFECYCLE = "lifecycle"
    TOOLS = "tools"
    RESOURCES = "resources"
    PROMPTS = "prompts"
    ERRORS = "errors"
    SCHEMA = "schema"
    SECURITY = "security"
    PRACTICES = "practices"  # best practice, not in the spec: reported, never graded


# A compliance check's verdict: the hook suites' type, under the name the compliance modules know it by. The
# helpers are declared once, in hookconf.verdicts, and imported from here by the compliance modules.
Outcome = Verdict

CheckRunner = Callable[["ComplianceContext"], Verdict]


@dataclass(frozen=True)
class Rule:
    """The spec sentence (SHOULD, RECOMMENDED or MUST) that a check's warnings enforce, quoted."""

    quote: str
    source: str  # the document and section, e.g. "MCP 2025-11-25 server/utilities/pagination#error-handling"

    def citation(self) -> str:
        return f'"{self.quote}" ({self.source})'


@dataclass(frozen=True)
class ComplianceCheck(CheckDeclaration["ComplianceContext"]):
    """A compliance check as the catalog holds it: `judge` is the check's function, its warnings held to `should`."""

    category: Category
    required: bool  # in the handshake revisions; see required_for
    spec: str  # path under the revision's specification, e.g. "basic/lifecycle#initialization"
    why: str
    fix: str
    capability: str | None = None  # e.g. "tools" or "resources.subscribe": skip unless declared
    transport: str | None = None  # "stdio" or "http": skip on the other one
    revisions: tuple[str, ...] = ALL_REVISIONS
    lighthouse: tuple[str, ...] = ()  # mcp-lighthouse checks this one covers
    graded: bool = True
    after_all: bool = False  # judges the whole recording, so it runs after every other check
    fresh_session: bool = False  # opens a session of its own (on stdio: a new server process)
    stateless_required: bool | None = None  # the 2026-07-28 catalog's flag, where it differs from `required`
    should: Rule | None = None  # the spec sentence its warnings rest on; a warning without one is advice
    advice: str | None = None  # what it reports as advice, and why no rule backs it

    def required_for(self, revision: str) -> bool:
        """Whether the grade requires this check in `revision`: the two catalogs differ for some shared ids."""
        if revision in STATELESS_REVISIONS and self.stateless_required is not None:
            return self.stateless_required
        return self.required

    def spec_url(self, revision: str) -> str:
        return spec_url(revision, self.spec)

    @property
    def run(self) -> CheckRunner:
        """The check's function (`judge`), as the compliance runner calls it."""
        return self.judge


CHECKS: dict[str, ComplianceCheck] = {}  # category by category, in Category's order; see _keep_category_order


def compliance_check(
    id: str,
    category: Category,
    title: str,
    *,
    required: bool = False,
    spec: str,
    why: str,
    fix: str,
    capability: str | None = None,
    transport: str | None = None,
    revisions: tuple[str, ...] = ALL_REVISIONS,
    lighthouse: tuple[str, ...] = (),
    graded: bool = True,
    after_all: bool = False,
    fresh_session: bool = False,
    stateless_required: bool | None = None,
    should: Rule | None = None,
    advice: str | None = None,
) -> Callable[[CheckRunner], CheckRunner]:
    """Register one compliance check; an id registered twice is an error at import time."""

    def register(run: CheckRunner) -> CheckRunner:
        if id in CHECKS:
            raise RuntimeError(f"compliance check {id} is registered twice")
        CHECKS[id] = ComplianceCheck(
            id=id,
            title=title,
            judge=_by_rule(run, should),
            category=category,
            required=required,
            spec=spec,
            why=why,
            fix=fix,
            capability=capability,
            transport=transport,
            revisions=revisions,
            lighthouse=lighthouse,
            graded=graded,
            after_all=after_all,
            fresh_session=fresh_session,
            stateless_required=stateless_required,
            should=should,
            advice=advice,
        )
        _keep_category_order()
        return run

    return register


def _keep_category_order() -> None:
    """The catalog, and so the report, lists the checks category by category in Category's order, each category
    in the order its checks are declared; whichever module is imported first (they import one another's helpers)."""
    rank = {category: position for position, category in enumerate(Category)}
    ordered = sorted(CHECKS.values(), key=lambda check: rank[check.category])
    CHECKS.clear()
    CHECKS.update((check.id, check) for check in ordered)


def _by_rule(run: CheckRunner, should: Rule | None) -> CheckRunner:
    """A warning stands on a spec sentence and quotes it; without one it is advice."""

    @functools.wraps(run)
    def judged(ctx: ComplianceContext) -> Verdict:
        outcome = run(ctx)
        if outcome.status is not Status.WARN:
            return outcome
        if should is None:
            return advised(outcome.details)
        return warned(f"{outcome.details}; the spec: {should.citation()}")

    return judged


# The order the checks run in (before those that open a fresh session or judge the whole recording). It is not
# the catalog's: a verdict can rest on what ran before it (a tool once found out of service is not picked again),
# so the checks run in the order they ran before the catalog was arranged by category. Each row: whether it holds
# the 2026-07-28-only checks (revisions=STATELESS) or the others, and its categories in turn.
RUN_ORDER: tuple[tuple[bool, tuple[Category, ...]], ...] = (
    (
        False,
        (
            Category.ERRORS,
            Category.TOOLS,
            Category.RESOURCES,
            Category.PROMPTS,
            Category.LIFECYCLE,
            Category.SCHEMA,
            Category.PRACTICES,
            Category.SECURITY,
        ),
    ),
    (
        True,
        (Category.LIFECYCLE, Category.TOOLS, Category.RESOURCES, Category.PROMPTS, Category.ERRORS, Category.SCHEMA),
    ),
    (True, (Category.TRANSPORT,)),
    (False, (Category.TRANSPORT,)),
)


def in_run_order(checks: list[ComplianceCheck]) -> list[ComplianceCheck]:
    """`checks` in RUN_ORDER, each row's checks of one category in catalog order."""
    rank = {
        (stateless_only, category): position
        for position, (stateless_only, category) in enumerate(
            (only, category) for only, categories in RUN_ORDER for category in categories
        )
    }
    return sorted(checks, key=lambda check: rank[(check.revisions == STATELESS, check.category)])


def since(revision: str) -> tuple[str, ...]:
    return tuple(r for r in ALL_REVISIONS if r >= revision)


def until(revision: str) -> tuple[str, ...]:
    return tuple(r for r in ALL_REVISIONS if r <= revision)


def select(checks: list[ComplianceCheck], only: list[str], skip: list[str]) -> list[ComplianceCheck]:
    """--only / --skip: each value names a category or a check id."""

    def matches(check: ComplianceCheck, values: list[str]) -> bool:
        return check.id in values or check.category.value in values

    return [c for c in checks if (not only or matches(c, only)) and not matches(c, skip)]


def unknown_selectors(values: list[str]) -> list[str]:
    known = set(CHECKS) | {c.value for c in Category}
    return [v for v in values if v not in known]
