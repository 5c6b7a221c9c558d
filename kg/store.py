"""The Neo4j store: one driver, named Cypher files, batched writes in single transactions.

Every query comes from `cypher/` by name and takes parameters; nothing from files or models is
ever spliced into query text. The driver is a plain import: commands that must start fast import
this module inside the command, not at CLI import time.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import neo4j

from kg import cypher_files
from kg.errors import InputError, StoreError
from kg.processes import interrupts_deferred
from kg.settings import Settings, get_settings

# The one place server notifications are muted: "property does not exist yet" and similar
# planner notices flood the logs on a young graph and are not user errors (query errors still
# raise). The driver also asks the server not to send them (`notifications_min_severity`).
logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)

# Labels, relationship types and property keys that are not parameters must match this.
IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def check_identifier(value: str, what: str = "identifier") -> str:
    if not isinstance(value, str) or not IDENTIFIER.match(value):
        raise InputError(f"invalid {what} {value!r}: letters, digits and underscores only")
    return value


def chunked(rows: Sequence[Any] | Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _password(settings: Settings) -> str:
    if settings.neo4j_password is not None:
        return settings.neo4j_password.get_secret_value()
    if settings.is_local and settings.password_file.exists():
        return settings.password_file.read_text(encoding="utf-8").strip()
    raise StoreError(
        "no Neo4j password: run `kg db up` to provision the local server, or set "
        "NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD for an existing one"
    )


class Store:
    """Thin layer over the official driver. Use as a context manager or call `close()`."""

    def __init__(
        self, settings: Settings | None = None, driver: neo4j.Driver | None = None
    ) -> None:
        self.settings = settings or get_settings()
        self.database = self.settings.neo4j_database
        self._driver = driver or neo4j.GraphDatabase.driver(
            self.settings.bolt_uri,
            auth=(self.settings.neo4j_user, _password(self.settings)),
            # A single local server speaks neo4j:// with routing disabled gracefully; keep
            # connection checks short so a dead server is reported quickly.
            connection_acquisition_timeout=30,
            # "property does not exist" and similar planner notices flood logs on a young
            # graph; query errors still raise.
            notifications_min_severity="OFF",
        )
        self._gds: tuple[str | None] | None = None  # (GDS version or None), once asked

    # -- lifecycle ----------------------------------------------------------------------
    @property
    def driver(self) -> neo4j.Driver:
        return self._driver

    def close(self) -> None:
        self._driver.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def gds_version(self) -> str | None:
        """The server's GDS version, or None without the plugin (AuraDB Free/Pro, a local
        server with KG_GDS=false). Asked once per store; no command needs GDS."""
        if self._gds is None:
            has = self.query("core/gds_available")[0]["available"]
            self._gds = (self.query("core/gds_version")[0]["gds_version"] if has else None,)
        return self._gds[0]

    def gds(self) -> Any:
        """The `graphdatascience` client on this store's driver, for notebooks and analyses
        beyond the product's named queries (imports pandas: not for hot CLI paths)."""
        if self.gds_version() is None:
            raise StoreError(
                f"the server at {self.settings.bolt_uri} has no GDS plugin (AuraDB Free/Pro, "
                "or a local server with KG_GDS=false); no kg command needs it, but a GDS "
                "analysis does: use a server with GDS (the local one with KG_GDS=true, AuraDS)"
            )
        from graphdatascience import GraphDataScience

        # No Arrow flight server on community GDS; progress bars off for scripts and tests.
        return GraphDataScience(
            self._driver, database=self.database, arrow=False, show_progress=False
        )

    def verify(self) -> None:
        self._driver.verify_connectivity()

    @contextmanager
    def session(self, **kwargs: Any) -> Iterator[neo4j.Session]:
        # Sessions share the bookmarks of `execute_query`: on a cluster (or Aura) a read routed
        # to another member waits for this store's earlier writes, as on one server.
        kwargs.setdefault("bookmark_manager", self._driver.execute_query_bookmark_manager)
        with interrupts_deferred(), self._driver.session(database=self.database, **kwargs) as s:
            yield s

    # -- queries ------------------------------------------------------------------------
    def query(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the named Cypher file (read or write) and return its records as dicts."""
        return self.run_text(cypher_files.load(name), **params)

    def run_text(self, text: str, **params: Any) -> list[dict[str, Any]]:
        """Run query text that itself came from `cypher/` (schema splitting, EXPLAIN checks)."""
        return self._execute(text, params)

    def query_unchained(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """`query` outside the store's bookmark chain: it neither waits for this store's
        earlier writes nor makes later queries wait for it. For self-contained bookkeeping
        writes (lease heartbeats) that must not queue behind a large commit of this process:
        a chained query waits on the server until every earlier transaction is applied."""
        return self._execute(cypher_files.load(name), params, bookmark_manager_=None)

    def _execute(self, text: str, params: dict[str, Any], **options: Any) -> list[dict[str, Any]]:
        with interrupts_deferred():  # a stop signal never lands inside the driver's I/O
            records, _, _ = self._driver.execute_query(
                text, params, database_=self.database, **options
            )
        return [r.data() for r in records]

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        text = cypher_files.load(name)
        with self.session() as s:
            return s.execute_read(lambda tx: [r.data() for r in tx.run(text, params)])

    def write_batches(
        self,
        name: str,
        rows: Sequence[dict[str, Any]],
        batch_size: int | None = None,
        **params: Any,
    ) -> int:
        """`UNWIND $rows ...` in batches, each batch one transaction; returns rows written."""
        text = cypher_files.load(name)
        size = batch_size or self.settings.batch_size
        n = 0
        with self.session() as s:
            for batch in chunked(rows, size):

                def work(tx: neo4j.ManagedTransaction, b: list[Any] = batch) -> None:
                    tx.run(text, {**params, "rows": b}).consume()

                s.execute_write(work)
                n += len(batch)
        return n

    def transaction(self, work: Any) -> Any:
        """Run `work(tx)` in one write transaction: all of it lands, or none of it."""
        with self.session() as s:
            return s.execute_write(work)

    @staticmethod
    def tx_query(tx: neo4j.ManagedTransaction, name: str, **params: Any) -> list[dict[str, Any]]:
        return [r.data() for r in tx.run(cypher_files.load(name), params)]

    # -- schema -------------------------------------------------------------------------
    def ensure_schema(self) -> int:
        """Create every constraint and index in `cypher/schema/` (idempotent: IF NOT EXISTS)."""
        n = 0
        for name in cypher_files.all_names():
            if name.startswith("schema/"):
                for stmt in cypher_files.statements(name):
                    self.run_text(stmt)
                    n += 1
        self.query("core/await_indexes")
        return n

    def node_counts(self) -> dict[str, int]:
        return {r["label"]: r["count"] for r in self.query("core/node_counts")}

    def drop_gds_graphs(self) -> int:
        """Drop every projected in-memory GDS graph; 0 when GDS is absent."""
        if self.gds_version() is None:
            return 0
        return len(self.query("core/gds_drop_all"))

    def wipe(self) -> None:
        """Delete every node and relationship (batched so large graphs do not blow the heap)."""
        # CALL ... IN TRANSACTIONS needs an auto-commit transaction.
        with self.session() as s:
            s.run(cypher_files.load("core/wipe")).consume()
