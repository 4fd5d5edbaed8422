"""Fixtures of the leaderboard's tests: the hand-built board of tests/board_data.py."""

import pytest

from tests.board_data import build_board


@pytest.fixture
def board():
    """The hand-built board (tests/board_data.py); caches start empty (tests/conftest.py's fresh_caches)."""
    return build_board()
