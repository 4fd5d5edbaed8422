"""Loopback HTTP servers that speak the Gemini, Anthropic and OpenAI wire formats, so the real
SDKs can be tested against scripted answers, errors and latency."""

from tests.simulators.server import ProviderSimulator, Reply, SimRequest

__all__ = ["ProviderSimulator", "Reply", "SimRequest"]
