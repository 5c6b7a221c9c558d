"""Provision the Neo4j server integration tests run against.

Order: an existing server (NEO4J_URI / KG_NEO4J_URI) → Docker, where an engine answers
(docker/docker-compose.yml through pytest-docker) → the Maven-provisioned local server, the
same one `kg db up` starts (KG_BOLT_PORT picks the instance).
"""

from __future__ import annotations

import shutil
import subprocess

from kg.settings import Settings, get_settings


def docker_available() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=15).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def provision_server() -> Settings:
    settings = get_settings()
    if not settings.is_local:
        return settings
    from kg.server import process

    process.start(settings)
    return settings


DOCKER_PASSWORD = "perspectivekg-test"  # test-only container, bound to 127.0.0.1


def docker_settings(port: int) -> Settings:
    return get_settings(
        neo4j_uri=f"neo4j://127.0.0.1:{port}",
        neo4j_user="neo4j",
        neo4j_password=DOCKER_PASSWORD,
    )


def wait_for_docker_neo4j(settings: Settings) -> bool:
    from neo4j import GraphDatabase
    from neo4j.exceptions import Neo4jError, ServiceUnavailable

    try:
        auth = (settings.neo4j_user, DOCKER_PASSWORD)
        with GraphDatabase.driver(settings.bolt_uri, auth=auth) as d:
            d.execute_query("RETURN gds.version()")
        return True
    except (ServiceUnavailable, Neo4jError, OSError):
        return False
