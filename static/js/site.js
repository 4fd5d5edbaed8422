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

// A box that scrolls sideways (a wide table on a phone, a wide heatmap) must be reachable from the
// keyboard to be scrolled: make each one that actually overflows focusable, named by its heading.
function focusableScrollBoxes() {
  for (const box of document.querySelectorAll(".table-scroll, .chart-scroll, table.data")) {
    const scrolls = box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== "visible";
    if (scrolls && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      const heading = box.closest("section, .card")?.querySelector("h2, h3, caption");
      box.setAttribute("aria-label", (heading ? heading.textContent.trim() + ": " : "") + "scrolls sideways");
    }
  }
}
document.addEventListener("DOMContentLoaded", focusableScrollBoxes);
window.addEventListener("load", focusableScrollBoxes); // charts are drawn after the DOM is ready
