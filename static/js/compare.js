/* Side-by-side comparison of two trajectories of one task: one cursor steps both sides, either
   by step index or aligned at the first step each side spent in a chosen app; rubric rows whose
   verdicts differ are highlighted. Uses the helpers player.js exposes as window.MyPCPlayer. */
(function () {
  "use strict";

  function init() {
    var P = window.MyPCPlayer;
    var node = document.getElementById("compare-data");
    var root = document.getElementById("compare");
    if (!P || !node || !root) return;
    var data = JSON.parse(node.textContent);
    var sides = [
      { key: "a", d: data.a, root: document.getElementById("side-a") },
      { key: "b", d: data.b, root: document.getElementById("side-b") },
    ];
    var $ = function (id) { return document.getElementById(id); };
    var scrubber = $("cmp-scrubber");
    var alignSel = $("cmp-align");
    var playing = null;
    var t = 0; // the shared cursor, counted from the alignment point
    var lo = 0;
    var hi = 0;

    sides.forEach(function (s) {
      var r = s.root;
      s.stage = {
        img: r.querySelector(".side-image"),
        source: r.querySelector(".side-avif"),
        overlay: r.querySelector(".side-overlay"),
        placeholder: r.querySelector(".side-placeholder"),
        reason: r.querySelector(".side-reason"),
      };
      var tr = s.d.trajectory;
      var title = r.querySelector("h2");
      title.textContent = s.key.toUpperCase() + ": " + tr.model + " ";
      title.appendChild(P.el("span", { class: "muted small", text: tr.run + (tr.attempt ? " · attempt " + tr.attempt : "") + " · ended by " + tr.ended_by_label }));
      title.appendChild(document.createTextNode(" "));
      title.appendChild(P.el("a", { href: tr.play_url, class: "small", text: "open in player" }));
      // whose verdicts the side's column shows: the judge named, an author's own labelled as never scored
      var judge = s.d.judges.length ? s.d.judges[0] : null;
      $("cmp-col-" + s.key).textContent = s.key.toUpperCase() + ": " + tr.model +
        (judge ? " · verdicts by " + judge.name + (judge.self_reported ? " (" + judge.note + ")" : "") : "");
      s.range = r.querySelector(".side-range");
      s.range.max = Math.max(s.d.steps.length, 1);
      s.range.disabled = !s.d.steps.length;
      s.range.addEventListener("input", function () {
        // Moving one side's slider moves the shared cursor, so the other side follows.
        go(+s.range.value - 1 - anchors()[sides.indexOf(s)]);
      });
      renderSideMarks(s);
      s.firstIn = {};
      s.d.steps.forEach(function (step, i) {
        if (step.app && s.firstIn[step.app] === undefined) s.firstIn[step.app] = i;
      });
    });

    /* The judge's cited steps for one side, marked along that side's slider (first judge: ours
       first, as the rubric table below uses). */
    function renderSideMarks(s) {
      var marks = s.root.querySelector(".side-marks");
      var steps = s.d.steps;
      var items = s.d.judges.length ? s.d.judges[0].items : [];
      var why = {};
      items.forEach(function (it) {
        it.cited_steps.forEach(function (n) { (why[n] = why[n] || []).push(it.rubric_id); });
      });
      marks.textContent = "";
      var n = steps.length;
      steps.forEach(function (step, i) {
        if (!why[step.index]) return;
        var m = P.el("span", { class: "mark", title: "Step " + step.index + " cited for " + why[step.index].join(", ") });
        m.setAttribute("data-step", String(step.index));
        m.style.left = (n > 1 ? (i / (n - 1)) * 100 : 0) + "%";
        marks.appendChild(m);
      });
    }

    Object.keys(sides[0].firstIn).forEach(function (app) {
      if (sides[1].firstIn[app] !== undefined) alignSel.appendChild(P.el("option", { value: app, text: "at the first step in " + app }));
    });

    function anchors() {
      var app = alignSel.value;
      return app ? [sides[0].firstIn[app], sides[1].firstIn[app]] : [0, 0];
    }
    function range() {
      var an = anchors();
      lo = -Math.max(an[0], an[1]);
      hi = Math.max(sides[0].d.steps.length - an[0], sides[1].d.steps.length - an[1]) - 1;
      scrubber.min = lo;
      scrubber.max = Math.max(hi, lo);
    }

    function show() {
      var an = anchors();
      var labels = [];
      sides.forEach(function (s, k) {
        var steps = s.d.steps;
        var line = s.root.querySelector(".step-line");
        var details = s.root.querySelector(".side-details");
        details.textContent = "";
        if (!steps.length) {
          line.textContent = "No recorded steps.";
          s.stage.placeholder.hidden = false;
          s.stage.img.hidden = true;
          s.stage.reason.textContent = "This trajectory has no steps.";
          return;
        }
        var want = an[k] + t;
        var pos = Math.max(0, Math.min(steps.length - 1, want));
        var step = steps[pos];
        P.showOnStage(s.stage, step);
        s.range.value = pos + 1;
        s.range.setAttribute("aria-valuetext", "Step " + step.index + " of " + steps.length);
        var held = want < 0 ? " (not started yet at this point)" : want >= steps.length ? " (already ended)" : "";
        line.textContent = "Step " + step.index + " of " + steps.length + (step.app ? " · " + step.app : "") + held;
        line.classList.toggle("muted", !!held);
        details.appendChild(P.stepDetails(step));
        P.prefetch(steps[pos + 1]);
        P.prefetch(steps[pos - 1]);
        labels.push(s.key.toUpperCase() + " step " + step.index);
      });
      scrubber.value = t;
      $("cmp-position").textContent = labels.join(" · ");
      var url = new URL(window.location.href);
      url.searchParams.set("t", t);
      if (alignSel.value) url.searchParams.set("align", alignSel.value);
      else url.searchParams.delete("align");
      history.replaceState(null, "", url);
    }
    function go(v) {
      t = Math.max(lo, Math.min(hi, v));
      show();
    }
    function pause() {
      if (!playing) return;
      clearInterval(playing);
      playing = null;
      $("cmp-play").textContent = "Play";
      $("cmp-play").setAttribute("aria-pressed", "false");
    }
    function play() {
      if (playing) return;
      if (t >= hi) go(lo);
      playing = setInterval(function () { if (t < hi) go(t + 1); else pause(); }, 1000);
      $("cmp-play").textContent = "Pause";
      $("cmp-play").setAttribute("aria-pressed", "true");
    }

    function rubric() {
      var body = $("cmp-rubric");
      var itemsA = data.a.judges.length ? data.a.judges[0].items : [];
      var itemsB = data.b.judges.length ? data.b.judges[0].items : [];
      var rows = {};
      var order = [];
      itemsA.concat(itemsB).forEach(function (it) {
        var key = it.rubric_id + "@" + it.version;
        if (!rows[key]) { rows[key] = { it: it }; order.push(key); }
      });
      itemsA.forEach(function (it) { rows[it.rubric_id + "@" + it.version].a = it; });
      itemsB.forEach(function (it) { rows[it.rubric_id + "@" + it.version].b = it; });
      var ownA = !!(data.a.judges.length && data.a.judges[0].self_reported);
      var ownB = !!(data.b.judges.length && data.b.judges[0].self_reported);
      var cell = function (it, own) {
        if (!it) return P.el("td", { class: "na", text: "not judged" });
        return P.el("td", {}, [P.el("span", { class: "verdict verdict-" + (own ? "self-reported" : it.verdict), text: it.verdict_label }), own ? P.el("span", { class: "badge badge-self-reported", text: "self-reported, not scored" }) : null, it.explanation ? P.el("div", { class: "small muted", text: it.explanation }) : null]);
      };
      order.forEach(function (key) {
        var r = rows[key];
        var differs = r.a && r.b && r.a.verdict !== r.b.verdict;
        var tr = P.el("tr", { class: differs ? "differs" : "" }, [
          P.el("td", {}, [P.el("code", { text: r.it.rubric_id }), differs ? P.el("div", { class: "small strong", text: "differs" }) : null]),
          P.el("td", { text: r.it.criterion }),
          P.el("td", { class: "num", text: r.it.weight_pct + "%" }),
          cell(r.a, ownA),
          cell(r.b, ownB),
        ]);
        body.appendChild(tr);
      });
      if (!order.length) body.appendChild(P.el("tr", {}, [P.el("td", { colspan: "5", class: "empty", text: "Neither trajectory has been judged yet." })]));
    }

    $("cmp-first").addEventListener("click", function () { go(lo); });
    $("cmp-prev").addEventListener("click", function () { go(t - 1); });
    $("cmp-next").addEventListener("click", function () { go(t + 1); });
    $("cmp-last").addEventListener("click", function () { go(hi); });
    $("cmp-play").addEventListener("click", function () { if (playing) pause(); else play(); });
    scrubber.addEventListener("input", function () { go(+scrubber.value); });
    alignSel.addEventListener("change", function () { range(); go(0); });
    document.addEventListener("keydown", function (ev) {
      if (ev.altKey || ev.ctrlKey || ev.metaKey || P.isTyping(ev.target)) return;
      var handled = true;
      switch (ev.key) {
        case " ": if (playing) pause(); else play(); break;
        case "ArrowLeft": case "j": case "J": pause(); go(t - 1); break;
        case "ArrowRight": case "k": case "K": pause(); go(t + 1); break;
        case "Home": go(lo); break;
        case "End": go(hi); break;
        case "Escape": pause(); break;
        default: handled = false;
      }
      if (handled) ev.preventDefault();
    });

    root.hidden = false;
    var params = new URL(window.location.href).searchParams;
    if (params.get("align") && sides[0].firstIn[params.get("align")] !== undefined && sides[1].firstIn[params.get("align")] !== undefined) {
      alignSel.value = params.get("align");
    }
    range();
    rubric();
    go(parseInt(params.get("t"), 10) || 0);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
