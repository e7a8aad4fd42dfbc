// The kconnect dashboard: plain JavaScript over Kafka Connect's REST API, served by every worker.
//
// Every request goes to the worker that served the page, with the browser's credentials for it (behind
// basic auth the browser asked for them when it loaded the page). Two polls keep the page live:
// `GET /connectors?expand=status&expand=info` for what runs where, and `GET /ui/api/task-metrics`, which
// the worker answers with the record counters and lag of every task of the cluster (it asks the other
// workers itself). Rows are kept by connector name and only the cells whose text changed are touched, so
// a cluster of hundreds of connectors costs a poll a few milliseconds of DOM work, not a rebuilt table.
"use strict";

(() => {
  const POLL_MS = 2000;
  const POINTS = 30; // sparkline points: one a poll, about a minute
  const VALIDATE_DELAY_MS = 250;
  const SVG = "http://www.w3.org/2000/svg";

  const $ = (id) => document.getElementById(id);
  const enc = encodeURIComponent;

  // ---- REST ------------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  // Where this worker's API is: the page's path without its `/ui`, so the page also works mounted under a
  // prefix (a dedicated MirrorMaker serves each flow's worker under `/<source>/<target>`).
  const API_BASE = location.pathname.replace(/\/ui\/?$/, "");

  async function api(method, path, body) {
    const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(API_BASE + path, init);
    const text = await response.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch (_) {
        data = text;
      }
    }
    if (!response.ok) {
      const message = data && typeof data === "object" && data.message ? data.message : `HTTP ${response.status}`;
      throw new ApiError(response.status, message);
    }
    return data;
  }

  // ---- Small DOM helpers -----------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }

  function stateBadge(state) {
    return el("span", { class: `state ${state}`, text: state });
  }

  function sparkline() {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("class", "spark");
    svg.setAttribute("viewBox", `0 0 ${POINTS - 1} 20`);
    svg.setAttribute("preserveAspectRatio", "none");
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("vector-effect", "non-scaling-stroke"); // the box is stretched; the line should not be
    svg.append(line);
    return svg;
  }

  function drawSpark(svg, rates) {
    const max = Math.max(1, ...rates);
    const offset = POINTS - rates.length;
    const points = rates.map((rate, i) => `${offset + i},${(19 - (rate / max) * 18).toFixed(1)}`).join(" ");
    const line = svg.firstChild;
    if (line.getAttribute("points") !== points) line.setAttribute("points", points);
  }

  function formatRate(rate) {
    if (rate === null || rate === undefined) return "";
    if (rate >= 10000) return `${(rate / 1000).toFixed(0)}k`;
    if (rate >= 1000) return `${(rate / 1000).toFixed(1)}k`;
    return rate >= 10 ? rate.toFixed(0) : rate.toFixed(1);
  }

  function formatCount(value) {
    return value === null || value === undefined ? "" : Math.round(value).toLocaleString("en");
  }

  let toastTimer = 0;
  function toast(message, bad) {
    const node = $("toast");
    node.textContent = message;
    node.classList.toggle("bad", Boolean(bad));
    node.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (node.hidden = true), bad ? 8000 : 3000);
  }

  // ---- State -----------------------------------------------------------------------------------

  const connectors = new Map(); // name -> the connector as the last poll saw it
  const throughput = new Map(); // "connector" or "connector/task" -> {samples: [[ms, records]], lag, worker}
  let workers = [];
  let selected = null;
  // What the caller may do per connector (`GET /ui/api/permissions`): with an authorizer, the page shows
  // no button the worker would refuse; a refusal that happens anyway is shown with its reason.
  let permissions = null;
  const ACTION_PERMISSIONS = { pause: "operate", resume: "operate", stop: "operate", restart: "operate", edit: "edit", delete: "edit" };

  function may(name, permission) {
    if (!permissions || !permissions.enforced) return true;
    const held = permissions.connectors[name];
    return Boolean(held && held.includes(permission));
  }

  function connectorOf(name, entry) {
    const status = entry.status || {};
    const info = entry.info || {};
    const config = info.config || {};
    return {
      name,
      type: status.type || info.type || "",
      plugin: config["connector.class"] || "",
      state: (status.connector && status.connector.state) || "UNASSIGNED",
      worker: (status.connector && status.connector.worker_id) || "",
      trace: (status.connector && status.connector.trace) || "",
      tasks: (status.tasks || []).map((t) => ({ id: t.id, state: t.state, worker: t.worker_id, trace: t.trace || "" })),
      config,
    };
  }

  function record(key, now, records, lag, worker) {
    let entry = throughput.get(key);
    if (!entry) throughput.set(key, (entry = { samples: [], lag: null, worker: "" }));
    entry.samples.push([now, records]);
    if (entry.samples.length > POINTS + 1) entry.samples.shift();
    entry.lag = lag;
    entry.worker = worker;
    entry.seen = now;
  }

  // Records a second between consecutive polls; a counter that went down (a task restarted or moved to a
  // worker that counts from zero) counts as no progress rather than a negative rate.
  function ratesOf(key) {
    const entry = throughput.get(key);
    if (!entry) return [];
    const rates = [];
    for (let i = 1; i < entry.samples.length; i++) {
      const [t0, r0] = entry.samples[i - 1];
      const [t1, r1] = entry.samples[i];
      rates.push(t1 > t0 && r1 >= r0 ? ((r1 - r0) * 1000) / (t1 - t0) : 0);
    }
    return rates;
  }

  function applyFigures(data) {
    const now = Date.now();
    const perConnector = new Map();
    for (const task of data.tasks || []) {
      record(`${task.connector}/${task.task}`, now, task.records, task.lag, task.worker);
      let sum = perConnector.get(task.connector);
      if (!sum) perConnector.set(task.connector, (sum = { records: 0, lag: null }));
      sum.records += task.records;
      if (task.lag !== null && task.lag !== undefined) sum.lag = (sum.lag || 0) + task.lag;
    }
    for (const [name, sum] of perConnector) record(name, now, sum.records, sum.lag, "");
    // Forget what no longer reports (deleted, or stopped), so its sparkline does not linger.
    for (const [key, entry] of throughput) if (entry.seen !== now) throughput.delete(key);
    workers = data.workers || [];
  }

  // ---- Polling ---------------------------------------------------------------------------------

  let pollTimer = 0;
  let lastHeard = 0;

  async function poll() {
    clearTimeout(pollTimer);
    try {
      const [listed, figures, allowed] = await Promise.all([
        api("GET", "/connectors?expand=status&expand=info"),
        api("GET", "/ui/api/task-metrics").catch((error) => {
          if (error.status === 401) throw error;
          return null; // the table stays useful without figures
        }),
        api("GET", "/ui/api/permissions").catch((error) => {
          if (error.status === 401) throw error;
          return permissions; // keep what was known
        }),
      ]);
      permissions = allowed;
      const seen = new Set();
      for (const [name, entry] of Object.entries(listed || {})) {
        connectors.set(name, connectorOf(name, entry));
        seen.add(name);
      }
      for (const name of [...connectors.keys()]) if (!seen.has(name)) connectors.delete(name);
      if (figures) applyFigures(figures);
      lastHeard = Date.now();
      showBanner("");
      render();
      if (selected !== null) loadHistory(selected);
    } catch (error) {
      if (error.status === 401) {
        showBanner("The worker refused the credentials of this page (401): reload it to sign in again.");
      } else if (error.status === 403) {
        showBanner(`The worker refused this page's user (403): ${error.message}`);
      } else {
        showBanner(`Cannot reach the worker: ${error.message}`);
      }
    } finally {
      updateLive();
      clearTimeout(pollTimer); // an action may have polled meanwhile: keep one timer
      pollTimer = setTimeout(poll, POLL_MS);
    }
  }

  function showBanner(message) {
    const banner = $("banner");
    setText(banner, message);
    banner.hidden = !message;
  }

  function updateLive() {
    const live = $("live");
    const stale = !lastHeard || Date.now() - lastHeard > 3 * POLL_MS;
    live.classList.toggle("stale", stale);
    setText(live, lastHeard ? `live · ${new Date(lastHeard).toLocaleTimeString("en-GB")}` : "connecting…");
  }

  // ---- The connectors table ----------------------------------------------------------------------

  const rows = new Map(); // name -> {tr, cells, values, chipsKey, spark}

  function makeRow(name) {
    const tr = el("tr", { "data-name": name });
    const cells = {};
    for (const key of ["name", "type", "plugin", "state", "worker", "tasks", "rate", "lag"]) {
      // The state's cell is "status": ".state" is its badge alone.
      const name = key === "state" ? "status" : key;
      cells[key] = el("td", { class: key === "rate" || key === "lag" ? `${key} num` : name });
      tr.append(cells[key]);
    }
    cells.name.append(el("span", { class: "name-text" }));
    cells.state.append(el("span", { class: "state" }));
    cells.tasks.append(el("span", { class: "chips" }));
    const spark = sparkline();
    cells.rate.append(el("span", { class: "rate-text" }), spark);
    tr.addEventListener("click", () => select(name));
    return { tr, cells, values: {}, chipsKey: "", spark };
  }

  function updateCell(row, key, text) {
    if (row.values[key] === text) return false;
    row.values[key] = text;
    return true;
  }

  function updateRow(row, connector) {
    const { cells } = row;
    if (updateCell(row, "name", connector.name)) cells.name.firstChild.textContent = connector.name;
    if (updateCell(row, "type", connector.type)) cells.type.textContent = connector.type;
    if (updateCell(row, "plugin", connector.plugin)) {
      cells.plugin.textContent = connector.plugin.split(".").pop();
      cells.plugin.title = connector.plugin;
    }
    if (updateCell(row, "state", connector.state)) {
      const badge = cells.state.firstChild;
      badge.className = `state ${connector.state}`;
      badge.textContent = connector.state;
    }
    if (updateCell(row, "worker", connector.worker)) cells.worker.textContent = connector.worker;
    const chipsKey = connector.tasks.map((t) => `${t.id}:${t.state}:${t.worker}`).join(",");
    if (chipsKey !== row.chipsKey) {
      row.chipsKey = chipsKey;
      const chips = cells.tasks.firstChild;
      chips.replaceChildren(
        ...connector.tasks.map((t) =>
          el("span", { class: `chip ${t.state}`, title: `task ${t.id}: ${t.state} on ${t.worker}`, text: String(t.id) }),
        ),
      );
    }
    const rates = ratesOf(connector.name);
    const rateText = rates.length ? formatRate(rates[rates.length - 1]) : "";
    if (updateCell(row, "rate", rateText)) cells.rate.firstChild.textContent = rateText;
    const sparkKey = rates.map((r) => r.toFixed(2)).join(",");
    if (updateCell(row, "spark", sparkKey)) drawSpark(row.spark, rates);
    const figures = throughput.get(connector.name);
    const lagText = figures ? formatCount(figures.lag) : "";
    if (updateCell(row, "lag", lagText)) cells.lag.textContent = lagText;
    const search = `${connector.name} ${connector.plugin} ${connector.state} ${connector.worker} ${connector.type}`.toLowerCase();
    row.search = search;
  }

  function render() {
    const tbody = $("rows");
    let reorder = false;
    for (const [name, connector] of connectors) {
      let row = rows.get(name);
      if (!row) {
        row = makeRow(name);
        rows.set(name, row);
        reorder = true;
      }
      updateRow(row, connector);
    }
    for (const [name, row] of rows) {
      if (!connectors.has(name)) {
        row.tr.remove();
        rows.delete(name);
      }
    }
    if (reorder) {
      // New rows: append every row in name order in one fragment (appending moves a node, it does not copy it).
      const fragment = document.createDocumentFragment();
      for (const name of [...rows.keys()].sort()) fragment.append(rows.get(name).tr);
      tbody.append(fragment);
    }
    applyFilter();
    renderSummary();
    renderWorkers();
    if (selected !== null) renderDetail();
  }

  function applyFilter() {
    const words = $("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const [name, row] of rows) {
      const visible = words.every((word) => row.search.includes(word));
      if (row.tr.hidden === visible) row.tr.hidden = !visible;
      row.tr.classList.toggle("selected", name === selected);
      if (visible) shown++;
    }
    setText($("count"), words.length ? `${shown} of ${rows.size} connectors` : `${rows.size} connectors`);
    $("empty").hidden = rows.size > 0;
  }

  function renderSummary() {
    const counts = {};
    let tasks = 0;
    for (const connector of connectors.values()) {
      counts[connector.state] = (counts[connector.state] || 0) + 1;
      for (const task of connector.tasks) {
        tasks++;
        if (task.state === "FAILED") counts.failedTasks = (counts.failedTasks || 0) + 1;
      }
    }
    const parts = [`${connectors.size} connectors`, `${tasks} tasks`];
    for (const state of ["RUNNING", "PAUSED", "STOPPED", "FAILED", "UNASSIGNED"]) {
      if (counts[state]) parts.push(`${counts[state]} ${state.toLowerCase()}`);
    }
    if (counts.failedTasks) parts.push(`${counts.failedTasks} failed tasks`);
    setText($("summary"), parts.join(" · "));
  }

  let workersKey = "";
  function renderWorkers() {
    const tasksOf = new Map();
    for (const connector of connectors.values()) {
      for (const task of connector.tasks) tasksOf.set(task.worker, (tasksOf.get(task.worker) || 0) + 1);
    }
    const listed = workers.length ? workers : [...tasksOf.keys()].map((id) => ({ id, slots: [], error: null }));
    const key = JSON.stringify([listed, [...tasksOf]]);
    if (key === workersKey) return;
    workersKey = key;
    $("workers").replaceChildren(
      ...listed.map((worker) =>
        el(
          "li",
          { "data-worker": worker.id },
          el("div", { class: "worker-id", text: worker.id + (worker.local ? " (this one)" : "") }),
          el("div", { class: "muted", text: `${tasksOf.get(worker.id) || 0} tasks` + slotsText(worker.slots) }),
          worker.error ? el("div", { class: "bad", text: worker.error }) : null,
        ),
      ),
    );
  }

  function slotsText(slots) {
    if (!slots || !slots.length) return "";
    const shown = slots.length > 8 ? `${slots.slice(0, 8).join(", ")}, …` : slots.join(", ");
    return ` · ${slots.length} slots (${shown})`;
  }

  // ---- The detail panel ------------------------------------------------------------------------------

  const closedTraces = new Set();
  let detailKey = "";
  // The selected connector's config versions (`GET /connectors/{c}/history`, kconnect's), newest last.
  let history = { name: null, versions: [], error: "" };

  function select(name) {
    selected = name;
    closedTraces.clear();
    detailKey = "";
    history = { name, versions: [], error: "" };
    $("detail").hidden = false;
    applyFilter();
    renderDetail();
    loadHistory(name);
  }

  async function loadHistory(name) {
    let next;
    try {
      next = { name, versions: await api("GET", `/connectors/${enc(name)}/history`), error: "" };
    } catch (error) {
      next = { name, versions: [], error: error.status === 404 ? "" : error.message };
    }
    if (selected !== name || JSON.stringify(next) === JSON.stringify(history)) return;
    history = next;
    detailKey = "";
    renderDetail();
  }

  // What changed from one config version to the next: [key, before, after] for every key that differs.
  function configChanges(before, after) {
    const keys = [...new Set([...Object.keys(before || {}), ...Object.keys(after || {})])].sort();
    return keys
      .map((key) => [key, before ? before[key] : undefined, after ? after[key] : undefined])
      .filter(([, was, now]) => was !== now);
  }

  function historyBlock() {
    const block = [el("h3", { text: `History (${history.versions.length} versions)` })];
    if (history.error) block.push(el("p", { class: "muted", text: `History unavailable: ${history.error}` }));
    const versions = history.versions;
    for (let index = versions.length - 1; index >= 0; index -= 1) {
      const version = versions[index];
      const previous = index > 0 ? versions[index - 1].config : null;
      const changes = version.config === null ? [] : configChanges(previous, version.config);
      const what = version.config === null ? "deleted" : previous === null ? "created" : `${changes.length} changed`;
      const written = version.timestamp ? new Date(version.timestamp).toISOString().replace("T", " ").slice(0, 19) : "";
      const details = el(
        "details",
        { class: "version", "data-version": String(version.version) },
        el("summary", { text: `v${version.version} · ${written} · ${version.user || "unknown"} · ${what}` }),
      );
      if (changes.length) {
        const rows = changes.map(([key, was, now]) =>
          el("tr", {}, el("td", { text: key }), el("td", { class: "was", text: was ?? "" }), el("td", { class: "now", text: now ?? "" })),
        );
        details.append(
          el(
            "table",
            { class: "diff" },
            el("thead", {}, el("tr", {}, ...["Key", "Before", "After"].map((h) => el("th", { text: h })))),
            el("tbody", {}, ...rows),
          ),
        );
      }
      block.push(details);
    }
    return block;
  }

  function closeDetail() {
    selected = null;
    $("detail").hidden = true;
    applyFilter();
  }

  function renderDetail() {
    const connector = connectors.get(selected);
    setText($("detail-name"), selected);
    if (!connector) {
      $("detail-body").replaceChildren(el("p", { class: "muted", text: "This connector no longer exists." }));
      detailKey = "";
      for (const button of $("detail-actions").querySelectorAll("button")) button.disabled = true;
      return;
    }
    for (const button of $("detail-actions").querySelectorAll("button")) {
      button.disabled = false;
      button.hidden = !may(connector.name, ACTION_PERMISSIONS[button.dataset.action]);
    }
    $("detail-actions").querySelector(".restart").hidden = !may(connector.name, "operate");
    const operable = may(connector.name, "operate");
    const figures = connector.tasks.map((t) => {
      const key = `${connector.name}/${t.id}`;
      const entry = throughput.get(key);
      return [ratesOf(key).map((r) => r.toFixed(1)).join(","), entry ? entry.lag : null];
    });
    const key = JSON.stringify([connector, figures, operable, history]);
    if (key === detailKey) return;
    detailKey = key;

    const facts = el(
      "dl",
      { class: "facts" },
      el("dt", { text: "State" }),
      el("dd", {}, stateBadge(connector.state)),
      el("dt", { text: "Worker" }),
      el("dd", { text: connector.worker }),
      el("dt", { text: "Type" }),
      el("dd", { text: connector.type }),
      el("dt", { text: "Plug-in" }),
      el("dd", { text: connector.plugin }),
    );
    const body = [facts];
    if (connector.trace) body.push(traceBlock("connector", "Connector trace", connector.trace));

    const taskRows = connector.tasks.map((task) => {
      const key = `${connector.name}/${task.id}`;
      const rates = ratesOf(key);
      const entry = throughput.get(key);
      const spark = sparkline();
      drawSpark(spark, rates);
      const restart = operable ? el("button", { type: "button", class: "task-restart", text: "Restart" }) : null;
      restart?.addEventListener("click", () =>
        act(`Restart task ${task.id}`, "POST", `/connectors/${enc(connector.name)}/tasks/${task.id}/restart`),
      );
      return el(
        "tr",
        { "data-task": String(task.id) },
        el("td", { text: String(task.id) }),
        el("td", {}, stateBadge(task.state)),
        el("td", { text: task.worker }),
        el("td", { class: "num" }, el("span", { text: rates.length ? formatRate(rates[rates.length - 1]) : "" }), spark),
        el("td", { class: "num", text: entry ? formatCount(entry.lag) : "" }),
        el("td", {}, restart),
      );
    });
    body.push(
      el("h3", { text: `Tasks (${connector.tasks.length})` }),
      el(
        "table",
        { class: "tasks" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            ...["Task", "State", "Worker", "Records/s", "Lag", ""].map((h) => el("th", { text: h })),
          ),
        ),
        el("tbody", {}, ...taskRows),
      ),
    );
    for (const task of connector.tasks) {
      if (task.trace) body.push(traceBlock(`task-${task.id}`, `Task ${task.id} trace (${task.state})`, task.trace));
    }
    body.push(el("h3", { text: "Config" }), el("pre", { class: "config", text: JSON.stringify(connector.config, null, 2) }));
    if (history.name === connector.name) body.push(...historyBlock());
    $("detail-body").replaceChildren(...body);
  }

  function traceBlock(key, title, trace) {
    const details = el("details", { class: "trace", "data-trace": key }, el("summary", { text: title }));
    details.append(el("pre", { class: "trace", text: trace }));
    // Open unless the user closed it: a trace is what one opens a failed connector for.
    details.open = !closedTraces.has(key);
    details.addEventListener("toggle", () => (details.open ? closedTraces.delete(key) : closedTraces.add(key)));
    return details;
  }

  async function act(what, method, path) {
    try {
      await api(method, path);
      toast(`${what}: done`);
    } catch (error) {
      toast(`${what}: ${error.message}`, true);
    }
    poll();
  }

  function onAction(event) {
    const button = event.target.closest("button[data-action]");
    if (!button || selected === null) return;
    const name = selected;
    const base = `/connectors/${enc(name)}`;
    switch (button.dataset.action) {
      case "pause":
        return act(`Pause ${name}`, "PUT", `${base}/pause`);
      case "resume":
        return act(`Resume ${name}`, "PUT", `${base}/resume`);
      case "stop":
        return act(`Stop ${name}`, "PUT", `${base}/stop`);
      case "restart": {
        const includeTasks = $("restart-include-tasks").checked;
        const onlyFailed = $("restart-only-failed").checked;
        return act(`Restart ${name}`, "POST", `${base}/restart?includeTasks=${includeTasks}&onlyFailed=${onlyFailed}`);
      }
      case "edit":
        return openEditor(name);
      case "delete":
        if (window.confirm(`Delete the connector ${name}? Its config and tasks are removed.`)) {
          closeDetail();
          return act(`Delete ${name}`, "DELETE", base);
        }
        return undefined;
      default:
        return undefined;
    }
  }

  // ---- The create / edit form --------------------------------------------------------------------------

  const editor = {
    mode: "create",
    fields: new Map(), // config key -> {wrap, input, errors}
    groups: new Map(), // group name -> fieldset
    sequence: 0,
    timer: 0,
    plugins: null,
  };

  async function loadPlugins() {
    if (!editor.plugins) editor.plugins = await api("GET", "/connector-plugins");
    return editor.plugins;
  }

  async function openEditor(name) {
    editor.mode = name ? "edit" : "create";
    editor.fields.clear();
    editor.groups.clear();
    $("editor-fields").replaceChildren();
    $("editor-extra").value = "";
    setText($("editor-error"), "");
    setText($("editor-summary"), "");
    $("editor-title").textContent = name ? `Edit ${name}` : "New connector";
    $("editor-save").textContent = name ? "Save" : "Create";
    $("editor-name").value = name || "";
    $("editor-name").readOnly = Boolean(name);
    let config = {};
    try {
      const plugins = await loadPlugins();
      if (name) config = await api("GET", `/connectors/${enc(name)}/config`);
      const select = $("editor-class");
      const classes = plugins.map((p) => p.class);
      const current = config["connector.class"];
      if (current && !classes.includes(current)) classes.unshift(current);
      select.replaceChildren(
        el("option", { value: "", text: "Choose a plug-in…" }),
        ...classes.map((cls) => {
          const plugin = plugins.find((p) => p.class === cls);
          return el("option", { value: cls, text: plugin ? `${cls.split(".").pop()} (${plugin.type})` : cls });
        }),
      );
      select.value = current || "";
      select.disabled = Boolean(name);
    } catch (error) {
      setText($("editor-error"), `Cannot load the plug-ins: ${error.message}`);
    }
    const extra = [];
    for (const [key, value] of Object.entries(config)) {
      if (key !== "connector.class" && key !== "name") extra.push([key, value]);
    }
    editor.initial = extra;
    $("editor-extra").value = "";
    if (!$("editor").open) $("editor").showModal();
    if ($("editor-class").value) await validateNow(extra);
  }

  // The config the form says: named fields with a value, then the free-form lines.
  function formConfig() {
    const config = {};
    const cls = $("editor-class").value;
    if (cls) config["connector.class"] = cls;
    const name = $("editor-name").value.trim();
    if (name) config.name = name;
    for (const [key, field] of editor.fields) {
      if (field.input.value !== "") config[key] = field.input.value;
    }
    for (const line of $("editor-extra").value.split("\n")) {
      const at = line.indexOf("=");
      if (at > 0) config[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    return config;
  }

  function scheduleValidate() {
    clearTimeout(editor.timer);
    editor.timer = setTimeout(() => validateNow(), VALIDATE_DELAY_MS);
  }

  async function validateNow(initial) {
    const cls = $("editor-class").value;
    if (!cls) return;
    const sequence = ++editor.sequence;
    const config = formConfig();
    if (initial) for (const [key, value] of initial) config[key] = value;
    if (permissions && permissions.enforced && !config.name) {
      // With permissions, a config is checked against the connector it names (unnamed: admins only).
      setText($("editor-error"), "Name the connector to check its settings.");
      return;
    }
    let result;
    try {
      result = await api("PUT", `/connector-plugins/${enc(cls)}/config/validate`, config);
    } catch (error) {
      if (sequence === editor.sequence) setText($("editor-error"), error.message);
      return;
    }
    if (sequence !== editor.sequence) return; // a newer check is on its way: this answer is stale
    setText($("editor-error"), "");
    showValidation(result, initial);
  }

  function showValidation(result, initial) {
    const values = new Map(initial || []);
    const known = new Set();
    const configs = [...result.configs].sort((a, b) => {
      const da = a.definition || {};
      const db = b.definition || {};
      return (da.order ?? 0) - (db.order ?? 0);
    });
    for (const info of configs) {
      const key = (info.definition && info.definition.name) || (info.value && info.value.name);
      if (!key || key === "connector.class" || key === "name") continue;
      known.add(key);
      let field = editor.fields.get(key);
      if (!field) {
        field = makeField(info);
        editor.fields.set(key, field);
        if (values.has(key)) field.input.value = values.get(key);
      }
      const errors = (info.value && info.value.errors) || [];
      setText(field.errors, errors.join("\n"));
      field.wrap.classList.toggle("invalid", errors.length > 0);
      const minor = !(info.definition && (info.definition.required || info.definition.importance === "HIGH"));
      field.wrap.classList.toggle("minor", minor && field.input.value === "" && errors.length === 0);
      field.wrap.hidden = info.value ? info.value.visible === false : false;
    }
    for (const [key, field] of editor.fields) {
      if (!known.has(key) && field.input.value === "") {
        field.wrap.remove();
        editor.fields.delete(key);
      }
    }
    // Values of the edited connector that no field takes (keys the plug-in does not define) go to the free lines.
    if (initial) {
      const lines = initial.filter(([key]) => !editor.fields.has(key)).map(([key, value]) => `${key}=${value}`);
      $("editor-extra").value = lines.join("\n");
    }
    for (const fieldset of editor.groups.values()) {
      const fields = [...fieldset.querySelectorAll(".field")];
      fieldset.classList.toggle("minor-only", fields.every((f) => f.classList.contains("minor")));
    }
    const count = result.error_count || 0;
    setText($("editor-summary"), count ? `${count} ${count === 1 ? "error" : "errors"}` : "The config is valid.");
    $("editor-summary").classList.toggle("error", count > 0);
  }

  function makeField(info) {
    const definition = info.definition || { name: info.value.name, type: "STRING", documentation: "" };
    const key = definition.name;
    const recommended = (info.value && info.value.recommended_values) || [];
    let input;
    if (definition.type === "BOOLEAN" || recommended.length) {
      const options = definition.type === "BOOLEAN" && !recommended.length ? ["true", "false"] : recommended;
      input = el("select", {}, el("option", { value: "", text: definition.default_value ? `(default: ${definition.default_value})` : "" }));
      for (const option of options) input.append(el("option", { value: option, text: option }));
    } else {
      input = el("input", {
        type: definition.type === "PASSWORD" ? "password" : "text",
        placeholder: definition.default_value ?? "",
        autocomplete: "off",
        spellcheck: "false",
      });
    }
    input.name = key;
    input.dataset.key = key;
    const errors = el("div", { class: "field-errors" });
    const wrap = el(
      "div",
      { class: "field", "data-key": key },
      el(
        "label",
        {},
        el("span", { class: "name", text: definition.display_name && definition.display_name !== key ? `${definition.display_name} ` : "" }),
        el("code", { text: key }),
        definition.required ? el("span", { class: "required", text: " *" }) : null,
        input,
      ),
      definition.documentation ? el("div", { class: "doc", text: definition.documentation }) : null,
      errors,
    );
    input.addEventListener("input", scheduleValidate);
    const group = definition.group || "Settings";
    let fieldset = editor.groups.get(group);
    if (!fieldset) {
      fieldset = el("fieldset", {}, el("legend", { text: group }));
      editor.groups.set(group, fieldset);
      $("editor-fields").append(fieldset);
    }
    fieldset.append(wrap);
    return { wrap, input, errors };
  }

  async function save(event) {
    event.preventDefault();
    const name = $("editor-name").value.trim();
    const cls = $("editor-class").value;
    if (!name || !cls) {
      setText($("editor-error"), "A connector needs a name and a plug-in.");
      return;
    }
    const config = formConfig();
    const button = $("editor-save");
    button.disabled = true;
    try {
      if (editor.mode === "create") {
        delete config.name;
        await api("POST", "/connectors", { name, config });
        toast(`Created ${name}`);
      } else {
        await api("PUT", `/connectors/${enc(name)}/config`, config);
        toast(`Saved ${name}`);
      }
      $("editor").close();
      poll();
    } catch (error) {
      setText($("editor-error"), error.message);
      validateNow();
    } finally {
      button.disabled = false;
    }
  }

  function onClassChange() {
    editor.fields.clear();
    editor.groups.clear();
    $("editor-fields").replaceChildren();
    validateNow();
  }

  // ---- Start -----------------------------------------------------------------------------------------

  async function loadClusterInfo() {
    try {
      const info = await api("GET", "/");
      setText($("cluster-info"), `${info.version} · Kafka cluster ${info.kafka_cluster_id}`);
    } catch (_) {
      // the polls report what is wrong
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("filter").addEventListener("input", applyFilter);
    $("detail-close").addEventListener("click", closeDetail);
    $("detail-actions").addEventListener("click", onAction);
    $("new-connector").addEventListener("click", () => openEditor(null));
    $("editor-cancel").addEventListener("click", () => $("editor").close());
    $("editor-form").addEventListener("submit", save);
    $("editor-class").addEventListener("change", onClassChange);
    $("editor-name").addEventListener("input", scheduleValidate);
    $("editor-extra").addEventListener("input", scheduleValidate);
    $("editor-all").addEventListener("change", (event) =>
      $("editor-fields").classList.toggle("all", event.target.checked),
    );
    setInterval(updateLive, 1000);
    loadClusterInfo();
    poll();
  });
})();
