"""The target config (seed format of mcp-hook-conformance, plus HTTP and safety keys)."""

from __future__ import annotations

import difflib
import json
import os
import re
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails

from hookconf import ALL_SUITES, SPEC_VERSIONS
from hookconf.errors import ConfigError


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# ${NAME} in server.env, server.headers and server.url: a secret stays in the environment, not in the file.
# ${NAME:-default} is the default when NAME is unset or empty; $${NAME} is the text ${NAME} itself.
VARIABLE_REFERENCE = re.compile(r"\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_variables(text: str, where: str = "") -> str:
    """`text` with each ${NAME} replaced by the environment variable's value; an unset one is an error naming it
    (and `where`, the key of the value in its table)."""

    def value(match: re.Match[str]) -> str:
        escaped, name, default = match.groups()
        if escaped:
            return match.group(0)[1:]
        if default is not None:
            return os.environ.get(name) or default
        if name not in os.environ:
            prefix = f"{where}: " if where else ""
            raise ValueError(f"{prefix}${{{name}}} is not set in the environment; export {name} or write the value")
        return os.environ[name]

    return VARIABLE_REFERENCE.sub(value, text)


EXPANDED = "variables expanded"  # the validation context's key: the config's ${NAME} references are expanded already


def _expanding(info: ValidationInfo) -> bool:
    return not (isinstance(info.context, dict) and info.context.get(EXPANDED))


class ServerConfig(_Strict):
    name: str = Field(min_length=1)
    transport: Literal["stdio", "http"] = "stdio"
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict, description="values may use ${VAR}")
    cwd: str | None = None
    url: str | None = Field(default=None, description="may use ${VAR}")
    headers: dict[str, str] = Field(default_factory=dict, description="values may use ${VAR}")

    # A config validated again after a change (command-line overrides) holds the values already expanded.
    @field_validator("env", "headers")
    @classmethod
    def _expand_values(cls, values: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        if not _expanding(info):
            return values
        return {key: expand_variables(value, key) for key, value in values.items()}

    @field_validator("url")
    @classmethod
    def _expand_url(cls, url: str | None, info: ValidationInfo) -> str | None:
        return expand_variables(url) if url is not None and _expanding(info) else url

    @model_validator(mode="after")
    def _transport_needs(self) -> ServerConfig:
        if self.transport == "stdio" and not self.command:
            raise ValueError("a stdio server needs 'command' (the program to start)")
        if self.transport == "http" and not self.url:
            raise ValueError("an http server needs 'url' (e.g. http://127.0.0.1:3001/mcp)")
        return self


class Thresholds(_Strict):
    latency_p50_ms: float = Field(30000, alias="latencyP50Ms", gt=0)
    latency_p95_ms: float = Field(60000, alias="latencyP95Ms", gt=0)
    float_tolerance: float = Field(1e-9, alias="floatTolerance", ge=0)
    series_time_ms: float = Field(
        15000,
        alias="seriesTimeMs",
        ge=0,
        description="time cap of each tool's series of calls in the hook suites: the series stops before a call "
        "that, at the pace of its slowest call so far, would take its calls' total past it; the first "
        "call is always made; 0: no cap",
    )

    @property
    def series_cap_ms(self) -> float | None:
        """The series' time cap in milliseconds, None when there is none."""
        return self.series_time_ms or None


class StateProbe(_Strict):
    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class Probe(_Strict):
    name: str = Field(min_length=1)
    args: dict[str, Any] | None = None
    state_probe: StateProbe | None = Field(None, alias="stateProbe")


class AuditConfig(_Strict):
    schema_url: str | None = Field(None, alias="$schema")
    server: ServerConfig
    suites: list[str] = Field(default_factory=lambda: list(ALL_SUITES))
    tries: int = Field(3, ge=2, le=50)
    thresholds: Thresholds = Field(default_factory=Thresholds)  # type: ignore[arg-type]
    probes: list[Probe] = Field(default_factory=list)
    tool_filter: list[str] | None = Field(None, alias="toolFilter")
    timeout_ms: int = Field(30000, alias="timeoutMs", gt=0)
    allow_destructive: list[str] = Field(default_factory=list, alias="allowDestructive")
    spec_version: str = Field(SPEC_VERSIONS[0], alias="specVersion")
    budget_s: float | None = Field(
        None,
        alias="budgetS",
        ge=0,
        description="time budget of the audit in seconds, checked before each tool's suites and each compliance "
        "check: what it leaves undone is reported as skipped, never failed; 0 or absent: no budget",
    )

    @property
    def budget(self) -> float | None:
        """The budget in seconds, None when there is none."""
        return self.budget_s or None

    @field_validator("suites")
    @classmethod
    def _known_suites(cls, suites: list[str]) -> list[str]:
        unknown = [s for s in suites if s not in ALL_SUITES]
        if unknown:
            named = ", ".join(f"{s!r}{did_you_mean(s, ALL_SUITES)}" for s in unknown)
            raise ValueError(f"unknown suite {named}; known: {', '.join(ALL_SUITES)}")
        return suites

    @field_validator("spec_version")
    @classmethod
    def _known_spec_version(cls, value: str) -> str:
        if value not in SPEC_VERSIONS:
            raise ValueError(
                f"unknown MCP revision {value!r}{did_you_mean(value, SPEC_VERSIONS)}; "
                f"choose one of {', '.join(SPEC_VERSIONS)}"
            )
        return value

    def probe_for(self, tool: str) -> Probe | None:
        return next((p for p in self.probes if p.name == tool), None)


def load_config(path: Path) -> AuditConfig:
    """Read and validate a config file; every problem becomes a ConfigError naming the field."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {path} not found; create one with 'hookconf init --server-name NAME'") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    return parse_config(data, source=str(path))


def parse_config(data: object, source: str = "config", expanded: bool = False) -> AuditConfig:
    """The validated config; `expanded`: its ${NAME} references were expanded already (a config dumped and changed)."""
    try:
        return AuditConfig.model_validate(data, context={EXPANDED: expanded})
    except ValidationError as exc:
        raise ConfigError(f"{source}: invalid config\n{describe_validation_error(exc, AuditConfig)}") from None


def describe_validation_error(exc: ValidationError, model: type[BaseModel] | None = None) -> str:
    """Every problem pydantic found, one `  - field.path: message` line each; an unknown key of `model` (the one
    validated) with the near miss it may be."""
    return "\n".join(f"  - {_describe(error, model)}" for error in exc.errors())


def first_validation_error(exc: ValidationError) -> str:
    """The first problem pydantic found, as `field.path: message`."""
    return _describe(exc.errors()[0])


def _describe(error: ErrorDetails, model: type[BaseModel] | None = None) -> str:
    where = ".".join(str(part) for part in error["loc"]) or "(top level)"
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        known = _keys_at(model, error["loc"][:-1]) if model is not None else []
        message = f"unknown key{did_you_mean(str(error['loc'][-1]), known) or ' (check its spelling)'}"
    return f"{where}: {message}"


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """ " (did you mean 'x'?)" for a near miss among `known`, else ""."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _keys_at(root: type[BaseModel], location: tuple[int | str, ...]) -> list[str]:
    """The keys `root` accepts at a location (a path of keys and list indexes): the aliases of the model there."""
    model: type[BaseModel] | None = root
    for part in location:
        if model is None or isinstance(part, int):
            continue
        field = next((f for name, f in model.model_fields.items() if part in (name, f.alias)), None)
        model = _model_in(field.annotation) if field is not None else None
    if model is None:
        return []
    return [field.alias or name for name, field in model.model_fields.items()]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds (itself, or in a list or an optional), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for arg in typing.get_args(annotation) if (m := _model_in(arg)) is not None), None)


def _defaults(model: type[BaseModel], *fields: str) -> dict[str, Any]:
    """These fields' defaults under the names a config spells them with: the model declares both, once."""
    return {model.model_fields[name].alias or name: model.model_fields[name].default for name in fields}


def example_config(server_name: str) -> dict[str, Any]:
    """The config `hookconf init` writes without a server to start: valid as written, with placeholders to edit.
    It names no package (a name it was not given could be someone else's package, which npx would run)."""
    return {
        "server": {
            "name": server_name,
            "transport": "stdio",
            "command": "node",
            "args": ["path/to/your/server.js"],
            "env": {},
        },
        "suites": list(ALL_SUITES),
        **_defaults(AuditConfig, "tries"),
        "thresholds": _defaults(Thresholds, "latency_p50_ms", "latency_p95_ms", "series_time_ms"),
        **_defaults(AuditConfig, "timeout_ms"),
        "probes": [
            {
                "name": "search_things",
                "args": {"query": "audit-fixed-input"},
                "stateProbe": {"tool": "list_things", "args": {}},
            }
        ],
        "allowDestructive": [],
    }
