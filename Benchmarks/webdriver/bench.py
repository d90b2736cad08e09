"""Parallel WebDriver sessions on one machine: session start time and journeys per minute.

For each level of parallelism, starts that many workers; each worker is one WebKitWebDriver on its
own port under its own Xvfb (xvfb-run), the layout docs/webdriver.md recommends, and drives the
demo journey to completion (test-pattern camera) again and again in fresh sessions for a fixed
number of journeys. Prints numbers, asserts nothing.

    bench.py SHELL [--levels 1,2,4] [--journeys 3]
"""

import argparse
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "Tests" / "WebDriver"))

from selenium import webdriver  # noqa: E402

import conftest  # noqa: E402
import test_demo_journey as demo  # noqa: E402

SHELL_ARGS = ("--camera", "test-pattern", "--auto-capture", "0", "--selfie-countdown", "0")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, seconds=15):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"WebKitWebDriver did not listen on port {port}")


def journey(url):
    """One session: start, click through every step, quit. Returns the session start time."""
    started = time.monotonic()
    driver = webdriver.Remote(command_executor=url, options=conftest.shell_options(*SHELL_ARGS))
    start_seconds = time.monotonic() - started
    try:
        demo.start_journey(driver)
        demo.press(driver, "card-document", "capture")
        demo.wait_for_chip(driver, "card-document", "Captured")
        demo.press(driver, "card-selfie", "capture")
        demo.wait_for_chip(driver, "card-selfie", "Captured")
        demo.finish(driver, "Completed")
    finally:
        driver.quit()
    return start_seconds


def run_level(workers, journeys_each):
    servers, starts, failures = [], [], []
    lock = threading.Lock()
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="disabled:", NO_AT_BRIDGE="1")
    urls = []
    for _ in range(workers):
        port = free_port()
        servers.append(subprocess.Popen(
            ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", conftest.DRIVER, f"--port={port}"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        wait_for_port(port)
        urls.append(f"http://127.0.0.1:{port}")

    def worker(url):
        for _ in range(journeys_each):
            try:
                seconds = journey(url)
                with lock:
                    starts.append(seconds)
            except Exception as error:  # a failed journey is counted, not fatal
                with lock:
                    failures.append(repr(error))

    began = time.monotonic()
    threads = [threading.Thread(target=worker, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    for server in servers:
        os.killpg(server.pid, 15)
        server.wait()
    return starts, failures, elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("shell")
    parser.add_argument("--levels", default="1,2,4")
    parser.add_argument("--journeys", type=int, default=3, help="journeys per worker")
    options = parser.parse_args()
    conftest.SHELL = options.shell

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    print("parallel  journeys  failed  session start (median / max)  journeys per minute")
    for workers in (int(level) for level in options.levels.split(",")):
        starts, failures, elapsed = run_level(workers, options.journeys)
        done = len(starts)
        per_minute = done * 60 / elapsed if elapsed else 0
        median = statistics.median(starts) if starts else float("nan")
        longest = max(starts) if starts else float("nan")
        print(f"{workers:8d}  {done:8d}  {len(failures):6d}  {median:10.2f} s / {longest:5.2f} s"
              f"              {per_minute:6.1f}", flush=True)
        for failure in failures[:3]:
            print(f"          failure: {failure[:200]}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
