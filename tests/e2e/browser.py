"""A headless Chromium driven over the DevTools protocol, with nothing but the standard library.

Chromium's --remote-debugging-pipe reads JSON commands from file descriptor 3 and writes replies
and events to descriptor 4, each message ended by a NUL byte; no port, no websocket. The tests
use a few commands: open a page, wait for its load event, evaluate JavaScript, move the mouse,
and record every network request the page starts (Network.requestWillBeSent).
"""
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def start_browser():
    """A headless Chromium; without one, harness.Skipped (the test shows as skipped), unless
    ATTNVIZ_REQUIRE_BROWSER=1 (CI sets it after installing Debian's chromium): then a failure."""
    from harness import Skipped
    exe = find_chromium()
    if not exe:
        if os.environ.get("ATTNVIZ_REQUIRE_BROWSER") == "1":
            raise AssertionError("ATTNVIZ_REQUIRE_BROWSER=1 but chromium is not installed")
        raise Skipped("chromium is not installed: the browser checks did not run")
    return Browser(exe)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, executable, timeout=30):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="attnviz-chromium-")
        to_r, self._to = os.pipe()
        self._from, from_w = os.pipe()

        def on_fds_3_and_4():  # runs in the child before exec
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [executable, "--headless", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--window-size=1400,1000", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=on_fds_3_and_4, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self._buf = b""
        self._next = 0
        self.events = []
        self.session = None

    # -- protocol --------------------------------------------------------------------------
    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            ready, _, _ = select.select([self._from], [], [], max(0.0, deadline - time.time()))
            if not ready:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._from, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method, params=None, session=True):
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method):
        deadline = time.time() + self.timeout
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            e = self._read_message(deadline)
            if e.get("method") == method:
                return e
            self.events.append(e)

    # -- what the tests do -----------------------------------------------------------------
    def open(self, url):
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        self.call("Network.enable")
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        # an attn-viz page runs its script once its embedded font is loaded, then marks itself
        deadline = time.time() + self.timeout
        while self.evaluate("document.documentElement.getAttribute('data-ready')") != "1":
            if time.time() > deadline:
                raise TimeoutError(f"{url}: the page never set data-ready")
            time.sleep(0.02)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def move_mouse(self, x, y):
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})

    def click(self, x, y):
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent",
                      {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def requests(self):
        """URLs of every request the page started so far, but data: URLs (bytes the page holds
        itself, such as its embedded font: Chromium reports them as requests too)."""
        self.evaluate("1")  # let pending events arrive
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"
                and not e["params"]["request"]["url"].startswith("data:")]

    def console_errors(self):
        return [e["params"] for e in self.events
                if e.get("method") == "Runtime.exceptionThrown"
                or (e.get("method") == "Runtime.consoleAPICalled"
                    and e["params"].get("type") == "error")]

    def close(self):
        try:
            self.call("Browser.close", session=False)
            self.proc.wait(10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to)
        os.close(self._from)
        shutil.rmtree(self.profile, ignore_errors=True)
