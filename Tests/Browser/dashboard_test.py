#!/usr/bin/env python3
"""The dashboard at /ui and a scenario --html report, in a real headless Chromium.

usage: dashboard_test.py LERIX_MOCK_BINARY [--screenshots DIR]

Starts `lerix-mock serve --clock manual --admin-token …` on a free loopback port, drives
Debian's chromium through chromedriver (Selenium), and prints "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

os.environ.setdefault("SE_OFFLINE", "true")       # never let Selenium fetch a driver
os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium import webdriver                      # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By          # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

TOKEN = "browser-test-token"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Server:
    def __init__(self, binary):
        self.process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--clock", "manual",
             "--start-time", "2026-12-02T11:00:00.000Z", "--admin-token", TOKEN],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("listening on "):
            raise RuntimeError(f"lerix-mock serve did not start: {line!r}")
        self.url = line[len("listening on "):]

    def request(self, method, path, body=None, token=TOKEN):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = "Bearer " + token
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as response:
                text = response.read().decode()
                return response.status, (json.loads(text) if text.strip().startswith(("{", "[")) else text)
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read().decode() or "null")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def make_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000", "--no-first-run", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(browser, condition, what, seconds=10):
    try:
        return WebDriverWait(browser, seconds, poll_frequency=0.05).until(lambda b: condition(b))
    except TimeoutException:
        raise AssertionError(f"timed out after {seconds} s waiting for {what}") from None


def texts(browser, selector):
    """The text of every element matching `selector`, read in one go: the page re-renders
    its lists as events arrive, so element handles go stale between two calls."""
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.innerText)", selector)


def console_errors(browser, allowed_statuses=(401, 422)):
    """Errors the page logged since the last call: script errors, and failed loads other
    than the answers the tests provoke on purpose (the 401 before the token, the 422 problem
    shown inline). Chromium logs those asynchronously, so any test may see them."""
    errors = []
    for entry in browser.get_log("browser"):
        if entry["level"] != "SEVERE":
            continue
        if entry["source"] == "network" and any(f"status of {s} " in entry["message"] for s in allowed_statuses):
            continue
        errors.append(entry)
    return errors


class Suite:
    def __init__(self, binary, screenshots):
        self.binary = binary
        self.screenshots = screenshots
        self.server = Server(binary)
        self.browser = make_browser()

    def close(self):
        self.browser.quit()
        self.server.stop()

    # Each test leaves the page loaded for the next one.

    def test_loads_asks_for_the_token_and_goes_live_without_console_errors(self):
        b = self.browser
        b.get(self.server.url + "/ui")
        dialog = wait(b, lambda b: b.find_element(By.ID, "token-dialog").get_attribute("open") is not None and
                      b.find_element(By.ID, "token-dialog"), "the admin token dialog")
        dialog.find_element(By.ID, "token-input").send_keys(TOKEN + "\n")
        wait(b, lambda b: b.find_element(By.ID, "live").text == "live", "the live indicator")
        assert b.find_element(By.ID, "clock-mode").text == "manual"
        assert "2026-12-02 11:00:00" in b.find_element(By.ID, "clock-now").text
        # The 401 that makes the page ask for the token is logged by Chromium; nothing else may be.
        errors = console_errors(b)
        assert not errors, f"console errors: {errors}"

    def test_creates_a_rule_through_the_page_and_shows_problems_inline(self):
        b = self.browser
        form = b.find_element(By.ID, "rule-form")
        Select(form.find_element(By.NAME, "type")).select_by_value("required_update")
        form.find_element(By.ID, "rule-submit").click()   # no "below": the server says 422
        problem = wait(b, lambda b: b.find_element(By.ID, "rule-problem").is_displayed() and
                       b.find_element(By.ID, "rule-problem"), "the inline problem")
        assert "422" in problem.text, problem.text
        assert "/below" in problem.text, problem.text
        below = form.find_element(By.NAME, "below")
        assert below.get_attribute("aria-invalid") == "true"
        below.send_keys("2.0")
        form.find_element(By.CSS_SELECTOR, "input[name=platforms][value=ios]").click()
        form.find_element(By.NAME, "message").send_keys("Please update")
        form.find_element(By.ID, "rule-submit").click()
        row = wait(b, lambda b: texts(b, "#rules-table tbody tr[data-rule]"), "the new rule's row")[0]
        assert "required update" in row and "below 2.0" in row and "ios" in row, row
        assert not b.find_element(By.ID, "rule-problem").is_displayed()
        status, rules = self.server.request("GET", "/admin/projects/demo/rules")
        assert status == 200 and rules["rules"][0]["below"] == "2.0", rules
        errors = console_errors(b)
        assert not errors, f"console errors: {errors}"

    def test_shows_a_devices_check_and_a_push_live_without_reload(self):
        b = self.browser
        b.execute_script("window.__sameDocument = true")
        status, _ = self.server.request("GET", "/v1/projects/demo/release-control?platform=ios&version=1.0&sdk=swift&sdk_version=2.0",
                                        token=None)
        assert status == 200
        lane = wait(b, lambda b: b.find_elements(By.CSS_SELECTOR, "#checks-timeline svg[data-lane*='1.0'] circle.ok"),
                    "the check's mark on its device-class lane")
        assert lane
        assert "ios · 1.0" in texts(b, "#checks-timeline")[0]
        status, _ = self.server.request("PUT", "/v1/projects/demo/push-tokens/tok-ios-1", {"platform": "ios"}, token=None)
        assert status == 204
        status, _ = self.server.request("POST", "/admin/projects/demo/rules", {"type": "maintenance",
                                        "starts_at": "2026-12-02T12:00:00.000Z", "ends_at": "2026-12-02T13:00:00.000Z"})
        assert status == 201
        # The first change's push went out at once; this second one is throttled: move time.
        self.server.request("POST", "/admin/clock", {"advance_seconds": 61})
        push = wait(b, lambda b: [text for text in texts(b, "#pushes li[data-push]") if "tok-ios-1" in text],
                    "a push with its per-token result")[0]
        assert "tok-ios-1" in push and "(ios)" in push, push
        wait(b, lambda b: [t for t in texts(b, "#tokens-table tbody tr") if "tok-ios-1" in t], "the registered token")
        assert b.execute_script("return window.__sameDocument === true"), "the page reloaded"
        errors = console_errors(b)
        assert not errors, f"console errors: {errors}"

    def test_advances_the_manual_clock_from_the_page(self):
        b = self.browser
        _, before = self.server.request("GET", "/admin/clock")
        b.find_element(By.CSS_SELECTOR, "button[data-advance='3600']").click()
        wait(b, lambda b: self.server.request("GET", "/admin/clock")[1]["now"] != before["now"], "the server's clock to move")
        _, after = self.server.request("GET", "/admin/clock")
        moved = (time_ms(after["now"]) - time_ms(before["now"])) / 1000
        assert moved == 3600, f"moved {moved} s"
        shown = after["now"][:10] + " " + after["now"][11:19]
        wait(b, lambda b: shown in b.find_element(By.ID, "clock-now").text, f"the page to show {shown}")
        if self.screenshots:
            self.server.request("GET", "/v1/projects/demo/release-control?platform=android&version=3.1&sdk=kotlin&sdk_version=1.2", token=None)
            for minutes in range(0, 6):
                self.server.request("GET", "/v1/projects/demo/release-control?platform=ios&version=1.0&sdk=swift&sdk_version=2.0", token=None)
                self.server.request("GET", "/v1/projects/demo/release-control?platform=web&version=5.0&sdk=js&sdk_version=0.9", token=None)
                self.server.request("POST", "/admin/clock", {"advance_seconds": 300})
            time.sleep(0.5)
            b.save_screenshot(os.path.join(self.screenshots, "dashboard.png"))

    def test_records_a_session_from_the_page_and_offers_the_scenario(self):
        b = self.browser
        button = b.find_element(By.ID, "record")
        button.click()
        wait(b, lambda b: b.find_element(By.ID, "record").get_attribute("aria-pressed") == "true", "the recording to start")
        status, recording = self.server.request("GET", "/admin/recording")
        assert status == 200 and recording["recording"] is True, recording
        self.server.request("GET", "/v1/projects/demo/release-control?platform=android&version=2.0&sdk=kotlin&sdk_version=1.0", token=None)
        b.find_element(By.ID, "record").click()
        link = wait(b, lambda b: b.find_element(By.ID, "record-download").is_displayed() and b.find_element(By.ID, "record-download"),
                    "the scenario's download link")
        assert link.get_attribute("href").startswith("blob:"), link.get_attribute("href")
        scenario = b.execute_script("return document.getElementById('record-scenario').textContent")
        assert "  - launch: d1\n" in scenario and "platform: android" in scenario, scenario
        assert self.server.request("GET", "/admin/recording")[1]["recording"] is False
        errors = console_errors(b)
        assert not errors, f"console errors: {errors}"

    def test_loads_a_scenario_report_and_finds_its_timeline(self):
        b = self.browser
        with tempfile.TemporaryDirectory() as folder:
            scenario = os.path.join(folder, "fails-on-purpose.yaml")
            with open(scenario, "w") as f:
                f.write(FAILING_SCENARIO)
            report = os.path.join(folder, "report.html")
            junit = os.path.join(folder, "junit.xml")
            run = subprocess.run([self.binary, "scenarios", scenario, os.path.join(ROOT, "Scenarios", "offline-maintenance-window.yaml"),
                                  "--html", report, "--junit", junit], capture_output=True, text=True, timeout=60)
            assert run.returncode == 1, f"expected the failing scenario to fail the run: {run.stdout}{run.stderr}"
            assert os.path.exists(junit)
            b.get("file://" + report)
            timelines = wait(b, lambda b: b.find_elements(By.CSS_SELECTOR, "section.scenario svg.timeline"), "the report's timelines")
            assert len(timelines) == 2, len(timelines)
            failed = b.find_element(By.CSS_SELECTOR, "section.scenario.failed")
            marker = failed.find_element(By.CSS_SELECTOR, "svg.timeline .failure")
            assert marker is not None
            text = failed.text
            assert "expected" in text and "seen" in text, text
            lanes = failed.find_elements(By.CSS_SELECTOR, "svg.timeline g.lane")
            assert len(lanes) >= 2, "one lane per device"
            passed = b.find_element(By.CSS_SELECTOR, "section.scenario.passed")
            assert passed.find_elements(By.CSS_SELECTOR, "svg.timeline .check"), "checks drawn"
            assert passed.find_elements(By.CSS_SELECTOR, "svg.timeline .state-maintenance"), "screen states drawn"
            errors = console_errors(b)
            assert not errors, errors
            if self.screenshots:
                b.set_window_size(1400, 900)
                b.save_screenshot(os.path.join(self.screenshots, "scenario-report.png"))

    def test_the_conformance_matrix_of_the_swift_and_web_adapters_links_every_cell(self):
        b = self.browser
        with tempfile.TemporaryDirectory() as folder:
            report = os.path.join(folder, "matrix.html")
            run = subprocess.run([self.binary, "scenarios", "Scenarios", "--jobs", "2",
                                  "--adapter", f"{self.binary} adapter --quiet",
                                  "--adapter", "node SDKs/web/adapter.js", "--html", report],
                                 capture_output=True, text=True, timeout=600, cwd=ROOT)
            assert run.returncode == 0, f"the matrix run failed: {run.stdout[-3000:]}{run.stderr[-2000:]}"
            b.get("file://" + report)
            table = wait(b, lambda b: b.find_elements(By.CSS_SELECTOR, "table.matrix"), "the matrix")[0]
            headings = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
            assert len(headings) == 3, headings
            assert any("web" in h for h in headings[1:]), headings
            cells = table.find_elements(By.CSS_SELECTOR, "td.cell")
            rows = table.find_elements(By.CSS_SELECTOR, "tbody tr:not(.section)")
            assert len(rows) >= 30 and len(cells) == 2 * len(rows), (len(rows), len(cells))
            words = b.execute_script(
                "return [...document.querySelectorAll('td.cell')].map((c) => c.className.split(' ')[1])")
            assert set(words) <= {"pass", "fail", "skip"}, set(words)
            assert "pass" in words and "skip" in words, set(words)
            # Every cell links to a scenario's section on the page, and the skips give the spec's reason.
            targets = b.execute_script(
                "return [...document.querySelectorAll('td.cell')].map((c) => {"
                " const a = c.querySelector('a[href^=\"#\"]');"
                " return a && document.getElementById(a.getAttribute('href').slice(1)) ? 'ok' : c.innerText; })")
            unlinked = [t for t in targets if t != "ok"]
            assert not unlinked, f"cells without a link to a scenario: {unlinked[:5]}"
            skip_texts = texts(b, "td.cell.skip")
            assert any("web pages receive no silent push" in t for t in skip_texts), skip_texts[:5]
            link = b.find_element(By.CSS_SELECTOR, "td.cell.skip a")
            target = link.get_attribute("href").split("#", 1)[1]
            link.click()
            wait(b, lambda b: b.execute_script("return location.hash") == "#" + target, "the jump to the scenario")
            section = b.find_element(By.ID, target)
            assert "skipped" in section.get_attribute("class"), section.get_attribute("class")
            errors = console_errors(b)
            assert not errors, errors
            if self.screenshots:
                b.get("file://" + report)
                b.set_window_size(1400, 900)
                b.save_screenshot(os.path.join(self.screenshots, "conformance-matrix.png"))


FAILING_SCENARIO = """
name: A required update the scenario wrongly expects to be optional
description: fails on purpose, so the report has a failing step to point at
devices:
  phone: {platform: ios, app_version: "1.0"}
  tablet: {platform: ios, app_version: "2.5"}
steps:
  - launch: [phone, tablet]
  - after: 10m
  - create_rule: {name: block, type: required_update, below: "2.0"}
  - after: 2m
  - expect: {device: phone, screen: optional_update}
"""


def time_ms(text):
    from datetime import datetime
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    binary = os.path.abspath(sys.argv[1])
    screenshots = None
    if "--screenshots" in sys.argv:
        screenshots = os.path.abspath(sys.argv[sys.argv.index("--screenshots") + 1])
    suite = Suite(binary, screenshots)
    passed = failed = 0
    try:
        for name in [n for n in Suite.__dict__ if n.startswith("test_")]:
            started = time.monotonic()
            try:
                getattr(suite, name)()
                passed += 1
                print(f"✔ {name} ({time.monotonic() - started:.1f} s)")
            except Exception:
                failed += 1
                print(f"✘ {name}")
                traceback.print_exc()
    finally:
        suite.close()
    print(f"browser: {passed} passed, {failed} failed")
    # No test ran is no verdict: a renamed method must not turn the run green.
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
