"""The site's API root (django-ninja; OpenAPI docs at /api/docs): mounts each app's routers, so no
app imports another for its API."""

from ninja import NinjaAPI

from leaderboard.api import router as catalog_router
from leaderboard.api_analysis import router as analysis_router
from leaderboard.api_board import router as board_router
from trajectories.api_evaluations import router as evaluations_router
from trajectories.api_player import router as player_router
from trajectories.api_submissions import rate_limited_response
from trajectories.api_submissions import router as submissions_router
from trajectories.ratelimits import RateLimited

api = NinjaAPI(
    title="MyPCBench API", version="1", description="Read-only access to suites, tasks, runs and trajectories."
)
api.add_router("/", catalog_router)
api.add_router("/", player_router)
api.add_router("/", submissions_router)
api.add_exception_handler(RateLimited, lambda request, exc: rate_limited_response(request, exc, api))
api.add_router("/", board_router)
api.add_router("/", analysis_router)
api.add_router("/", evaluations_router)
