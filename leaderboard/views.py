"""Thin views over leaderboard selectors."""

from django.shortcuts import render


def home(request):
    return render(request, "leaderboard/home.html", {})
