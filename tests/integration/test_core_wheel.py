"""The built wheel carries cypher/ and prompts/: install it into a fresh venv and use it."""

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def test_wheel_installs_and_runs_queries(tmp_path, neo4j_settings, store):
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
        timeout=600,
    )
    wheel = next(dist.glob("perspectivekg-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [py, "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, timeout=600
    )
    # Third-party dependencies come from the project venv through a plain path entry (.pth
    # lines that are paths do not run the editable-install hooks there), so `kg` itself can
    # only come from the wheel.
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "project_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {**os.environ, "PATH": f"{env_dir / 'bin'}:{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    where = subprocess.run(
        [py, "-c", "import kg, cypher, prompts; print(kg.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    )
    assert str(env_dir) in where.stdout
    helped = subprocess.run(
        [env_dir / "bin" / "kg", "--help"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert helped.returncode == 0 and "db" in helped.stdout
    code = (
        "from kg.cypher_files import all_names; from kg.store import Store; "
        "from kg.settings import get_settings; "
        "s = Store(get_settings()); "
        "print(len(all_names()), s.query('core/server_info')[0]['version'])"
    )
    out = subprocess.run([py, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    n_files, version = out.stdout.split()
    assert int(n_files) >= 5 and version.startswith("5.26.")
    # the HTML report's template files are package data of the wheel too
    page = subprocess.run(
        [
            py,
            "-c",
            "from evaluation.reporting.html_report import render_html; "
            "print(render_html({'meta': {'kind': 'eval'}}, 'wheel page'))",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert page.returncode == 0, page.stderr
    assert "<title>wheel page</title>" in page.stdout and "kg-data" in page.stdout
