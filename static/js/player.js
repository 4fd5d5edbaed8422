/* Trajectory player: a large screenshot with the step's action drawn over it, a scrubber with the
   judge's cited steps marked, a virtualised filmstrip, the rubric checklist lit at cited steps,
   keyboard shortcuts, permalinks (?step=N) and live polling. The data comes from the JSON payload
   the page embeds with json_script (the CSP allows no inline script). Also exposes the drawing and
   describing helpers as window.MyPCPlayer for the comparison page. */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var SPEEDS = [0.5, 1, 2, 4];

  // ---------------------------------------------------------------- shared helpers

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        if (key === "text") node.textContent = attrs[key];
        else if (key === "class") node.className = attrs[key];
        else node.setAttribute(key, attrs[key]);
      });
    }
    (children || []).forEach(function (child) {
      if (child) node.appendChild(child);
    });
    return node;
  }

  function svg(tag, attrs) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    return node;
  }

  function isNum(v) {
    return typeof v === "number" && isFinite(v);
  }

  function actionsOf(step) {
    var a = step.action || {};
    return a.actions && a.actions.length ? a.actions : [a];
  }

  function keysText(keys) {
    return (keys || []).join("+");
  }

  /* One line in words for a structured action (harness/actions.py shapes). */
  function describeAction(a, step) {
    var at = isNum(a.x) && isNum(a.y) ? " at (" + a.x + ", " + a.y + ")" : "";
    switch (a.type) {
      case "click":
        return (a.clicks > 2 ? "Click ×" + a.clicks : a.button === "middle" ? "Middle click" : "Click") + at;
      case "double_click":
        return "Double click" + at;
      case "right_click":
        return "Right click" + at;
      case "move":
        return (a.relative ? "Move the pointer by" : "Move the pointer to") + (at ? at.replace(" at", "") : "");
      case "drag":
        if (isNum(a.from_x)) return "Drag from (" + a.from_x + ", " + a.from_y + ") to (" + a.x + ", " + a.y + ")";
        return (a.relative ? "Drag by" : "Drag to") + (at ? at.replace(" at", "") : "");
      case "scroll":
        if (isNum(a.dy)) return "Scroll " + (a.dy > 0 ? "up " : "down ") + Math.abs(a.dy) + at;
        if (isNum(a.dx)) return "Scroll " + (a.dx > 0 ? "right " : "left ") + Math.abs(a.dx) + at;
        return "Scroll" + at;
      case "type":
        return "Type “" + String(a.text).replace(/\n/g, " [Enter]").replace(/\t/g, " [Tab]") + "”" + (a.via === "clipboard" ? " (pasted)" : "");
      case "key":
        return "Press " + keysText(a.keys) + (a.presses > 1 ? " ×" + a.presses : "") + (a.state ? " (" + a.state + ")" : "");
      case "hotkey":
        return "Press " + keysText(a.keys);
      case "wait":
        return "Wait" + (isNum(a.seconds) ? " " + a.seconds + " s" : "");
      case "done":
        return "Declare the task done";
      case "fail":
        return "Declare the task infeasible (FAIL)";
      case "bash":
        return "Run a shell command";
      case "editor":
        return "Edit a file" + (a.command ? " (" + a.command + ")" : "");
      default:
        if (step && step.tool === "bash") return "Run a shell command";
        if (step && step.tool === "editor") return "Edit a file";
        return a.text ? "Other: " + String(a.text).slice(0, 120) : "Other action";
    }
  }

  /* Draw the step's pointer actions into an <svg> whose viewBox is the screen in screenshot
     pixels, so points recorded in screen coordinates land where they were, at any display size. */
  function drawAction(overlay, step, width, height) {
    while (overlay.firstChild) overlay.removeChild(overlay.firstChild);
    if (!width || !height) return;
    overlay.setAttribute("viewBox", "0 0 " + width + " " + height);
    overlay.setAttribute("preserveAspectRatio", "none");
    var unit = Math.max(width, height) / 100; // marks keep their size relative to the screen
    var defs = svg("defs");
    var marker = svg("marker", {
      id: "arrowhead",
      viewBox: "0 0 10 10",
      refX: "8",
      refY: "5",
      markerWidth: "5",
      markerHeight: "5",
      orient: "auto-start-reverse",
    });
    marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", class: "mark-arrowhead" }));
    defs.appendChild(marker);
    overlay.appendChild(defs);
    actionsOf(step).forEach(function (a) {
      var hasPoint = isNum(a.x) && isNum(a.y) && !a.relative;
      if (a.type === "drag" && isNum(a.from_x) && hasPoint) {
        overlay.appendChild(svg("line", { x1: a.from_x, y1: a.from_y, x2: a.x, y2: a.y, class: "mark-line", "stroke-width": unit * 0.4, "marker-end": "url(#arrowhead)" }));
        overlay.appendChild(svg("circle", { cx: a.from_x, cy: a.from_y, r: unit * 0.8, class: "mark-start" }));
        return;
      }
      if (a.type === "scroll") {
        var cx = hasPoint ? a.x : width / 2;
        var cy = hasPoint ? a.y : height / 2;
        var vertical = !isNum(a.dx) || isNum(a.dy);
        var amount = vertical ? a.dy || 0 : a.dx || 0;
        // pyautogui: positive clicks scroll up (or right); the arrow points where the content moves into view.
        var len = unit * 6 * (amount >= 0 ? -1 : 1);
        var x2 = vertical ? cx : cx - len;
        var y2 = vertical ? cy + len : cy;
        overlay.appendChild(svg("line", { x1: cx, y1: cy, x2: x2, y2: y2, class: "mark-line", "stroke-width": unit * 0.5, "marker-end": "url(#arrowhead)" }));
        overlay.appendChild(svg("circle", { cx: cx, cy: cy, r: unit * 0.7, class: "mark-start" }));
        return;
      }
      if (!hasPoint) return;
      if (a.type === "move") {
        overlay.appendChild(svg("circle", { cx: a.x, cy: a.y, r: unit * 0.6, class: "mark-move" }));
        return;
      }
      if (["click", "double_click", "right_click", "drag"].indexOf(a.type) >= 0 || a.mouse) {
        overlay.appendChild(svg("circle", { cx: a.x, cy: a.y, r: unit * 1.6, class: "mark-ring" + (a.type === "right_click" ? " mark-right" : ""), "stroke-width": unit * 0.35 }));
        if (a.type === "double_click") overlay.appendChild(svg("circle", { cx: a.x, cy: a.y, r: unit * 2.4, class: "mark-ring", "stroke-width": unit * 0.25 }));
        overlay.appendChild(svg("circle", { cx: a.x, cy: a.y, r: unit * 0.35, class: "mark-dot" }));
      }
    });
  }

  function append(parent, child) {
    if (child) parent.appendChild(child);
  }

  function textBlock(title, text, cls) {
    if (!text) return null;
    return el("div", { class: "detail" }, [el("h3", { text: title }), el("pre", { class: "text-block " + (cls || ""), text: text })]);
  }

  /* The step's details: the action in words, typed text and keys, commands with output, editor
     operations and the model's text for that turn. All text goes in via textContent. */
  function stepDetails(step) {
    var box = el("div");
    var meta = el("p", { class: "step-meta small muted" });
    meta.textContent = "Turn " + step.turn + " · " + step.tool + (step.app ? " · " + step.app : "") + (step.time ? " · " + step.time.replace("T", " ").slice(0, 19) : "");
    box.appendChild(meta);
    var list = el("ul", { class: "action-list" });
    actionsOf(step).forEach(function (a) {
      list.appendChild(el("li", { text: describeAction(a, step) }));
    });
    box.appendChild(list);
    var a = step.action || {};
    actionsOf(step).forEach(function (one) {
      if (one.type === "type" && one.text) append(box, textBlock("Typed text", one.text, "typed"));
      if ((one.type === "key" || one.type === "hotkey") && one.keys) {
        var keys = el("p", { class: "keys" });
        one.keys.forEach(function (k, i) {
          if (i) keys.appendChild(document.createTextNode(" + "));
          keys.appendChild(el("kbd", { text: k }));
        });
        box.appendChild(keys);
      }
    });
    if (step.tool === "bash") {
      append(box, textBlock("Command", a.command || step.action_text, "command"));
      append(box, textBlock("Output", step.tool_output, "tool-output"));
    } else if (step.tool === "editor") {
      var op = [a.command, a.path].filter(Boolean).join(" ");
      append(box, textBlock("Editor operation", op || step.action_text, "command"));
      append(box, textBlock("Replace", a.old_str, "tool-output"));
      append(box, textBlock("With", a.new_str || a.file_text, "tool-output"));
      append(box, textBlock("Result", step.tool_output, "tool-output"));
    } else {
      append(box, textBlock("Recorded action", step.action_text, "action"));
      append(box, textBlock("Tool output", step.tool_output, "tool-output"));
    }
    append(box, textBlock("Model text", step.model_text, "model-text"));
    return box;
  }

  function altText(step) {
    return step.alt + (step.action ? " — " + actionsOf(step).map(function (a) { return describeAction(a, step); }).join("; ") : "");
  }

  // Set once an AVIF failed to load or decode: from then on every picture is the WebP. A browser
  // that lacks AVIF never gets here: <picture> skips the AVIF <source> by its type and loads the WebP.
  var avifRefused = false;

  function avifOf(step) {
    return !avifRefused && step.image_avif ? step.image_avif : "";
  }

  /* Point the stage's <picture> at the step: the AVIF <source> (when there is one) and the WebP
     <img> the browser falls back to. Returns whether anything changed (a new picture will load). */
  function pointPicture(stage, step) {
    var changed = false;
    var avif = avifOf(step);
    if (stage.source && (stage.source.getAttribute("srcset") || "") !== avif) {
      if (avif) stage.source.setAttribute("srcset", avif);
      else stage.source.removeAttribute("srcset");
      changed = true;
    }
    if (stage.img.getAttribute("src") !== step.image) {
      stage.img.src = step.image;
      changed = true;
    }
    return changed;
  }

  /* Put a prefetched, decoded picture on the stage in place of the one shown: the element itself
     moves, so the next frame paints it without loading or decoding it again (pointing the stage's
     own <img> at the same URL waits a load and a decode: about 30 ms a step). The element keeps the
     stage's id and attributes; the one it replaces leaves the page. */
  function putOnStage(stage, im) {
    var old = stage.img;
    var oldFrame = old.parentNode && old.parentNode.tagName === "PICTURE" ? old.parentNode : old;
    var frame = im.parentNode && im.parentNode.tagName === "PICTURE" ? im.parentNode : im;
    ["id", "class", "fetchpriority", "width", "height"].forEach(function (name) {
      if (old.hasAttribute(name)) im.setAttribute(name, old.getAttribute(name));
    });
    old.removeAttribute("id");
    var source = frame.tagName === "PICTURE" ? frame.querySelector("source") : null;
    if (stage.source) {
      stage.source.removeAttribute("id");
      if (source) source.id = "stage-avif";
    }
    oldFrame.replaceWith(frame);
    old.onload = old.onerror = null;
    stage.img = im;
    stage.source = source;
    return im;
  }

  /* Show one step on a stage (image + overlay + placeholder); calls onPainted once the picture
     (or the placeholder) is on screen. */
  function showOnStage(stage, step, onPainted) {
    var img = stage.img;
    var done = function () {
      requestAnimationFrame(function () {
        if (onPainted) onPainted();
      });
    };
    var placeholder = function (reason) {
      img.hidden = true;
      stage.overlay.style.display = "none";
      stage.placeholder.hidden = false;
      stage.reason.textContent = reason;
      done();
    };
    stage.current = step.index;
    if (!step.image) {
      placeholder(step.problem || "No screenshot was recorded for this step.");
      return;
    }
    stage.placeholder.hidden = true;
    stage.overlay.style.display = "";
    var ready = decodedPicture(step);
    if (ready && ready !== img && !ready.isConnected) {
      img = putOnStage(stage, ready);
      img.hidden = false;
      img.alt = altText(step);
      drawAction(stage.overlay, step, step.width || img.naturalWidth, step.height || img.naturalHeight);
      done();
      return;
    }
    img.hidden = false;
    img.alt = altText(step);
    img.onload = function () {
      if (stage.current !== step.index) return;
      drawAction(stage.overlay, step, step.width || img.naturalWidth, step.height || img.naturalHeight);
      done();
    };
    img.onerror = function () {
      if (stage.current !== step.index) return;
      if (step.image_avif && img.currentSrc && img.currentSrc.indexOf(step.image_avif) >= 0 && !avifRefused) {
        avifRefused = true; // the <img>'s own WebP loads next, and onload paints it
        pointPicture(stage, step);
        return;
      }
      placeholder("The screenshot file could not be loaded (missing or unreadable): " + (step.image || ""));
    };
    if (!pointPicture(stage, step) && img.complete && img.naturalWidth) img.onload();
  }

  /* Fetch and decode a step's picture ahead of showing it, choosing as the stage will: a detached
     <picture> lets the browser pick the AVIF or the WebP by type. Identical screenshots share one
     URL, so each picture is fetched once however many steps show it. */
  var prefetched = {};
  function prefetch(step) {
    if (!step || !step.image) return;
    var avif = avifOf(step);
    var key = avif || step.image;
    if (prefetched[key]) return;
    var im = new Image();
    im.decoding = "async";
    if (avif) {
      var source = document.createElement("source");
      source.type = "image/avif";
      source.srcset = avif;
      el("picture", null, [source, im]);
    }
    im.src = step.image;
    prefetched[key] = im;
    var decoded = function () {
      im.__decoded = true;
    };
    if (im.decode) im.decode().then(decoded, function () {});
    else im.onload = decoded;
  }

  /* Whether a step's picture is already fetched and decoded (prefetched), so the stage shows it
     without asking the server. */
  function inMemory(step) {
    if (!step || !step.image) return true;
    return !!decodedPicture(step);
  }

  /* The prefetched <img> of a step's picture once it is loaded and decoded, else null. */
  function decodedPicture(step) {
    var im = step && step.image ? prefetched[avifOf(step) || step.image] : null;
    return im && im.complete && im.naturalWidth && im.__decoded ? im : null;
  }

  function isTyping(target) {
    var tag = (target && target.tagName) || "";
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  window.MyPCPlayer = {
    el: el,
    describeAction: describeAction,
    drawAction: drawAction,
    stepDetails: stepDetails,
    showOnStage: showOnStage,
    prefetch: prefetch,
    isTyping: isTyping,
    actionsOf: actionsOf,
  };

  // ---------------------------------------------------------------- the player page

  function initPlayer() {
    var dataNode = document.getElementById("player-data");
    var root = document.getElementById("player");
    if (!dataNode || !root) return;
    var data = JSON.parse(dataNode.textContent);
    var steps = data.steps;
    var judges = data.judges || [];
    var byIndex = {};
    var pos = 0; // position in steps (0-based), not the step index
    var playing = null;
    var speed = 1;
    var judgeIdx = 0;
    var jumpBuffer = "";
    var jumpTimer = null;
    var lastFocus = null;
    var $ = function (id) { return document.getElementById(id); };

    var stage = {
      img: $("stage-image"),
      source: $("stage-avif"),
      overlay: $("stage-overlay"),
      placeholder: $("stage-placeholder"),
      reason: $("stage-placeholder-reason"),
    };
    var scrubber = $("scrubber");
    var stepInput = $("step-input");
    var announce = $("player-announce");
    var strip = $("filmstrip");
    var track = $("filmstrip-track");
    var THUMB_W = 136; // px per filmstrip slot, thumbnail plus gap (matches player.css)
    var rendered = {};
    // While the stage fetches a picture that was not prefetched (a far jump, the first step), new
    // thumbnails and the neighbours' prefetches wait until it is painted: the server answers the
    // picture the reader asked for first instead of sharing itself with a dozen thumbnails.
    var stageWaiting = false;
    var stageWaitTimer = null;

    function reindex() {
      byIndex = {};
      steps.forEach(function (s, i) { byIndex[s.index] = i; });
      scrubber.max = Math.max(steps.length, 1);
      stepInput.max = steps.length ? steps[steps.length - 1].index : 1;
      $("step-count").textContent = "of " + steps.length;
      track.style.width = steps.length * THUMB_W + "px";
    }

    // ---- filmstrip: only the slots in view (plus a margin) exist in the DOM
    function renderStrip() {
      var first = Math.max(0, Math.floor(strip.scrollLeft / THUMB_W) - 4);
      var last = Math.min(steps.length - 1, Math.ceil((strip.scrollLeft + strip.clientWidth) / THUMB_W) + 4);
      Object.keys(rendered).forEach(function (k) {
        var i = +k;
        if (i < first || i > last) {
          track.removeChild(rendered[k]);
          delete rendered[k];
        }
      });
      for (var i = first; i <= last; i++) {
        if (rendered[i]) continue;
        var s = steps[i];
        var btn = el("button", { type: "button", class: "thumb", "data-pos": String(i), "aria-label": "Go to step " + s.index });
        btn.style.left = i * THUMB_W + "px";
        if (s.thumb) {
          var im = el("img", { alt: "", loading: "lazy", decoding: "async", width: "120", height: "75" });
          im.fetchPriority = "low";
          if (stageWaiting) im.setAttribute("data-src", s.thumb);
          else im.src = s.thumb;
          im.onerror = function () { this.replaceWith(el("span", { class: "thumb-missing", text: "image failed" })); };
          btn.appendChild(im);
        } else {
          btn.appendChild(el("span", { class: "thumb-missing", text: s.original ? "unavailable" : "no screenshot" }));
        }
        btn.appendChild(el("span", { class: "thumb-label", text: String(s.index) }));
        btn.addEventListener("click", onThumb);
        rendered[i] = btn;
        track.appendChild(btn);
      }
      markStrip();
    }
    function releaseStage() {
      if (!stageWaiting) return;
      stageWaiting = false;
      clearTimeout(stageWaitTimer);
      track.querySelectorAll("img[data-src]").forEach(function (im) {
        im.src = im.getAttribute("data-src");
        im.removeAttribute("data-src");
      });
      prefetch(steps[pos + 1]);
      prefetch(steps[pos - 1]);
    }
    function onThumb(ev) {
      go(+ev.currentTarget.getAttribute("data-pos"));
    }
    function markStrip() {
      var cited = citedSet();
      Object.keys(rendered).forEach(function (k) {
        var node = rendered[k];
        var active = +k === pos;
        node.classList.toggle("active", active);
        node.classList.toggle("cited", !!cited[steps[+k].index]);
        if (active) node.setAttribute("aria-current", "step");
        else node.removeAttribute("aria-current");
      });
    }
    function scrollStripTo(i) {
      var left = i * THUMB_W;
      if (left < strip.scrollLeft || left + THUMB_W > strip.scrollLeft + strip.clientWidth) {
        strip.scrollLeft = Math.max(0, left - strip.clientWidth / 2 + THUMB_W / 2);
      }
    }
    strip.addEventListener("scroll", function () { requestAnimationFrame(renderStrip); }, { passive: true });
    window.addEventListener("resize", function () { requestAnimationFrame(renderStrip); });

    // ---- rubric
    function items() {
      return judges.length ? judges[judgeIdx].items : [];
    }
    function citedSet() {
      var set = {};
      items().forEach(function (it) {
        it.cited_steps.forEach(function (n) { set[n] = true; });
      });
      return set;
    }
    // Who gave the verdicts shown, in the words of templates/includes/verdicts_by.html.
    function renderVerdictsBy() {
      var line = $("verdicts-by");
      line.textContent = "";
      line.hidden = judges.length === 0;
      if (!judges.length) return;
      var j = judges[judgeIdx];
      line.appendChild(document.createTextNode("Verdicts by "));
      line.appendChild(el("strong", { class: "verdicts-by-name", text: j.name }));
      line.appendChild(document.createTextNode(" "));
      line.appendChild(el("span", { class: "muted", text: "(" + j.origin_label + ")" }));
      line.appendChild(document.createTextNode(" "));
      if (j.self_reported) {
        line.appendChild(el("span", { class: "badge badge-self-reported", title: "The author's own judge: its verdicts are shown, never scored", text: j.note }));
      } else {
        line.appendChild(el("span", { class: "muted", text: j.scores_run ? "· the judge this run is scored by" : "· not the judge this run is scored by" }));
      }
    }
    function renderRubric() {
      var list = $("rubric-list");
      list.textContent = "";
      $("rubric-empty").hidden = judges.length > 0;
      $("rubric-hint").hidden = judges.length === 0;
      renderVerdictsBy();
      var judge = judges.length ? judges[judgeIdx] : null;
      var own = !!(judge && judge.self_reported);
      items().forEach(function (it, i) {
        var head = el("span", { class: "item-head" }, [
          el("span", { class: "verdict verdict-" + (own ? "self-reported" : it.verdict), text: it.verdict === "error" ? "Error (judge could not decide; not a failure)" : it.verdict_label }),
          own ? el("span", { class: "badge badge-self-reported", title: "The author's own verdict: shown, never scored", text: judge.note }) : null,
          el("code", { text: it.rubric_id }),
          el("span", { class: "muted small", text: it.weight_pct + "% weight" }),
          it.state_check ? el("span", { class: "badge state-check state-check-" + it.state_check.status, title: it.state_check.detail || "Command run on the guest when the trajectory ended", text: "state check: " + it.state_check.label }) : null,
          it.stale ? el("span", { class: "badge badge-stale", title: "The rubric item was edited after this judgment; it refers to version " + it.version, text: "stale (v" + it.version + ")" }) : null,
          el("span", { class: "lit-note", text: "cited at this step" }),
        ]);
        var body = [head, el("span", { class: "criterion", text: it.criterion })];
        if (it.written_criterion) body.push(el("span", { class: "muted small", text: "As world variant " + it.rubric_world_variant + " words it; as written: " + it.written_criterion }));
        if (it.explanation) body.push(el("span", { class: "explanation", text: it.explanation }));
        if (it.failure_mode) body.push(el("span", { class: "muted small", text: "Failure mode: " + it.failure_mode }));
        body.push(el("span", { class: "cited muted small", text: it.cited_steps.length ? "Cited steps: " + it.cited_steps.join(", ") : "No steps cited" }));
        var btn = el("button", { type: "button", class: "rubric-item", "data-item": String(i) }, body);
        if (!it.cited_steps.length) btn.setAttribute("aria-disabled", "true");
        btn.addEventListener("click", function () {
          if (it.cited_steps.length) go(byIndex[it.cited_steps[0]]);
        });
        list.appendChild(el("li", { class: "verdict-row-" + (own ? "self-reported" : it.verdict) }, [btn]));
      });
      renderMarks();
      markRubric();
      markStrip();
    }
    function markRubric() {
      var idx = steps.length ? steps[pos].index : -1;
      var buttons = $("rubric-list").querySelectorAll(".rubric-item");
      items().forEach(function (it, i) {
        var lit = it.cited_steps.indexOf(idx) >= 0;
        buttons[i].classList.toggle("lit", lit);
        buttons[i].setAttribute("aria-pressed", lit ? "true" : "false");
      });
    }
    function renderMarks() {
      var marks = $("scrubber-marks");
      marks.textContent = "";
      var cited = citedSet();
      var n = steps.length;
      steps.forEach(function (s, i) {
        if (!cited[s.index]) return;
        var m = el("span", { class: "mark", title: "Cited: step " + s.index });
        m.style.left = (n > 1 ? (i / (n - 1)) * 100 : 0) + "%";
        marks.appendChild(m);
      });
    }
    if (judges.length > 1) {
      var sel = $("judge-select");
      judges.forEach(function (j, i) {
        sel.appendChild(el("option", { value: String(i), text: j.name + " (" + j.origin_label + (j.self_reported ? "; " + j.note : "") + ")" }));
      });
      sel.addEventListener("change", function () {
        judgeIdx = +sel.value;
        renderRubric();
      });
      $("judge-picker").hidden = false;
    }

    // ---- stepping
    function go(i, opts) {
      if (!steps.length) return;
      i = Math.max(0, Math.min(steps.length - 1, i));
      pos = i;
      var step = steps[i];
      performance.mark("player-step-start");
      if (!inMemory(step)) {
        stageWaiting = true;
        clearTimeout(stageWaitTimer);
        stageWaitTimer = setTimeout(releaseStage, 1500); // a picture that never comes holds nothing back
      }
      showOnStage(stage, step, function () {
        performance.mark("player-step-painted");
        if (!window.__playerFirstPaint) {
          window.__playerFirstPaint = performance.now();
          performance.mark("player-first-screenshot");
        }
        window.__playerPainted = { index: step.index, at: performance.now() };
        releaseStage();
      });
      scrubber.value = i + 1;
      scrubber.setAttribute("aria-valuetext", "Step " + step.index + " of " + steps.length);
      if (document.activeElement !== stepInput) stepInput.value = step.index;
      $("step-heading-index").textContent = step.index + " of " + steps.length;
      var details = $("step-details");
      details.textContent = "";
      details.appendChild(stepDetails(step));
      var link = $("original-link");
      link.hidden = !step.original;
      link.href = step.original || "#";
      scrollStripTo(i);
      renderStrip();
      markRubric();
      var url = new URL(window.location.href);
      url.searchParams.set("step", step.index);
      history.replaceState(null, "", url);
      if (!stageWaiting) {
        prefetch(steps[i + 1]);
        prefetch(steps[i - 1]);
      }
      markUserLane(step.index);
      if (!(opts && opts.quiet)) announce.textContent = "Step " + step.index;
      if (playing && i === steps.length - 1 && !data.live) pause();
    }

    // ---- a session's user lane and intents panel (server-rendered): jump to a step, light the current turn
    function markUserLane(index) {
      document.querySelectorAll("#user-lane .user-turn").forEach(function (li) {
        var first = +li.getAttribute("data-first-step"), last = +li.getAttribute("data-last-step");
        li.setAttribute("aria-current", first && index >= first && index <= last ? "true" : "false");
      });
    }
    document.querySelectorAll("#user-lane .user-turn").forEach(function (li) {
      li.style.flexGrow = li.getAttribute("data-steps"); // each turn as wide as the steps that answered it
    });
    document.querySelectorAll("[data-jump-step]").forEach(function (btn) {
      btn.addEventListener("click", function () {
        var n = +btn.getAttribute("data-jump-step");
        if (byIndex[n] !== undefined) go(byIndex[n]);
      });
    });

    function play() {
      if (playing || !steps.length) return;
      if (pos === steps.length - 1) go(0, { quiet: true });
      playing = setInterval(function () {
        if (pos < steps.length - 1) go(pos + 1, { quiet: true });
        else if (!data.live) pause();
      }, 1000 / speed);
      $("btn-play").textContent = "Pause";
      $("btn-play").setAttribute("aria-pressed", "true");
      announce.textContent = "Playing";
    }
    function pause() {
      if (!playing) return;
      clearInterval(playing);
      playing = null;
      $("btn-play").textContent = "Play";
      $("btn-play").setAttribute("aria-pressed", "false");
      announce.textContent = "Paused at step " + steps[pos].index;
    }
    function toggle() {
      if (playing) pause();
      else play();
    }
    function setSpeed(v) {
      speed = v;
      $("speed").value = String(v);
      if (playing) {
        pause();
        play();
      }
    }
    function jumpToIndex(n) {
      if (byIndex[n] !== undefined) go(byIndex[n]);
      else {
        // the nearest step at or below n: indices can have gaps in imported data
        var best = 0;
        steps.forEach(function (s, i) { if (s.index <= n) best = i; });
        go(best);
      }
    }

    function copyLink() {
      var text = window.location.href;
      var ok = function () { announce.textContent = "Link to step " + steps[pos].index + " copied"; $("btn-copy").textContent = "Copied"; setTimeout(function () { $("btn-copy").textContent = "Copy link"; }, 1500); };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(ok, function () { window.prompt("Copy this link", text); });
      } else {
        window.prompt("Copy this link", text);
      }
    }

    // ---- overlays
    function openOverlay(id) {
      lastFocus = document.activeElement;
      var box = $(id);
      box.hidden = false;
      var focusable = box.querySelector("[data-close]");
      if (focusable) focusable.focus();
    }
    function closeOverlays() {
      var any = false;
      document.querySelectorAll(".overlay").forEach(function (o) {
        if (!o.hidden) any = true;
        o.hidden = true;
      });
      if (any && lastFocus && lastFocus.focus) lastFocus.focus();
      return any;
    }
    function openOriginal() {
      var step = steps[pos];
      $("original-caption").textContent = "Original screenshot of step " + step.index + (step.width ? " (" + step.width + "×" + step.height + ")" : "");
      var img = $("original-image");
      var problem = $("original-problem");
      img.hidden = !step.original;
      problem.hidden = !!step.original;
      problem.textContent = step.problem || "No screenshot was recorded for this step.";
      if (step.original) {
        img.alt = step.alt;
        img.onerror = function () {
          img.hidden = true;
          problem.hidden = false;
          problem.textContent = "The original file could not be loaded (missing or unreadable).";
        };
        img.src = step.original;
      }
      openOverlay("original-overlay");
    }
    document.querySelectorAll("[data-open]").forEach(function (b) {
      b.addEventListener("click", function () { openOverlay(b.getAttribute("data-open")); });
    });
    document.querySelectorAll(".overlay [data-close]").forEach(function (b) {
      b.addEventListener("click", closeOverlays);
    });
    document.querySelectorAll(".overlay").forEach(function (o) {
      o.addEventListener("click", function (ev) { if (ev.target === o) closeOverlays(); });
    });

    // ---- controls
    $("btn-first").addEventListener("click", function () { go(0); });
    $("btn-prev").addEventListener("click", function () { go(pos - 1); });
    $("btn-next").addEventListener("click", function () { go(pos + 1); });
    $("btn-last").addEventListener("click", function () { go(steps.length - 1); });
    $("btn-play").addEventListener("click", toggle);
    $("btn-copy").addEventListener("click", copyLink);
    $("speed").addEventListener("change", function () { setSpeed(+$("speed").value); });
    scrubber.addEventListener("input", function () { go(+scrubber.value - 1, { quiet: true }); });
    stepInput.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") {
        ev.preventDefault();
        jumpToIndex(parseInt(stepInput.value, 10) || 1);
      }
    });
    stepInput.addEventListener("change", function () { jumpToIndex(parseInt(stepInput.value, 10) || 1); });
    $("stage").addEventListener("click", openOriginal);

    document.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape") {
        jumpBuffer = "";
        $("jump-buffer").textContent = "";
        if (closeOverlays()) ev.preventDefault();
        return;
      }
      if (ev.altKey || ev.ctrlKey || ev.metaKey || isTyping(ev.target)) return;
      var overlayOpen = !!document.querySelector(".overlay:not([hidden])");
      if (overlayOpen) return;
      var key = ev.key;
      if (/^[0-9]$/.test(key)) {
        jumpBuffer += key;
        $("jump-buffer").textContent = "Go to step " + jumpBuffer + " (Enter)";
        clearTimeout(jumpTimer);
        jumpTimer = setTimeout(function () { if (jumpBuffer) { jumpToIndex(+jumpBuffer); jumpBuffer = ""; } }, 1200);
        ev.preventDefault();
        return;
      }
      if (key === "Enter" && jumpBuffer) {
        clearTimeout(jumpTimer);
        jumpToIndex(+jumpBuffer);
        jumpBuffer = "";
        $("jump-buffer").textContent = "";
        ev.preventDefault();
        return;
      }
      var handled = true;
      switch (key) {
        case " ":
        case "Spacebar":
          toggle();
          break;
        case "ArrowLeft":
        case "j":
        case "J":
          pause();
          go(pos - 1);
          break;
        case "ArrowRight":
        case "k":
        case "K":
          pause();
          go(pos + 1);
          break;
        case "Home":
          go(0);
          break;
        case "End":
          go(steps.length - 1);
          break;
        case "[":
          setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(speed) - 1)]);
          break;
        case "]":
          setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(speed) + 1)]);
          break;
        case "o":
        case "O":
          openOriginal();
          break;
        case "c":
        case "C":
          copyLink();
          break;
        case "?":
          openOverlay("help-overlay");
          break;
        default:
          handled = false;
      }
      if (handled) ev.preventDefault();
    });

    // ---- ending and live updates
    function renderEnding(t) {
      $("ended-by").textContent = t.ended_by_label;
      $("final-answer").textContent = t.final_answer || "";
      $("final-answer-block").hidden = !t.final_answer;
      $("trajectory-error").textContent = t.error || "";
      $("error-block").hidden = !t.error;
    }
    renderEnding(data.trajectory);

    function poll() {
      if (!data.live) return;
      var since = steps.length ? steps[steps.length - 1].index : 0;
      fetch(data.live.url + "?since=" + since, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.json();
        })
        .then(function (update) {
          var following = pos === steps.length - 1;
          var fresh = update.steps.filter(function (s) { return byIndex[s.index] === undefined; });
          if (fresh.length) {
            steps = steps.concat(fresh);
            reindex();
            renderMarks();
            renderStrip();
            if (following || !steps.length) go(steps.length - 1, { quiet: true });
            else go(pos, { quiet: true });
            announce.textContent = fresh.length + " new step" + (fresh.length > 1 ? "s" : "");
          }
          var badge = $("player-status");
          badge.textContent = update.running ? "Running" : update.status.charAt(0).toUpperCase() + update.status.slice(1);
          badge.className = "badge badge-status-" + update.status;
          if (!update.running) {
            data.live = null;
            renderEnding({ ended_by_label: update.ended_by_label, final_answer: update.final_answer, error: "" });
            return;
          }
          setTimeout(poll, data.live.interval_ms);
        })
        .catch(function () {
          if (data.live) setTimeout(poll, data.live.interval_ms * 3);
        });
    }

    // ---- start
    root.hidden = false;
    reindex();
    renderRubric();
    var wanted = parseInt(new URL(window.location.href).searchParams.get("step"), 10);
    if (steps.length) {
      if (wanted) jumpToIndex(wanted);
      else go(0, { quiet: true });
    } else {
      stage.placeholder.hidden = false;
      stage.img.hidden = true;
      stage.reason.textContent = data.live ? "Waiting for the first step…" : "This trajectory has no recorded steps.";
    }
    if (data.live) setTimeout(poll, data.live.interval_ms);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", initPlayer);
  else initPlayer();
})();
