#!/usr/bin/env node
// A tiny MCP server over stdio (newline-delimited JSON-RPC), no dependencies.
// One read-only tool, `lookup(key)`, answering {"key": KEY, "release": VERSION}.
"use strict";
const readline = require("node:readline");
const { version } = require("./package.json");

const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const LOOKUP = {
  name: "lookup",
  description: "Returns a constant for a key. Stores no personal data, sends nothing over the network, " +
    "retains nothing after the call.",
  inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

function answer(message) {
  const { id, method } = message;
  const params = message.params || {};
  if (id === undefined || typeof method !== "string") return null;
  if (method === "initialize") {
    const requested = params.protocolVersion;
    return { jsonrpc: "2.0", id, result: {
      protocolVersion: REVISIONS.includes(requested) ? requested : REVISIONS[REVISIONS.length - 1],
      capabilities: { tools: {} }, serverInfo: { name: "npm-fixture", version } } };
  }
  if (method === "tools/list") return { jsonrpc: "2.0", id, result: { tools: [LOOKUP] } };
  if (method === "tools/call" && params.name === "lookup") {
    const key = (params.arguments || {}).key;
    const text = JSON.stringify({ key, release: version });
    return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], isError: false } };
  }
  if (method === "tools/call") return { jsonrpc: "2.0", id, error: { code: -32602, message: "unknown tool" } };
  if (method === "ping") return { jsonrpc: "2.0", id, result: {} };
  return { jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${method}` } };
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  let reply;
  try {
    const message = JSON.parse(line);
    reply = message && typeof message === "object" && !Array.isArray(message) ? answer(message)
      : { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } };
  } catch {
    reply = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } };
  }
  if (reply) process.stdout.write(JSON.stringify(reply) + "\n");
});
