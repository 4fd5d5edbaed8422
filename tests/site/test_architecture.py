"""ARCHITECTURE.md stays true to the code: each drawing of layers is the import-linter contract of the same
name in pyproject.toml, row for row, every layers contract is drawn, and the rooms table lists exactly the
rooms each room imports (measured with grimp, the graph import-linter itself builds)."""

import re
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "ARCHITECTURE.md"
ARROWS = set(" │▼▲─┬┴┌┐└┘├┤")
NAME = re.compile(r"\b([a-z_]+(?:\.[a-z_]+)*)\.\{([^}]*)\}|\b([a-z_]+(?:\.[a-z_]+)+)\b")


def _contracts() -> dict[str, list[set[str]]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    return {
        c["name"]: [set(re.split(r"\s*[|:]\s*", layer.strip())) for layer in c["layers"]]
        for c in config
        if c["type"] == "layers"
    }


def drawings(text: str) -> dict[str, list[set[str]]]:
    """Each ```layers block: its first line names the contract ('# <name>'), then rows of rooms separated by
    lines of arrows only; ``pkg.{a, b}`` stands for ``pkg.a`` and ``pkg.b``; '#' starts a comment."""
    found = {}
    for block in re.findall(r"```layers\n(.*?)```", text, flags=re.S):
        lines = block.splitlines()
        name = lines[0].removeprefix("#").strip()
        rows: list[set[str]] = [set()]
        for line in lines[1:]:
            if not line.strip() or set(line) <= ARROWS:
                if rows[-1]:
                    rows.append(set())
                continue
            for group, members, single in NAME.findall(line.split("  #")[0]):
                if single:
                    rows[-1].add(single)
                else:
                    rows[-1] |= {f"{group}.{m.strip()}" for m in members.split(",")}
        found[name] = [row for row in rows if row]
    return found


def rooms_table(text: str) -> dict[str, set[str]]:
    """The rooms table: the room (first column) and the rooms named in its 'Uses' column."""
    table = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`[a-z_.]+`", cells[0]):
            table[cells[0].strip("`")] = set(re.findall(r"`([a-z_.]+)`", cells[2]))
    return table


def test_every_drawing_is_its_contract_row_for_row():
    drawn, contracts = drawings(PAGE.read_text()), _contracts()
    assert set(drawn) == set(contracts), (
        f"drawings without a contract: {sorted(set(drawn) - set(contracts))}; "
        f"contracts not drawn: {sorted(set(contracts) - set(drawn))}"
    )
    for name, rows in drawn.items():
        assert rows == contracts[name], f"{name}: the drawing's rows {rows} are not the contract's {contracts[name]}"


def test_the_rooms_table_lists_what_each_room_imports():
    table = rooms_table(PAGE.read_text())
    rooms = [*table, "harness", "seeding"]

    def room_of(module: str) -> str | None:
        owners = [r for r in rooms if module == r or module.startswith(r + ".")]
        return max(owners, key=len) if owners else None

    graph = grimp.build_graph("leaderboard", "trajectories", "world", "mypcbench_site", "harness", "seeding")
    wrong = []
    for room, listed in table.items():
        used = {
            room_of(imported)
            for module in graph.modules
            if room_of(module) == room
            for imported in graph.find_modules_directly_imported_by(module)
        } - {None, room}
        if used != listed:
            wrong.append(f"{room}: imports {sorted(used - listed)} not listed; lists {sorted(listed - used)} unused")
    assert not wrong, "ARCHITECTURE.md's rooms table is out of date:\n" + "\n".join(wrong)


def test_the_reader_expands_groups_and_splits_rows_on_arrows():
    text = "```layers\n# Demo\na.{b, c}  d.e   # comment naming x.y\n   │\n   ▼\nf.g\n```\n"
    assert drawings(text) == {"Demo": [{"a.b", "a.c", "d.e"}, {"f.g"}]}


@pytest.mark.parametrize("cell", ["`world.models`", "`world.models` and `leaderboard.models`"])
def test_the_table_reader_takes_backticked_rooms(cell):
    table = rooms_table(f"| `world.review` | task review | {cell} |")
    assert table["world.review"] == set(re.findall(r"`([a-z_.]+)`", cell))
