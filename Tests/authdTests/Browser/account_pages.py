"""Opens an emailed link of authd in Chromium (headless, through chromedriver) and does what
its page asks, as a person would: `reset LINK PASSWORD` types a weak password, then
PASSWORD; `verify LINK` presses the confirmation button. Prints what it saw as JSON (the
page's language, the field's autocomplete, each heading, the address bar after the link,
the console's messages) and saves a screenshot of each step into SHOTS.

usage: account_pages.py reset|verify LINK [PASSWORD] --language en|ja --shots FOLDER
"""
import argparse
import json
import shutil

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from page_waits import gone

parser = argparse.ArgumentParser()
parser.add_argument("mode", choices=["reset", "verify"])
parser.add_argument("link")
parser.add_argument("password", nargs="?")
parser.add_argument("--language", default="en")
parser.add_argument("--shots", required=True)
arguments = parser.parse_args()

options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=720,820",
                 f"--lang={arguments.language}"]:
    options.add_argument(argument)
options.add_experimental_option("prefs", {"intl.accept_languages": arguments.language})
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
seen = {"headings": [], "console": []}
wait = WebDriverWait(driver, 30)


def step(name):
    heading = wait.until(expected_conditions.presence_of_element_located((By.TAG_NAME, "h1"))).text
    seen["headings"].append(heading)
    driver.save_screenshot(f"{arguments.shots}/{arguments.mode}-{arguments.language}-{len(seen['headings'])}-{name}.png")


def submit():
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(gone(old))


try:
    driver.get(arguments.link)
    seen["url_after_link"] = driver.current_url
    seen["lang"] = driver.find_element(By.TAG_NAME, "html").get_attribute("lang")
    step("opened")
    if arguments.mode == "reset":
        field = driver.find_element(By.ID, "password")
        seen["autocomplete"] = field.get_attribute("autocomplete")
        field.send_keys("password")
        submit()
        step("weak")
        seen["error"] = driver.find_element(By.ID, "error").text
        driver.find_element(By.ID, "password").send_keys(arguments.password)
        submit()
        step("done")
    else:
        submit()
        step("done")
    seen["url_at_end"] = driver.current_url
    seen["console"] = [entry["message"] for entry in driver.get_log("browser")]
finally:
    driver.quit()
print(json.dumps(seen, ensure_ascii=False))
