"""WebDriver sessions as a journey team's suite meets them: a same-origin 404, a refused
foreign page, quit() in the middle of a journey whose journey.cancel handler takes its time.
The journey is served over HTTP from two loopback origins (127.0.0.1 and localhost)."""

import functools
import http.server
import json
import threading
import time
import urllib.request

import pytest
from selenium.common.exceptions import WebDriverException

SITE = __import__("pathlib").Path(__file__).resolve().parent / "site"
CLIENT = SITE.parents[2] / "Resources" / "gbgbridge-client.js"


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.split("?")[0] == "/gbgbridge-client.js":
            body = CLIENT.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


@pytest.fixture(scope="module")
def site():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    yield f"http://127.0.0.1:{port}", f"http://localhost:{port}"
    server.shutdown()


def events(session, action):
    return [entry for entry in session.messages()
            if entry["dir"] == "native-to-web" and entry["message"]["payload"].get("action") == action]


def wait_until(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_same_origin_404_does_not_end_the_session(session_factory, site):
    journey, _ = site
    # The documented recipe for unattended captures, which once made every load failure end the run.
    session = session_factory(journey + "/index.html", "--camera", "test-pattern", "--auto-capture", "0")
    driver = session.driver
    assert wait_until(lambda: len(events(session, "host.ready")) == 1)
    driver.get(journey + "/missing.html")  # answers 404: the error page, and the session goes on
    assert driver.title is not None
    driver.get(journey + "/index.html")
    assert driver.execute_script("return document.title") == "Session fixture"
    assert wait_until(lambda: len(events(session, "host.ready")) == 2)


def test_a_refused_page_is_invisible_to_the_journey(session_factory, site):
    journey, foreign = site
    session = session_factory(journey + "/index.html")
    driver = session.driver
    assert wait_until(lambda: len(events(session, "host.ready")) == 1)
    try:
        driver.get(foreign + "/index.html")  # refused: WebDriver may report the load as failed
    except WebDriverException:
        pass
    driver.execute_script("location.href = arguments[0]", foreign + "/page2.html")
    time.sleep(1)
    assert driver.execute_script("return location.href").startswith(journey)
    assert len(events(session, "host.ready")) == 1, "a refused navigation sent host.ready again"
    assert not events(session, "journey.cancel")


@pytest.mark.parametrize("run", range(3))
def test_quit_mid_journey_answers_success(session_factory, site, run):
    journey, _ = site
    session = session_factory(journey + "/index.html?slowcancel=150")
    driver = session.driver
    assert wait_until(lambda: len(events(session, "host.ready")) == 1)
    started = time.monotonic()
    # Raw DELETE /session, as Grid sends it: success, whatever the journey's cancel handler does.
    url = f"{session.service.service_url}/session/{driver.session_id}"
    with urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=30) as response:
        body = json.loads(response.read())
        assert response.status == 200, body
    assert body.get("value") is None, body
    assert time.monotonic() - started < 10
    driver.session_id = None
