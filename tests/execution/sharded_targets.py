"""Targets for the sharded-run tests, named as ``python:tests.execution.sharded_targets:NAME``.

Each answers from the prompt and the seed hint only, so a shard, a rerun and a single run get
the same reply for one observation whichever process asks.
"""

from __future__ import annotations

import hashlib
import json

from modelscape.targets.protocol import TargetRequest


def _share(request: TargetRequest, salt: str) -> float:
    text = f"{salt}\n{request.seed}\n{request.prompt.model_dump_json()}"
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


def swayed(request: TargetRequest) -> str:
    """True more often the more the prompt doubts; never reads the claim."""
    doubt = request.prompt.model_dump_json().lower().count("sure")
    return json.dumps({"answer": _share(request, "swayed") > 0.3 + 0.15 * doubt})


def coin(request: TargetRequest) -> str:
    """A fair coin per observation; now and then a reply with no answer in it."""
    share = _share(request, "coin")
    return "no idea" if share < 0.1 else json.dumps({"answer": share < 0.55})
