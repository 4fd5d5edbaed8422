"""The pages this work changed, in Chromium at phone (390 px) and desktop (1280 px) width: the leaderboard and
the run page of a run over world variants, the task page with its item that varies (a maintainer sees the
template) and task review. Each shows what it says it shows without scrolling sideways; screenshots go to
test-artifacts/ for a person to look at."""

import pytest
from django.contrib.auth import get_user_model

from seeding.world.rubric_templates import load_templates
from tests.board_data import build_variant_runs
from tests.factories import make_suite

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TASK = "preference_inference-f004"


def _log_in(page, live_server):
    page.goto(f"{live_server.url}/accounts/login/?next=/")
    page.fill("#id_username", "holly")
    page.fill("#id_password", "pw-flax-2026")
    page.click("main button[type=submit]")
    page.wait_for_url("**/")


@pytest.mark.parametrize("width", [390, 1280])
def test_variant_pages_fit_and_say_what_varies(chromium_browser, live_server, settings, shot, width):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    build_variant_runs()
    canonical = load_templates()[TASK]["items"][0]["canonical"]
    suite = make_suite([TASK], slug="mypcbench", rubric=[{"criterion": "Opens HangryDash", "weight": 1.0},
                                                         {"criterion": canonical, "weight": 1.0}])  # fmt: skip
    get_user_model().objects.create_superuser("holly", password="pw-flax-2026")
    context = chromium_browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        pages = {
            "board": ("/leaderboard/?suite=variants", "variant-robust 50.0% (1 of 2)"),
            "run": ("/runs/spread/", "Variant-robust: 50.0%"),
            "task": (f"/tasks/{suite.slug}/{TASK}/", "varies by world variant"),
            "review": (f"/world/review/{suite.slug}/{TASK}/", "Template: Agent identifies {f1_r1_name}"),
        }
        _log_in(page, live_server)
        for name, (url, words) in pages.items():
            page.goto(live_server.url + url)
            assert words in page.inner_text("main"), name
            overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"{name} scrolls sideways by {overflow} px at {width} px"
            shot(page, f"variants-{name}-{width}")
    finally:
        context.close()
