"""The protocol vocabulary: one declaration of each code, key, param and model name hookconf uses."""

from __future__ import annotations

import pytest

from hookconf import AUTO_SPEC_VERSION, HANDSHAKE_REVISIONS, SPEC_VERSIONS, STATELESS_REVISIONS, __version__
from hookconf.protocol import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    INPUT_REQUIRED_MODEL,
    PROTOCOL_VERSION_KEY,
    RESULT_MODELS,
    STATELESS_REVISION,
    UNKNOWN_REVISION,
    Era,
    discover_message,
    initialize_params,
    stateless_meta,
)
from hookconf.validation import models_for
from tests.test_layers import loaded_after


def test_era_values_are_what_reports_print() -> None:
    assert [era.value for era in Era] == ["handshake", "stateless"]
    assert f"{Era.STATELESS:<11}|" == "stateless  |"  # `hookconf list` pads it as a plain string


@pytest.mark.parametrize("revision", [v for v in SPEC_VERSIONS if v != AUTO_SPEC_VERSION])
def test_each_revision_has_one_era(revision: str) -> None:
    era = Era.of(revision)
    assert revision in era.revisions
    assert era is (Era.STATELESS if revision in STATELESS_REVISIONS else Era.HANDSHAKE)


def test_the_unknown_revision_is_no_revision() -> None:
    assert UNKNOWN_REVISION not in SPEC_VERSIONS
    assert Era.of(UNKNOWN_REVISION) is Era.HANDSHAKE  # an initialize may offer it


@pytest.mark.parametrize("revision", [*HANDSHAKE_REVISIONS, UNKNOWN_REVISION])
def test_initialize_params_offer_the_revision_asked_for(revision: str) -> None:
    assert initialize_params(revision) == {
        "protocolVersion": revision,
        "capabilities": {},
        "clientInfo": {"name": "hookconf", "version": __version__},
    }


def test_the_stateless_envelope_carries_the_revision_asked_for() -> None:
    assert stateless_meta(UNKNOWN_REVISION)[PROTOCOL_VERSION_KEY] == UNKNOWN_REVISION
    assert stateless_meta() == {
        PROTOCOL_VERSION_KEY: STATELESS_REVISION,
        CLIENT_CAPABILITIES_KEY: {},
        CLIENT_INFO_KEY: {"name": "hookconf", "version": __version__},
    }
    assert discover_message(7)["params"] == {"_meta": stateless_meta()}


def test_every_result_model_name_is_a_model_of_some_revision() -> None:
    handshake, stateless = models_for(HANDSHAKE_REVISIONS[-1]), models_for(STATELESS_REVISION)
    unknown = [
        name
        for name in (*RESULT_MODELS.values(), INPUT_REQUIRED_MODEL)
        if not hasattr(handshake, name) and not hasattr(stateless, name)
    ]
    assert unknown == []


def test_the_vocabulary_is_a_leaf() -> None:
    assert loaded_after("import hookconf.protocol", ("hookconf", "pydantic", "mcp_types")) == [
        "hookconf",
        "hookconf.protocol",
    ]
