// Scored leaderboard: the compare button waits for two different runs. The page works without this file.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("compare-form");
  const button = document.getElementById("compare-button");
  if (!form || !button) return;
  const update = () => {
    const a = form.querySelector('input[name="a"]:checked');
    const b = form.querySelector('input[name="b"]:checked');
    const ready = a && b && a.value !== b.value;
    button.disabled = !ready;
    button.title = ready ? "" : "Pick run A and a different run B";
  };
  form.addEventListener("change", update);
  update();
});
