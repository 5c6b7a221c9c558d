"""One writer per run: a lease in the graph, `(:Lease {key, run_uid, owner, heartbeat,
expires_at})`, taken atomically, kept alive by a heartbeat thread, given back at the end.

A second process on the same key is refused with a message naming the owner; a lease whose
owner died (no heartbeat for `ttl_s`) is taken over. A Run that says `running` while no live
lease is held on it died without closing: listings show it as `interrupted`
(`effective_status`).

A run also holds what it reads (`Lease.guard`): an eval or judge run records on its lease the
write keys (`build:<domain>`) of the domains whose questions it reads. A build, `--replace`
or `kg domain delete` of such a domain takes that write key, and is refused (`DomainInUse`)
while a live run reads the domain; a run is refused while a build holds a domain it would
read. So a run never ends `done` over questions deleted or replaced under it.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from kg import cypher_files
from kg.store import Store, StoreError

DEFAULT_TTL_S = 30.0
_PROCESS_STARTED = time.time()


class LeaseHeld(StoreError):
    """Another live process holds the lease on this run."""

    exit_code = 3  # the CLI's "busy / stopped by the database" code

    def __init__(self, key: str, owner: str, since_heartbeat_s: float | None) -> None:
        self.key, self.owner = key, owner
        beat = f", last heartbeat {since_heartbeat_s:.0f} s ago" if since_heartbeat_s else ""
        super().__init__(
            f"{key} is being executed by {owner}{beat}; only one process may run it at a "
            "time. Wait for it to finish or stop it; if that process died, its lease "
            f"expires {DEFAULT_TTL_S:.0f} s after its last heartbeat and a rerun takes it over"
        )


class DomainInUse(StoreError):
    """A write (build, --replace, delete) of a domain that a live run reads, or a run of a
    domain that a live build is writing: refused, nothing changed."""

    exit_code = 3


def owner_id() -> str:
    """host:pid:start-time: a pid reused after a reboot or crash is another owner."""
    return f"{socket.gethostname()}:{os.getpid()}:{int(_PROCESS_STARTED)}"


class Lease:
    """A held lease on one key or several (an import holds every domain it writes). One
    heartbeat and one probe thread keep all its keys alive, however many. `healthy` turns
    False when a heartbeat could not be written (the database is gone) or found a key taken
    over; `problem` says which.

    The heartbeat and the release are written without the store's bookmarks: they need no
    earlier write of this process, and a heartbeat chained to them would wait on the server
    (spinning a worker) for as long as this process's own large commit is being applied."""

    def __init__(
        self,
        store: Store,
        key: str | Sequence[str],
        run_uid: str,
        kind: str,
        owner: str,
        ttl_s: float,
        heartbeat_s: float,
    ) -> None:
        self.keys = [key] if isinstance(key, str) else list(dict.fromkeys(key))
        if not self.keys:
            raise ValueError("a lease needs at least one key")
        self.store, self.key, self.run_uid, self.kind = store, self.keys[0], run_uid, kind
        self.owner, self.ttl_s, self.heartbeat_s = owner, ttl_s, heartbeat_s
        self.problem: str | None = None
        self.took_over: str | None = None  # the dead owner whose expired lease we took
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def healthy(self) -> bool:
        return self.problem is None

    def acquire(self) -> Lease:
        """Take every key, in order; when one is refused, give back the ones taken and raise."""
        for stmt in cypher_files.statements("schema/leases"):
            self.store.run_text(stmt)
        taken: list[str] = []
        try:
            for key in self.keys:
                self._acquire_key(key)
                taken.append(key)
        except BaseException:
            self._release_keys(taken)
            raise
        self.start_watching()
        return self

    def _acquire_key(self, key: str) -> None:
        dead_readers: list[str] = []
        while True:
            row = self.store.query(
                "core/lease_acquire",
                key=key,
                owner=self.owner,
                run_uid=self.run_uid,
                kind=self.kind,
                ttl_ms=int(self.ttl_s * 1000),
                ignore_readers=dead_readers,
            )[0]
            readers = row["readers"] or []
            dead = [r["owner"] for r in readers if _dead_here(r["owner"])]
            if not dead:
                break
            for owner in dead:  # a killed run reads nothing: drop its guards, ask again
                self.store.query("core/lease_unguard", dead_owner=owner)
            dead_readers += dead
        if readers:
            runs = ", ".join(sorted({f"{r['run_uid']} ({r['owner']})" for r in readers}))
            raise DomainInUse(
                f"{key.partition(':')[2] or key}: run(s) {runs} read its questions; "
                f"a {self.kind} now would change them under those runs. Wait for them to "
                "finish or stop them (a stopped run resumes with --run-id)"
            )
        if (
            not row["acquired"]
            and _dead_here(row["prev_owner"])
            and self.store.query(
                "core/lease_takeover",
                key=key,
                dead_owner=row["prev_owner"],
                owner=self.owner,
                run_uid=self.run_uid,
                kind=self.kind,
                ttl_ms=int(self.ttl_s * 1000),
            )[0]["taken"]
        ):
            row = {**row, "acquired": True}  # its process is gone: no need to wait for expiry
        if not row["acquired"]:
            since = row["since_heartbeat_ms"]
            raise LeaseHeld(key, row["prev_owner"], since / 1000 if since else None)
        if row["prev_owner"] and row["prev_owner"] != self.owner:
            self.took_over = self.took_over or row["prev_owner"]

    def guard(self, keys: Iterable[str]) -> None:
        """Hold what this run reads: refuse (DomainInUse) while a live process holds one of
        the write `keys` (`build:<domain>`), else record them on this lease so that writers
        of those domains are refused while it lives. Dead holders (same host, pid gone) are
        ignored, as `acquire` takes over their leases."""
        keys = sorted(set(keys))
        ignore: list[str] = []
        while True:
            row = self.store.query(
                "core/lease_guard", keys=keys, key=self.key, owner=self.owner, ignore_owners=ignore
            )[0]
            busy = row["busy"] or []
            dead = [b["owner"] for b in busy if _dead_here(b["owner"])]
            if not dead:
                break
            ignore += dead
        if busy:
            what = "; ".join(
                f"{b['key'].partition(':')[2]} is being written by a {b['kind'] or 'build'} "
                f"({b['owner']})"
                for b in busy
            )
            raise DomainInUse(
                f"{what}: run {self.run_uid} would read questions that are changing. Wait "
                "for it to finish (or stop it), then run again"
            )
        if not row["held"]:
            raise StoreError(f"the lease on {self.key} was lost before its domains were held")

    def start_watching(self) -> None:
        """Start the heartbeat and the port probe (acquire does; tests call it directly)."""
        for target, name in ((self._beat, "lease"), (self._probe, "lease-probe")):
            thread = threading.Thread(target=target, daemon=True, name=f"{name}-{self.key}")
            thread.start()
            self._threads.append(thread)

    def _probe(self) -> None:
        """Its own thread, apart from the heartbeat: a heartbeat query in flight when the
        server dies sits in the driver's retry loop for up to 30 s, and the run must not keep
        calling models all that time."""
        while self.problem is None and not self._stop.wait(min(1.0, self.heartbeat_s)):
            if (refused := _bolt_refuses(self.store)) is not None:
                self.problem = self.problem or f"cannot write to Neo4j ({refused})"
                return

    def _beat(self) -> None:
        while self.problem is None and not self._stop.wait(self.heartbeat_s):
            try:
                rows = self.store.query_unchained(
                    "core/lease_heartbeat",
                    keys=self.keys,
                    owner=self.owner,
                    ttl_ms=int(self.ttl_s * 1000),
                )
            except Exception as exc:  # noqa: BLE001 - any failure to reach the database
                if self.problem is None:
                    self.problem = f"cannot write to Neo4j ({type(exc).__name__}: {exc})"[:500]
                return
            lost = [r["key"] for r in rows if not r["held"]]
            if lost:
                self.problem = (
                    f"the lease on {', '.join(lost)} was taken over by another process "
                    "(this one was presumed dead)"
                )
                return

    def stop_watching(self) -> None:
        """Stop heartbeat and probe (as a dead owner would: the lease then expires)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(self.heartbeat_s + 5)

    def release(self) -> None:
        self.stop_watching()
        if self.problem is None:
            self._release_keys(self.keys)

    def _release_keys(self, keys: list[str]) -> None:
        if not keys:
            return
        try:
            self.store.query_unchained("core/lease_release", keys=keys, owner=self.owner)
        except Exception:  # noqa: BLE001 - they expire on their own after ttl_s
            pass


def _dead_here(owner: str | None) -> bool:
    """True when `owner` is a process of this host that no longer exists (killed, crashed):
    its lease need not be waited out. Owners on other hosts are judged by expiry only."""
    try:
        host, pid, _ = (owner or "").rsplit(":", 2)
        if host != socket.gethostname():
            return False
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (ValueError, PermissionError, OSError):
        return False
    return False


def _bolt_refuses(store: Store) -> str | None:
    """A quick TCP probe of the Bolt port: a killed server is noticed in about a second,
    where a query would sit in the driver's retry loop for up to 30 s."""
    url = urlsplit(store.settings.bolt_uri)
    try:
        socket.create_connection((url.hostname or "127.0.0.1", url.port or 7687), timeout=2).close()
    except OSError as exc:
        return f"{store.settings.bolt_uri} refuses connections: {exc}"
    return None


@contextmanager
def hold(
    store: Store,
    key: str | Sequence[str],
    run_uid: str,
    kind: str,
    *,
    ttl_s: float = DEFAULT_TTL_S,
    heartbeat_s: float | None = None,
    owner: str | None = None,
) -> Iterator[Lease]:
    """Hold the lease on `key` (or on every key of a list, with one heartbeat) for the block
    (LeaseHeld when a live process has one of them; none is kept then)."""
    lease = Lease(
        store,
        key,
        run_uid,
        kind,
        owner or owner_id(),
        ttl_s,
        heartbeat_s if heartbeat_s is not None else min(2.0, ttl_s / 6),
    ).acquire()
    try:
        yield lease
    finally:
        lease.release()


def effective_status(store: Store, runs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs with `status` 'running' replaced by 'interrupted' where no live lease is held
    on them (the process died without closing its Run); `owner` added where one is."""
    rows = list(runs)
    running = [r["uid"] for r in rows if r.get("status") == "running"]
    if not running:
        return rows
    live = {r["uid"]: r for r in store.query("core/lease_live", uids=running)}
    out = []
    for r in rows:
        info = live.get(r.get("uid"))
        if info is not None and (not info["live"] or _dead_here(info["owner"])):
            # no live lease, or its owner is a process of this host that is gone (killed):
            # the run cannot be running, whether or not its lease has expired yet
            r = {**r, "status": "interrupted", "status_reason": "lease expired"}
        elif info is not None:
            r = {**r, "owner": info["owner"]}
        out.append(r)
    return out
