"""The bundled demo journey driven through gbgbridge-shell with Selenium, as a journey team would."""

import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ARTIFACTS


def wait(driver, seconds=20):
    return WebDriverWait(driver, seconds)


def chip_text(driver, card_id):
    return driver.find_element(By.CSS_SELECTOR, f"#{card_id} [data-role=status]").text


def start_journey(driver):
    """Waits for host.ready and the capability query, then presses Start."""
    wait(driver).until(EC.text_to_be_present_in_element_attribute((By.ID, "host-pill"), "data-state", "connected"))
    start = wait(driver).until(EC.element_to_be_clickable((By.ID, "start-button")))
    assert driver.find_element(By.ID, "caps-table").is_displayed()
    start.click()


def press(driver, card_id, role):
    wait(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, f"#{card_id} [data-role={role}]"))).click()


def wait_for_chip(driver, card_id, text):
    wait(driver, 30).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, f"#{card_id} [data-role=status]"), text))


def finish(driver, expected_status):
    wait(driver).until(EC.element_to_be_clickable((By.ID, "finish-button"))).click()
    wait(driver).until(EC.text_to_be_present_in_element((By.ID, "finish-status"), expected_status))


def responses(messages, action):
    """Statuses of the host's responses to requests for action, in order."""
    requests = {
        entry["message"]["correlationId"]
        for entry in messages
        if entry["dir"] == "web-to-native" and entry["message"]["payload"].get("action") == action
    }
    return [
        entry["message"]["payload"]["status"]
        for entry in messages
        if entry["dir"] == "native-to-web" and entry["message"].get("correlationId") in requests
        and entry["message"]["type"] == "response"
    ]


def save_screenshot(driver, name):
    png = driver.get_screenshot_as_png()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    os.makedirs(ARTIFACTS, exist_ok=True)
    (ARTIFACTS / name).write_bytes(png)


def test_every_step_with_the_test_pattern_camera(session_factory):
    session = session_factory("--camera", "test-pattern", "--auto-capture", "0", "--selfie-countdown", "0")
    driver = session.driver
    assert driver.capabilities["browserName"] == "gbgbridge-shell"
    assert driver.current_url.endswith("/demo/index.html"), "the demo opens without ?autostart"
    assert driver.title == "GBG Bridge demo journey"

    start_journey(driver)
    press(driver, "card-document", "capture")
    wait_for_chip(driver, "card-document", "Captured")
    press(driver, "card-selfie", "capture")
    wait_for_chip(driver, "card-selfie", "Captured")
    image_width = driver.execute_script(
        "return document.querySelector('#card-document [data-role=image]').naturalWidth")
    assert image_width > 0
    wait(driver).until(EC.text_to_be_present_in_element((By.ID, "finish-summary"), "Both captures are ready."))
    finish(driver, "Completed")

    messages = session.messages()
    # The demo asks again each time the host comes back to the foreground (after each capture window).
    queries = responses(messages, "capability.query")
    assert queries and set(queries) == {"success"}
    assert responses(messages, "camera.document.capture") == ["success"]
    assert responses(messages, "camera.selfie.capture") == ["success"]
    completions = [
        entry["message"]["payload"]["data"] for entry in messages
        if entry["message"]["payload"].get("action") == "journey.complete"
    ]
    assert completions and completions[0]["outcome"] == "completed"
    save_screenshot(driver, "completed.png")


def test_cancelled_captures_are_skipped(session_factory):
    session = session_factory("--cancel-captures")
    driver = session.driver
    start_journey(driver)
    for card in ("card-document", "card-selfie"):
        press(driver, card, "capture")
        wait_for_chip(driver, card, "Cancelled")
        assert "Capture cancelled." in driver.find_element(By.CSS_SELECTOR, f"#{card} [data-role=notice]").text
        press(driver, card, "skip")
    finish(driver, "Sent with gaps")
    summary = driver.find_element(By.ID, "finish-list").text
    assert summary.count("cancelled") == 2

    messages = session.messages()
    assert responses(messages, "camera.document.capture") == ["cancelled"]
    assert responses(messages, "camera.selfie.capture") == ["cancelled"]
    save_screenshot(driver, "cancelled.png")


def test_session_start_is_quick(session_factory):
    session = session_factory("--camera", "none")
    assert session.start_seconds < 15, f"the session took {session.start_seconds:.1f} s to start"
