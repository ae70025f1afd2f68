// onceflow console: live refresh of a running execution. No framework, no network but this server.
// It polls the execution's status.json; whenever the history grew it fetches the page again and
// swaps the #live block (server-rendered, already escaped), keeping open <details> open.
"use strict";
(function () {
  const POLL_MS = 1000;

  function openDetails(root) {
    const open = new Set();
    root.querySelectorAll("details[open]").forEach((d, i) => open.add(d.dataset.key || String(i)));
    return open;
  }

  function keyDetails(root) {
    root.querySelectorAll("details").forEach((d, i) => { d.dataset.key = String(i); });
  }

  function colour(live, states) {
    // Update the graph at once from the JSON, before the whole block is fetched again.
    live.querySelectorAll("svg.graph [data-state]").forEach((g) => {
      const st = states[g.getAttribute("data-state")];
      if (!st) return;
      g.classList.forEach((c) => { if (c.startsWith("st-")) g.classList.remove(c); });
      g.classList.add("st-" + st.status);
    });
  }

  async function refresh(live) {
    const response = await fetch(window.location.href, { headers: { Accept: "text/html" } });
    if (!response.ok) return null;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = doc.getElementById("live");
    if (!fresh) return null;
    keyDetails(live);
    const open = openDetails(live);
    keyDetails(fresh);
    fresh.querySelectorAll("details").forEach((d) => { if (open.has(d.dataset.key)) d.open = true; });
    live.replaceWith(fresh);
    return fresh;
  }

  function poll(live) {
    const url = live.getAttribute("data-status-url");
    let last = live.getAttribute("data-last-event");
    const timer = window.setInterval(async () => {
      try {
        const response = await fetch(url, { headers: { Accept: "application/json" } });
        if (!response.ok) return;
        const body = await response.json();
        colour(live, body.states || {});
        if (String(body.lastEventId) !== last || body.status !== "RUNNING") {
          const fresh = await refresh(live);
          if (fresh) { live = fresh; last = String(body.lastEventId); }
        }
        if (body.status !== "RUNNING") window.clearInterval(timer);
      } catch (err) {
        // the server may be restarting: try again on the next tick
      }
    }, POLL_MS);
  }

  // History fields arrive as compact JSON (as Step Functions stores them); indent them when opened.
  // textContent in, textContent out: nothing is ever parsed as HTML.
  function indent(details) {
    details.querySelectorAll("pre[data-json]").forEach((pre) => {
      pre.removeAttribute("data-json");
      try {
        const value = JSON.parse(pre.textContent);
        if (value !== null && typeof value === "object") pre.textContent = JSON.stringify(value, null, 2);
      } catch (err) {
        // clipped or not JSON: leave as it is
      }
    });
  }

  document.addEventListener("toggle", (event) => {
    if (event.target.tagName === "DETAILS" && event.target.open) indent(event.target);
  }, true);

  document.addEventListener("DOMContentLoaded", () => {
    const live = document.getElementById("live");
    if (live && live.getAttribute("data-status") === "RUNNING") poll(live);
  });
})();
