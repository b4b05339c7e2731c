// modelscape model page: the chart of every target's accuracy on the scenarios this model ran.
// The figure is data in the page (script type="application/json"); the table below the chart
// holds the same numbers, so the page reads without this script.
"use strict";
(function () {
  const source = document.getElementById("comparison-data");
  const target = document.getElementById("comparison-chart");
  if (!source || !target) return;
  const theme = () => {
    const style = getComputedStyle(document.documentElement);
    const fg = style.getPropertyValue("--fg").trim();
    const line = style.getPropertyValue("--line").trim();
    return {
      paper_bgcolor: "rgba(0,0,0,0)",
      plot_bgcolor: "rgba(0,0,0,0)",
      font: { color: fg, family: "system-ui, sans-serif" },
      "xaxis.color": fg, "xaxis.gridcolor": line, "xaxis.linecolor": line,
      "yaxis.color": fg, "yaxis.gridcolor": line, "yaxis.linecolor": line,
    };
  };
  const draw = async () => {
    if (!window.Plotly) throw new Error("the plotting library did not load");
    const figure = JSON.parse(source.textContent);
    const config = { displayModeBar: false, displaylogo: false, responsive: true, showLink: false };
    await window.Plotly.newPlot(target, figure.data, figure.layout, config);
    await window.Plotly.relayout(target, theme());
    window
      .matchMedia("(prefers-color-scheme: dark)")
      .addEventListener("change", () => window.Plotly.relayout(target, theme()));
    document.documentElement.dataset.charts = "drawn";
  };
  const start = () =>
    draw().catch((error) => {
      document.documentElement.dataset.charts = "failed";
      target.textContent = "The chart could not be drawn: " + error.message;
    });
  // The plotting bundle is a deferred script: it has run by the time the document is parsed.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
