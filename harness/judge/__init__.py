"""The rubric judge: one call per rubric item over the whole trajectory, on Google, Anthropic,
OpenAI or any OpenAI-compatible server, with the trajectory sent once as a cached prefix; and the simulated
user of sessions (``usersim``: its two-stage reply on the same providers, or by rules), and a recorded
session judged as a whole (``sessions``: its checklist over all turns, its intent statuses re-derived)."""

from harness.judge.core import (
    ERROR,
    FAILURE,
    SUCCESS,
    ItemVerdict,
    Judge,
    JudgeConfigurationError,
    JudgeStopped,
    WeightError,
    cost_of,
    task_score,
)
from harness.judge.images import ImagePolicy
from harness.judge.parse import AnswerError, ParsedAnswer, parse_answer, parse_status_answer
from harness.judge.prompt import (
    PAPER,
    PROMPT_VERSION,
    PROMPT_VERSIONS,
    PROTOCOLS,
    JudgeItem,
    TrajectoryForJudge,
    build_prefix,
    item_text,
)
from harness.judge.provider_base import DEFAULT_MODELS, PROVIDERS, ConfigurationError, Provider, ProviderError, Usage
from harness.judge.providers import make_provider

__all__ = [
    "DEFAULT_MODELS",
    "ERROR",
    "FAILURE",
    "PAPER",
    "PROMPT_VERSION",
    "PROMPT_VERSIONS",
    "PROTOCOLS",
    "PROVIDERS",
    "SUCCESS",
    "AnswerError",
    "ConfigurationError",
    "ImagePolicy",
    "ItemVerdict",
    "JudgeConfigurationError",
    "JudgeItem",
    "JudgeStopped",
    "Judge",
    "ParsedAnswer",
    "Provider",
    "ProviderError",
    "TrajectoryForJudge",
    "Usage",
    "WeightError",
    "build_prefix",
    "cost_of",
    "item_text",
    "make_provider",
    "parse_answer",
    "parse_status_answer",
    "task_score",
]
