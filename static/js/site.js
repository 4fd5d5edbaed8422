// Small progressive enhancements; every page works without this file.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("form[data-autosubmit]")) {
    // Leave empty filters out of the URL so shared links stay short.
    form.addEventListener("formdata", (event) => {
      for (const [key, value] of [...event.formData.entries()]) {
        if (value === "") event.formData.delete(key);
      }
    });
    // Apply as soon as a choice changes; the Apply button remains for use without JS.
    for (const select of form.querySelectorAll("select")) {
      select.addEventListener("change", () => form.requestSubmit());
    }
  }
});
