"""Which judge to use, as read from settings and as it travels in Celery messages: shared by the
code that stores trajectories (asking for judging) and our judge. Uses settings only."""

from dataclasses import dataclass

from django.conf import settings

DEFAULT_JUDGE = {
    "provider": "google",
    "model": "",
    "base_url": "",
    "temperature": 0.0,
    "max_images": 200,
    "concurrency": 64,  # harness.judge.core.DEFAULT_CONCURRENCY: a ceiling, the quota sets the rest
    "attempts": 5,
    "prompt_version": "",
    "persona_summary": "",
}


@dataclass
class JudgeSpec:
    """Which judge to use; a plain dict of it travels in Celery messages."""

    provider: str
    model: str = ""
    base_url: str = ""
    temperature: float = 0.0
    max_images: int = 200
    concurrency: int = 64  # the most calls in flight; the judge follows the provider's quota up to it
    attempts: int = 5  # tries of a call failing with a 5xx or a timeout; 429s wait within their own time budget
    prompt_version: str = ""  # the judge prompt: "" = the harness's default (mypc-judge-1), or paper-v1
    # the persona summary Markdown sent to the judge: a path; "" = the loaded world's summary if a world
    # is loaded (manage.py load_world), else none; "none" = never
    persona_summary: str = ""

    @classmethod
    def from_settings(cls, **overrides) -> "JudgeSpec":
        values = {**DEFAULT_JUDGE, **getattr(settings, "MYPCBENCH_JUDGE", {})}
        values.update({k: v for k, v in overrides.items() if v not in (None, "")})
        return cls(**{k: values[k] for k in cls.__dataclass_fields__})

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}
