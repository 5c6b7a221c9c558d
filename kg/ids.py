"""Content-hash uids of the graph model (docs/graph-model.md), one scheme for every area.

uid = first 24 hex chars of sha256 over a canonical JSON array of the identifying fields, so
every importer, builder and run that writes the same thing MERGEs onto the same node or edge.
Keys of mappings are sorted; a field JSON cannot encode is an error, never silently stringified.
"""

from __future__ import annotations

import hashlib
import json


def content_uid(*fields: object) -> str:
    canonical = json.dumps(list(fields), ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]
