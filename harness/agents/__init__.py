"""Agents the harness can run: each turns (instruction, observation) into a response and actions."""

from harness.agents.base import Agent, AgentError
from harness.agents.dummy import DummyAgent
from harness.agents.scripted import Plan, PlanError, ScriptedAgent, load_plans

AGENTS = {"dummy": DummyAgent, "scripted": ScriptedAgent}

__all__ = ["AGENTS", "Agent", "AgentError", "DummyAgent", "Plan", "PlanError", "ScriptedAgent", "load_plans"]
