"""Differentially private counts (topic ``vehicle.counts.dp``) as a table,
with the standard deviation of each count's noise, and sums that are right.

The noise is the discrete Laplace (two-sided geometric) distribution
``P[X = x] = (1 - a) / (1 + a) * a^|x|`` with ``a = exp(-epsilon /
sensitivity)``, where ``epsilon`` is what was spent on that one count and
``sensitivity`` how much one vehicle can change it (docs/dp.md). Its
variance is ``2a / (1 - a)^2``. A record's ``epsilon`` is per count, except
for a ratio record, whose ``epsilon`` covers both counts (half each).

Sums over partitions, cells or windows must add the noisy value before
clamping (``unclamped``, present when clamping changed it): clamped values
are biased upwards and the bias adds up. The tables here carry that value
as ``noisy`` for every record.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Mapping, Optional

import pandas as pd

from .records import Record

# Mechanisms whose noise this module can state from one record alone.
PER_COUNT_MECHANISM = "discrete_laplace"


def noise_variance(epsilon: float, sensitivity: float) -> float:
    """Variance of discrete Laplace noise for one count."""
    if epsilon <= 0 or sensitivity <= 0:
        raise ValueError("epsilon and sensitivity must be > 0")
    a = math.exp(-epsilon / sensitivity)
    return 2.0 * a / (1.0 - a) ** 2


def noise_std(epsilon: float, sensitivity: float) -> float:
    """Standard deviation of discrete Laplace noise for one count."""
    return math.sqrt(noise_variance(epsilon, sensitivity))


def _row(record: Mapping[str, Any], key: Optional[str] = None) -> Dict[str, Any]:
    kind = record.get("kind", "count")
    mechanism = record["mechanism"]
    row: Dict[str, Any] = {
        "release": record["release"],
        "query": record["query"],
        "cell": ",".join(f"{k}={v}" for k, v in sorted(record["cell"].items())),
        "kind": kind,
        "mechanism": mechanism,
        "scope": record.get("scope", "partition"),
        "partition": record.get("partition"),
        "window_start_ms": record.get("window_start_ms"),
        "window_end_ms": record.get("window_end_ms"),
        "value": record["value"],
        "epsilon": record["epsilon"],
        "sensitivity": record.get("sensitivity"),
        "complete": record.get("complete"),
        "key": key,
    }
    for dim, v in record["cell"].items():
        row[f"cell.{dim}"] = v
    known = mechanism == PER_COUNT_MECHANISM and row["sensitivity"]
    if kind == "count":
        row["noisy"] = record.get("unclamped", record["value"])
        row["std"] = noise_std(record["epsilon"], row["sensitivity"]) if known else math.nan
    else:
        # Each of the two counts got half the record's epsilon; the record
        # states the larger of their sensitivities, so these are upper bounds.
        half = noise_std(record["epsilon"] / 2, row["sensitivity"]) if known else math.nan
        row["numerator"] = record["numerator"]
        row["denominator"] = record["denominator"]
        row["noisy_numerator"] = record.get("unclamped_numerator", record["numerator"])
        row["noisy_denominator"] = record.get("unclamped_denominator", record["denominator"])
        row["numerator_std"] = half
        row["denominator_std"] = half
    return row


def dp_frame(records: Iterable[Record]) -> pd.DataFrame:
    """One row per DP record: ``value`` as published, ``noisy`` before
    clamping, ``std`` of the noise (NaN for running totals, whose noise
    depends on how many windows or tree blocks they cover), the cell's
    dimensions as ``cell.<name>`` columns and ``cell`` as one string."""
    rows: List[Dict[str, Any]] = [_row(r.value, r.key) for r in records]
    return pd.DataFrame(rows)


def window_counts(dp: pd.DataFrame, partitions: int) -> pd.DataFrame:
    """Counts per query, window and cell over the whole input.

    Per-partition counts (``scope`` partition) are summed over partitions
    from their unclamped values, with variances added; ``reported`` says how
    many partitions the sum covers and ``complete`` whether that is all of
    them. Global counts (``scope`` global) are one noisy count already and
    keep their own ``complete``. Running totals are left out: sum these
    window counts instead (their std is then the root of the summed
    variances). ``value`` is the clamped sum, ``noisy`` the sum itself."""
    if dp.empty:
        return pd.DataFrame()
    counts = dp[(dp["kind"] == "count") & (dp["mechanism"] == PER_COUNT_MECHANISM)].copy()
    counts["variance"] = counts["std"] ** 2
    keys = ["query", "release", "cell", "window_start_ms", "window_end_ms", "scope"]
    for k in ("window_start_ms", "window_end_ms"):
        counts[k] = counts[k].fillna(-1).astype("int64")
    grouped = counts.groupby(keys, sort=True, dropna=False)
    out = grouped.agg(noisy=("noisy", "sum"), variance=("variance", "sum"), reported=("noisy", "size"),
                      epsilon=("epsilon", "first"), sensitivity=("sensitivity", "first"),
                      global_complete=("complete", "first")).reset_index()
    cell_columns = [c for c in counts.columns if c.startswith("cell.")]
    firsts = grouped[cell_columns].first().reset_index(drop=True)
    out = pd.concat([out, firsts], axis=1)
    out["std"] = out["variance"] ** 0.5
    out["value"] = out["noisy"].clip(lower=0)
    is_global = out["scope"] == "global"
    out["complete"] = (out["reported"] == partitions) & ~is_global
    out.loc[is_global, "complete"] = out.loc[is_global, "global_complete"].fillna(False).astype(bool)
    for k in ("window_start_ms", "window_end_ms"):
        out[k] = out[k].where(out[k] >= 0)
    return out.drop(columns=["variance", "global_complete"])
