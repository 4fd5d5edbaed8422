// One-key shortcuts on the task review page: a approve, c needs changes, u withdraw, n next task.
// Keys typed into a text field are left alone.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var control = document.querySelector('#review-form [data-key="' + event.key.toLowerCase() + '"]');
    if (!control) return;
    event.preventDefault();
    control.click();
  });
})();
