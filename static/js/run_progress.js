// Live progress of a run our harness is running: polls the progress endpoint and fills the counts
// on the run page; stops once the run has ended. Loaded as a static file (strict CSP, no inline JS).
(function () {
  "use strict";
  var INTERVAL_MS = 3000;
  var FIELDS = ["queued", "running", "done", "errored", "interrupted", "judged", "steps", "status_display"];

  function start(box) {
    var url = box.getAttribute("data-progress-url");
    var first = null;

    function fill(data) {
      FIELDS.forEach(function (name) {
        var el = box.querySelector('[data-field="' + name + '"]');
        if (el) el.textContent = String(data[name]);
      });
      var ended = data.done + data.errored + data.interrupted;
      if (first === null) first = ended;
      var note = box.querySelector('[data-field="note"]');
      if (note && ended !== first) note.hidden = false;
      box.setAttribute("data-live", data.live ? "1" : "0");
      return data.live;
    }

    function poll() {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("progress: HTTP " + response.status);
          return response.json();
        })
        .then(function (data) {
          if (fill(data)) window.setTimeout(poll, INTERVAL_MS);
        })
        .catch(function () {
          window.setTimeout(poll, INTERVAL_MS * 4);
        });
    }

    poll();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("run-progress");
    if (box) start(box);
  });
})();
