"""The demo journey's chip step, driven by keyboard through Selenium, against the virtual passport.

The step appears only when the host offers nfc.read; here the shell reads a virtual passport behind
a private pcscd (scripts/virtual-passport.sh, which needs root for its namespaces).
"""

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import ROOT
from test_demo_journey import finish, press, responses, save_screenshot, start_journey, wait, wait_for_chip

sys.path.insert(0, str(ROOT / "Tests" / "NFCEndToEnd"))
from passport_sandbox import VPCD_DRIVER, exports, make_passport, sandbox  # noqa: E402

FIXTURES = ROOT / "Tests" / "ShellTests" / "Fixtures"


@pytest.fixture(scope="module")
def virtual_passport():
    """A private pcscd with a genuine virtual passport on its reader: (environment, passport folder)."""
    if os.geteuid() != 0:
        pytest.skip("the virtual passport's private pcscd needs root (network and mount namespaces)")
    assert VPCD_DRIVER.exists(), "vsmartcard-vpcd is not installed (scripts/webdriver-test.sh installs it)"
    scratch = Path(tempfile.mkdtemp(prefix="gbgbridge-webdriver-nfc-"))
    passport = scratch / "passport"
    make_passport(passport, "--chip-auth", "aes", "--active-auth", "ec")
    environment = exports(sandbox("start", str(scratch / "sandbox")))
    try:
        sandbox("card", str(scratch / "sandbox"), "--passport", str(passport))
        yield environment, passport
    finally:
        sandbox("stop", str(scratch / "sandbox"), check=False)
        shutil.rmtree(scratch, ignore_errors=True)


def field(driver, name):
    return driver.find_element(By.CSS_SELECTOR, f"#chip-key [name={name}]")


def notice_text(driver):
    return driver.find_element(By.CSS_SELECTOR, "#card-chip [data-role=notice]").text


def test_chip_step_by_keyboard(session_factory, virtual_passport):
    environment, passport = virtual_passport
    holder = json.loads((passport / "passport.json").read_text())
    session = session_factory(
        "--document-image", str(FIXTURES / "document.png"), "--selfie-image", str(FIXTURES / "selfie.jpg"),
        "--nfc-reader", environment["NFC_READER"], "--csca", str(passport / "csca.pem"),
        environment=environment)
    driver = session.driver
    start_journey(driver)
    assert driver.find_element(By.CSS_SELECTOR, '#stepper li[data-step="chip"]').is_displayed()
    press(driver, "card-document", "capture")
    wait_for_chip(driver, "card-document", "Captured")
    press(driver, "card-selfie", "capture")
    wait_for_chip(driver, "card-selfie", "Captured")

    # The chip step takes the focus in its first field; the key is typed, Enter reads.
    wait(driver).until(lambda d: d.switch_to.active_element.get_attribute("name") == "documentNumber")
    assert driver.find_element(By.CSS_SELECTOR, "#card-chip [data-role=skip]").is_displayed(), "the step is optional"
    document_number = holder["documentNumber"].rstrip("<")
    driver.switch_to.active_element.send_keys(document_number, Keys.TAB, "69086", Keys.TAB, holder["dateOfExpiry"],
                                              Keys.ENTER)
    # An incomplete date is caught on the page: the field is marked and focused, nothing is sent.
    assert "6 digits" in notice_text(driver)
    assert field(driver, "dateOfBirth").get_attribute("aria-invalid") == "true"
    assert driver.switch_to.active_element.get_attribute("name") == "dateOfBirth"
    assert responses(session.messages(), "nfc.read") == []

    # A wrong date that the chip refuses: the host's sentence, and the form stays open for another go.
    driver.switch_to.active_element.send_keys(Keys.BACKSPACE * 6, "690807", Keys.ENTER)
    wait_for_chip(driver, "card-chip", "Not read")
    assert "did not accept" in notice_text(driver)
    assert field(driver, "dateOfBirth").is_enabled()
    driver.execute_script("document.getElementById('card-chip').scrollIntoView({ behavior: 'instant' })")
    save_screenshot(driver, "chip-refused.png")

    field(driver, "dateOfBirth").clear()
    field(driver, "dateOfBirth").send_keys(holder["dateOfBirth"], Keys.ENTER)
    wait_for_chip(driver, "card-chip", "Chip read")
    facts = driver.find_element(By.CSS_SELECTOR, "#card-chip [data-role=facts]").text
    assert "ANNA MARIA ERIKSSON" in facts
    assert "valid, issued by a trusted country" in facts
    assert "genuine: issued by a trusted country, unaltered, and not a copy" in facts
    assert "Chip Authentication proved; Active Authentication proved" in facts
    # The face from the chip decodes, and is painted before the screenshot below.
    photo_width = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const image = document.querySelector('#card-chip [data-role=image]');"
        "image.decode().then(() => requestAnimationFrame(() => requestAnimationFrame(() => done(image.naturalWidth))),"
        "  () => done(0));")
    assert photo_width > 0
    wait(driver).until(EC.text_to_be_present_in_element((By.ID, "finish-summary"), "the chip was read"))
    driver.execute_script("document.getElementById('card-chip').scrollIntoView({ behavior: 'instant' })")
    save_screenshot(driver, "chip-read.png")
    finish(driver, "Completed")

    messages = session.messages()
    assert responses(messages, "nfc.read") == ["error", "success"]
    completion = next(
        entry["message"]["payload"]["data"] for entry in messages
        if entry["message"]["payload"].get("action") == "journey.complete")
    assert completion["outcome"] == "completed"
    assert completion["steps"]["chip"]["chipVerdict"] == "genuine"
    assert completion["steps"]["chip"]["passiveAuthentication"] == "valid"
    assert completion["steps"]["chip"]["chipAuthentication"] == "valid"
    # The host hears verdicts, not the holder's data.
    assert "ERIKSSON" not in json.dumps(completion) and document_number not in json.dumps(completion)


def test_no_chip_step_without_a_reader(session_factory):
    session = session_factory("--cancel-captures", "--nfc-reader", "none")
    driver = session.driver
    start_journey(driver)
    assert not driver.find_element(By.ID, "card-chip").is_displayed()
    assert not driver.find_element(By.CSS_SELECTOR, '#stepper li[data-step="chip"]').is_displayed()
