"""Behavioural task types (the paper's taxonomy): the mapping shipped for the 184 known MyPCBench
task ids, the loader for a ``task_types.json`` file, and the rule used for ids nobody has typed.

Resolution order for one task (see :func:`resolve_type`):

1. the ``--task-types`` file, when given and it lists the id (type source ``file``);
2. the shipped mapping, when the id is one of the 184 published MyPCBench ids (``shipped``);
3. the derived rule on the task's internal category (``derived``):

   ==========================================  ============================
   category                                    behavioural type
   ==========================================  ============================
   retrieval                                   personal_lookup
   aggregation                                 aggregation_reporting
   contradiction, counterfactual               cross_source_reconciliation
   preference_inference                        pattern_inference
   situated_action, cua_only, hard_app         bounded_action
   long_horizon                                multi_step_orchestration
   ==========================================  ============================

The rule holds for 161 of the 184 published tasks; the 23 others are listed in ``EXCEPTIONS``, which
is why a derived type is marked as such rather than passed off as the authors' own.
"""

import json
from pathlib import Path
from typing import NamedTuple

from harness.tasks.taskfile import TaskFileError, json_kind, parse_json_text

BOUNDED_ACTION = "bounded_action"
MULTI_STEP_ORCHESTRATION = "multi_step_orchestration"
CROSS_SOURCE_RECONCILIATION = "cross_source_reconciliation"
AGGREGATION_REPORTING = "aggregation_reporting"
PERSONAL_LOOKUP = "personal_lookup"
PATTERN_INFERENCE = "pattern_inference"

# Paper order (largest first), with the labels the paper prints.
TYPE_LABELS = {
    BOUNDED_ACTION: "Bounded action",
    MULTI_STEP_ORCHESTRATION: "Multi-step orchestration",
    CROSS_SOURCE_RECONCILIATION: "Cross-source reconciliation",
    AGGREGATION_REPORTING: "Aggregation & reporting",
    PERSONAL_LOOKUP: "Personal lookup",
    PATTERN_INFERENCE: "Pattern inference",
}
TYPES = tuple(TYPE_LABELS)

SOURCE_FILE = "file"
SOURCE_SHIPPED = "shipped"
SOURCE_DERIVED = "derived"

CATEGORY_RULE = {
    "retrieval": PERSONAL_LOOKUP,
    "aggregation": AGGREGATION_REPORTING,
    "contradiction": CROSS_SOURCE_RECONCILIATION,
    "counterfactual": CROSS_SOURCE_RECONCILIATION,
    "preference_inference": PATTERN_INFERENCE,
    "situated_action": BOUNDED_ACTION,
    "cua_only": BOUNDED_ACTION,
    "hard_app": BOUNDED_ACTION,
    "long_horizon": MULTI_STEP_ORCHESTRATION,
}

# Published ids whose type differs from the category rule (the id prefix is not the category either).
EXCEPTIONS = {
    "retrieval-f032": MULTI_STEP_ORCHESTRATION,
    "retrieval-f005": AGGREGATION_REPORTING,
    "situated_action-f029": MULTI_STEP_ORCHESTRATION,
    "hard_app-f033": MULTI_STEP_ORCHESTRATION,
    "situated_action-f027": MULTI_STEP_ORCHESTRATION,
    "situated_action-f008": MULTI_STEP_ORCHESTRATION,
    "hard_app-f015": MULTI_STEP_ORCHESTRATION,
    "cua_only-f014": PERSONAL_LOOKUP,
    "hard_app-f034": BOUNDED_ACTION,
    "cua_only-f015": BOUNDED_ACTION,
    "hard_app-f020": BOUNDED_ACTION,
    "hard_app-f018": BOUNDED_ACTION,
    "cua_only-f021": BOUNDED_ACTION,
    "cua_only-f006": BOUNDED_ACTION,
    "cua_only-f013": BOUNDED_ACTION,
    "cua_only-f023": BOUNDED_ACTION,
    "hard_app-f011": BOUNDED_ACTION,
    "hard_app-f026": BOUNDED_ACTION,
    "long_horizon-f011": BOUNDED_ACTION,
    "hard_app-f025": BOUNDED_ACTION,
    "hard_app-f016": BOUNDED_ACTION,
    "cua_only-f007": AGGREGATION_REPORTING,
    "cua_only-f018": AGGREGATION_REPORTING,
}

# The 184 published task ids, by the internal category they carry in the released suite. The shipped
# type is fixed per id, so it does not drift if a later file re-labels a task's category.
KNOWN_IDS_BY_CATEGORY = {
    "aggregation": (
        "aggregation-f001 aggregation-f002 aggregation-f003 aggregation-f004 aggregation-f005 "
        "aggregation-f008 aggregation-f009 aggregation-f010 aggregation-f011 aggregation-f018 "
        "aggregation-f019 aggregation-f020 aggregation-f023 aggregation-f029 aggregation-f030 "
        "aggregation-f031 aggregation-f033 aggregation-f036 aggregation-f037 aggregation-f040 "
    ),
    "contradiction": (
        "contradiction-f003 contradiction-f004 contradiction-f005 contradiction-f006 contradiction-f008 "
        "contradiction-f011 contradiction-f012 contradiction-f013 contradiction-f014 contradiction-f015 "
        "contradiction-f016 contradiction-f017 contradiction-f021 contradiction-f022 contradiction-f023 "
        "contradiction-f024 "
    ),
    "counterfactual": (
        "counterfactual-f001 counterfactual-f002 counterfactual-f003 counterfactual-f004 counterfactual-f005 "
        "counterfactual-f008 counterfactual-f010 counterfactual-f013 counterfactual-f014 "
    ),
    "cua_only": ("cua_only-f001 cua_only-f002 "),
    "hard_app": ("hard_app-f001 "),
    "long_horizon": (
        "cua_only-f004 cua_only-f006 cua_only-f007 cua_only-f013 cua_only-f015 cua_only-f018 cua_only-f021 "
        "cua_only-f023 cua_only-f024 hard_app-f011 hard_app-f016 hard_app-f018 hard_app-f020 hard_app-f025 "
        "hard_app-f026 hard_app-f034 long_horizon-f006 long_horizon-f010 long_horizon-f011 long_horizon-f012 "
        "long_horizon-f014 long_horizon-f015 long_horizon-f019 long_horizon-f020 long_horizon-f025 "
        "long_horizon-f026 long_horizon-f028 long_horizon-f029 long_horizon-f037 long_horizon-f038 "
        "long_horizon-f039 long_horizon-f040 long_horizon-f041 long_horizon-f042 long_horizon-f043 "
        "long_horizon-f044 long_horizon-f045 long_horizon-f046 long_horizon-f047 long_horizon-f048 "
        "long_horizon-f049 long_horizon-f050 long_horizon-f051 long_horizon-f053 long_horizon-f054 "
        "long_horizon-f055 long_horizon-f056 long_horizon-f057 long_horizon-f058 long_horizon-f060 "
        "long_horizon-f062 long_horizon-f065 long_horizon-f066 long_horizon-f070 long_horizon-f071 "
        "long_horizon-f074 long_horizon-f075 "
    ),
    "preference_inference": (
        "preference_inference-f002 preference_inference-f004 preference_inference-f005 "
        "preference_inference-f009 preference_inference-f010 preference_inference-f012 "
        "preference_inference-f014 preference_inference-f018 preference_inference-f021 "
        "preference_inference-f023 preference_inference-f025 "
    ),
    "retrieval": (
        "retrieval-f001 retrieval-f002 retrieval-f003 retrieval-f005 retrieval-f009 retrieval-f010 "
        "retrieval-f016 retrieval-f017 retrieval-f020 retrieval-f029 retrieval-f030 retrieval-f032 "
        "retrieval-f033 retrieval-f035 "
    ),
    "situated_action": (
        "cua_only-f003 cua_only-f005 cua_only-f008 cua_only-f009 cua_only-f011 cua_only-f012 cua_only-f014 "
        "cua_only-f017 cua_only-f022 hard_app-f003 hard_app-f004 hard_app-f005 hard_app-f006 hard_app-f007 "
        "hard_app-f010 hard_app-f013 hard_app-f014 hard_app-f015 hard_app-f017 hard_app-f019 hard_app-f022 "
        "hard_app-f027 hard_app-f033 situated_action-f001 situated_action-f003 situated_action-f004 "
        "situated_action-f005 situated_action-f006 situated_action-f007 situated_action-f008 "
        "situated_action-f009 situated_action-f010 situated_action-f011 situated_action-f012 "
        "situated_action-f013 situated_action-f014 situated_action-f016 situated_action-f017 "
        "situated_action-f018 situated_action-f020 situated_action-f021 situated_action-f025 "
        "situated_action-f026 situated_action-f027 situated_action-f028 situated_action-f029 "
        "situated_action-f032 situated_action-f034 situated_action-f035 situated_action-f036 "
        "situated_action-f037 situated_action-f038 situated_action-f039 situated_action-f040 "
    ),
}

SHIPPED_TYPES = {
    task_id: EXCEPTIONS.get(task_id, CATEGORY_RULE[category])
    for category, ids in KNOWN_IDS_BY_CATEGORY.items()
    for task_id in ids.split()
}


def derived_type(category: str) -> str | None:
    """The category rule; None for a category the rule does not know."""
    return CATEGORY_RULE.get(category)


def _type_key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


# Accept the ids and the paper's printed labels ("Aggregation & reporting") alike.
_TYPE_BY_KEY = {_type_key(t): t for t in TYPES} | {_type_key(label): t for t, label in TYPE_LABELS.items()}


def normalise_type(name: str) -> str | None:
    """The canonical type id for an id or paper label, ignoring case, spaces and punctuation."""
    return _TYPE_BY_KEY.get(_type_key(name)) if isinstance(name, str) else None


class ResolvedType(NamedTuple):
    type: str
    source: str  # SOURCE_FILE, SOURCE_SHIPPED or SOURCE_DERIVED


def resolve_type(task_id: str, category: str, file_types: dict[str, str] | None = None) -> ResolvedType | None:
    """The behavioural type of one task, following the order in the module docstring."""
    if file_types and task_id in file_types:
        return ResolvedType(file_types[task_id], SOURCE_FILE)
    if task_id in SHIPPED_TYPES:
        return ResolvedType(SHIPPED_TYPES[task_id], SOURCE_SHIPPED)
    derived = derived_type(category)
    return ResolvedType(derived, SOURCE_DERIVED) if derived else None


def load_task_types(path: str | Path) -> dict[str, str]:
    """Read a ``task_types.json`` file (a JSON object ``{task id: type}``) into canonical type ids.

    Raises TaskFileError naming the file and the offending key for anything else.
    """
    path = Path(path)
    if not path.is_file():
        raise TaskFileError(str(path), "", "no such file", "a task-types JSON file")
    data = parse_json_text(path.read_bytes(), str(path))
    if not isinstance(data, dict):
        raise TaskFileError(
            str(path), "(top level)", f"found a JSON {json_kind(data)}", 'a JSON object {"<task id>": "<type>"}'
        )
    types: dict[str, str] = {}
    for task_id, value in data.items():
        canonical = normalise_type(value)
        if canonical is None:
            raise TaskFileError(
                str(path),
                f"[{json.dumps(task_id)}]",
                f"unknown behavioural type {json.dumps(value)}",
                "one of " + ", ".join(TYPES),
            )
        types[task_id] = canonical
    return types
