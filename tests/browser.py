"""One JupyterLab server and one headless Chromium per test process, shared by the browser tests.

``tools/browser_check.py`` starts a server, playwright's driver and a browser for each notebook
it checks: about 8 s of CPU between them, on top of the check. A test process starts each once,
when its first browser test asks for them (the session fixtures ``jupyterlab`` and ``chromium``
of tests/conftest.py), and every test still starts from nothing of another test's: its own copy
of the notebook's folder, its own browser context (page, cookies, storage) and its own kernel,
shut down when its check ends.

Playwright's sync API marks its thread as running an asyncio loop for as long as it is open, so
it lives on a thread of its own (``PlaywrightThread``), and each test hands it the work to do
there: the other tests of the process run asyncio loops of their own (nbclient, jupyter_client).
A fixture may run checks side by side (each mostly waits for its kernel and page): ``Browsers``
hands each to an idle playwright thread.
"""

from __future__ import annotations

import itertools
import queue
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import browser_check  # noqa: E402 - tools/ is no package: its folder goes on the path first

TIMEOUT = 600.0  # seconds one test's browser work may take (each step has its own limits)


class Browsers:
    """Headless Chromium for ``run``: up to ``threads`` works at once, each on a playwright
    thread of its own (a second thread starts its driver and browser only when two works
    overlap)."""

    def __init__(self, threads: int = 2):
        self.idle: queue.LifoQueue[PlaywrightThread] = queue.LifoQueue()
        self.threads = [PlaywrightThread() for _ in range(threads)]
        for thread in reversed(self.threads):
            self.idle.put(thread)

    def run(self, work, *args, locale: str | None = None):
        """``work(browser, *args)`` on an idle playwright thread, with its browser of
        ``locale``."""
        thread = self.idle.get()
        try:
            return thread.run(work, args, locale)
        finally:
            self.idle.put(thread)

    def close(self) -> None:
        for thread in self.threads:
            thread.close()


class PlaywrightThread:
    """Playwright's driver and headless Chromium, one per desktop language (``LANG`` chooses
    fontconfig's faces, so the language is the process's), each started on first use, all on
    one thread."""

    def __init__(self):
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
        self.playwright, self.launched = None, {}

    def run(self, work, args: tuple, locale: str | None):
        return self.thread.submit(self._in_browser, work, args, locale).result(TIMEOUT)

    def _in_browser(self, work, args: tuple, locale: str | None):
        if self.playwright is None:
            from playwright.sync_api import sync_playwright

            self.playwright = sync_playwright().start()
        if locale not in self.launched:
            self.launched[locale] = browser_check.launch_browser(self.playwright, locale)
        return work(self.launched[locale], *args)

    def close(self) -> None:
        if self.playwright is not None:  # its browsers close with it
            self.thread.submit(self.playwright.stop).result(TIMEOUT)
        self.thread.shutdown()


class SharedLab:
    """``tools/browser_check.py``'s checks on one server and the shared browsers."""

    def __init__(self, lab: browser_check.Lab, browsers: Browsers):
        self.lab, self.browsers = lab, browsers
        self.folders = itertools.count()

    def check(self, argv: list[str]) -> dict:
        """What ``browser_check.py ARGV --json`` prints, with its exit code as ``exit_code``:
        the same options and checks, on a copy of the notebook's folder of this check's own."""
        args = browser_check.parse_args(argv)
        folder = f"check{next(self.folders)}"
        _, name = browser_check.prepare(args, self.lab.root / folder)
        return self.browsers.run(self._check, args, f"{folder}/{name}", locale=args.locale)

    def _check(self, browser, args, name: str) -> dict:
        return browser_check.run(args, self.lab, browser, name)
