// Submission page: while the submission is validating or being judged, asks the server for its
// progress (a small JSON view) and updates the status, the run's badge, the progress bar, the
// counts and each task's score in place; stops once the status is final (a submission a worker was
// checking is loaded again once checked). Without JavaScript the
// page is complete as served and shows the latest state when reloaded.
(function () {
  "use strict";

  var FIRST_DELAY = 2000; // ms; grows while nothing changes, back to this when something does
  var MAX_DELAY = 15000;

  function setup(section) {
    var url = section.getAttribute("data-live-url");
    var indicator = section.querySelector('[data-live="indicator"]');
    var delay = FIRST_DELAY;
    var lastSeen = "";
    var failures = 0;

    function one(selector) { return document.querySelector(selector); }

    // A submission a worker is checking: once checked, the page has new parts (the report, the run,
    // its trajectories) that live updates do not carry, so it is loaded again, once.
    var shown = one('[data-live="status"] .status');
    var wasValidating = !!shown && shown.className.indexOf("status-validating") !== -1;

    function say(text) {
      indicator.hidden = !text;
      indicator.textContent = text;
    }

    function setText(el, text) {
      if (el && el.textContent !== text) { el.textContent = text; }
    }

    function render(data) {
      var status = one('[data-live="status"] .status');
      if (status) {
        status.className = "badge status status-" + data.status;
        setText(status, data.status_label);
      }
      var badge = one('[data-live="badge"] .badge');
      if (badge && data.badge) {
        badge.className = "badge badge-" + data.badge.key;
        badge.title = data.badge.title;
        setText(badge, data.badge.label);
      }
      var draft = one('[data-live="badge"] .badge-unpublished');
      if (draft && data.published) { draft.remove(); } // approved meanwhile

      var awaiting = data.judging.state === "awaiting_judge";
      var next = one('[data-live="next"]');
      if (next) {
        next.classList.toggle("notice", data.status === "awaiting_judge");
        setText(one('[data-live="next-text"]'), data.status_next);
      }
      var note = one('[data-live="note"]');
      note.hidden = awaiting || !data.judging.note;
      setText(note, awaiting ? "" : data.judging.note);
      setText(one('[data-live="judged"]'),
        data.judged_trajectories + " of " + data.trajectories + " trajectories judged by our judge.");

      var p = data.judge_progress;
      var box = one('[data-live="progress"]');
      box.hidden = !p.judge;
      var bar = box.querySelector("progress");
      bar.value = p.percent;
      bar.textContent = p.percent + "%";
      setText(box.querySelector(".judge-progress-counts"),
        p.done + " of " + p.trajectories + " trajectories fully judged · " + p.judged_items + " of " + p.items +
        " rubric items judged · " + p.error_items + " in error");
      setText(box.querySelector(".judge-progress-judge"), p.judge);

      data.rows.forEach(function (row) {
        var cell = document.querySelector('tr[data-trajectory="' + row.trajectory + '"] [data-live="score"]');
        if (!cell) { return; }
        if (row.score_text) {
          setText(cell, row.score_text);
        } else if (!cell.querySelector(".na")) {
          cell.textContent = "";
          var na = document.createElement("span");
          na.className = "na";
          na.textContent = "not judged";
          cell.appendChild(na);
        }
      });
    }

    function schedule() { window.setTimeout(poll, delay); }

    function poll() {
      if (document.hidden) { schedule(); return; } // no requests from a tab nobody looks at
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
        .then(function (response) {
          var type = response.headers.get("Content-Type") || "";
          if (!response.ok || type.indexOf("application/json") === -1) {
            throw new Error("answered " + response.status); // e.g. logged out: stop, say so
          }
          return response.json();
        })
        .then(function (data) {
          if (wasValidating && data.status !== "validating") {
            window.location.reload();
            return;
          }
          failures = 0;
          var seen = JSON.stringify(data);
          delay = seen === lastSeen ? Math.min(MAX_DELAY, Math.round(delay * 1.5)) : FIRST_DELAY;
          lastSeen = seen;
          render(data);
          section.setAttribute("data-live", data.live ? "on" : "off");
          if (data.live) {
            say("· updating live");
            schedule();
          } else {
            say("· up to date");
          }
        })
        .catch(function () {
          failures += 1;
          if (failures >= 3) { say("· live updates stopped; reload this page to see the latest state"); return; }
          delay = Math.min(MAX_DELAY, delay * 2);
          schedule();
        });
    }

    say("· updating live");
    schedule();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var section = document.querySelector('section[data-live-url][data-live="on"]');
    if (section && window.fetch) { setup(section); }
  });
})();
