"""verify's record-side LMQ check (rocketmq-all-5.3.1 MultiDispatch.wrapMultiDispatch and
ConsumeQueue.multiDispatchLmqQueue): a record whose INNER_MULTI_DISPATCH and INNER_MULTI_QUEUE_OFFSET the broker
cannot dispatch as written is named, even when no LMQ unit points at it; a healthy LMQ store stays clean."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import Store, verify
from inspector.engine.maintain.verify.lmq import multi_dispatch_problems
from tests.lmq_store import write_lmq_store, write_odd_multi_dispatch_store

SEG = "commitlog/00000000000000000000"
_store = write_odd_multi_dispatch_store


def _findings(root: Path) -> list[tuple[str, int, str, str]]:
    with Store(root) as store:
        return [(p.file, p.offset, p.code, p.severity) for p in verify(store).problems]


def test_lengths_that_disagree_are_an_error_naming_the_record(tmp_path: Path, capsys) -> None:
    root, at = _store(tmp_path / "s", {"INNER_MULTI_DISPATCH": "%LMQ%a,%LMQ%b", "INNER_MULTI_QUEUE_OFFSET": "0"})
    # the record's properties, spelt out by hand: the producer's pair as written, in the record's bytes
    with open(root / SEG, "rb") as f:
        f.seek(at)
        raw = f.read(4096)
    props = b"INNER_MULTI_DISPATCH\x01%LMQ%a,%LMQ%b\x02INNER_MULTI_QUEUE_OFFSET\x010\x02"
    size = struct.unpack_from(">i", raw, 0)[0]
    assert props in raw[:size]
    assert _findings(root) == [(SEG, at, "lmq-offsets-mismatch", "error")]
    assert main(["verify", str(root)]) == 4
    out = " ".join("".join(capsys.readouterr()).split())
    assert "lmq-offsets-mismatch" in out and "INNER_MULTI_DISPATCH names 2 queue(s)" in out


@pytest.mark.parametrize(("props", "codes"), [
    ({"INNER_MULTI_DISPATCH": "%LMQ%a,TopicB", "INNER_MULTI_QUEUE_OFFSET": "4,7"}, [("lmq-not-lmq", "warning")]),
    # what wrapMultiDispatch writes for a plain name: an empty offset (null joined) -> parseLong fails
    ({"INNER_MULTI_DISPATCH": "TopicB,%LMQ%a", "INNER_MULTI_QUEUE_OFFSET": ",3"}, [("lmq-bad-offset", "error")]),
    # ... and as the last name the empty piece is dropped by split: a length mismatch
    ({"INNER_MULTI_DISPATCH": "%LMQ%a,TopicB", "INNER_MULTI_QUEUE_OFFSET": "3,"}, [("lmq-offsets-mismatch", "error")]),
    ({"INNER_MULTI_DISPATCH": "%LMQ%a/b,%LMQ%c", "INNER_MULTI_QUEUE_OFFSET": "1,x"},
     [("lmq-skipped-name", "warning"), ("lmq-bad-offset", "error")]),
])
def test_what_the_broker_does_with_each_odd_pair(tmp_path: Path, props, codes) -> None:
    root, at = _store(tmp_path / "s", props, plain=2)
    found = _findings(root)
    assert [(c, s) for _, _, c, s in found] == codes and {o for _, o, _, _ in found} == {at}


def test_records_the_broker_does_not_multi_dispatch_are_left_alone(tmp_path: Path) -> None:
    bad = {"INNER_MULTI_DISPATCH": "%LMQ%a,%LMQ%b", "INNER_MULTI_QUEUE_OFFSET": "0"}
    root, _ = _store(tmp_path / "retry", bad, topic="%RETRY%g", plain=1)
    assert _findings(root) == []
    root, _ = _store(tmp_path / "no-offsets", {"INNER_MULTI_DISPATCH": "%LMQ%a"}, plain=1)  # enableMultiDispatch off
    assert _findings(root) == []
    root, _ = _store(tmp_path / "in-body", {}, plain=1)
    with Store(root) as store:  # the name in a body (not in properties) is no multi-dispatch
        msg = next(iter(store.entries()))
        assert multi_dispatch_problems(msg) == []


def test_a_healthy_lmq_store_stays_clean(tmp_path: Path) -> None:
    root = write_lmq_store(tmp_path / "s")
    assert _findings(root) == []


def test_a_store_that_cannot_hold_lmq_records_is_not_searched_again(tmp_path: Path, monkeypatch) -> None:
    """The record-side check is a second pass over every segment: only stores with LMQ signs pay it (%LMQ%
    queues, lmqConsumerOffset.json, enableLmq in broker.conf); the sample store has none."""
    from inspector.engine.maintain.verify import lmq as verify_lmq

    searched: list[str] = []
    real = verify_lmq._holds
    monkeypatch.setattr(verify_lmq, "_holds", lambda mf, buf: searched.append(mf.rel) or real(mf, buf))
    with Store(Path(__file__).resolve().parents[5] / "sample_store") as store:
        assert not verify_lmq.may_multi_dispatch(store) and not verify(store).errors
    assert searched == []
    root, _ = _store(tmp_path / "s", {"INNER_MULTI_DISPATCH": "%LMQ%a", "INNER_MULTI_QUEUE_OFFSET": "0"})
    with Store(root) as store:
        assert verify_lmq.may_multi_dispatch(store)
        verify(store)
    assert searched == [SEG]


@pytest.mark.parametrize("compiled", [True, False], ids=["kernels", "python"])
def test_a_store_whose_only_lmq_signs_were_deleted_is_searched_from_its_records(tmp_path: Path, compiled) -> None:
    """Both %LMQ% queue folders deleted and the LMQ offsets file gone: no sign of LMQ is left but the records'
    INNER_MULTI_DISPATCH, which verify's walk notices as it parses each record's properties; the missing LMQ
    queues are then ``cq-missing`` errors, as for an ordinary queue (it verified clean)."""
    import contextlib
    import shutil

    from inspector.engine.maintain.verify import lmq as verify_lmq
    from inspector.engine.scan.kernels import python_only

    root = write_lmq_store(tmp_path / "s")
    for name in ("%LMQ%x", "%LMQ%y"):
        shutil.rmtree(root / "consumequeue" / name)
    (root / "config" / "lmqConsumerOffset.json").unlink()
    with python_only() if not compiled else contextlib.nullcontext(), Store(root) as store:
        assert not verify_lmq.may_multi_dispatch(store)
        found = [(p.code, p.severity, p.reason.split(" (")[0]) for p in verify(store).problems]
    assert found == [("cq-missing", "error", "3 record(s) multi-dispatched to %LMQ%x queue 0"),
                     ("cq-missing", "error", "1 record(s) multi-dispatched to %LMQ%y queue 0")], found
