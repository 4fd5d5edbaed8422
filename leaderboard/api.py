"""The public read-only API (django-ninja); OpenAPI docs at /api/docs."""

from ninja import NinjaAPI

api = NinjaAPI(
    title="MyPCBench API", version="1", description="Read-only access to suites, tasks, runs and trajectories."
)
