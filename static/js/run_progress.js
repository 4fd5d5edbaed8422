// Live progress of a run our harness is running: polls the progress endpoint, fills the counts and
// updates each trajectory's row of the table in place (last screen, status, how it ended, steps,
// judgments, score, player link); says when it last updated; stops once the run has ended. Loaded as a static file
// (strict CSP, no inline JS); every value is written as text, never as HTML.
(function () {
  "use strict";
  var INTERVAL_MS = 3000;
  var COUNTS = ["queued", "running", "done", "errored", "interrupted", "judged", "steps"];
  var SCORE_WORDS = { waiting: "not judged", judging: "judging…", error: "unknown" };

  function el(tag, className, text, title) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    if (title) node.title = title;
    return node;
  }

  function na(text, title) {
    return el("span", "na", text || "—", title);
  }

  function put(cell, nodes) {
    if (!cell) return;
    while (cell.firstChild) cell.removeChild(cell.firstChild);
    nodes.forEach(function (node) {
      cell.appendChild(typeof node === "string" ? document.createTextNode(node) : node);
    });
  }

  function clock() {
    return new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  // What a row shows, as a string: a row is redrawn only when this changes.
  function signature(t) {
    return [t.status, t.ended_by, t.steps, t.judged, t.passed, t.judge_errors, t.judging, t.score, t.player_url, t.note,
      t.thumbnail]
      .join("|");
  }

  function fillRow(row, t) {
    var cell = function (name) {
      return row.querySelector('[data-cell="' + name + '"]');
    };
    row.setAttribute("data-status", t.status);
    var thumb = cell("thumbnail");
    if (thumb && t.thumbnail && t.player_url) {
      var img = el("img", "list-thumb");
      img.src = t.thumbnail;
      img.alt = "Last screen of " + thumb.getAttribute("data-task") + " attempt " + thumb.getAttribute("data-attempt") +
        ", play it";
      img.width = 96;
      img.height = 54;
      var imgLink = el("a");
      imgLink.href = t.player_url;
      imgLink.appendChild(img);
      put(thumb, [imgLink]);
    } else if (thumb) {
      put(thumb, [na("—", "no screenshot yet")]);
    }
    put(cell("status"), [el("span", "traj-status traj-status-" + t.status, t.status_display, t.note)]);
    put(cell("ended_by"), [t.ended_by_display || "—"]);
    put(cell("steps"), [String(t.steps)]);
    var judgments = [];
    if (t.judged) {
      judgments.push(t.passed + " / " + t.judged);
      if (t.judge_errors) {
        judgments.push(" ");
        judgments.push(el("span", "badge badge-error", t.judge_errors + (t.judge_errors === 1 ? " error" : " errors"),
          "judge errors are not failures"));
      }
    } else {
      judgments.push(na());
    }
    put(cell("judgments"), judgments);
    var score;
    if (t.score !== null && t.score !== undefined) score = t.score.toFixed(2);
    else if (SCORE_WORDS[t.judging]) score = na(SCORE_WORDS[t.judging],
      t.judging === "error" ? "a judge call failed: the score is unknown, not a failure" : "");
    else score = na();
    put(cell("score"), [score]);
    if (t.player_url) {
      var link = el("a", "", t.status === "running" ? "Watch" : "Play");
      link.href = t.player_url;
      put(cell("player"), [link]);
    } else {
      put(cell("player"), [na()]);
    }
  }

  function start(box) {
    var url = box.getAttribute("data-progress-url");
    var table = document.getElementById("run-trajectories");
    var updated = box.querySelector('[data-field="updated"]');
    var seen = {};
    var first = true;

    function fill(data) {
      COUNTS.forEach(function (name) {
        var node = box.querySelector('[data-field="' + name + '"]');
        if (node) node.textContent = String(data[name]);
      });
      document.querySelectorAll('[data-field="status_display"]').forEach(function (node) {
        node.textContent = data.status_display;
      });
      var owed = box.querySelector('[data-field="owed_text"]');
      if (owed) owed.textContent = data.owed_text || "";
      var missing = 0;
      (data.trajectories || []).forEach(function (t) {
        var row = table && table.querySelector('tr[data-trajectory="' + t.id + '"]');
        if (!row) {
          missing += 1;
          return;
        }
        var sig = signature(t);
        if (seen[t.id] === sig) return;
        fillRow(row, t);
        // The first answer only confirms what the page was rendered with: highlight later changes only.
        if (!first) {
          row.classList.remove("row-updated");
          void row.offsetWidth; // restart the highlight
          row.classList.add("row-updated");
        }
        seen[t.id] = sig;
      });
      first = false;
      box.setAttribute("data-live", data.live ? "1" : "0");
      if (!data.cancellable) {
        document.querySelectorAll("[data-cancellable-only]").forEach(function (node) {
          node.hidden = true;
        });
      }
      var text = data.live
        ? "Live: last updated " + clock() + ", every " + INTERVAL_MS / 1000 + " s."
        : "This run has ended (" + data.status_display.toLowerCase() + "); last updated " + clock() + ".";
      if (missing) text += " " + missing + " trajectories are not in this table: reload the page to see them.";
      if (updated) updated.textContent = text;
      return data.live;
    }

    function poll() {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (data) {
          if (fill(data)) window.setTimeout(poll, INTERVAL_MS);
        })
        .catch(function (error) {
          if (updated) updated.textContent = "Could not update at " + clock() + " (" + error.message + "); retrying.";
          window.setTimeout(poll, INTERVAL_MS * 4);
        });
    }

    if (box.getAttribute("data-live") === "1") window.setTimeout(poll, INTERVAL_MS);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("run-progress");
    if (box) start(box);
  });
})();
