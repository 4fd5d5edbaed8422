"""The rubric judge: one call per rubric item over the whole trajectory, on Google, Anthropic,
OpenAI or any OpenAI-compatible server, with the trajectory sent once as a cached prefix."""

from harness.judge.core import ERROR, FAILURE, SUCCESS, ItemVerdict, Judge, cost_of, task_score
from harness.judge.parse import AnswerError, ParsedAnswer, parse_answer
from harness.judge.prompt import PROMPT_VERSION, JudgeItem, TrajectoryForJudge, build_prefix, item_text
from harness.judge.providers import (
    DEFAULT_MODELS,
    PROVIDERS,
    ConfigurationError,
    Provider,
    ProviderError,
    Usage,
    make_provider,
)

__all__ = [
    "DEFAULT_MODELS",
    "ERROR",
    "FAILURE",
    "PROMPT_VERSION",
    "PROVIDERS",
    "SUCCESS",
    "AnswerError",
    "ConfigurationError",
    "ItemVerdict",
    "JudgeItem",
    "Judge",
    "ParsedAnswer",
    "Provider",
    "ProviderError",
    "TrajectoryForJudge",
    "Usage",
    "build_prefix",
    "cost_of",
    "item_text",
    "make_provider",
    "parse_answer",
    "task_score",
]
