// Upload form: sends the archive with XMLHttpRequest so the progress bar can follow the upload,
// then shows the validation problems or goes to the new submission's page.
(function () {
  "use strict";

  function setup(form) {
    var box = document.getElementById("upload-progress");
    var bar = document.getElementById("upload-bar");
    var status = document.getElementById("upload-status");
    var button = document.getElementById("upload-button");
    var problems = document.getElementById("upload-problems");
    var list = document.getElementById("upload-problem-list");

    function showProblems(items) {
      list.textContent = "";
      items.forEach(function (p) {
        var li = document.createElement("li");
        var code = document.createElement("code");
        code.textContent = p.file || "upload";
        li.appendChild(code);
        li.appendChild(document.createTextNode(": " + p.problem));
        list.appendChild(li);
      });
      problems.hidden = items.length === 0;
      if (items.length) { problems.scrollIntoView({ block: "start" }); }
    }

    form.addEventListener("submit", function (event) {
      if (!window.FormData || !window.XMLHttpRequest) { return; } // plain form post still works
      event.preventDefault();
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.action || window.location.href);
      xhr.setRequestHeader("Accept", "application/json");
      xhr.upload.addEventListener("progress", function (e) {
        if (!e.lengthComputable) { status.textContent = "Uploading…"; return; }
        var pct = Math.round((100 * e.loaded) / e.total);
        bar.value = pct;
        status.textContent = "Uploading: " + pct + "% of " + (e.total / 1048576).toFixed(1) + " MB";
      });
      xhr.upload.addEventListener("load", function () {
        bar.removeAttribute("value"); // indeterminate while the server validates
        status.textContent = "Uploaded. Validating every file…";
      });
      xhr.addEventListener("load", function () {
        var data = null;
        try { data = JSON.parse(xhr.responseText); } catch (err) { data = null; }
        if (data && data.redirect) { window.location.assign(data.redirect); return; }
        box.hidden = true;
        button.disabled = false;
        showProblems((data && data.problems) || [{ file: "", problem: "The server answered " + xhr.status + "; please try again." }]);
      });
      xhr.addEventListener("error", function () {
        box.hidden = true;
        button.disabled = false;
        showProblems([{ file: "", problem: "The upload did not reach the server (network error)." }]);
      });
      showProblems([]);
      bar.value = 0;
      box.hidden = false;
      button.disabled = true;
      status.textContent = "Starting upload…";
      xhr.send(new FormData(form));
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector("form[data-upload]");
    if (form) { setup(form); }
  });
})();
