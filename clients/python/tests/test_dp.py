"""DP counts: the noise's standard deviation and sums over partitions."""

from __future__ import annotations

import math
import unittest
from typing import Any, Dict, List

from recorded import PARTITIONS, records
from vanon_reader.dp import dp_frame, noise_std, noise_variance, window_counts
from vanon_reader.records import Record, Topic


def pmf_variance(epsilon: float, sensitivity: float) -> float:
    """Variance from the law as docs/dp.md states it, summed term by term:
    P[X = x] = (1-p)/(1+p) p^|x|, p = exp(-1/b), b = sensitivity / epsilon."""
    p = math.exp(-1.0 / (sensitivity / epsilon))
    total, x = 0.0, 1
    while True:
        term = 2 * x * x * (1 - p) / (1 + p) * p ** x
        total += term
        if term < 1e-15 * total and x > 10:
            return total
        x += 1


def count_record(value: int, unclamped: int, partition: int, **extra: Any) -> Record:
    doc: Dict[str, Any] = {"release": 9, "query": "q", "cell": {"engine": "EV"}, "kind": "count", "value": value,
                           "epsilon": 0.5, "sensitivity": 4, "mechanism": "discrete_laplace",
                           "postprocessed": [], "partition": partition}
    if unclamped != value:
        doc["unclamped"] = unclamped
        doc["postprocessed"] = ["clamp_nonnegative"]
    doc.update(extra)
    return Record(Topic.COUNTS, "vehicle.counts.dp", 0, partition, f"9/{partition}", None, doc)


class NoiseTest(unittest.TestCase):
    def test_variance_matches_the_law_in_docs_dp(self) -> None:
        for eps, sens in [(1, 1), (0.5, 4), (0.01, 4), (3, 1), (0.02, 1)]:
            with self.subTest(epsilon=eps, sensitivity=sens):
                self.assertAlmostEqual(noise_variance(eps, sens) / pmf_variance(eps, sens), 1.0, places=9)

    def test_std_is_about_sqrt2_times_the_scale_when_the_scale_is_large(self) -> None:
        # Discrete Laplace of scale b tends to the continuous one (std sqrt(2) b).
        b = 4 / 2e-5
        self.assertAlmostEqual(noise_std(2e-5, 4) / (math.sqrt(2) * b), 1.0, places=6)

    def test_bad_parameters_are_refused(self) -> None:
        with self.assertRaises(ValueError):
            noise_std(0, 4)


class FrameTest(unittest.TestCase):
    def test_sums_over_partitions_add_unclamped_values_and_variances(self) -> None:
        frame = dp_frame([count_record(0, -500, 0), count_record(700, 700, 1)])
        self.assertEqual(list(frame["noisy"]), [-500, 700])
        sums = window_counts(frame, partitions=2)
        self.assertEqual(len(sums), 1)
        row = sums.iloc[0]
        self.assertEqual(row["noisy"], 200)  # not 700: the clamped 0 is biased
        self.assertEqual(row["value"], 200)
        self.assertEqual(row["reported"], 2)
        self.assertTrue(row["complete"])
        self.assertAlmostEqual(row["std"], math.sqrt(2) * noise_std(0.5, 4))
        self.assertEqual(row["cell.engine"], "EV")

    def test_a_sum_missing_a_partition_is_not_complete(self) -> None:
        sums = window_counts(dp_frame([count_record(3, 3, 0)]), partitions=2)
        self.assertFalse(sums.iloc[0]["complete"])

    def test_a_global_count_keeps_its_own_completeness(self) -> None:
        rec = count_record(40, 40, 0, scope="global", partitions=2, contributing_partitions=[0], complete=False,
                           window_start_ms=0, window_end_ms=60000)
        del rec.value["partition"]
        sums = window_counts(dp_frame([rec]), partitions=2)
        row = sums.iloc[0]
        self.assertEqual(row["scope"], "global")
        self.assertFalse(row["complete"])
        self.assertEqual(row["window_end_ms"], 60000)
        self.assertAlmostEqual(row["std"], noise_std(0.5, 4))

    def test_ratio_counts_get_half_the_epsilon_each(self) -> None:
        doc = {"release": 1, "query": "share", "cell": {"engine": "EV"}, "kind": "ratio", "value": 0.5,
               "numerator": 3, "denominator": 6, "unclamped_numerator": 3, "epsilon": 0.2, "sensitivity": 4,
               "mechanism": "discrete_laplace", "postprocessed": []}
        row = dp_frame([Record(Topic.COUNTS, "t", 0, 0, "1/0", None, doc)]).iloc[0]
        self.assertAlmostEqual(row["numerator_std"], noise_std(0.1, 4))

    def test_running_totals_have_no_single_record_std_and_are_not_summed(self) -> None:
        tree = count_record(10, 10, 0, mechanism="binary_tree_discrete_laplace")
        frame = dp_frame([tree, count_record(1, 1, 0)])
        self.assertTrue(math.isnan(frame.iloc[0]["std"]))
        self.assertEqual(len(window_counts(frame, partitions=1)), 1)

    def test_every_cell_of_a_recorded_release_is_summed_over_both_partitions(self) -> None:
        recs: List[Record] = [r for r in records() if r.kind is Topic.COUNTS]
        frame = dp_frame(recs)
        per_release = frame[frame["mechanism"] == "discrete_laplace"]
        sums = window_counts(frame, PARTITIONS)
        counts = per_release[per_release["kind"] == "count"]
        self.assertEqual(len(sums), len(counts) // PARTITIONS)
        self.assertTrue(sums["complete"].all())
        self.assertEqual(sums["noisy"].sum(), counts["noisy"].sum())
        clamped = counts[counts["value"] != counts["noisy"]]
        self.assertFalse(clamped.empty, "the recording has clamped counts (the demo's budget makes them noise)")


if __name__ == "__main__":
    unittest.main()
