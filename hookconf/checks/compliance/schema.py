"""Schema: tool, resource and prompt definitions, every message validated against mcp_types, and the resultType
of 2026-07-28 results."""

from __future__ import annotations

import re
from typing import Any

import jsonschema

from hookconf.checks.compliance.catalog import (
    STATELESS,
    Category,
    Outcome,
    Rule,
    advised,
    compliance_check,
    failed,
    passed,
    since,
    skipped,
    warned,
)
from hookconf.checks.compliance.context import ComplianceContext
from hookconf.protocol import INPUT_REQUIRED, STATELESS_REVISION
from hookconf.validation import WireValidator, models_for, validation_errors
from hookconf.wire.transport import JsonObject

TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
LIGHTHOUSE_NAME = re.compile(r"^[a-z0-9]+([_-][a-z0-9]+)*$")
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
MAX_LISTED = 5
MRTR_METHODS = ("tools/call", "prompts/get", "resources/read")  # the methods that may answer input_required
RESULT_TYPES = ("complete", INPUT_REQUIRED)
TOOL_NAME_RULE = Rule(
    "Tool names SHOULD be between 1 and 128 characters in length (inclusive). [...] The following "
    "SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits "
    "(0-9), underscore (_), hyphen (-), and dot (.)",
    "MCP server/tools#tool-names, 2025-11-25 and 2026-07-28",
)


def _names(items: list[Any]) -> str:
    shown = ", ".join(str(i) for i in items[:MAX_LISTED])
    return shown + (f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def _tool_schema_problem(tool: JsonObject) -> str | None:
    if not isinstance(tool.get("name"), str) or not tool["name"]:
        return "has no name"
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return "has no inputSchema object"
    if schema.get("type") != "object":
        return f"inputSchema.type is {schema.get('type')!r}, not 'object'"
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"inputSchema is not a valid JSON Schema ({exc.message})"
    return None


@compliance_check(
    "tools-schema",
    Category.SCHEMA,
    "Every tool has a name and an object inputSchema",
    required=True,
    capability="tools",
    stateless_required=False,
    spec="server/tools#tool",
    lighthouse=("schema-tool-name", "schema-tool-input-schema"),
    why="Clients build the model's function list from name and inputSchema.",
    fix='Give every tool a name and an inputSchema with "type": "object".',
)
def check_tools_schema(ctx: ComplianceContext) -> Outcome:
    problems = [f"{t.get('name', '?')} {p}" for t in ctx.tools if (p := _tool_schema_problem(t))]
    if problems:
        return failed(_names(problems))
    return passed(f"{len(ctx.tools)} tools well defined")


@compliance_check(
    "tools-annotations",
    Category.SCHEMA,
    "Tool annotations are well typed",
    capability="tools",
    spec="server/tools#tool",
    revisions=since("2025-03-26"),
    why="Hosts decide on confirmations from the hints; a non-boolean hint is read as absent or wrong.",
    fix="Make readOnlyHint, destructiveHint, idempotentHint, openWorldHint booleans and title a string.",
)
def check_annotations(ctx: ComplianceContext) -> Outcome:
    annotated = [t for t in ctx.tools if "annotations" in t]
    if not annotated:
        return skipped("no tool carries annotations")
    problems = []
    for tool in annotated:
        annotations = tool["annotations"]
        if not isinstance(annotations, dict):
            problems.append(f"{tool.get('name')}: annotations is not an object")
            continue
        problems += [
            f"{tool.get('name')}.{hint} = {annotations[hint]!r}"
            for hint in HINTS
            if hint in annotations and not isinstance(annotations[hint], bool)
        ]
        if "title" in annotations and not isinstance(annotations["title"], str):
            problems.append(f"{tool.get('name')}.title is not a string")
    if problems:
        return failed(_names(problems))
    return passed(f"{len(annotated)} annotated tools, all hints boolean")


@compliance_check(
    "tools-title-field",
    Category.SCHEMA,
    "Tools have a display title",
    capability="tools",
    spec="server/tools#tool",
    revisions=since("2025-06-18"),
    why="Since 2025-06-18 tools may carry a human-readable title for hosts to show.",
    fix='Add "title" to each tool (or annotations.title).',
    advice="tools without a title; title is optional, no SHOULD asks for it",
)
def check_title_field(ctx: ComplianceContext) -> Outcome:
    untitled = [
        str(t.get("name")) for t in ctx.tools if not t.get("title") and not (t.get("annotations") or {}).get("title")
    ]
    if not ctx.tools:
        return skipped("the server lists no tools")
    if untitled:
        return advised(
            f"{len(untitled)} of {len(ctx.tools)} tools have no title: {_names(untitled)} (optional in the spec)"
        )
    return passed(f"all {len(ctx.tools)} tools have a title")


@compliance_check(
    "tools-output-schema",
    Category.SCHEMA,
    "outputSchema is valid and structured results match it",
    capability="tools",
    spec="server/tools#output-schema",
    revisions=since("2025-06-18"),
    why="Clients validate structuredContent against outputSchema; a mismatch is rejected.",
    fix="Declare outputSchema as an object schema and return structuredContent that satisfies it.",
)
def check_output_schema(ctx: ComplianceContext) -> Outcome:
    declared = [t for t in ctx.tools if "outputSchema" in t]
    if not declared:
        return skipped("no tool declares an outputSchema")
    problems = [
        f"{t.get('name')}: outputSchema is not an object schema"
        for t in declared
        if not isinstance(t["outputSchema"], dict) or t["outputSchema"].get("type") != "object"
    ]
    checked = 0
    for tool in [t for t in declared if t in ctx.read_only_tools() and isinstance(t["outputSchema"], dict)]:
        response = ctx.baseline(tool)  # the usual call: a hook suite's or another check's, when made already
        result = (response or {}).get("result") or {}
        if result.get("isError") or not result:
            continue
        checked += 1
        problems += _structured_problems(tool, result)
    if problems:
        return failed(_names(problems))
    return passed(f"{len(declared)} output schemas valid; {checked} structured result(s) matched")


def _structured_problems(tool: JsonObject, result: JsonObject) -> list[str]:
    if "structuredContent" not in result:
        return [f"{tool['name']}: declares outputSchema but returned no structuredContent"]
    try:
        jsonschema.validate(result["structuredContent"], tool["outputSchema"])
    except jsonschema.ValidationError as exc:
        return [f"{tool['name']}: structuredContent does not match outputSchema ({exc.message})"]
    except jsonschema.SchemaError as exc:
        return [f"{tool['name']}: outputSchema is not a valid JSON Schema ({exc.message})"]
    return []


@compliance_check(
    "tools-name-format",
    Category.SCHEMA,
    "Tool names use 1-128 of [A-Za-z0-9_.-]",
    capability="tools",
    spec="server/tools#tool-names",
    revisions=since("2025-11-25"),
    why="2025-11-25 asks for tool names of letters, digits, '_', '-' and '.' so that every client can address them.",
    fix="Rename tools to match [A-Za-z0-9_.-]{1,128}.",
    should=TOOL_NAME_RULE,
)
def check_name_format(ctx: ComplianceContext) -> Outcome:
    bad = [repr(t.get("name")) for t in ctx.tools if not TOOL_NAME.match(str(t.get("name", "")))]
    if bad:
        return warned(f"names outside [A-Za-z0-9_.-]{{1,128}}: {_names(bad)}")
    return passed(f"{len(ctx.tools)} names well formed")


@compliance_check(
    "resources-schema",
    Category.SCHEMA,
    "Resources have a uri and a name",
    required=True,
    capability="resources",
    stateless_required=False,
    spec="server/resources#resource",
    why="A resource without uri cannot be read; without name it cannot be shown.",
    fix="Give every resource a uri and a name.",
)
def check_resources_schema(ctx: ComplianceContext) -> Outcome:
    resources = ctx.listing("resources/list", "resources").items
    bad = [
        str(r.get("name", r.get("uri", "?")))
        for r in resources
        if not isinstance(r.get("uri"), str) or not isinstance(r.get("name"), str)
    ]
    if bad:
        return failed(f"{len(bad)} resources lack uri or name: {_names(bad)}")
    return passed(f"{len(resources)} resources well defined")


@compliance_check(
    "prompts-schema",
    Category.SCHEMA,
    "Prompts have a name",
    required=True,
    capability="prompts",
    stateless_required=False,
    spec="server/prompts#prompt",
    why="Prompts are fetched by name.",
    fix="Give every prompt a name.",
)
def check_prompts_schema(ctx: ComplianceContext) -> Outcome:
    prompts = ctx.listing("prompts/list", "prompts").items
    bad = [p for p in prompts if not isinstance(p.get("name"), str) or not p["name"]]
    if bad:
        return failed(f"{len(bad)} of {len(prompts)} prompts have no name")
    return passed(f"{len(prompts)} prompts named")


@compliance_check(
    "schema-wire-valid",
    Category.SCHEMA,
    "Every message matches the schema of the negotiated revision",
    spec="basic#messages",
    why="Clients built on the official SDKs validate what they receive and reject what does not match.",
    fix="Fix each listed message so that it matches the schema of the revision you negotiated.",
    after_all=True,
)
def check_wire_valid(ctx: ComplianceContext) -> Outcome:
    validator = WireValidator(ctx.revision)
    recordings = ctx.recordings()
    violations = [v for recording in recordings for v in validator.validate(recording)]
    total = sum(len(r.received()) for r in recordings)
    if violations:
        listed = "\n".join(f"- {v.describe()}" for v in violations)
        return failed(f"{len(violations)} of {total} received messages do not validate:\n{listed}")
    return passed(f"all {total} received messages validate against the {ctx.revision} models")


# --- 2026-07-28 only: resultType and input_required ----------------------------------------------
@compliance_check(
    "schema-result-type",
    Category.SCHEMA,
    "Every result carries resultType",
    required=True,
    revisions=STATELESS,
    spec="basic#responses",
    after_all=True,
    why="Clients decide how to parse a result from resultType: 'complete' or 'input_required'.",
    fix='Add "resultType": "complete" to every result ("input_required" where input is needed).',
)
def check_result_type(ctx: ComplianceContext) -> Outcome:
    results = ctx.results_for()
    if not results:
        return failed("no result was received to inspect")
    bad = sorted(
        {
            f"{method} ({result.get('resultType')!r})"
            for method, result in results
            if result.get("resultType") not in RESULT_TYPES
        }
    )
    if bad:
        return failed(f"results without a valid resultType: {', '.join(bad[:6])}")
    return passed(f"all {len(results)} results carry resultType")


@compliance_check(
    "schema-no-input-required-on-lists",
    Category.SCHEMA,
    "input_required only on MRTR methods",
    required=True,
    revisions=STATELESS,
    spec="basic#responses",
    after_all=True,
    why="Only tools/call, prompts/get and resources/read may ask the client for input; a list or "
    "discover that does leaves the client nothing to retry.",
    fix="Answer lists, server/discover and completions with complete results.",
)
def check_no_input_required_on_lists(ctx: ComplianceContext) -> Outcome:
    results = ctx.results_for()
    if not results:
        return failed("no result was received to inspect")
    wrong = sorted(
        {
            method
            for method, result in results
            if result.get("resultType") == INPUT_REQUIRED and method not in MRTR_METHODS
        }
    )
    if wrong:
        return failed(f"input_required answered to {', '.join(wrong)}")
    return passed(f"{len(results)} results; input_required only where allowed")


@compliance_check(
    "schema-input-required-shape",
    Category.SCHEMA,
    "InputRequiredResult is well formed",
    revisions=STATELESS,
    spec="basic#responses",
    after_all=True,
    why="A client can only answer an input request it can read: inputRequests or requestState must be "
    "there and match the schema.",
    fix="Send input_required results with inputRequests and/or requestState, as the schema defines.",
)
def check_input_required_shape(ctx: ComplianceContext) -> Outcome:
    asked = [result for _, result in ctx.results_for() if result.get("resultType") == INPUT_REQUIRED]
    if not asked:
        return skipped("no input_required result was received")
    model = models_for(STATELESS_REVISION).InputRequiredResult
    problems = [
        (
            "; ".join(validation_errors(model, result))
            or ("neither inputRequests nor requestState" if not {"inputRequests", "requestState"} & set(result) else "")
        )
        for result in asked
    ]
    problems = [p for p in problems if p]
    if problems:
        return failed(f"{len(problems)} of {len(asked)} input_required results: {problems[0]}")
    return passed(f"{len(asked)} input_required results well formed")


# --- best practice (mcp-lighthouse): reported, never graded --------------------------------------
@compliance_check(
    "schema-tool-description",
    Category.PRACTICES,
    "Every tool has a description over 10 characters",
    capability="tools",
    spec="server/tools#tool",
    graded=False,
    why="The model picks tools by their descriptions (a best practice; descriptions are optional).",
    fix="Describe what each tool does, its inputs and its effects.",
    advice="tools whose description is missing or 10 characters or shorter; descriptions are optional",
)
def check_tool_description(ctx: ComplianceContext) -> Outcome:
    short = [str(t.get("name")) for t in ctx.tools if len(str(t.get("description") or "")) <= 10]
    return advised(f"short or missing descriptions: {_names(short)}") if short else passed("all described")


@compliance_check(
    "schema-required-fields",
    Category.PRACTICES,
    "inputSchemas with properties list required ones",
    capability="tools",
    spec="server/tools#tool",
    graded=False,
    why="A required list tells the model which arguments it must give (optional in JSON Schema).",
    fix='Add "required": [...] to input schemas that have properties.',
    advice="input schemas without a required list; JSON Schema makes it optional",
)
def check_required_fields(ctx: ComplianceContext) -> Outcome:
    lacking = [
        str(t.get("name"))
        for t in ctx.tools
        if isinstance(t.get("inputSchema"), dict)
        and t["inputSchema"].get("properties")
        and "required" not in t["inputSchema"]
    ]
    return advised(f"no required list: {_names(lacking)}") if lacking else passed("every schema lists required")


@compliance_check(
    "bp-tool-name-format",
    Category.PRACTICES,
    "Tool names are snake_case or kebab-case",
    capability="tools",
    spec="server/tools#tool-names",
    graded=False,
    why="Consistent lower-case names read well (the spec itself also allows camelCase and dots).",
    fix="Prefer names like search_notes or search-notes.",
    advice="tool names outside snake_case and kebab-case; the spec allows any case",
)
def check_lighthouse_name_format(ctx: ComplianceContext) -> Outcome:
    other = [str(t.get("name")) for t in ctx.tools if not LIGHTHOUSE_NAME.match(str(t.get("name", "")))]
    return advised(f"not snake_case or kebab-case: {_names(other)}") if other else passed("all snake/kebab case")


@compliance_check(
    "bp-description-length",
    Category.PRACTICES,
    "Tool descriptions are 20-500 characters",
    capability="tools",
    spec="server/tools#tool",
    graded=False,
    why="Very short descriptions say too little; very long ones crowd the model's context.",
    fix="Keep each description between 20 and 500 characters.",
    advice="descriptions outside 20-500 characters; the spec sets no length",
)
def check_description_length(ctx: ComplianceContext) -> Outcome:
    outside = [
        f"{t.get('name')} ({len(str(t.get('description') or ''))})"
        for t in ctx.tools
        if not 20 <= len(str(t.get("description") or "")) <= 500
    ]
    return advised(f"outside 20-500 characters: {_names(outside)}") if outside else passed("all 20-500 characters")
