"""Headless Debian Chromium through Selenium (chromium + chromium-driver from apt).

    driver = start_chromium(tmp_path / "profile")   # a fresh profile each time
    driver.get(path.as_uri())

`missing()` names what is absent; the tests skip on it only outside CI (in CI they fail:
`scripts/install-browser.sh` installs the packages). The network is closed here, so every
background connection Chromium would make is switched off (it otherwise hangs on them).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--window-size=1500,1100",
)


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def chromedriver_binary() -> str | None:
    return shutil.which("chromedriver") or next(
        (p for p in ("/usr/lib/chromium/chromedriver",) if Path(p).exists()), None
    )


def missing() -> list[str]:
    out = []
    if chromium_binary() is None:
        out.append("chromium")
    if chromedriver_binary() is None:
        out.append("chromium-driver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        out.append("selenium (pip, test extra)")
    return out


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def start_chromium(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium_binary() or "chromium"
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=Service(chromedriver_binary()))
    driver.set_page_load_timeout(60)
    return driver
