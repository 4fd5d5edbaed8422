"""Agents the harness can run: each turns (instruction, observation) into a response and actions."""

from harness.agents.anthropic import AnthropicAgent
from harness.agents.base import Agent, AgentError
from harness.agents.common import MissingApiKey, ProviderAgent
from harness.agents.dummy import DummyAgent
from harness.agents.gemini import GeminiAgent
from harness.agents.openai import OpenAIAgent
from harness.agents.openai_compatible import OpenAICompatibleAgent
from harness.agents.scripted import Plan, PlanError, ScriptedAgent, load_plans

AGENTS = {"dummy": DummyAgent, "scripted": ScriptedAgent}
# Agents that call a model through its provider's SDK (they take model, api_key, base_url, ...).
PROVIDER_AGENTS = {
    "anthropic": AnthropicAgent,
    "openai": OpenAIAgent,
    "gemini": GeminiAgent,
    "openai_compatible": OpenAICompatibleAgent,
}
AGENTS.update(PROVIDER_AGENTS)

__all__ = [
    "AGENTS",
    "PROVIDER_AGENTS",
    "Agent",
    "AgentError",
    "AnthropicAgent",
    "DummyAgent",
    "GeminiAgent",
    "MissingApiKey",
    "OpenAIAgent",
    "OpenAICompatibleAgent",
    "Plan",
    "PlanError",
    "ProviderAgent",
    "ScriptedAgent",
    "load_plans",
]
