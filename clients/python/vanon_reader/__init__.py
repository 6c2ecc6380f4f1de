"""vanon_reader: complete releases of vanon's downstream topics as pandas tables.

    from vanon_reader import Reader
    for release in Reader("127.0.0.1:9092", idle_timeout=60):
        print(release.id, release.published, len(release.events))

See clients/python/README.md and docs/consumers.md (the consumer's contract).
"""

from .completeness import (AssembledRelease, DroppedRelease, IncompleteReleaseError, ReleaseAssembler,
                           share_key)
from .dp import dp_frame, noise_std, noise_variance, window_counts
from .reader import Reader, Topics
from .records import Parser, Record, RecordError, Topic
from .release import Release

__all__ = [
    "AssembledRelease", "DroppedRelease", "IncompleteReleaseError", "Parser", "Reader", "Record", "RecordError",
    "Release", "ReleaseAssembler", "Topic", "Topics", "dp_frame", "noise_std", "noise_variance", "share_key",
    "window_counts",
]
