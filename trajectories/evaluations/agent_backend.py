"""The agent and the guest backend a launched trajectory runs with: building the agent (provider
agents read their key from the environment; the scripted agent plays plans), the guest from a
launch's backend, URL, image and post-boot setup, and the problems either would meet, found before
anything is queued (trajectories/evaluations/lifecycle.py: preflight)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.agents import AGENTS, PROVIDER_AGENTS, AgentError, Plan, PlanError, ScriptedAgent, provider_agent
from harness.backends import BACKENDS, REGISTRY, VMConfig, make_env
from harness.control import ControlError, PostBootConfig, SetupError, parse_parts

if TYPE_CHECKING:
    from trajectories.evaluations.lifecycle import LaunchSpec


def agent_choices() -> list[str]:
    return sorted(AGENTS)


def plans_from_data(data) -> dict[str, Plan] | None:
    if not data:
        return None
    if isinstance(data, dict) and "plans" in data:
        if not isinstance(data["plans"], dict):
            raise PlanError("plan.plans: expected an object mapping task ids to plans")
        return {key: Plan.from_dict(value, f"plan.plans[{key!r}]") for key, value in data["plans"].items()}
    return {"*": Plan.from_dict(data, "plan")}


def build_agent(agent_type: str, api_model: str = "", plan: dict | None = None, *, base_url: str = "",
                screenshot_window: int = 20, coordinate_type: str = "", settings: dict | None = None):  # fmt: skip
    """The agent a trajectory runs; provider agents read their key from the environment and raise
    AgentError (MissingApiKey) when it, the model name or a needed base URL is missing, or when given a
    coordinate type or a setting (harness COMMON_SETTINGS, AGENT_SETTINGS) they do not take."""
    settings = {k: v for k, v in (settings or {}).items() if v is not None}
    if agent_type in PROVIDER_AGENTS:
        return provider_agent(agent_type, api_model or None, base_url=base_url or None,
                              screenshot_window=screenshot_window, coordinate_type=coordinate_type,
                              **settings)  # fmt: skip
    if coordinate_type:
        raise AgentError(f"coordinate type {coordinate_type!r}: the {agent_type} agent calls no model")
    if settings:
        raise AgentError(f"{', '.join(k.replace('_', ' ') for k in settings)}: the {agent_type} agent calls no model")
    cls = AGENTS[agent_type]
    if cls is ScriptedAgent:
        return ScriptedAgent(plans_from_data(plan))
    return cls()


def agent_problems(spec: LaunchSpec) -> list[str]:
    """Build the agent once here, so a missing API key (checked in this process's environment, which
    should match the workers') or model name is reported before anything is queued."""
    try:
        build_agent(spec.agent_type, spec.model.api_model, spec.plan, base_url=spec.agent_base_url,
                    screenshot_window=spec.screenshot_window, coordinate_type=spec.coordinate_type,
                    settings=spec.agent_settings)  # fmt: skip
    except (AgentError, PlanError, ValueError) as exc:
        return [f"agent {spec.agent_type}: {exc}"]
    return []


def setup_parts(backend: str, setup: str = "") -> tuple[str, ...]:
    """The post-boot setup parts as the CLI's --setup reads them ("" = all on qemu and docker, none
    elsewhere); raises SetupError naming an unknown part."""
    return parse_parts(setup or ("all" if backend in ("qemu", "docker") else "none"))


def make_backend(launch: dict, slot: int = 0):
    """The guest of a launch; raises SetupError or ValueError (the harness's message) for a setup the
    backend does not take."""
    backend = launch["backend"]
    return make_env(
        backend,
        url=launch.get("url", ""),
        vm=VMConfig(image=launch.get("image", ""), slot=slot, snapshot_reset=bool(launch.get("snapshot_reset"))),
        wait_seconds=0.0 if backend == "fake" else 2.0,
        post_boot=PostBootConfig(parts=setup_parts(backend, launch.get("setup", ""))),
    )


def world_variant_problems(backend: str, variants: list[int], attempts: int) -> list[str]:
    """Why the launch's world variants cannot run: a list whose length is not the attempts per task, or a
    variant the backend cannot serve (the released image holds the canonical world only)."""
    if len(variants) > 1 and len(variants) != attempts:
        return [f"world variants {', '.join(map(str, variants))}: {len(variants)} given for {attempts} attempt(s) "
                "per task (expected one variant, or one per attempt)"]  # fmt: skip
    chosen = REGISTRY.get(backend)
    if chosen is None:
        return []  # backend_problems names the unknown backend
    return [problem for problem in map(chosen.world_variant_problem, dict.fromkeys(variants)) if problem]


def backend_problems(backend: str, url: str = "", image: str = "", *, setup: str = "",
                     snapshot_reset: bool = False) -> list[str]:  # fmt: skip
    if backend not in BACKENDS:
        return [f"backend {backend!r} is unknown (expected one of {', '.join(BACKENDS)})"]
    if snapshot_reset and backend != "qemu":
        return [f"{backend} backend: snapshot reset is for the qemu backend only"]
    try:
        env = make_backend({"backend": backend, "url": url, "image": image, "setup": setup,
                            "snapshot_reset": snapshot_reset})  # fmt: skip
    except (SetupError, ValueError) as exc:
        return [f"{backend} backend: {exc}"]
    problems = env.preflight()
    if not problems and backend == "remote":
        try:
            env.client.wait_ready(timeout=3.0, interval=0.5)
        except ControlError as exc:
            problems.append(f"the guest at {url} does not answer: {exc}")
        finally:
            env.stop()
    return [f"{backend} backend: {p}" for p in problems]
