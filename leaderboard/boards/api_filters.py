"""The run filters every scored API endpoint takes, as on the pages (/leaderboard/, /analysis/): one
query schema, so the leaderboard and the analysis endpoints cannot drift apart. Unknown values are
ignored by the filters that read them (leaderboard/analysis/queries.py, leaderboard/boards/board.py)."""

from ninja import Field, Schema


class RunFilterQuery(Schema):
    suite: str = Field("", description="Suite slug; default: every suite.")
    surface: str = Field("", description="Tool surface, e.g. computer+bash.")
    judge: str = Field("", description="Judge configuration name; default: each run's own judge.")
    provenance: str = Field("", description="harness, upload, imported or reported.")
    type: str = Field("", description="Behavioural type of the tasks, e.g. personal_lookup.")
    bin: str = Field("", description="Apps touched: 1, 2-3, 4-6 or 7+.")
    app: str = Field("", description="App slug: only tasks that touch this app.")


class WeightedRunFilterQuery(RunFilterQuery):
    weighting: str = Field("", description="authored (the rubric's weights, default) or equal.")


def query_values(filters: Schema, **more: str) -> dict[str, str]:
    """The filters and any further parameters as the plain dict the page filters read."""
    return {**filters.dict(), **more}
