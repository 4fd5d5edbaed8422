// Draws the analysis charts: each <div data-chart="ID"> gets the plotly figure stored in the
// JSON data block <script type="application/json" id="ID"> (data only, never executed, so the
// strict CSP holds). A heatmap comes compact (leaderboard/analysis/charts.py, kind "heatmap": values, n and
// intervals per cell, and how to build each cell's link) and is expanded here into its trace with
// hover text and links. Colours follow the page's light or dark theme; a point or cell that
// carries a URL in customdata opens it on click. Without JavaScript the tables beside the charts
// remain.
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

  const pct = (v) => (v === null || v === undefined ? "n/a" : `${v.toFixed(1)}%`);
  const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

  function cellLink(link, i, j) {
    const params = new URLSearchParams([["run", link.rows[i]]]);
    for (const [name, value] of link.query) params.append(name, value === null ? link.cols[j] : value);
    return `${link.base}?${params}`;
  }

  // The compact heatmap (charts.py) as a plotly figure: the value printed in each cell, the hover
  // with n, the 95% interval and incomplete tasks, and the link to the trajectories behind it.
  function heatmapFigure(hm) {
    const hover = [];
    const links = [];
    hm.z.forEach((row, i) => {
      const hoverRow = [];
      const linkRow = [];
      row.forEach((v, j) => {
        let text = `<b>${esc(hm.y[i])}</b><br>${esc(hm.labels[j])}: ${pct(v)}`;
        let url = "";
        if (hm.reported) {
          text += "<br>reported figure (no interval)";
        } else {
          const incomplete = hm.incomplete ? hm.incomplete[i][j] : 0;
          text += `<br>n = ${hm.n[i][j]} tasks`;
          if (hm.low[i][j] !== null) text += `<br>95% interval ${hm.low[i][j].toFixed(1)}–${hm.high[i][j].toFixed(1)}%`;
          if (incomplete) text += `<br>${incomplete} incomplete (left out)`;
          if (hm.link && (v !== null || incomplete)) {
            url = cellLink(hm.link, i, j);
            text += "<br><i>click to open the trajectories</i>";
          }
        }
        hoverRow.push(text);
        linkRow.push(url);
      });
      hover.push(hoverRow);
      links.push(linkRow);
    });
    const trace = {
      type: "heatmap",
      z: hm.z,
      x: hm.x,
      y: hm.y,
      zmin: 0,
      zmax: 100,
      text: hm.z.map((row) => row.map((v) => (v === null ? "" : v.toFixed(0)))),
      texttemplate: "%{text}",
      hovertext: hover,
      hoverinfo: "text",
      customdata: links,
      xgap: 2,
      ygap: 2,
      // the colour legend is drawn in HTML under the chart (plotly's colour bar sets empty inline
      // style attributes, which the strict CSP refuses); each cell also prints its value
      showscale: false,
    };
    return { data: [trace], layout: hm.layout };
  }

  function linkOf(point) {
    const data = point.customdata;
    if (typeof data === "string") return data;
    if (Array.isArray(data) && typeof data[0] === "string") return data[0];
    return "";
  }

  // "0% [light → dark] 100%" under a heatmap: classes only, colours from the theme's CSS.
  function addColourLegend(el) {
    const host = el.closest(".chart-scroll") || el;
    if (host.nextElementSibling && host.nextElementSibling.classList.contains("heat-legend")) return;
    const legend = document.createElement("p");
    legend.className = "heat-legend small muted";
    const low = document.createElement("span");
    low.textContent = "0%";
    const ramp = document.createElement("span");
    ramp.className = "heat-ramp";
    ramp.setAttribute("aria-hidden", "true");
    const high = document.createElement("span");
    high.textContent = "100% (darker = higher)";
    legend.append("Colour: ", low, ramp, high);
    host.after(legend);
  }

  function draw(el) {
    const block = document.getElementById(el.dataset.chart);
    if (!block || !window.Plotly) return;
    const stored = JSON.parse(block.textContent);
    const figure = stored.kind === "heatmap" ? heatmapFigure(stored) : stored;
    el.replaceChildren();
    if (stored.kind === "heatmap") addColourLegend(el);
    if (figure.layout && figure.layout.width) {
      // A wide heatmap (many apps) keeps a readable width per column; its .chart-scroll parent
      // scrolls sideways. Set through the CSSOM, which the strict CSP allows.
      el.style.minWidth = `${figure.layout.width}px`;
      el.classList.add("chart-wide");
    } else if (stored.min_width) {
      // A heatmap of a few columns fills the card, but never below a readable width per column:
      // on a phone it scrolls sideways in its box.
      el.style.minWidth = `${stored.min_width}px`;
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
