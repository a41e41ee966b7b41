"""Our own small, exact JSON-RPC wire: framing, transports, process supervision, recording."""
