"""World variants in runs and result folders: which variant of the persona world a trajectory was run on
(0 is the canonical world, the released one), how ``--world-variant`` is read (one number, or a list with
one per attempt), and how a trajectory's ``bundle.json`` says it (a missing field means the canonical
world, so results written before variants existed read as variant 0)."""

WORLD_VARIANT_KEY = "world_variant"  # the field in bundle.json and run.json
CANONICAL_WORLD = 0
MAX_WORLD_VARIANT = 9999  # a guard on typos; seeding draws any whole number, the benches use 0..9
MAX_WORLD_VARIANT_ATTEMPTS = 100


class WorldVariantError(ValueError):
    """A world variant that is not a whole number in range, or a list of them that is malformed."""


def parse_world_variants(text: str, *, flag: str = "--world-variant") -> list[int]:
    """``"3"`` -> [3]; ``"0,3,7"`` -> [0, 3, 7] (one variant per attempt, in order)."""
    raw = str(text).strip()
    if not raw:
        raise WorldVariantError(f"{flag}: empty (expected a whole number such as 3, or a list such as 0,3,7)")
    parts = [part.strip() for part in raw.split(",")]
    if len(parts) > MAX_WORLD_VARIANT_ATTEMPTS:
        raise WorldVariantError(
            f"{flag}: {len(parts)} variants (at most {MAX_WORLD_VARIANT_ATTEMPTS}, one per attempt)"
        )
    variants = []
    for position, part in enumerate(parts, start=1):
        if not part.isascii() or not part.isdigit():
            shown = part[:20] or "(nothing)"
            raise WorldVariantError(
                f"{flag}: {shown!r} (item {position}) is not a world variant "
                "(expected a whole number 0 or more, such as 3, or a list such as 0,3,7)"
            )
        value = int(part)
        if value > MAX_WORLD_VARIANT:
            raise WorldVariantError(f"{flag}: {value} (item {position}) is above {MAX_WORLD_VARIANT}")
        variants.append(value)
    return variants


def attempt_world_variant(variants: list[int], attempt: int) -> int:
    """The variant attempt ``attempt`` (counted from 0) runs on: one variant serves every attempt, a
    list gives one per attempt."""
    if not variants:
        return CANONICAL_WORLD
    return variants[0] if len(variants) == 1 else variants[attempt]


def world_variant_of(data: dict, *, source: str = "bundle.json") -> int:
    """The world variant a bundle.json (or run.json) records; missing means the canonical world (0)."""
    value = data.get(WORLD_VARIANT_KEY, CANONICAL_WORLD)
    if value is None:
        return CANONICAL_WORLD
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_WORLD_VARIANT:
        raise WorldVariantError(
            f"{source}: {WORLD_VARIANT_KEY} is {str(value)[:20]!r} (expected a whole number 0..{MAX_WORLD_VARIANT})"
        )
    return value


def world_variants_words(variants) -> str:
    """What a run's trajectories ran on, in a sentence's words: "the canonical world (variant 0)", "world
    variant 3", or "world variants 0, 3 and 7" (each variant once, in order)."""
    found = sorted(set(variants))
    if not found:
        return ""
    if len(found) == 1:
        return (
            "the " + describe_world_variant(found[0])
            if found[0] == CANONICAL_WORLD
            else describe_world_variant(found[0])
        )
    listed = ", ".join(map(str, found[:-1])) + f" and {found[-1]}"
    return f"world variants {listed}"


def describe_world_variant(variant: int) -> str:
    """The words pages and exports use: "world variant 3", or the canonical world for 0."""
    return "canonical world (variant 0)" if variant == CANONICAL_WORLD else f"world variant {variant}"
