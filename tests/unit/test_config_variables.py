"""${VAR} in a config's server.env, server.headers and server.url: expanded from hookconf's environment."""

from __future__ import annotations

import pytest

from hookconf.config import parse_config
from hookconf.errors import ConfigError


def test_env_and_header_values_and_the_url_take_the_variables_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKCONF_TEST_TOKEN", "s3cret")
    monkeypatch.setenv("HOOKCONF_TEST_PORT", "3001")
    stdio = parse_config({"server": {"name": "x", "command": "node", "env": {"API_KEY": "${HOOKCONF_TEST_TOKEN}"}}})
    http = parse_config(
        {
            "server": {
                "name": "x",
                "transport": "http",
                "url": "http://127.0.0.1:${HOOKCONF_TEST_PORT}/mcp",
                "headers": {"Authorization": "Bearer ${HOOKCONF_TEST_TOKEN}"},
            }
        }
    )
    assert stdio.server.env == {"API_KEY": "s3cret"}
    assert http.server.url == "http://127.0.0.1:3001/mcp"
    assert http.server.headers == {"Authorization": "Bearer s3cret"}


def test_a_doubled_dollar_keeps_the_reference_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKCONF_TEST_TOKEN", "s3cret")
    config = parse_config({"server": {"name": "x", "command": "node", "env": {"LITERAL": "$${HOOKCONF_TEST_TOKEN}"}}})
    assert config.server.env == {"LITERAL": "${HOOKCONF_TEST_TOKEN}"}


def test_other_dollars_and_the_command_line_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKCONF_TEST_TOKEN", "s3cret")
    server = {"name": "x", "command": "node", "args": ["${HOOKCONF_TEST_TOKEN}"], "env": {"PRICE": "$5 and $HOME"}}
    config = parse_config({"server": server})
    assert config.server.args == ["${HOOKCONF_TEST_TOKEN}"]
    assert config.server.env == {"PRICE": "$5 and $HOME"}


def test_every_unset_variable_is_named_with_where_it_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOOKCONF_TEST_UNSET_A", raising=False)
    monkeypatch.delenv("HOOKCONF_TEST_UNSET_B", raising=False)
    server = {
        "name": "x",
        "transport": "http",
        "url": "http://127.0.0.1/${HOOKCONF_TEST_UNSET_A}",
        "headers": {"Authorization": "Bearer ${HOOKCONF_TEST_UNSET_B}"},
    }
    with pytest.raises(ConfigError) as raised:
        parse_config({"server": server})
    message = str(raised.value)
    assert "server.url: ${HOOKCONF_TEST_UNSET_A} is not set in the environment" in message
    assert "server.headers: Authorization: ${HOOKCONF_TEST_UNSET_B} is not set in the environment" in message
    assert "export HOOKCONF_TEST_UNSET_B" in message


def test_a_config_validated_again_is_not_expanded_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOOKCONF_TEST_UNSET_A", raising=False)
    config = parse_config({"server": {"name": "x", "command": "node", "env": {"K": "$${HOOKCONF_TEST_UNSET_A}"}}})
    again = parse_config(config.model_dump(by_alias=True, exclude_none=True), expanded=True)
    assert again.server.env == {"K": "${HOOKCONF_TEST_UNSET_A}"}


def test_a_default_stands_for_an_unset_or_empty_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOOKCONF_TEST_UNSET_A", raising=False)
    monkeypatch.setenv("HOOKCONF_TEST_EMPTY", "")
    monkeypatch.setenv("HOOKCONF_TEST_TOKEN", "s3cret")
    env = {"A": "${HOOKCONF_TEST_UNSET_A:-x}", "B": "${HOOKCONF_TEST_EMPTY:-y}", "C": "${HOOKCONF_TEST_TOKEN:-z}"}
    config = parse_config(
        {"server": {"name": "x", "command": "node", "env": {**env, "D": "$${HOOKCONF_TEST_TOKEN:-z}"}}}
    )
    assert config.server.env == {"A": "x", "B": "y", "C": "s3cret", "D": "${HOOKCONF_TEST_TOKEN:-z}"}
