// Draws the analysis charts: each <div data-chart="ID"> gets the plotly figure stored in the
// JSON data block <script type="application/json" id="ID"> (data only, never executed, so the
// strict CSP holds). Colours follow the page's light or dark theme; a point or cell that carries
// a URL in customdata opens it on click. Without JavaScript the tables beside the charts remain.
"use strict";

(() => {
  const css = (name, fallback) =>
    getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

  function themed(layout) {
    const text = css("--text", "#1b1f24");
    const muted = css("--muted", "#5b636e");
    const border = css("--border", "#d9dde3");
    const font = { ...(layout.font || {}), color: text, family: getComputedStyle(document.body).fontFamily };
    const axis = (a) => ({ ...(a || {}), gridcolor: border, linecolor: border, zerolinecolor: border, tickfont: { color: muted } });
    return {
      ...layout,
      font,
      xaxis: axis(layout.xaxis),
      yaxis: axis(layout.yaxis),
      hoverlabel: { ...(layout.hoverlabel || {}), bgcolor: css("--surface", "#fff"), bordercolor: border, font: { color: text } },
      legend: { ...(layout.legend || {}), font: { color: text } },
    };
  }

  function heatmapColours(data) {
    // A sequential scale from the surface colour to the accent, so dark mode stays dark.
    const low = css("--accent-soft", "#e7effb");
    const high = css("--accent", "#1f5fbf");
    for (const trace of data) {
      if (trace.type === "heatmap") {
        trace.colorscale = [[0, low], [1, high]];
        trace.textfont = { color: css("--text", "#1b1f24") };
      }
    }
    return data;
  }

  function linkOf(point) {
    const data = point.customdata;
    if (typeof data === "string") return data;
    if (Array.isArray(data) && typeof data[0] === "string") return data[0];
    return "";
  }

  function draw(el) {
    const block = document.getElementById(el.dataset.chart);
    if (!block || !window.Plotly) return;
    const figure = JSON.parse(block.textContent);
    el.replaceChildren();
    if (figure.layout && figure.layout.width) {
      // A wide heatmap (many apps) keeps a readable width per column; its .chart-scroll parent
      // scrolls sideways. Set through the CSSOM, which the strict CSP allows.
      el.style.minWidth = `${figure.layout.width}px`;
      el.classList.add("chart-wide");
    }
    window.Plotly.newPlot(el, heatmapColours(figure.data), themed(figure.layout || {}), {
      responsive: true,
      displaylogo: false,
      displayModeBar: false,
    }).then(() => {
      el.dataset.rendered = "true";
    });
    el.on("plotly_click", (event) => {
      const url = event.points && event.points.length ? linkOf(event.points[0]) : "";
      if (url && url.startsWith("/")) window.location.assign(url);
    });
    el.on("plotly_hover", (event) => {
      el.style.cursor = event.points && event.points.length && linkOf(event.points[0]) ? "pointer" : "";
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const el of document.querySelectorAll("[data-chart]")) draw(el);
  });
})();
