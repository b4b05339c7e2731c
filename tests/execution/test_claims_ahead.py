"""The next chunk is claimed while the current one is still being asked.

Each claim is a write transaction that waits for the store, so the feed makes the next one as
soon as half of the current chunk has been handed out, and the workers asking the other half
never wait for it. That holds too when the plan's blocks end exactly where a chunk ends
(nothing is left over for the next claim until the next block is read).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from modelscape.execution.feed import Feed
from modelscape.execution.plan import Blocks, Reuse
from modelscape.store.memory import MemoryStore
from tests.support.mapping_space import experiment, planted

CHUNK = 4
#: How long the test waits for a claim before it takes it as never made.
PATIENCE = 20.0


class CountedClaims(MemoryStore):
    """A memory store that counts the claims made of it."""

    def __init__(self) -> None:
        super().__init__()
        self.claims = 0

    def claim(self, ids: Sequence[str], holder: str, seconds: float) -> set[str]:
        self.claims += 1
        return super().claim(ids, holder, seconds)


async def _claims_reach(store: CountedClaims, count: int) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PATIENCE
    while store.claims < count and loop.time() < deadline:
        await asyncio.sleep(0.01)
    return store.claims >= count


def test_the_second_chunk_is_claimed_while_the_first_is_asked() -> None:
    run = experiment([planted()], repetitions=2)
    planned = [p.id for p in run.plan()]
    assert len(planned) > 3 * CHUNK
    store = CountedClaims()
    reuse = Reuse(store, run.id, [])

    async def main() -> tuple[list[str], bool]:
        # blocks of one chunk: the first claim takes the whole first block
        blocks = Blocks(run.plan(), store, reuse, size=CHUNK)
        feed = Feed(blocks, store, reuse=reuse, budget=60.0, chunk=CHUNK)
        handed = []
        for _ in range(CHUNK // 2):
            first = await feed.next()
            assert first is not None
            handed.append(first.id)
        assert store.claims == 1
        ahead = await _claims_reach(store, 2)
        while (planned_observation := await feed.next()) is not None:
            handed.append(planned_observation.id)
        feed.release()
        return handed, ahead

    handed, ahead = asyncio.run(main())
    assert ahead
    assert handed == planned
