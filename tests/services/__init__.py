"""Tests that start real service processes (a Celery worker) beside the test database."""
