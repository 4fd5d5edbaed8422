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
# Agents that read model coordinates in more than one convention (the two Qwen ones).
COORDINATE_TYPES = {"openai_compatible": ("relative", "absolute")}
# Settings every provider agent takes (None = the agent's documented default; see ProviderAgent).
COMMON_SETTINGS = ("max_output_tokens", "retry_output_tokens", "reasoning_effort", "temperature", "dual_tool_hint")
# Protocol settings only some agents take: setting -> agents.
AGENT_SETTINGS = {
    "display": ("anthropic",),
    "claude_tools": ("anthropic",),
    "thinking": ("anthropic",),
    "image_drop_chunk": ("anthropic", "openai", "openai_compatible"),
    "context": ("openai",),
    "safety_policy": ("gemini",),
}


def provider_agent(name: str, model: str | None = None, *, base_url: str | None = None, screenshot_window: int = 20,
                   coordinate_type: str = "", **settings):  # fmt: skip
    """A provider agent as the CLI and the site build it; raises AgentError for a missing key, model or
    base URL, a ``coordinate_type`` the agent does not read ("" = the agent's own default), or a setting
    (COMMON_SETTINGS, AGENT_SETTINGS; None = the default) the agent does not take."""
    options = {}
    if coordinate_type:
        if name not in COORDINATE_TYPES:
            raise AgentError(
                f"coordinate type {coordinate_type!r}: only the {', '.join(COORDINATE_TYPES)} agent takes one "
                f"(got agent {name!r})"
            )
        options["coordinate_type"] = coordinate_type
    for key, value in settings.items():
        if value is None:
            continue
        if key not in COMMON_SETTINGS and key not in AGENT_SETTINGS:
            raise AgentError(f"unknown agent setting {key!r} (known: {', '.join([*COMMON_SETTINGS, *AGENT_SETTINGS])})")
        if key in AGENT_SETTINGS and name not in AGENT_SETTINGS[key]:
            raise AgentError(f"{key.replace('_', ' ')}: only the {' and '.join(AGENT_SETTINGS[key])} agent takes it "
                             f"(got agent {name!r})")  # fmt: skip
        options[key] = value
    return PROVIDER_AGENTS[name](model, base_url=base_url, screenshot_window=screenshot_window, **options)


__all__ = [
    "AGENTS",
    "AGENT_SETTINGS",
    "COMMON_SETTINGS",
    "COORDINATE_TYPES",
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
    "provider_agent",
]
