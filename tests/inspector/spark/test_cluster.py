"""The cluster path, proven: a real Spark standalone master and worker on 127.0.0.1 from the installed pyspark,
and ``rmq-inspect spark export --master spark://127.0.0.1:PORT`` run against them in a separate process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from external_tools import JAVA, need

from inspector.engine import Message, Store
from inspector.engine.present.views import message_view
from inspector.spark.jobs.export import read_messages
from inspector.spark.session import ARROW_JAVA_OPTIONS

pytestmark = pytest.mark.spark_cluster


def free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def wait_for(predicate, timeout: float, what: str, procs) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        dead = [p for p in procs if p.poll() is not None]
        if dead:
            raise AssertionError(f"{what}: a Spark daemon exited with {dead[0].returncode}")
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def stop(proc: subprocess.Popen) -> None:
    """End a daemon this test started (its own process group, by id)."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(20)


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    """``spark://127.0.0.1:PORT`` of a master with one registered worker (2 cores, 1 GiB); both are killed after."""
    import pyspark

    need(JAVA)
    home = Path(pyspark.__file__).parent
    tmp = tmp_path_factory.mktemp("standalone")
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(tmp),
           "SPARK_WORKER_DIR": str(tmp / "work")}
    # the daemons' JVMs compile with C1 only, as the drivers do (tests/conftest.py: SPARK_SUBMIT_OPTS)
    env.setdefault("SPARK_DAEMON_JAVA_OPTS", env.get("SPARK_SUBMIT_OPTS", ""))
    master_port, master_ui, worker_port, worker_ui = free_ports(4)
    spark_class = str(home / "bin" / "spark-class")
    master_log, worker_log = tmp / "master.log", tmp / "worker.log"
    procs: list[subprocess.Popen] = []
    try:
        with open(master_log, "wb") as log:
            procs.append(subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                 "--port", str(master_port), "--webui-port", str(master_ui)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True))
        wait_for(lambda: port_open(master_port), 120, "the master", procs)
        url = f"spark://127.0.0.1:{master_port}"
        with open(worker_log, "wb") as log:
            procs.append(subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--port", str(worker_port),
                 "--webui-port", str(worker_ui), "--cores", "2", "--memory", "1g", "--work-dir", str(tmp / "work"), url],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True))
        wait_for(lambda: b"Successfully registered with master" in worker_log.read_bytes(), 120,
                 "the worker to register", procs)
        yield {"url": url, "env": env, "work": tmp / "work"}
    finally:
        for p in reversed(procs):
            stop(p)


def test_export_on_a_standalone_cluster(standalone, spark, sample_store, tmp_path):
    out = tmp_path / "out"
    env = {**standalone["env"], "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    cmd = [sys.executable, "-m", "inspector.cli.main", "spark", "export", str(sample_store), "--master", standalone["url"],
           "--out", str(out), "--no-progress", "--conf", "spark.driver.host=127.0.0.1",
           "--conf", "spark.driver.bindAddress=127.0.0.1", "--conf", "spark.executor.memory=512m",
           "--conf", "spark.ui.enabled=false",
           # the executor's JVM compiles with C1 only too (tests/conftest.py), next to the default Arrow options
           "--conf", f"spark.executor.extraJavaOptions={ARROW_JAVA_OPTIONS} {os.environ.get('SPARK_SUBMIT_OPTS', '')}"]
    run = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert "exported 402 message(s) from 3 segment(s)" in run.stdout.replace("\n", " ")
    # the executors ran in the worker's work directory, with our zip shipped to them
    shipped = list(standalone["work"].glob("app-*/*/rmq_inspect-*.zip"))
    assert shipped, sorted(str(p) for p in standalone["work"].rglob("*"))[:50]
    rows = read_messages(spark, str(out / "messages")).collect()
    with Store(sample_store) as store:
        expected = {m.physical_offset: message_view(m) for m in store.entries() if isinstance(m, Message)}
    assert len(rows) == len(expected) == 402
    for row in rows:
        d = row.asDict(recursive=True)
        v = expected[d["physical_offset"]]
        assert (d["msg_id"], d["topic"], d["keys"], d["properties"], d["body_base64"]) == (
            v["msg_id"], v["topic"], v["keys"], v["properties"], v["body_base64"])
