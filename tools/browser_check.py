"""Open a notebook in a real JupyterLab in headless Chromium, Run All, and check the result.

    python tools/browser_check.py path/to/nb.ipynb out.png [--json] [--in-place]
        [--fail-on-console-error] [--disable-lab-extension NAME] [--keep-log]
        [--click TEXT]... [--count CSS]... [--glyphs] [--locale LANG]

Exit 0 only when every non-empty code cell ran, no cell errored and every widget output
rendered as a live widget. An error in a cell tagged ``raises-exception`` (the lesson's own,
or an unanswered exercise's check) is expected, and listed apart. JS console and page errors
are listed (fatal only with --fail-on-console-error). ``--click TEXT`` presses the first
widget button showing TEXT after the run (in order, waiting for the kernel each time);
``--count CSS`` reports how many elements match.

``--glyphs`` asks Chromium which fonts drew the text of every element of the notebook holding
non-ASCII characters, SVG text included (DevTools' ``CSS.getPlatformFontsForNode``), and reads
those fonts' character maps (the file fontconfig's ``fc-match`` names, read with fontTools): a
character none of them has was drawn as a box, and is a problem; so is matplotlib's warning
of a glyph missing from its fonts in any cell's output. ``--locale zh-CN`` runs the browser
as on a desktop in that language (its language and ``LANG``, from which fontconfig chooses
among fonts that all have a character: Noto Sans CJK SC rather than JP for Han characters).

Needs ``pip install playwright`` and a system Chromium at /usr/bin/chromium (never
``playwright install``); ``--glyphs`` also needs fontconfig (Chromium's dependency). The
notebook file itself is never written: its folder is copied to a temporary directory unless
--in-place.

Each run starts a JupyterLab server (``Lab``) and a Chromium of its own. The browser tests
share one of each between their checks (tests/browser.py): ``run`` checks one notebook on a
given server and browser, each check in a browser context and kernel of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
MAX_COPY_BYTES = 200 * 2**20
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
RUN_TIMEOUT = 120.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("notebook", type=Path)
    p.add_argument("screenshot", type=Path)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--in-place", action="store_true", help="serve the real folder")
    p.add_argument("--fail-on-console-error", action="store_true")
    p.add_argument("--disable-lab-extension", action="append", default=[], metavar="NAME")
    p.add_argument("--keep-log", action="store_true", help="keep the server log and temp dir")
    p.add_argument("--click", action="append", default=[], metavar="TEXT")
    p.add_argument("--count", action="append", default=[], metavar="CSS")
    p.add_argument("--timeout", type=float, default=RUN_TIMEOUT)
    p.add_argument("--glyphs", action="store_true", help="fail when a character has no font")
    p.add_argument("--locale", help="the desktop's language, e.g. zh-CN (default: the host's)")
    return p.parse_args(argv)


# ----- server ------------------------------------------------------------------------------
def free_port() -> int:
    """A port no one listens on now, chosen by the system: two checks running at once (test
    workers, other users of the machine) get different ones."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_settings(home: Path, disabled: list[str]) -> dict[str, str]:
    """Config, settings, workspace and runtime dirs of our own: no news, no announcements,
    no build check, no autosave, every cell rendered (windowingMode none)."""
    dirs = {
        k: home / k.lower()
        for k in (
            "JUPYTER_CONFIG_DIR",
            "JUPYTERLAB_SETTINGS_DIR",
            "JUPYTERLAB_WORKSPACES_DIR",
            "JUPYTER_RUNTIME_DIR",
        )
    }
    for d in dirs.values():
        d.mkdir(parents=True)
    off = {name: True for name in ["@jupyterlab/apputils-extension:announcements", *disabled]}
    (dirs["JUPYTER_CONFIG_DIR"] / "labconfig").mkdir()
    (dirs["JUPYTER_CONFIG_DIR"] / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": off, "buildCheck": False})  # no node run per page
    )
    settings = dirs["JUPYTERLAB_SETTINGS_DIR"]
    for plugin, values in {
        "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
        "@jupyterlab/apputils-extension/notification": {"fetchNews": "false"},
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    }.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return {k: str(v) for k, v in dirs.items()}


def start_server(root: Path, port: int, home: Path, disabled: list[str], log) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}  # Agg: no inline figures
    env.update(write_settings(home, disabled))
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.port_retries=0",  # never another port (another check's server may be there)
        "--ip=127.0.0.1",
        "--allow-root",
        "--ServerApp.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    return subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root)


def wait_for_server(port: int, server: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"jupyterlab exited with code {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"jupyterlab did not answer on port {port} within {timeout:.0f} s")


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (kernels run in their own session, so a process group
    would miss them), found by reading /proc (no psutil)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def stop_server(server: subprocess.Popen, known: set[int]) -> None:
    """SIGTERM the server (it shuts its kernels down), then SIGKILL whatever is left."""
    known |= set(descendants(server.pid))
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    for pid in known:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class Lab:
    """A JupyterLab server on a free port serving ``root``, with settings of its own under
    ``home`` and its log in ``home/server.log``; ``close`` stops it and every kernel."""

    def __init__(self, root: Path, home: Path, disabled: list[str] | None = None):
        self.root, self.port = root, free_port()
        self.log = open(home / "server.log", "w")
        self.server = start_server(root, self.port, home / "jupyter", disabled or [], self.log)
        try:
            wait_for_server(self.port, self.server)
        except BaseException:
            self.close()
            raise

    def url(self, name: str) -> str:
        """The page of notebook ``name`` (a path under ``root``), in a workspace reset."""
        return f"http://127.0.0.1:{self.port}/lab/tree/{name}?reset"

    def close(self) -> None:
        stop_server(self.server, set())
        self.log.close()

    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ----- browser -----------------------------------------------------------------------------
STATE_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!w || !w.context || !w.context.model || !w.sessionContext) return null;
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  const cells = w.context.model.toJSON().cells;
  const prompts = [...w.node.querySelectorAll('.jp-InputArea-prompt')].map(p => p.textContent);
  return {status: kernel ? kernel.status : 'none', cells: cells, prompts: prompts};
}"""

WIDGETS_JS = """() => {
  const outs = [...document.querySelectorAll('.jp-OutputArea-output')]
    .filter(o => !o.hasAttribute('data-mime-type') && !o.closest('.widget-output'));
  return outs.filter(o => o.querySelector('.jupyter-widgets, .jupyter-matplotlib')).length;
}"""


def locale_env(locale: str | None) -> dict[str, str] | None:
    """The environment of a browser on a desktop in ``locale``: ``LANG``, from which
    fontconfig picks the face for text that many fonts cover (Han characters: Noto Sans CJK
    SC, not JP, for zh-CN). Its pages get the language itself (Accept-Language,
    ``navigator.language``) from their context (``open_lab``)."""
    if not locale:
        return None
    return {**os.environ, "LANG": locale.replace("-", "_") + ".UTF-8"}


def launch_browser(p, locale: str | None = None):
    """A headless Chromium of playwright's ``p``, on a desktop in ``locale``."""
    env = locale_env(locale)
    return p.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, **({"env": env} if env else {})
    )


def open_lab(browser, lab: Lab, name: str, report: dict, locale: str | None = None):
    """A new context of ``browser`` (its own storage and cookies) showing notebook ``name``."""
    context = browser.new_context(
        viewport={"width": 1400, "height": 1000}, **({"locale": locale} if locale else {})
    )
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and report["console_errors"].append(m.text))
    page.on("pageerror", lambda e: report["page_errors"].append(str(e)))
    page.on("dialog", lambda d: (report["dialogs"].append(d.message), d.accept()))
    page.goto(lab.url(name), wait_until="domcontentloaded")
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget "
        "&& window.jupyterapp.shell.currentWidget.context",
        timeout=60_000,
    )
    return context, page


def accept_kernel_dialog(page, report: dict) -> None:
    """A notebook naming an unknown kernel asks which to use: take the default."""
    button = page.locator(".jp-Dialog .jp-mod-accept")
    if button.count():
        report["dialogs"].append(page.locator(".jp-Dialog-header").inner_text())
        button.first.click()


def wait_idle(page, timeout: float) -> dict:
    """Poll until the kernel is idle, no cell shows [*] and every code cell ran (or one
    errored, since Run All stops there; not at a cell tagged ``raises-exception``, so such a
    cell's error does not end the wait); the same three times in a row."""
    deadline, calm, state = time.monotonic() + timeout, 0, None
    while time.monotonic() < deadline:
        page.wait_for_timeout(400)
        state = page.evaluate(STATE_JS)
        code = [c for c in (state or {}).get("cells", []) if c["cell_type"] == "code"]
        ran = all(c.get("execution_count") for c in code if "".join(c["source"]).strip())
        stops = [c for c in code if "raises-exception" not in c.get("metadata", {}).get("tags", [])]
        errored = any(o.get("output_type") == "error" for c in stops for o in c.get("outputs", []))
        busy = any("*" in p for p in state["prompts"]) if state else True
        done = state and state["status"] == "idle" and not busy and (ran or errored)
        calm = calm + 1 if done else 0
        if calm >= 3:
            return state
    raise TimeoutError(f"the notebook did not finish within {timeout:.0f} s")


def run_all(page, timeout: float) -> dict:
    page.wait_for_function(
        "() => { const w = window.jupyterapp.shell.currentWidget; "
        "return w.sessionContext && w.sessionContext.session && "
        "w.sessionContext.session.kernel; }",
        timeout=60_000,
    )
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.locator("#jp-MainMenu .lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator("li.lm-Menu-item[data-command='runmenu:run-all']").first.click()
    return wait_idle(page, timeout)


def click_buttons(page, texts: list[str], timeout: float) -> None:
    for text in texts:
        page.locator(".jupyter-widgets button", has_text=text).first.click()
        page.wait_for_timeout(300)
        wait_idle(page, timeout)


def screenshot(page, path: Path) -> None:
    """Grow the viewport to the notebook's height (JupyterLab scrolls inside a panel, so a
    full-page screenshot would not help), capped at 8000 px."""
    height = page.evaluate(
        "() => { const cells = document.querySelectorAll('.jp-Cell');"
        " const panel = document.querySelector('.jp-WindowedPanel-outer');"
        " if (panel) panel.scrollTop = 0;"  # Run All left it scrolled to the last cell
        " const last = cells[cells.length - 1];"
        " return last ? last.getBoundingClientRect().bottom : 1000; }"
    )
    page.set_viewport_size({"width": 1400, "height": int(min(max(height + 140, 600), 8000))})
    page.wait_for_timeout(300)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))


# ----- checks ------------------------------------------------------------------------------
def summarise(state: dict, rendered: int, report: dict) -> None:
    code = [c for c in state["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    outputs = [o for c in code for o in c.get("outputs", [])]
    report["cells"] = len(code)
    report["cells_ran"] = sum(bool(c.get("execution_count")) for c in code)
    expected = [c for c in code if "raises-exception" in c.get("metadata", {}).get("tags", [])]
    errors = [o for c in code if c not in expected for o in c.get("outputs", [])]
    errors = [o for o in errors if o["output_type"] == "error"]
    report["errors"] = [f"{o['ename']}: {o['evalue']}" for o in errors]
    report["expected_errors"] = [
        f"{o['ename']}: {o['evalue']}"
        for c in expected
        for o in c.get("outputs", [])
        if o["output_type"] == "error"
    ]
    report["widgets_expected"] = sum(WIDGET_MIME in o.get("data", {}) for o in outputs)
    report["widgets_rendered"] = rendered
    problems = []
    if report["cells_ran"] < report["cells"]:
        problems.append(f"{report['cells'] - report['cells_ran']} code cell(s) did not run")
    problems += [f"cell error {e}" for e in report["errors"]]
    if rendered < report["widgets_expected"]:
        problems.append(f"only {rendered} of {report['widgets_expected']} widgets rendered")
    if report["fail_on_console_error"] and (report["console_errors"] or report["page_errors"]):
        problems.append("JS console or page errors")
    report["problems"] = problems
    report["ok"] = not problems


def check(args: argparse.Namespace, lab: Lab, browser, name: str, report: dict) -> None:
    context, page = open_lab(browser, lab, name, report, args.locale)
    try:
        page.wait_for_timeout(1500)
        accept_kernel_dialog(page, report)
        state = run_all(page, args.timeout)
        click_buttons(page, args.click, args.timeout)
        summarise(state, page.evaluate(WIDGETS_JS), report)
        report["counts"] = {css: page.locator(css).count() for css in args.count}
        report["widget_texts"] = page.locator(".widget-html-content").all_inner_texts()
        labels = ".jupyter-widgets .widget-label, .jupyter-widgets button"
        report["widget_labels"] = page.locator(labels).all_inner_texts()
        screenshot(page, args.screenshot)
        if args.glyphs:
            check_glyphs(context, page, report)
    finally:
        shut_down_kernel(page)
        context.close()


def shut_down_kernel(page) -> None:
    """End the notebook's kernel (a server that checks more notebooks keeps running)."""
    try:
        page.evaluate(
            "async () => { const w = window.jupyterapp.shell.currentWidget;"
            " if (w && w.sessionContext) await w.sessionContext.shutdown(); }"
        )
    except Exception:  # noqa: BLE001 - the page is gone: stopping the server ends the kernel
        pass


# every visible element of the notebook whose own text holds a non-ASCII character (SVG text
# in widgets included) gets a mark; returns the characters of each
MARK_TEXT_JS = """() => {
  const found = [];
  const notebook = document.querySelector('.jp-Notebook');
  const walker = document.createTreeWalker(notebook, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !/[^\\x00-\\x7f]/.test(node.textContent)) continue;
    if (el.closest('script, style') || !el.getClientRects().length) continue;
    if (!el.hasAttribute('data-glyph-check')) {
      el.setAttribute('data-glyph-check', String(found.length));
      found.push('');
    }
    found[Number(el.getAttribute('data-glyph-check'))] += node.textContent;
  }
  return found;
}"""


def check_glyphs(context, page, report: dict) -> None:
    """Which fonts drew the page's non-ASCII text, and the characters none of them has; and
    matplotlib's warnings of glyphs missing from its fonts, in any cell's output."""
    texts = page.evaluate(MARK_TEXT_JS)
    cdp = context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "[data-glyph-check]"})
    used: dict[str, int] = {}
    missing: set[str] = set()
    for node_id in nodes["nodeIds"]:
        attributes = cdp.send("DOM.getAttributes", {"nodeId": node_id})["attributes"]
        index = int(dict(zip(attributes[::2], attributes[1::2]))["data-glyph-check"])
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node_id})["fonts"]
        if any(font["isCustomFont"] for font in fonts):
            continue  # a web font: its file is not one fontconfig knows, so it is not read
        covered = set()
        for font in fonts:
            used[font["familyName"]] = used.get(font["familyName"], 0) + font["glyphCount"]
            covered |= font_characters(font["familyName"])
        missing |= {c for c in texts[index] if ord(c) > 127 and not c.isspace()} - covered
    report["fonts"] = used
    report["text_characters"] = "".join(sorted({c for t in texts for c in t if ord(c) > 127}))
    report["missing_glyphs"] = "".join(sorted(missing))
    state = page.evaluate(STATE_JS)
    streams = [o for c in state["cells"] for o in c.get("outputs", []) if o.get("name")]
    text = ["".join(o.get("text", "")) for o in streams if o["name"] == "stderr"]
    report["font_warnings"] = [t for t in text if "missing from font" in t]
    if missing:
        report["problems"].append(
            f"no font has {len(missing)} characters: {''.join(sorted(missing))[:40]}"
        )
    if report["font_warnings"]:
        report["problems"].append("matplotlib drew glyphs its fonts do not have")
    report["ok"] = not report["problems"]


_FONT_CHARACTERS: dict[str, set] = {}


def font_characters(family: str) -> set[str]:
    """The characters of the font fontconfig gives for ``family`` (the face Chromium used),
    read from its character map with fontTools; one face of a ``.ttc`` collection."""
    if family not in _FONT_CHARACTERS:
        from fontTools.ttLib import TTFont

        found = subprocess.run(
            ["fc-match", "-f", "%{file}\n%{index}", family],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
        path, index = found[0], int(found[1] or 0)
        with TTFont(path, fontNumber=index, lazy=True) as font:
            _FONT_CHARACTERS[family] = {chr(code) for code in font.getBestCmap()}
    return _FONT_CHARACTERS[family]


def prepare(args: argparse.Namespace, into: Path) -> tuple[Path, str]:
    """The folder to serve and the notebook's path inside it: with --in-place the notebook's
    own folder, else a copy of it at ``into``."""
    nb = args.notebook.resolve()
    if args.in_place:
        return nb.parent, nb.name
    size = sum(f.stat().st_size for f in nb.parent.rglob("*") if f.is_file())
    if size > MAX_COPY_BYTES:
        raise RuntimeError(f"{nb.parent} holds {size / 2**20:.0f} MiB; use --in-place")
    shutil.copytree(nb.parent, into, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return into, nb.name


def new_report(args: argparse.Namespace) -> dict:
    """A report before any check: it stays not ok unless a check finds nothing wrong."""
    return {
        "notebook": str(args.notebook),
        "ok": False,
        "console_errors": [],
        "page_errors": [],
        "dialogs": [],
        "fail_on_console_error": args.fail_on_console_error,
    }


def run(args: argparse.Namespace, lab: Lab, browser, name: str) -> dict:
    """The report on notebook ``name`` (a path under ``lab.root``), checked in ``browser``;
    its ``exit_code`` is the command's."""
    report, started = new_report(args), time.monotonic()
    try:
        check(args, lab, browser, name, report)
    except Exception as exc:  # noqa: BLE001 - reported, and the exit code says it failed
        report["problems"], report["ok"] = [f"{type(exc).__name__}: {exc}"], False
    report["seconds"] = round(time.monotonic() - started, 1)
    report["exit_code"] = 0 if report["ok"] else 1
    return report


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    args = parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="browser_check_"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the cleanup below
    report, started = new_report(args), time.monotonic()
    try:
        root, name = prepare(args, home / "root")
        with Lab(root, home, args.disable_lab_extension) as lab, sync_playwright() as p:
            report = run(args, lab, launch_browser(p, args.locale), name)
    except Exception as exc:  # noqa: BLE001 - no server or no browser: reported the same way
        report["problems"] = [f"{type(exc).__name__}: {exc}"]
    finally:
        report["seconds"] = round(time.monotonic() - started, 1)  # the server's start too
        if args.keep_log:
            report["log"] = str(home / "server.log")
        else:
            shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0 if report["ok"] else 1


def format_report(report: dict) -> str:
    lines = [f"{'OK' if report['ok'] else 'FAIL'} {report['notebook']} in {report['seconds']} s"]
    if "cells" in report:
        lines.append(
            f"cells run {report['cells_ran']}/{report['cells']}, widgets rendered "
            f"{report['widgets_rendered']}/{report['widgets_expected']}"
        )
    lines += [f"problem: {p}" for p in report.get("problems", [])]
    lines += [f"console error: {e}" for e in report["console_errors"]]
    lines += [f"page error: {e}" for e in report["page_errors"]]
    lines += [f"dialog accepted: {d!r}" for d in report["dialogs"]]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
