"""SessionPool: which session a fresh-session check or a restart gets, the recordings in the order the checks read
them, and every session closed when the pool's block ends, also when it raises. Scripted sessions: no process."""

from __future__ import annotations

import pytest

from hookconf.session import McpSession
from tests.transcript import TranscriptPool, audit_config, good_server, transcript_session

pytestmark = pytest.mark.unit

GOOD = good_server()
CLOSED = "the scripted server was closed"


def pool_and_main(**server: str) -> tuple[TranscriptPool, McpSession]:
    config = audit_config(**({"server": server} if server else {}))
    main = transcript_session(GOOD, config)
    return TranscriptPool(GOOD, config, main), main


def closed(*sessions: McpSession | None) -> bool:
    return all(s is not None and s.transport.closed_reason == CLOSED for s in sessions)


def test_the_spare_serves_the_first_fresh_session_and_the_pool_closes_every_session() -> None:
    pool, main = pool_and_main()
    with pool:
        pool.start_spare()
        spare = pool.spare
        assert spare is not None
        with pool.fresh() as first:
            assert first is spare
        assert pool.spare is None
        with pool.fresh() as second:
            assert second is not spare
        assert not closed(main)
        assert pool.recordings == [spare.transport.recording, second.transport.recording]
    assert closed(main, spare, second)


def test_the_pool_closes_every_session_when_its_block_raises() -> None:
    pool, main = pool_and_main()
    pool.start_spare()
    spare = pool.spare

    def broken_check() -> None:
        with pool:
            raise RuntimeError("a check broke")

    with pytest.raises(RuntimeError, match="a check broke"):
        broken_check()
    assert closed(main, spare)


def test_a_fresh_session_left_unrecorded_is_not_among_the_recordings() -> None:
    pool, _ = pool_and_main()
    with pool:
        pool.start_spare()
        with pool.fresh(recorded=False):
            pass
        assert pool.recordings == []


def test_a_replacement_is_the_booted_spare_and_the_replaced_servers_recording_joins_the_others() -> None:
    pool, main = pool_and_main()
    with pool:
        pool.start_spare()
        spare = pool.spare
        replacement = pool.replace(main)
        assert replacement is spare
        assert pool.recordings == [main.transport.recording]  # the spare's is the main recording now
        again = pool.replace(replacement)  # no spare: a server started now
        assert again is not spare
        assert pool.recordings == [main.transport.recording, replacement.transport.recording]
    assert closed(main, replacement, again)


def test_a_spare_is_started_only_for_a_stdio_server() -> None:
    pool, _ = pool_and_main(name="remote", transport="http", url="http://127.0.0.1:9/mcp")
    with pool:
        pool.start_spare()
        assert pool.spare is None
