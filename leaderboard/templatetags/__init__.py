"""Template tags: the one library `leaderboard_tags` ({% load leaderboard_tags %}). May use every room
below the app roots."""
