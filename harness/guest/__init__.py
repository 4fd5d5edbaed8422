"""Guests that speak the Control API: a fake one for tests and our local desktop guest (Xvfb)."""
