// Keyboard labelling on the admin's labelling page: s success, f failure, k skip (leave in the queue)
// on the current card, then on to the next; n next card, p previous card, w save the labels chosen.
// Keys typed into a text field (the note) are left alone; Escape leaves the field.
(function () {
  "use strict";
  var form = document.getElementById("label-form");
  if (!form) return;
  var cards = Array.prototype.slice.call(form.querySelectorAll(".label-card"));
  var status = document.getElementById("label-key-status");
  var current = 0;

  function show(index) {
    if (!cards.length) return;
    current = Math.max(0, Math.min(cards.length - 1, index));
    cards.forEach(function (card, i) {
      card.classList.toggle("current", i === current);
      if (i === current) card.setAttribute("aria-current", "true");
      else card.removeAttribute("aria-current");
    });
    cards[current].focus({ preventScroll: true });
    cards[current].scrollIntoView({ block: "nearest" });
  }

  function choose(value) {
    var card = cards[current];
    var input = card.querySelector('input[type=radio][value="' + value + '"]');
    if (!input) return;
    input.checked = true;
    if (status) {
      status.textContent = "Card " + (current + 1) + " of " + cards.length + ": " + value + ".";
    }
    show(current + 1);
  }

  cards.forEach(function (card, i) {
    card.setAttribute("tabindex", "-1");
    card.addEventListener("focusin", function () { if (current !== i) { current = i; show(i); } });
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    var typing = target && (target.isContentEditable || /^(TEXTAREA|SELECT)$/.test(target.tagName) ||
      (target.tagName === "INPUT" && !/^(radio|checkbox|submit|button)$/.test(target.type)));
    if (typing) {
      if (event.key === "Escape") { target.blur(); show(current); }
      return;
    }
    var key = event.key.toLowerCase();
    var action = { s: "success", f: "failure", k: "skip" }[key];
    if (action) { event.preventDefault(); choose(action); return; }
    if (key === "n" || key === "j") { event.preventDefault(); show(current + 1); return; }
    if (key === "p") { event.preventDefault(); show(current - 1); return; }
    if (key === "w") { event.preventDefault(); form.requestSubmit ? form.requestSubmit() : form.submit(); }
  });

  show(0);
})();
