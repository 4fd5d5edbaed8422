"""The World pages' "Made by" in words: a spec section path ("contacts[9]", "routines.work_calendar")
becomes the field in words and the item's name when the world knows it, and the link behind it
still filters the records by the section's path."""

from world.records.browse import section_label


def test_a_contact_is_named_and_other_sections_are_put_in_words():
    names = {"contacts[9]": "Jan Levinson"}
    assert section_label("contacts[9]", names) == "Contacts: Jan Levinson"
    assert section_label("contacts[9].birthday", names) == "Contacts: Jan Levinson, birthday"
    assert section_label("contacts[3]") == "Contacts: no. 4"
    assert section_label("routines.work_calendar") == "Routines: work calendar"
    assert section_label("app_overrides.mail.labels[0]") == "App overrides: mail, labels no. 1"
    assert section_label("financial+routines.recurring") == "Financial and routines: recurring"
    assert section_label("odd[path") == "odd[path"  # what does not parse is shown as it is
