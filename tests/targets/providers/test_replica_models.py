"""Replicas of one target must be one server each and serve one model: a second name for a
server is refused, and a replica whose replies name another model is stopped with a warning
before its answers count for the target."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.errors import ExecutionError
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.targets._resolve import resolve_target
from modelscape.targets.providers._replicas import Replicas, ReplicaWarning
from tests.support.mapping_space import FAST, scenario
from tests.targets.providers.wire import WireServer, chat_reply


@pytest.mark.parametrize(
    "urls",
    [
        ["http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"],
        ["http://127.0.0.1:8080/v1", "HTTP://127.0.0.1:8080/v1/"],
        ["http://localhost/v1", "http://LOCALHOST:80/v1"],
    ],
)
def test_one_server_named_twice_is_an_error_naming_it(urls: list[str]) -> None:
    with pytest.raises(ExecutionError, match=r"named twice.*name each server once"):
        Replicas(urls, where="target 't'")


def test_the_command_line_names_the_duplicate_without_a_traceback(tmp_path: object) -> None:
    target = "openai-compatible:m@http://127.0.0.1:9/v1,http://127.0.0.1:9/v1"
    done = CliRunner().invoke(main, ["run", "pressure", "--target", target, "--store", "memory:"])
    assert done.exit_code == 1
    assert not isinstance(done.exception, ValueError)
    assert "error: openai-compatible target 'm': the replica" in done.output
    assert "is named twice" in done.output


def test_each_replica_model_is_recorded_and_one_that_differs_is_stopped() -> None:
    replicas = Replicas(["a", "b", "c"])
    with replicas.call("t") as outcome:
        outcome.succeed()
    assert replicas.answered("a", "llama-3") is None
    assert replicas.answered("b", None) is None  # nothing to compare
    with pytest.warns(ReplicaWarning, match=r"replica c answers as model 'qwen', while a answers"):
        refused = replicas.answered("c", "qwen")
    assert refused is not None
    assert "no more calls" in refused
    assert replicas.models() == {"a": "llama-3", "b": None, "c": "qwen"}
    assert set(replicas.stopped()) == {"c"}
    for _ in range(6):  # the stopped replica never gets a call again, however idle it is
        with replicas.call("t") as outcome:
            assert outcome.url != "c"
            outcome.succeed()
    assert replicas.answered("c", "qwen") == refused  # a reply still in flight is refused too


def test_no_other_replica_is_asked_before_the_first_has_answered() -> None:
    replicas = Replicas(["a", "b"])
    with replicas.call("t") as first, replicas.call("t") as second:
        assert (first.url, second.url) == ("a", "a")
        first.succeed()
    assert replicas.answered("a", "llama-3") is None
    with replicas.call("t") as third, replicas.call("t") as fourth:
        assert (third.url, fourth.url) == ("a", "b")


def test_when_the_first_replica_is_down_the_next_model_named_is_kept() -> None:
    replicas = Replicas(["a", "b", "c"])
    with replicas.call("t") as outcome:
        assert outcome.url == "a"
        outcome.fail()
    with replicas.call("t") as outcome:
        assert outcome.url == "b"
    assert replicas.answered("b", "llama-3") is None
    with pytest.warns(ReplicaWarning, match="replica c answers as model 'qwen', while b"):
        replicas.answered("c", "qwen")


@pytest.fixture
def two_models() -> Iterator[tuple[WireServer, WireServer]]:
    """Two servers behind one target: one serves the model asked for, one another."""
    right = WireServer(lambda seen: chat_reply('{"answer": "yes"}', model="m")).start()
    wrong = WireServer(lambda seen: chat_reply('{"answer": "no"}', model="other")).start()
    yield right, wrong
    right.stop()
    wrong.stop()


def test_a_run_uses_no_answer_of_a_replica_serving_another_model(
    two_models: tuple[WireServer, WireServer],
) -> None:
    right, wrong = two_models
    target = resolve_target(f"openai-compatible:m@{right.url}/v1,{wrong.url}/v1")
    experiment = scenario(cases=4, repetitions=3).experiment([target], FAST)
    with pytest.warns(ReplicaWarning, match=f"replica {wrong.url}/v1/chat/completions answers"):
        results = Runner().run(experiment)
    assert len(run_of(results).failed) == 0
    assert {o.output.model for o in run_of(results).observations} == {"m"}
    assert {o.output.text for o in run_of(results).observations} == {'{"answer": "yes"}'}
    assert target.replicas is not None
    assert target.replicas.models()[f"{wrong.url}/v1/chat/completions"] == "other"
    # Calls went to it once the first replica had answered, until its first reply came back;
    # every one of them was asked again of the first.
    assert 1 <= len(wrong.seen) <= FAST.concurrency
    assert len(right.seen) == experiment.calls()
