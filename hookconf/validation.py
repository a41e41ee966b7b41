"""Validate every message a server sent against the mcp_types models of one protocol revision."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import typing
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel, ValidationError

from hookconf.protocol import INPUT_REQUIRED, INPUT_REQUIRED_MODEL, RESULT_MODELS
from hookconf.wire.recording import Recording

MODEL_MODULES = {"2025-11-25": "mcp_types._v2025_11_25", "2026-07-28": "mcp_types._v2026_07_28"}
# mcp_types has no models for the older handshake revisions; they are subsets of 2025-11-25, and
# its models ignore fields they do not know, so 2025-11-25 judges them without false alarms.
FALLBACK_REVISION = "2025-11-25"

MAX_ERRORS_PER_MESSAGE = 10


@dataclass(frozen=True)
class WireViolation:
    at: float
    excerpt: str  # the start of the raw message
    model: str
    errors: tuple[str, ...]

    def describe(self) -> str:
        return f"at {self.at:.2f} s, {self.model}: {'; '.join(self.errors)} in {self.excerpt}"


WIRE_BASE_MODULE = "mcp_types._wire_base"
_loading = threading.Lock()


def models_for(revision: str) -> ModuleType:
    """The wire models of a revision (of 2025-11-25 for the older handshake revisions)."""
    name = MODEL_MODULES.get(revision, MODEL_MODULES[FALLBACK_REVISION])
    with _loading:
        return sys.modules.get(name) or _load_wire_models(name)


def _load_wire_models(name: str) -> ModuleType:
    """Load one revision's generated models with each model's validator built when first used, and without the
    mcp_types package around them: importing that package builds the SDK's own ~200 models, which hookconf
    does not use, and building every validator of a revision up front costs as much again; together, 0.15 s of
    CPU at the start of every audit. Should the package's layout differ from this, it is imported as usual."""
    spec = importlib.util.find_spec("mcp_types")
    folders = spec.submodule_search_locations if spec is not None else None
    try:
        folder = Path(next(iter(folders or [])))
        base = _run_module(WIRE_BASE_MODULE, folder / "_wire_base.py")
        base.WireModel.model_config["defer_build"] = True
        return _run_module(name, folder / name.rpartition(".")[2] / "__init__.py")
    except (StopIteration, OSError, ImportError, AttributeError):
        for loaded in (name, WIRE_BASE_MODULE):
            sys.modules.pop(loaded, None)
        return importlib.import_module(name)


def _run_module(name: str, path: Path) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def validation_errors(model: type[BaseModel], payload: Any) -> tuple[str, ...]:
    try:
        model.model_validate(payload)
    except ValidationError as exc:
        return tuple(
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()[:MAX_ERRORS_PER_MESSAGE]
        )
    return ()


def _by_method(models: ModuleType, union_name: str) -> dict[str, type[BaseModel]]:
    """Map each method literal of a union of message models to its model."""
    table: dict[str, type[BaseModel]] = {}
    for member in typing.get_args(getattr(models, union_name, None)):
        field = member.model_fields.get("method")
        for method in typing.get_args(field.annotation) if field else ():
            table[method] = member
    return table


class WireValidator:
    def __init__(self, revision: str) -> None:
        self.models = models_for(revision)
        self.notifications = _by_method(self.models, "ServerNotification")
        self.requests = _by_method(self.models, "ServerRequest")

    def validate(self, recording: Recording) -> list[WireViolation]:
        methods_by_id = {
            m.message.get("id"): m.message.get("method")
            for m in recording.messages()
            if m.direction == "sent" and isinstance(m.message, dict) and "method" in m.message
        }
        violations = []
        for entry in recording.received():
            items = entry.message if isinstance(entry.message, list) else [entry.message]
            for item in items if entry.is_json else []:
                found = self._check(item, methods_by_id)
                if found is not None:
                    model, errors = found
                    violations.append(WireViolation(entry.at, entry.raw[:160], model, errors))
        return violations

    def _check(self, message: Any, methods_by_id: dict[Any, Any]) -> tuple[str, tuple[str, ...]] | None:
        if not isinstance(message, dict):
            return "JSONRPCMessage", ("not a JSON object",)
        if "method" in message:
            table = self.requests if "id" in message else self.notifications
            model = table.get(str(message["method"]))
            return self._judge(model, message)
        if "error" in message:
            return self._judge(self.models.JSONRPCErrorResponse, message)
        if "result" in message:
            envelope = self._judge(self.models.JSONRPCResultResponse, message)
            if envelope is not None:
                return envelope
            result_model = RESULT_MODELS.get(str(methods_by_id.get(message.get("id"))))
            if isinstance(message["result"], dict) and message["result"].get("resultType") == INPUT_REQUIRED:
                result_model = INPUT_REQUIRED_MODEL
            return self._judge(getattr(self.models, result_model, None) if result_model else None, message["result"])
        return "JSONRPCMessage", ("has neither method, result nor error",)

    @staticmethod
    def _judge(model: type[BaseModel] | None, payload: Any) -> tuple[str, tuple[str, ...]] | None:
        if model is None:
            return None  # a method this revision does not define: nothing to validate against
        errors = validation_errors(model, payload)
        return (model.__name__, errors) if errors else None
