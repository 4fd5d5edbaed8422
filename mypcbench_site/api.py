"""The site's API root (django-ninja; OpenAPI docs at /api/docs): mounts each app's routers, so no
app imports another for its API."""

from typing import cast

from ninja import NinjaAPI

from leaderboard.boards.api_analysis import router as analysis_router
from leaderboard.boards.api_board import router as board_router
from leaderboard.boards.api_catalog import router as catalog_router
from trajectories.accounts.ratelimits import RateLimited
from trajectories.evaluations.api import router as evaluations_router
from trajectories.judging.api import router as judging_router
from trajectories.player.api import router as player_router
from trajectories.submissions.api import rate_limited_response
from trajectories.submissions.api import router as submissions_router

api = NinjaAPI(
    title="MyPCBench API", version="1", description="Read-only access to suites, tasks, runs and trajectories."
)
api.add_router("/", catalog_router)
api.add_router("/", player_router)
api.add_router("/", submissions_router)
# ninja hands the handler the raised RateLimited (its stubs also allow the class)
api.add_exception_handler(RateLimited, lambda request, exc: rate_limited_response(request, cast(RateLimited, exc), api))
api.add_router("/", board_router)
api.add_router("/", analysis_router)
api.add_router("/", evaluations_router)
api.add_router("/", judging_router)
