"""A shop MCP server whose behaviour depends on the release it plays (built with the MCP Python SDK).

CLI: python shop_server.py --release 1.2|1.9|1.10

  1.2   get_price is deterministic, its description says nothing about data  -> dsgvo WARN (DSGVO-002)
  1.9   the description documents the data flow                             -> dsgvo PASS (better)
        daily_deal is gone; find_item and list_categories are new           -> tools 3 -> 4
  1.10  get_price tags every answer with a fresh request id                  -> idempotency FAIL (IDEMP-001)

Every tool but get_price passes every hook suite, in every release that has it.
"""

from __future__ import annotations

import argparse
import json
import uuid

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DATA_NOTE = " Reads the in-memory price list; stores no personal data, sends nothing over the network, retains nothing."
PRICES = {"apple": 3, "banana": 2}
CATEGORIES = {"apple": "fruit", "banana": "fruit"}


def build(release: str) -> MCPServer:
    server = MCPServer(name="shop-fixture", version=release, log_level="WARNING")
    documented = release != "1.2"
    tags_requests = release == "1.10"

    @server.tool(
        description="Price of one item." + (DATA_NOTE if documented else ""),
        annotations=READ_ONLY,
        structured_output=False,
    )
    def get_price(item: str) -> str:
        answer: dict[str, object] = {"item": item, "price": PRICES.get(item)}
        if tags_requests:
            answer["served_by"] = uuid.uuid4().hex[:12]
        return json.dumps(answer, sort_keys=True)

    @server.tool(
        description="Lists every item and its price." + DATA_NOTE, annotations=READ_ONLY, structured_output=False
    )
    def list_prices() -> str:
        return json.dumps(PRICES, sort_keys=True)

    if release == "1.2":

        @server.tool(description="Today's discounted item." + DATA_NOTE, annotations=READ_ONLY, structured_output=False)
        def daily_deal() -> str:
            return json.dumps({"item": "banana", "price": 1}, sort_keys=True)
    else:

        @server.tool(
            description="Whether an item is sold, and its category." + DATA_NOTE,
            annotations=READ_ONLY,
            structured_output=False,
        )
        def find_item(item: str) -> str:
            return json.dumps({"item": item, "category": CATEGORIES.get(item)}, sort_keys=True)

        @server.tool(
            description="Lists the categories of the items sold." + DATA_NOTE,
            annotations=READ_ONLY,
            structured_output=False,
        )
        def list_categories() -> str:
            return json.dumps(sorted(set(CATEGORIES.values())))

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--release", required=True)
    build(parser.parse_args().release).run("stdio")


if __name__ == "__main__":
    main()
