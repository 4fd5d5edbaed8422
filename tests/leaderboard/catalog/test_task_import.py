def test_a_rubric_item_copied_to_a_spec_and_back_keeps_every_field():
    """The one copy of what a rubric item says (RubricItem.spec_fields) covers every field the harness's
    RubricSpec has besides the state check, so no copy between the two forgets one."""
    import dataclasses

    from harness.tasks import RubricSpec
    from leaderboard.models import RubricItem

    spec_fields = {f.name for f in dataclasses.fields(RubricSpec)} - {"state_check"}
    assert set(RubricItem.SPEC_FIELDS) == spec_fields
    spec = RubricSpec(3, "R3", "Says the code", "check mail", 2.0, 0.4, "abc")
    item = RubricItem(**RubricItem.spec_fields(spec))
    assert RubricSpec(**RubricItem.spec_fields(item)) == spec
