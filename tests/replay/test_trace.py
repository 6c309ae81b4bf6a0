"""Trace CSVs and the synthetic generator: the format, clear errors, seeded and heavy-tailed draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from volcano.replay import COLUMNS, SyntheticSpec, TraceError, read_trace, synthetic_trace, write_trace

HEADER = ",".join(COLUMNS)


def lines(*rows: str, header: str = HEADER) -> list[str]:
    return [header + "\n", *(r + "\n" for r in rows)]


def test_rows_become_jobs_sorted_by_submit_time() -> None:
    jobs = read_trace(lines("30,2,4,16Gi,1,600,prod", "0,1,500m,1Gi,0,60.5,dev"))
    assert [(j.name, j.submit_s, j.gang_size, j.cpu, j.memory, j.gpu, j.duration_s, j.queue) for j in jobs] == [
        ("job-1", 0.0, 1, "500m", "1Gi", 0, 60.5, "dev"), ("job-0", 30.0, 2, "4", "16Gi", 1, 600.0, "prod")]
    assert jobs[1].gpus == 2


def test_columns_in_any_order_with_names_and_extra_columns() -> None:
    header = "queue,duration_s,gpu,memory,cpu,gang_size,submit_s,name,comment"
    [job] = read_trace(lines("dev,10,2,8Gi,2,4,5,my-job,ignored", header=header))
    assert (job.name, job.gang_size, job.gpu, job.queue) == ("my-job", 4, 2, "dev")


@pytest.mark.parametrize(("row", "message"), [
    ("x,1,4,16Gi,1,600,prod", "line 2, column submit_s: expected a number of seconds >= 0, got 'x'"),
    ("-1,1,4,16Gi,1,600,prod", "line 2, column submit_s: expected a number of seconds >= 0, got '-1'"),
    ("0,0,4,16Gi,1,600,prod", "line 2, column gang_size: expected a whole number > 0, got '0'"),
    ("0,1,abc,16Gi,1,600,prod", "line 2, column cpu: expected a Kubernetes quantity"),
    ("0,1,4,-1Gi,1,600,prod", "line 2, column memory: expected a quantity >= 0, got '-1Gi'"),
    ("0,1,4,16Gi,1.5,600,prod", "line 2, column gpu: expected a whole number >= 0, got '1.5'"),
    ("0,1,4,16Gi,1,0,prod", "line 2, column duration_s: expected a number of seconds > 0, got '0'"),
    ("0,1,4,16Gi,1,nan,prod", "line 2, column duration_s: expected a number of seconds > 0, got 'nan'"),
    ("0,1,4,16Gi,1,600,Prod_Q", "line 2, column queue: expected a queue name"),
    ("0,1,4,16Gi,1,600,", "line 2, column queue: missing value"),
    ("0,1,4,16Gi", "line 2, column gpu: missing value"),
    ("0,1,4,16Gi,1,600,prod,extra", "line 2: 8 values for 7 columns"),
])
def test_a_bad_row_names_its_line_and_column(row: str, message: str) -> None:
    with pytest.raises(TraceError) as err:
        read_trace(lines(row))
    assert str(err.value).startswith(message), str(err.value)


def test_the_line_number_counts_from_the_header() -> None:
    with pytest.raises(TraceError, match=r"^line 4, column gpu"):
        read_trace(lines("0,1,4,16Gi,1,600,prod", "1,1,4,16Gi,1,600,prod", "2,1,4,16Gi,x,600,prod"))


def test_a_missing_column_or_a_duplicate_name_is_refused() -> None:
    with pytest.raises(TraceError, match=r"^line 1: missing columns duration_s, queue \(expected submit_s,"):
        read_trace(lines("0,1,4,16Gi,1", header="submit_s,gang_size,cpu,memory,gpu"))
    with pytest.raises(TraceError, match=r"^line 1: empty trace"):
        read_trace([])
    with pytest.raises(TraceError, match=r"^line 3, column name: duplicate job name 'a'"):
        read_trace(lines("a,0,1,4,16Gi,1,600,prod", "a,1,1,4,16Gi,1,600,prod", header="name," + HEADER))


def test_a_written_trace_reads_back_the_same(tmp_path) -> None:
    jobs = synthetic_trace(3, SyntheticSpec(nodes=16, hours=1, jobs=50))
    path = tmp_path / "t.csv"
    write_trace(jobs, path)
    assert read_trace(path) == jobs


def test_the_same_seed_draws_the_same_trace_and_another_seed_another() -> None:
    spec = SyntheticSpec(nodes=64, hours=2, jobs=300)
    assert synthetic_trace(7, spec) == synthetic_trace(7, spec)
    assert synthetic_trace(7, spec) != synthetic_trace(8, spec)


def test_the_synthetic_shape_poisson_arrivals_heavy_tails_weighted_queues() -> None:
    spec = SyntheticSpec(nodes=1000, hours=24, jobs=20000)
    jobs = synthetic_trace(0, spec)
    assert len(jobs) == 20000
    submits = np.array([j.submit_s for j in jobs])
    assert submits.min() >= 0 and submits.max() <= 24 * 3600 and np.all(np.diff(submits) >= 0)
    gaps = np.diff(submits)
    assert abs(gaps.std() / gaps.mean() - 1) < 0.05  # exponential gaps: coefficient of variation 1
    gangs = np.array([j.gang_size for j in jobs])
    assert set(np.unique(gangs)) <= {2 ** k for k in range(10)} and gangs.max() <= 1000
    assert np.mean(gangs == 1) > 0.5 and gangs.max() >= 128  # mostly single pods, a long tail
    durations = np.array([j.duration_s for j in jobs])
    assert abs(np.median(durations) - 480) < 25 and durations.max() > 50 * np.median(durations)
    assert all(j.gpu == 8 for j in jobs if j.gang_size >= 8)
    offered = sum(j.gpus * j.duration_s for j in jobs) / (24 * 3600 * spec.nodes * spec.gpus_per_node)
    assert 0.8 < offered < 1.0  # GPU-seconds asked for over GPU-seconds the day holds: a busy cluster
    share = {q: sum(j.queue == q for j in jobs) / len(jobs) for q, _ in spec.queues}
    for queue, weight in spec.queues:
        assert math.isclose(share[queue], weight / 10, abs_tol=0.02), (queue, share)
