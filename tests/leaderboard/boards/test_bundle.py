"""`manage.py export_bundle`: a run of the test catalog written as a static folder whose pages hold the
run's facts and verdicts, link only to files inside it, carry the lightest image of each step, and
refuse an unpublished run unless a maintainer asks for it."""

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.boards import board_display
from tests.catalog_data import HOSTILE
from trajectories.models import Trajectory

pytestmark = pytest.mark.django_db


class Links(HTMLParser):
    """Every href and src of a page, and the player's embedded data."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.in_data = False
        self.data = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])
        self.in_data = tag == "script" and attrs.get("id") == "player-data"

    def handle_data(self, data):
        if self.in_data:
            self.data += data

    def handle_endtag(self, tag):
        self.in_data = False


def export(*args) -> str:
    out = io.StringIO()
    call_command("export_bundle", *args, stdout=out)
    return out.getvalue()


def crawl(folder: Path) -> dict[Path, Links]:
    """Every page of the bundle, reached from index.html by its links, each link checked to point at a
    file inside the folder (queries and fragments aside)."""
    pages: dict[Path, Links] = {}
    todo = [folder / "index.html"]
    while todo:
        page = todo.pop()
        if page in pages:
            continue
        parsed = Links()
        parsed.feed(page.read_text(encoding="utf-8"))
        pages[page] = parsed
        targets = list(parsed.links)
        if parsed.data:
            data = json.loads(parsed.data)
            targets += [s[k] for s in data["steps"] for k in ("image", "thumb", "original") if s[k]]
        for link in targets:
            parts = urlsplit(link)
            assert not parts.scheme and not parts.netloc, f"{page.name} links outside the bundle: {link}"
            if not parts.path:
                continue  # "?step=3" or "#verdicts": this same page
            assert not parts.path.startswith("/"), f"{page.name} has a link from the site's root: {link}"
            target = (page.parent / unquote(parts.path)).resolve()
            assert target.is_relative_to(folder.resolve()), f"{link} leaves the bundle"
            assert target.is_file(), f"{page.name} links to {link}, which the bundle does not hold"
            if target.suffix == ".html":
                todo.append(target)
    return pages


def test_bundle_holds_the_run_and_links_only_inside_itself(catalog, tmp_path):
    folder = tmp_path / "bundle"
    report = export("published-run", str(folder))
    pages = crawl(folder)
    player_path = folder / "trajectories" / f"{catalog.traj.pk}.html"
    assert set(pages) == {folder / "index.html", player_path}

    index = (folder / "index.html").read_text()
    for fact in ("Published harness run", "Test Model 1", "MyPCBench eval-round0", "anthropic-cua", "mypcbench:1.0"):
        assert fact in index
    assert "retrieval-f016" in index and f'href="trajectories/{catalog.traj.pk}.html"' in index
    assert "our-judge-v1" in index
    # the scored judge passed one of the two current items; the other is a judge error
    assert "1 / 2" in index

    player = player_path.read_text()
    assert "Judge API timed out." in player  # the judge's explanation, as text
    assert '<a href="?step=1">1</a>, <a href="?step=2">2</a>' in player  # its cited steps
    assert "Find Jan&#x27;s   birthday in HooliMail." in player or "Find Jan's   birthday" in player
    assert HOSTILE not in player and HOSTILE not in index  # escaped, never run

    data = json.loads(pages[player_path].data)
    assert data["live"] is None
    step1, step2 = data["steps"]
    # Step 1 has no derivative: its original is the image. Step 2 shows its display derivative only.
    assert step1["image"] == f"../media/{catalog.traj.pk}/1-screenshot.png"
    assert step2["image"] == step2["thumb"] == step2["original"] == f"../media/{catalog.traj.pk}/2-display_image.webp"
    copied = (player_path.parent / step2["image"]).read_bytes()
    with default_storage.open(catalog.steps[1].display_image.name, "rb") as f:
        assert copied == f.read()
    assert not (folder / "media" / str(catalog.traj.pk) / "2-screenshot.png").exists()
    verdicts = {i["rubric_id"]: i for j in data["judges"] for i in j["items"] if j["name"] == "our-judge-v1"}
    assert [i["cited_steps"] for i in verdicts.values()][0] == [1, 2]

    # The size report counts what was written, by kind.
    assert "(1 trajectories)" in report
    images = sorted(p for p in (folder / "media").rglob("*") if p.is_file())
    image_bytes = sum(p.stat().st_size for p in images)
    line = next(line for line in report.splitlines() if line.strip().startswith("images"))
    assert f"{len(images)} files" in line and len(images) == 2
    assert f"{image_bytes} B" in line
    assert "pages" in report and "total" in report


def test_run_by_id_and_a_clear_refusal_of_a_full_folder_or_unknown_run(catalog, tmp_path):
    folder = tmp_path / "by-id"
    export(str(catalog.published.pk), str(folder))
    assert "Published harness run" in (folder / "index.html").read_text()
    with pytest.raises(CommandError, match="is not empty"):
        export("published-run", str(folder))
    with pytest.raises(CommandError, match="no run with id or slug 'no-such-run'.*published-run"):
        export("no-such-run", str(tmp_path / "other"))
    assert not (tmp_path / "other").exists()


def test_unpublished_run_only_with_the_maintainer_flag(catalog, tmp_path):
    folder = tmp_path / "draft"
    with pytest.raises(CommandError, match="'draft-run' is not published.*--as-maintainer"):
        export("draft-run", str(folder))
    assert not folder.exists()
    export("draft-run", str(folder), "--as-maintainer")
    index = (folder / "index.html").read_text()
    assert "Secret draft upload" in index and "not published" in index
    crawl(folder)


def test_progress_lines_and_a_screenshot_gone_from_storage(catalog, tmp_path, monkeypatch):
    from leaderboard.boards import bundle
    from trajectories.models import Trajectory

    monkeypatch.setattr(bundle, "PROGRESS_EVERY", 1)
    for task in (catalog.action, catalog.orchestration):
        Trajectory.objects.create(run=catalog.published, task=task, ended_by="done", n_steps=0)
    default_storage.delete(catalog.steps[0].screenshot.name)
    folder = tmp_path / "gone"
    report = export("published-run", str(folder))
    assert [line for line in report.splitlines() if "trajectories written" in line] == [
        "1 of 3 trajectories written",
        "2 of 3 trajectories written",
        "3 of 3 trajectories written",
    ]
    assert "1 screenshot file(s) missing from storage" in report
    pages = crawl(folder)
    data = json.loads(pages[folder / "trajectories" / f"{catalog.traj.pk}.html"].data)
    assert data["steps"][0]["image"] == "" and "missing" in data["steps"][0]["problem"]
    assert data["steps"][1]["image"].endswith("2-display_image.webp")


def test_originals_only_when_asked(catalog, tmp_path):
    folder = tmp_path / "full"
    export("published-run", str(folder), "--originals")
    player = folder / "trajectories" / f"{catalog.traj.pk}.html"
    data = json.loads(crawl(folder)[player].data)
    step2 = data["steps"][1]
    assert step2["image"].endswith("2-display_image.webp")
    assert step2["original"] == f"../media/{catalog.traj.pk}/2-screenshot.png"
    with default_storage.open(catalog.steps[1].screenshot.name, "rb") as f:
        assert (player.parent / step2["original"]).read_bytes() == f.read()


def test_headline_figures_are_the_leaderboards(catalog, tmp_path):
    # the judge error answered: both figures are known, and the bundle shows the leaderboard's own
    catalog.judgments[1].verdict = "failure"
    catalog.judgments[1].save()
    folder = tmp_path / "figures"
    export("published-run", str(folder))
    index = (folder / "index.html").read_text()
    rows = board_display.run_rows(AnonymousUser(), catalog.published)
    # one row per judge: ours has both figures now; the other judge judged none of the current items
    assert any(row.perfect.value is not None and row.rubric.value is not None for row in rows)
    for name in ("perfect", "rubric"):
        shown = re.findall(rf'data-field="{name}">(.*?)</dd>', index, re.S)
        assert len(shown) == len(rows)
        for row, cell in zip(rows, shown, strict=True):
            iv = getattr(row, name)
            if iv.value is None:
                assert "not known" in cell
            else:
                assert f'<span class="iv-point">{iv.value:.{iv.places}f}</span>' in cell


def test_the_static_run_page_names_the_world_variant(catalog, tmp_path):
    canonical = tmp_path / "canonical"
    export("published-run", str(canonical))
    assert "Ran on the canonical world (variant 0)" in (canonical / "index.html").read_text()
    assert 'data-cell="world_variant"' not in (canonical / "index.html").read_text()

    Trajectory.objects.filter(pk=catalog.traj.pk).update(world_variant=4)
    varied = tmp_path / "varied"
    export("published-run", str(varied))
    index = (varied / "index.html").read_text()
    assert "Ran on world variant 4" in index and '<td class="num" data-cell="world_variant">4</td>' in index
