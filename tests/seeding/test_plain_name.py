"""Names copied from the persona spec lose the spec author's remarks and keep the parts a real app shows."""

import pytest

from seeding.world.persona import plain_name


@pytest.mark.parametrize(
    ("spec_text", "shown"),
    [
        ("Paramount+ (forgot he signed up)", "Paramount+"),
        (
            "Sandals Vacation Club Membership (active — never cancelled after Jan breakup)",
            "Sandals Vacation Club Membership",
        ),
        ("MasterClass Annual (watched 2 episodes)", "MasterClass Annual"),
        ("Toys for Tots (bought himself a toy too)", "Toys for Tots"),
        ("Hulu (No Ads)", "Hulu (No Ads)"),
        (
            "Worlds Best Boss Mug Subscription (CustomInk Monthly)",
            "Worlds Best Boss Mug Subscription (CustomInk Monthly)",
        ),
        ("Zelle to Arnav Singh (Rent)", "Zelle to Arnav Singh (Rent)"),
    ],
)
def test_spec_remarks_are_dropped_and_real_qualifiers_kept(spec_text, shown):
    assert plain_name(spec_text) == shown


def test_text_the_persona_wrote_keeps_his_own_asides_but_not_remarks_about_him():
    assert plain_name("Print color-coded country flag handouts (one per cuisine)", lowercase_remarks=False) == (
        "Print color-coded country flag handouts (one per cuisine)"
    )
    assert plain_name("Order snacks representing 'every culture' (Michael's words)", lowercase_remarks=False) == (
        "Order snacks representing 'every culture'"
    )
    assert plain_name(None) is None
