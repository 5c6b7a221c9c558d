"""PerspectiveKG: perspective benchmarks stored in a Neo4j knowledge graph."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("perspectivekg")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+local"
