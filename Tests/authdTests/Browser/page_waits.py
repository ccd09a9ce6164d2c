"""What the browser scripts wait for, shared by sign_in.py and account_pages.py."""

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException


def gone(element):
    """A wait condition: whether `element`'s page was replaced. Chromium may answer a node of
    a page it has left with "does not belong to the document" rather than as stale, which
    selenium's staleness_of does not take for gone."""
    def replaced(_):
        try:
            element.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if "does not belong to the document" in str(error):
                return True
            raise
    return replaced
