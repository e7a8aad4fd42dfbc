"""The dashboard in a real browser: a page opened on a worker's dashboard, and a connector's row in its table."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

import re
from typing import Any

# Chromium on two shared cores: generous deadlines, and only waits on conditions.
PAGE_TIMEOUT_MS = 60_000


def open_page(chromium: Browser, url: str, status: int = 200, init_script: str = "", **context: Any) -> Page:
    page = chromium.new_context(viewport={"width": 1400, "height": 900}, **context).new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    if init_script:
        page.add_init_script(init_script)  # runs before the page's own scripts
    response = page.goto(url + "/ui")
    assert response is not None and response.status == status
    return page


def exactly(text: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*{re.escape(text)}\s*$")


def row(page: Page, name: str) -> Any:
    return page.locator(f'#rows tr[data-name="{name}"]')
