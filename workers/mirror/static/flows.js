// The flows page of a dedicated MirrorMaker (`kconnect mirror`): each flow's state, lag, heartbeat and
// checkpoint age from `GET /flows` (what `kconnect ctl mirror status` prints), every few seconds, with a link
// to each flow's own dashboard. Paths are relative to where the page is served, so it works behind a prefix.
"use strict";

const REFRESH_MS = 3000;
const BASE = location.pathname.replace(/\/ui\/?$/, "");

function cell(row, content, className) {
  const td = document.createElement("td");
  if (content instanceof Node) td.append(content);
  else td.textContent = content;
  if (className) td.className = className;
  row.append(td);
  return td;
}

function age(ms) {
  return ms === null || ms === undefined ? "—" : `${(ms / 1000).toFixed(1)} s`;
}

function badge(name, state) {
  const span = document.createElement("span");
  span.className = `state ${state}`;
  span.textContent = `${name.replace(/^Mirror/, "").replace(/Connector$/, "")}: ${state}`;
  span.dataset.connector = name;
  return span;
}

function flowLink(name, urls) {
  const link = document.createElement("a");
  link.textContent = name;
  const url = urls[name];
  if (url) {
    link.href = `${new URL(url).pathname}/ui`;
    link.title = `The dashboard of flow ${name}'s connectors`;
  }
  return link;
}

function render(flows, urls) {
  const flowRows = [];
  const partitionRows = [];
  let lag = 0;
  for (const [name, flow] of Object.entries(flows)) {
    const row = document.createElement("tr");
    row.dataset.flow = name;
    cell(row, flowLink(name, urls));
    cell(row, flow.enabled ? "yes" : "heartbeats only", "mirrors");
    cell(row, flow.lag === undefined ? "—" : String(flow.lag), "num lag");
    cell(row, age(flow.heartbeat_age_ms), "num heartbeat-age");
    cell(row, age(flow.checkpoint_age_ms), "num checkpoint-age");
    const states = document.createElement("span");
    for (const [connector, info] of Object.entries(flow.connectors || {})) states.append(badge(connector, info.state), " ");
    if (!flow.connectors) states.textContent = flow.state || "";
    cell(row, states, "connectors");
    flowRows.push(row);
    lag += flow.lag || 0;
    for (const partition of flow.partitions || []) {
      const part = document.createElement("tr");
      part.dataset.flow = name;
      part.dataset.topic = partition.topic;
      part.dataset.partition = String(partition.partition);
      cell(part, name);
      cell(part, partition.topic);
      cell(part, String(partition.partition), "num");
      cell(part, String(partition.lag), "num lag");
      partitionRows.push(part);
    }
  }
  document.getElementById("flows").replaceChildren(...flowRows);
  document.getElementById("partitions").replaceChildren(...partitionRows);
  const count = flowRows.length;
  document.getElementById("summary").textContent = `${count} flow${count === 1 ? "" : "s"}, ${lag} records behind`;
}

async function json(path) {
  const response = await fetch(BASE + path, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.message || `${response.status} ${response.statusText}`);
  return body;
}

async function refresh(urls) {
  const live = document.getElementById("live");
  const banner = document.getElementById("banner");
  try {
    render(await json("/flows"), urls);
    banner.hidden = true;
    live.className = "live";
    live.textContent = `live ${new Date().toLocaleTimeString()}`;
  } catch (error) {
    banner.textContent = `Could not read the flows: ${error.message}`;
    banner.hidden = false;
    live.className = "live stale";
    live.textContent = "stale";
  }
  setTimeout(() => refresh(urls), REFRESH_MS);
}

json("/")
  .then((root) => root.flows || {})
  .catch(() => ({}))
  .then(refresh);
