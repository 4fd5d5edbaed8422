"""Slugs for rows made from a name (runs, models): the slug of the name, or the next free one with a
number appended; created in a savepoint so a concurrent request that took the same slug (or, for
models, the same name) first makes this one try the next slug or reuse that row, never fail."""

from django.db import IntegrityError, transaction
from django.utils.text import slugify


def free_slug(model_class, name: str, fallback: str) -> str:
    """``slugify(name)`` (or ``fallback``), else the first of ``<slug>-2``, ``<slug>-3``... not taken."""
    base = slugify(name)[:180] or fallback
    slug, n = base, 2
    while model_class.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def create_with_free_slug(
    model_class, name: str, fallback: str, fields, *, reuse_by_name: bool = False, tries: int = 5
):
    """``model_class.objects.create(**fields(slug))`` with a free slug made from ``name``. Another
    request committing the same slug between our check and our insert makes the insert fail; then the
    next free slug is tried, or, with ``reuse_by_name``, the row of that name (made by the other
    request) is returned."""
    for _ in range(tries):
        try:
            with transaction.atomic():
                return model_class.objects.create(**fields(free_slug(model_class, name, fallback)))
        except IntegrityError:
            if reuse_by_name and (existing := model_class.objects.filter(name=name).first()) is not None:
                return existing
    raise IntegrityError(f"no free {model_class._meta.verbose_name} slug for {name!r} after {tries} tries")
