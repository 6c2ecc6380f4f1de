"""A complete release as pandas tables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List

import pandas as pd

from .completeness import AssembledRelease
from .dp import dp_frame, window_counts
from .records import Record


def _table(records: List[Record], extra: bool = False) -> pd.DataFrame:
    """Nested fields become dotted columns (``qi.engine``, ``payload.speed_kmh``,
    ``metrics.ncp``); lists (a group's ``sensitive`` values) stay lists."""
    docs: List[Dict[str, Any]] = [r.value for r in records]
    frame = pd.json_normalize(docs) if docs else pd.DataFrame()
    if extra and docs:
        frame["kafka.partition"] = [r.partition for r in records]
        frame["kafka.offset"] = [r.offset for r in records]
    return frame


@dataclass
class Release:
    """One complete release: every input partition's share is in.

    - ``summary``: one row per input partition (``groups``, ``tuples``,
      ``published``, ``counterfeits``, ``events``, ``waiting``,
      ``suppressed.<reason>``, ``metrics.<name>``).
    - ``groups``: one row per group (``partition``, ``group``, ``size``,
      ``counterfeits``, ``sensitive`` as a list, ``qi.<name>``). A group's
      values include its counterfeits' values and are never linked to a
      tuple token.
    - ``events``: one row per anonymized event (``group``, ``tuple``, ``ts``
      in ms, ``event``, ``qi.<name>``, ``payload.<path>``). Join them to
      their group with :meth:`events_with_groups` (key: release and group).
    - ``dp``: the DP records committed with this release's shares (per
      release, or the windows it closed), one row each with the noise's
      ``std`` and the ``noisy`` (unclamped) value to sum.
    """

    id: int
    partitions: int
    epoch_start_ms: int
    epoch_end_ms: int
    summary: pd.DataFrame
    groups: pd.DataFrame
    events: pd.DataFrame
    dp: pd.DataFrame

    @classmethod
    def from_records(cls, assembled: AssembledRelease) -> "Release":
        summary = _table(assembled.summaries)
        first = assembled.summaries[0].value
        return cls(id=assembled.release, partitions=assembled.partitions, epoch_start_ms=first["epoch_start"],
                   epoch_end_ms=first["epoch_end"], summary=summary, groups=_table(assembled.groups),
                   events=_table(assembled.events), dp=dp_frame(assembled.dp))

    @property
    def published(self) -> int:
        """Real vehicles (tuples) published, over all partitions."""
        return int(self.summary["published"].sum())

    @property
    def suppressed(self) -> int:
        """Vehicles suppressed in this release, all reasons."""
        cols = [c for c in self.summary.columns if c.startswith("suppressed.")]
        return int(self.summary[cols].to_numpy().sum())

    @property
    def counterfeits(self) -> int:
        return int(self.summary["counterfeits"].sum())

    @property
    def suppression_ratio(self) -> float:
        """Suppressed / (published + suppressed), as the summaries compute it
        per partition, here over the whole release."""
        total = self.published + self.suppressed
        return self.suppressed / total if total else float("nan")

    def events_with_groups(self) -> pd.DataFrame:
        """Events joined to their group record on (release, group), adding
        the group's ``partition``, ``size``, ``counterfeits`` and
        ``sensitive`` values."""
        cols = ["release", "group", "partition", "size", "counterfeits"]
        if "sensitive" in self.groups.columns:
            cols.append("sensitive")
        if self.events.empty:
            return self.events.reindex(columns=list(self.events.columns) + cols[2:])
        return self.events.merge(self.groups[cols], on=["release", "group"], how="left", validate="many_to_one")

    def dp_window_counts(self) -> pd.DataFrame:
        """The DP counts of this release summed over partitions (see
        :func:`vanon_reader.dp.window_counts`)."""
        return window_counts(self.dp, self.partitions)
