"""The local Neo4j + GDS server: resolved from Maven Central, run with Java 17, no Docker."""

from kg.server.errors import ServerError

__all__ = ["ServerError"]
