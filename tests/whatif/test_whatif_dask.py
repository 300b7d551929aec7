"""Sweeps on a Dask cluster: distributed's Executor gives the same table as the local pool."""

from __future__ import annotations

import distributed
import numpy as np
import pytest
from helpers.programs import exchange, wrap

from mpisim.whatif import executors, min_buffer, sweep

EXCHANGE_YAML = """\
name: exchange
ranks: 2
params: {count: 1000}
network: {latency: 1us, bandwidth: 10 GB/s, eager_limit: 4 KiB}
buffer: 8 KiB
programs:
  - ranks: all
    ops:
      - bsend: {dest: 1 - rank, count: count, datatype: REAL, tag: 0}
      - recv: {source: 1 - rank, count: count, datatype: REAL, tag: 0}
"""


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.mark.timeout(90)
def test_a_scenario_sweep_on_a_local_cluster_equals_the_local_pool(client, tmp_path,
                                                                   monkeypatch):
    path = tmp_path / "exchange.yaml"
    path.write_text(EXCHANGE_YAML)
    vary = {"count": "250..2500:250", "buffer": ["2 KiB", "8 KiB", "16 KiB"],
            "network.eager_limit": "1KiB,64KiB"}
    on_dask = sweep(path, vary, client.get_executor())
    monkeypatch.setattr(executors, "POOL_STARTUP", 0.0)  # a local pool, however short
    local = sweep(path, vary, jobs=2)
    assert len(on_dask) == 60
    assert np.array_equal(on_dask.array, local.array)
    assert {"completed", "error"} <= set(on_dask.array["outcome"].tolist())


@pytest.mark.timeout(90)
def test_a_program_sweep_and_min_buffer_samples_run_on_the_cluster(client):
    vary = {"count": [250, 1000, 2000], "network.eager_limit": [1024, 8192]}
    on_dask = sweep(exchange, vary, client.get_executor(), ranks=2)
    assert np.array_equal(on_dask.array, sweep(exchange, vary, ranks=2, jobs=1).array)
    found = min_buffer(wrap, executor=client.get_executor(), ranks=2,
                       network={"eager_limit": 0})
    assert (found.min_buffer, found.peak_live, found.non_monotonic) == (
        1800, [1800, 0], [[2200, 2399]])
