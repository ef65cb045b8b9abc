// lerix-mock dashboard: plain JavaScript, no build step, no outside URLs.
// It reads the admin API and follows GET /admin/events, a text/event-stream read with
// fetch() (not EventSource, which cannot send the Authorization header --admin-token needs).
"use strict";

(() => {
  const $ = (selector, root = document) => root.querySelector(selector);
  const TOKEN_KEY = "lerix-mock-admin-token";
  /** Checks kept in memory; the journal may hold far more, the page shows the newest. */
  const MAX_CHECKS = 5000;
  const PAGE_SIZE = 100;
  const MAX_LANES = 24;
  const POINTS_PER_LANE = 300;
  const MAX_FEED = 200;
  const RESULTS_SHOWN = 50;      // per-token results shown under each push
  const RESULTS_LOADED = 10;     // newest pushes whose first results are fetched on load

  const state = {
    project: null,
    projects: [],
    token: sessionStorage.getItem(TOKEN_KEY),
    clock: { now: null, mode: null },
    checks: [],            // oldest first
    rules: [],
    changes: [],
    pushes: new Map(),     // id -> push (its summary)
    pushResults: new Map(), // id -> its first RESULTS_SHOWN results
    faults: [],
    tokens: [],
    ingest: {},
    checksPage: 0,
    editing: null,
    stream: null,
    dirty: new Set(),
  };

  class ApiError extends Error {
    constructor(status, problem) {
      super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
      this.status = status;
      this.problem = problem || {};
    }
  }

  function authHeaders(extra) {
    const headers = Object.assign({}, extra);
    if (state.token) headers.Authorization = "Bearer " + state.token;
    return headers;
  }

  /** One admin call; a problem+json answer becomes an ApiError carrying the problem. */
  async function api(method, path, body) {
    const headers = authHeaders({ Accept: "application/json, application/problem+json" });
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, { method, headers, cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (_) { json = { title: "Not JSON", detail: text }; }
    if (response.status === 401) {
      askForToken(json && json.detail);
      throw new ApiError(401, json);
    }
    if (!response.ok) throw new ApiError(response.status, json || { title: response.statusText });
    return json;
  }

  const projectPath = (suffix = "") => `/admin/projects/${encodeURIComponent(state.project)}${suffix}`;

  // MARK: Token

  function askForToken(detail) {
    $("#token-button").hidden = false;
    $("#token-error").textContent = state.token ? (detail || "That token was refused.") : "";
    const dialog = $("#token-dialog");
    if (!dialog.open) dialog.showModal();
    $("#token-input").focus();
  }

  $("#token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("#token-input").value.trim();
    if (!token) return;
    state.token = token;
    sessionStorage.setItem(TOKEN_KEY, token);
    $("#token-dialog").close();
    start();
  });
  $("#token-button").addEventListener("click", () => askForToken());

  // MARK: Formatting

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const svgNS = "http://www.w3.org/2000/svg";
  function svg(tag, attributes, ...children) {
    const node = document.createElementNS(svgNS, tag);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
    for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    return node;
  }

  /** Server times are virtual with a manual clock: show them as the server says, in UTC. */
  function time(text, withDate) {
    if (!text) return "–";
    const date = new Date(text);
    if (isNaN(date)) return text;
    const iso = date.toISOString();
    return withDate ? iso.slice(0, 10) + " " + iso.slice(11, 19) : iso.slice(11, 19);
  }

  function statusClass(status) {
    if (status === 200) return "ok";
    if (status === 304) return "nm";
    return "err";
  }

  function deviceClass(device) {
    const d = device || {};
    return [d.platform || "?", d.version || "no version", d.build ? "build " + d.build : "no build",
      d.sdk ? d.sdk + (d.sdk_version ? " " + d.sdk_version : "") : "no sdk"].join(" · ");
  }

  function announce(text) { $("#announce").textContent = text; }

  // MARK: Rendering (batched per animation frame, so a burst of events costs one render)

  let renderScheduled = false;
  function invalidate(...parts) {
    for (const part of parts) state.dirty.add(part);
    if (!renderScheduled) {
      renderScheduled = true;
      requestAnimationFrame(render);
    }
  }

  function render() {
    renderScheduled = false;
    const dirty = state.dirty;
    state.dirty = new Set();
    if (dirty.has("clock")) renderClock();
    if (dirty.has("checks")) { renderTimeline(); renderCheckLog(); }
    if (dirty.has("rules")) renderRules();
    if (dirty.has("changes")) renderChanges();
    if (dirty.has("pushes")) { renderPushes(); renderTimeline(); }
    if (dirty.has("faults")) renderFaults();
    if (dirty.has("tokens")) renderTokens();
    if (dirty.has("ingest")) renderIngest();
  }

  function renderClock() {
    $("#clock-now").textContent = state.clock.now ? time(state.clock.now, true) + " UTC" : "–";
    $("#clock-now").setAttribute("datetime", state.clock.now || "");
    $("#clock-mode").textContent = state.clock.mode || "–";
    const manual = state.clock.mode === "manual";
    for (const form of document.querySelectorAll(".manual-only")) form.hidden = !manual;
  }

  function renderTimeline() {
    const container = $("#checks-timeline");
    container.replaceChildren();
    $("#checks-count").textContent = state.checks.length ? `(${state.checks.length}${state.checks.length >= MAX_CHECKS ? "+, newest kept" : ""})` : "";
    if (!state.checks.length) {
      container.append(el("p", { class: "empty", text: "No check yet. Point an SDK at this server, or: curl '" + location.origin + "/v1/projects/" + (state.project || "demo") + "/release-control?platform=ios&version=1.0'" }));
      return;
    }
    const lanes = new Map();
    for (const check of state.checks) {
      const key = deviceClass(check.device);
      let lane = lanes.get(key);
      if (!lane) { lane = { key, device: check.device, checks: [], last: 0 }; lanes.set(key, lane); }
      lane.checks.push(check);
    }
    const ordered = [...lanes.values()].sort((a, b) => Date.parse(b.checks[b.checks.length - 1].at) - Date.parse(a.checks[a.checks.length - 1].at));
    const shown = ordered.slice(0, MAX_LANES);
    let start = Infinity, end = -Infinity;
    for (const lane of shown) {
      for (const check of lane.checks.slice(-POINTS_PER_LANE)) {
        const t = Date.parse(check.at);
        if (t < start) start = t;
        if (t > end) end = t;
      }
    }
    const pushes = [...state.pushes.values()].filter((p) => { const t = Date.parse(p.sent_at); return t >= start && t <= end; });
    const span = Math.max(end - start, 1000);
    const x = (t) => 8 + ((t - start) / span) * 984;
    const pushMarks = (height) => pushes.map((p) => svg("rect", { class: "push", x: x(Date.parse(p.sent_at)) - 1, y: 0, width: 2, height },
      svg("title", {}, `push ${p.id} at ${time(p.sent_at, true)}`)));
    for (const lane of shown) {
      const counts = { ok: 0, nm: 0, err: 0 };
      for (const check of lane.checks) counts[statusClass(check.status)] += 1;
      const label = el("div", { class: "lane-label", title: lane.key },
        lane.key, el("br"), el("small", { text: `${lane.checks.length} checks: ${counts.ok}×200, ${counts.nm}×304, ${counts.err} errors` }));
      const strip = svg("svg", { viewBox: "0 0 1000 22", preserveAspectRatio: "none", "data-lane": lane.key,
        role: "img", "aria-label": `${lane.key}: ${lane.checks.length} checks` }, ...pushMarks(22));
      for (const check of lane.checks.slice(-POINTS_PER_LANE)) {
        const cls = statusClass(check.status);
        strip.append(svg("circle", { class: cls, cx: x(Date.parse(check.at)), cy: 11, r: 4, "data-status": check.status },
          svg("title", {}, `${time(check.at, true)}  ${check.status || "reset"}` +
            (check.lifetime != null ? `  lifetime ${check.lifetime}s` : "") + (check.etag ? `  ETag ${check.etag}` : "") +
            (check.fault ? `  fault ${check.fault}` : ""))));
      }
      container.append(label, strip);
    }
    if (ordered.length > shown.length) {
      container.append(el("p", { class: "empty", text: `… and ${ordered.length - shown.length} more device classes (the check log lists them all)` }));
    }
    const axis = svg("svg", { class: "axis", viewBox: "0 0 1000 18", preserveAspectRatio: "none", "aria-hidden": "true" });
    for (let i = 0; i <= 4; i += 1) {
      const t = start + (span * i) / 4;
      axis.append(svg("text", { x: i === 4 ? 930 : 8 + i * 246, y: 13 }, time(new Date(t).toISOString(), span > 86400000)));
    }
    container.append(el("div", { class: "lane-label", "aria-hidden": "true" }, el("small", { text: "server time (UTC)" })), axis);
  }

  function renderCheckLog() {
    const body = $("#checks-table tbody");
    const total = state.checks.length;
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    state.checksPage = Math.min(state.checksPage, pages - 1);
    const from = total - state.checksPage * PAGE_SIZE;
    const rows = [];
    for (let i = from - 1; i >= Math.max(0, from - PAGE_SIZE); i -= 1) {
      const check = state.checks[i];
      const cls = statusClass(check.status);
      rows.push(el("tr", {},
        el("td", { class: "mono", text: time(check.at, true) }),
        el("td", { text: deviceClass(check.device) }),
        el("td", { class: "status-" + cls, text: check.status || "reset" }),
        el("td", { text: check.lifetime != null ? check.lifetime + " s" : "–" }),
        el("td", { class: "mono", text: check.etag || "–" }),
        el("td", { text: check.fault || "" })));
    }
    body.replaceChildren(...rows);
    $("#checks-page").textContent = total ? `page ${state.checksPage + 1} of ${pages}` : "no checks";
    $("#checks-newer").disabled = state.checksPage === 0;
    $("#checks-older").disabled = state.checksPage >= pages - 1;
  }

  function ruleTarget(rule) {
    if (rule.type === "sdk_switch") {
      const sdks = rule.sdks ? rule.sdks.map((s) => s.name + (s.below ? " below " + s.below : "")).join(", ") : "every SDK";
      return `${sdks}; modules ${(rule.modules || []).join(", ")}`;
    }
    return rule.below ? "below " + rule.below : "";
  }

  function ruleWhen(rule) {
    if (rule.type === "maintenance") return `${time(rule.starts_at, true)} → ${time(rule.ends_at, true)}`;
    if (rule.type === "sdk_switch") return "until " + time(rule.ends_at, true);
    if (rule.becomes_required_on) return "required from " + time(rule.becomes_required_on, true);
    return "";
  }

  function renderRules() {
    const rows = state.rules.map((rule) => el("tr", { "data-rule": rule.id },
      el("td", { class: "mono", text: rule.id }),
      el("td", { text: rule.type.replace(/_/g, " ") }),
      el("td", { text: rule.platforms ? rule.platforms.join(", ") : "all" }),
      el("td", { text: ruleTarget(rule) }),
      el("td", { text: ruleWhen(rule) }),
      el("td", { text: rule.message || "" }),
      el("td", {},
        el("button", { type: "button", class: "small", "aria-label": `Edit rule ${rule.id}`, onclick: () => editRule(rule) }, "Edit"), " ",
        el("button", { type: "button", class: "small danger", "aria-label": `Delete rule ${rule.id}`, onclick: () => deleteRule(rule) }, "Delete"))));
    $("#rules-table tbody").replaceChildren(...rows);
    $("#rules-empty").hidden = state.rules.length > 0;
    $("#rules-table").hidden = state.rules.length === 0;
  }

  function renderChanges() {
    const items = state.changes.slice(-MAX_FEED).reverse().map((change) => el("li", { "data-change": change.id },
      el("span", { class: "when", text: time(change.at, true) }), " ",
      el("strong", { text: `#${change.id}` }), " ", change.action || change.kind || "",
      change.blocking ? el("span", { class: "blocking", text: " blocking" }) : null));
    $("#changes").replaceChildren(...items);
    $("#changes-count").textContent = state.changes.length ? `(${state.changes.length})` : "";
    $("#changes-empty").hidden = state.changes.length > 0;
  }

  function renderPushes() {
    const pushes = [...state.pushes.values()].sort((a, b) => a.id - b.id).slice(-MAX_FEED).reverse();
    const items = pushes.map((push) => {
      const total = Object.values(push.tokens || {}).reduce((a, b) => a + b, 0);
      const first = state.pushResults.get(push.id) || [];
      const results = first.map((r) => el("li", { class: "result-" + r.result },
        el("span", { class: "mono", text: r.token }), ` (${r.platform}): ${r.result.replace(/_/g, " ")}`, r.reason ? ` – ${r.reason}` : ""));
      if (total > first.length && first.length) results.push(el("li", { text: `… ${total - first.length} more tokens` }));
      const summary = `${push.delivered} delivered, ${push.failed} failed, ${push.pending} pending` + (push.no_gateway ? `, ${push.no_gateway} without gateway` : "");
      return el("li", { "data-push": push.id },
        el("span", { class: "when", text: time(push.sent_at, true) }), " ",
        el("strong", { text: `push ${push.id}` }), ` for change${push.changes.length === 1 ? "" : "s"} ${push.changes.map((c) => "#" + c).join(", ")}: `,
        total ? summary : "no tokens registered",
        results.length ? el("ul", { class: "results" }, ...results) : null);
    });
    $("#pushes").replaceChildren(...items);
    $("#pushes-count").textContent = state.pushes.size ? `(${state.pushes.size})` : "";
    $("#pushes-empty").hidden = state.pushes.size > 0;
  }

  // The first results of a push, a page of RESULTS_SHOWN from its results_url (a push lists only
  // its counts: a fan-out to 100,000 tokens is not sent whole on every event). One fetch per
  // push at a time; an event that arrives meanwhile asks for one more.
  const resultFetches = new Map();   // id -> "running" | "again"
  async function loadResults(push) {
    if (!push.results_url) return;
    if (resultFetches.has(push.id)) { resultFetches.set(push.id, "again"); return; }
    resultFetches.set(push.id, "running");
    const project = state.project;
    try {
      for (;;) {
        const page = await api("GET", `${push.results_url}?limit=${RESULTS_SHOWN}`);
        if (project !== state.project) return;
        state.pushResults.set(push.id, page.results);
        invalidate("pushes");
        if (resultFetches.get(push.id) !== "again") break;
        resultFetches.set(push.id, "running");
      }
    } catch (_) {
      // The next push event tries again.
    } finally {
      resultFetches.delete(push.id);
    }
  }

  function renderFaults() {
    const items = state.faults.map((f, i) => el("li", {}, `${i + 1}. ${f.kind}` + (f.status ? ` ${f.status}` : "") +
      (f.retry_after != null ? ` Retry-After ${f.retry_after}` : "") + (f.seconds != null ? ` ${f.seconds} s` : "") +
      (f.count != null ? ` × ${f.count} left` : "")));
    $("#faults").replaceChildren(...items);
    $("#faults-empty").hidden = state.faults.length > 0;
  }

  function renderTokens() {
    const rows = state.tokens.slice(0, 500).map((t) => el("tr", {},
      el("td", { class: "mono", text: t.token }), el("td", { text: t.platform }), el("td", { text: t.registered_at ? time(t.registered_at, true) : "seeded" })));
    if (state.tokens.length > 500) rows.push(el("tr", {}, el("td", { colspan: 3, text: `… and ${state.tokens.length - 500} more` })));
    $("#tokens-table tbody").replaceChildren(...rows);
    $("#tokens-count").textContent = state.tokens.length ? `(${state.tokens.length})` : "";
    $("#tokens-empty").hidden = state.tokens.length > 0;
    $("#tokens-table").hidden = state.tokens.length === 0;
  }

  function renderIngest() {
    const entries = Object.entries(state.ingest).sort();
    $("#ingest").replaceChildren(...entries.flatMap(([module, count]) => [el("dt", { text: module }), el("dd", { "data-module": module, text: count })]));
    $("#ingest-empty").hidden = entries.length > 0;
  }

  // MARK: Loading

  async function loadProject() {
    const project = state.project;
    const [rules, changes, pushes, faults, tokens, ingest, journal] = await Promise.all([
      api("GET", projectPath("/rules")), api("GET", projectPath("/changes")), api("GET", projectPath("/pushes")),
      api("GET", projectPath("/faults")), api("GET", projectPath("/push-tokens")), api("GET", projectPath("/ingest")),
      api("GET", `/admin/requests?project=${encodeURIComponent(project)}&limit=${MAX_CHECKS}`),
    ]);
    if (project !== state.project) return;
    state.rules = rules.rules;
    state.changes = changes.changes;
    state.pushes = new Map(pushes.pushes.map((p) => [p.id, p]));
    state.pushResults = new Map();
    for (const push of pushes.pushes.slice(-RESULTS_LOADED)) loadResults(push);
    state.faults = faults.faults;
    state.tokens = tokens.push_tokens;
    state.ingest = ingest.ingest;
    state.checks = journal.requests.slice().reverse();
    invalidate("checks", "rules", "changes", "pushes", "faults", "tokens", "ingest");
  }

  async function reloadRules() {
    const rules = await api("GET", projectPath("/rules"));
    state.rules = rules.rules;
    invalidate("rules");
  }

  async function reloadTokens() {
    const tokens = await api("GET", projectPath("/push-tokens"));
    state.tokens = tokens.push_tokens;
    invalidate("tokens");
  }

  async function loadProjects() {
    const [list, clock] = await Promise.all([api("GET", "/admin/projects"), api("GET", "/admin/clock")]);
    state.projects = list.projects.map((p) => p.key);
    state.clock = clock;
    const wanted = new URLSearchParams(location.search).get("project");
    if (!state.project || !state.projects.includes(state.project)) {
      state.project = state.projects.includes(wanted) ? wanted : (state.projects.includes("demo") ? "demo" : state.projects[0] || null);
    }
    const select = $("#project");
    select.replaceChildren(...state.projects.map((key) => el("option", { value: key, selected: key === state.project }, key)));
    invalidate("clock");
  }

  // MARK: Live events

  function setLive(on, text) {
    const live = $("#live");
    live.className = "live " + (on ? "on" : "off");
    live.textContent = text;
  }

  function handleEvent(kind, data) {
    if (data.project && data.project !== state.project) return;
    switch (kind) {
      case "hello":
      case "clock":
        state.clock = { now: data.now, mode: data.mode };
        invalidate("clock");
        break;
      case "check":
        state.checks.push(data);
        if (state.checks.length > MAX_CHECKS * 1.2) state.checks.splice(0, state.checks.length - MAX_CHECKS);
        if (state.clock.mode === "system" || !state.clock.now || data.at > state.clock.now) { state.clock.now = data.at; invalidate("clock"); }
        if (data.fault) api("GET", projectPath("/faults")).then((f) => { state.faults = f.faults; invalidate("faults"); }).catch(() => {});
        invalidate("checks");
        break;
      case "rule":
        reloadRules().catch(() => {});
        break;
      case "change":
        if (!state.changes.some((c) => c.id === data.change.id)) state.changes.push(data.change);
        invalidate("changes");
        break;
      case "push":
        state.pushes.set(data.push.id, data.push);
        loadResults(data.push);
        announce(`push ${data.push.id}: ${data.push.delivered} delivered, ${data.push.failed} failed`);
        invalidate("pushes");
        break;
      case "token":
        reloadTokens().catch(() => {});
        break;
      case "ingest":
        state.ingest[data.module] = data.total;
        invalidate("ingest");
        break;
      case "fault":
        state.faults = data.faults;
        invalidate("faults");
        break;
      case "project":
        loadProjects().catch(() => {});
        break;
      case "reset":
        loadProjects().then(loadProject).catch(() => {});
        break;
    }
  }

  /** Parses one `text/event-stream` block (RFC-less but WHATWG-specified fields). */
  function handleBlock(block) {
    let kind = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") kind = value;
      else if (field === "data") data.push(value);
    }
    if (!data.length) return;
    try { handleEvent(kind, JSON.parse(data.join("\n"))); } catch (error) { console.warn("bad event", kind, error); }
  }

  async function follow(generation) {
    const controller = new AbortController();
    state.stream = { controller, generation };
    const url = `/admin/events?project=${encodeURIComponent(state.project)}`;
    const response = await fetch(url, { headers: authHeaders({ Accept: "text/event-stream" }), cache: "no-store", signal: controller.signal });
    if (response.status === 401) { askForToken(); throw new ApiError(401, null); }
    if (!response.ok || !response.body) throw new ApiError(response.status, null);
    setLive(true, "live");
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        handleBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  let generation = 0;
  /** Loads everything, then follows the stream; reconnects (and reloads) when it drops. */
  async function start() {
    generation += 1;
    const mine = generation;
    if (state.stream) state.stream.controller.abort();
    try {
      await loadProjects();
      if (!state.project) { setLive(false, "no project"); return; }
      // Subscribe first, then load: nothing that happens in between is missed.
      const following = follow(mine);
      await loadProject();
      await following;
      if (mine === generation) setLive(false, "stream ended; reconnecting…");
    } catch (error) {
      if (mine !== generation || error.name === "AbortError") return;
      setLive(false, error.status === 401 ? "needs the admin token" : "disconnected; retrying…");
      if (error.status === 401) return;
    }
    if (mine === generation) setTimeout(() => { if (mine === generation) start(); }, 2000);
  }

  // MARK: Rule form

  const FIELD_TYPES = {
    platforms: ["required_update", "optional_update", "recommended_update", "maintenance"],
    below: ["required_update", "optional_update", "recommended_update"],
    store_url: ["required_update", "optional_update", "recommended_update"],
    becomes_required_on: ["recommended_update"],
    starts_at: ["maintenance"],
    ends_at: ["maintenance", "sdk_switch"],
    modules: ["sdk_switch"],
    sdks: ["sdk_switch"],
    message: ["required_update", "optional_update", "recommended_update", "maintenance"],
  };
  const form = $("#rule-form");

  function fieldContainer(name) {
    const input = form.elements[name];
    if (name === "platforms") return $(".platforms", form);
    return input && input.closest("label");
  }

  function showFieldsForType() {
    const type = form.elements.type.value;
    for (const [name, types] of Object.entries(FIELD_TYPES)) {
      const container = fieldContainer(name);
      if (container) container.hidden = !types.includes(type);
    }
  }
  form.elements.type.addEventListener("change", showFieldsForType);

  function ruleBody() {
    const type = form.elements.type.value;
    const body = { type };
    const wants = (name) => FIELD_TYPES[name].includes(type);
    const text = (name) => form.elements[name].value.trim();
    if (wants("platforms")) {
      const platforms = [...form.querySelectorAll("input[name=platforms]:checked")].map((box) => box.value);
      if (platforms.length) body.platforms = platforms;
    }
    for (const name of ["below", "store_url", "becomes_required_on", "starts_at", "ends_at", "message"]) {
      if (wants(name) && text(name)) body[name] = text(name);
    }
    if (wants("modules") && text("modules")) body.modules = text("modules").split(/[\s,]+/).filter(Boolean);
    if (wants("sdks") && text("sdks")) {
      body.sdks = text("sdks").split(",").map((part) => part.trim()).filter(Boolean).map((part) => {
        const [name, below] = part.split(/\s+/);
        return below ? { name, below } : { name };
      });
    }
    return body;
  }

  function clearProblem(target) {
    const box = $(target);
    box.hidden = true;
    box.replaceChildren();
    const owner = box.closest("form");
    for (const input of owner.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
    for (const note of owner.querySelectorAll(".field-error")) note.remove();
  }

  /** A problem+json answer, inline: its title and detail, and each error at its field. */
  function showProblem(target, error) {
    const box = $(target);
    const problem = error.problem || {};
    const owner = box.closest("form");
    const list = el("ul");
    for (const item of problem.errors || []) {
      const where = item.pointer || item.parameter || "";
      list.append(el("li", {}, where ? el("code", { text: where }) : null, where ? " " : "", item.message));
      const field = where && owner.querySelector(`[data-pointer="${CSS.escape(where.replace(/\/\d+.*$/, ""))}"]`);
      if (field) {
        const input = field.matches("input, select") ? field : field.querySelector("input");
        if (input) input.setAttribute("aria-invalid", "true");
        field.append(el("span", { class: "field-error", text: item.message }));
      }
    }
    box.replaceChildren(el("strong", { text: `${error.status} ${problem.title || "Error"}` }),
      el("span", { class: "detail", text: problem.detail || error.message }),
      list.children.length ? list : null);
    box.hidden = false;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearProblem("#rule-problem");
    const body = ruleBody();
    try {
      const rule = state.editing
        ? await api("PUT", projectPath(`/rules/${encodeURIComponent(state.editing)}`), body)
        : await api("POST", projectPath("/rules"), body);
      announce(`${state.editing ? "Replaced" : "Created"} rule ${rule.id}`);
      resetRuleForm();
      await reloadRules();
    } catch (error) {
      if (error.status !== 401) showProblem("#rule-problem", error);
    }
  });

  function resetRuleForm() {
    state.editing = null;
    form.reset();
    $("#rule-form-title").textContent = "New rule";
    $("#rule-submit").textContent = "Create rule";
    $("#rule-cancel").hidden = true;
    showFieldsForType();
  }
  $("#rule-cancel").addEventListener("click", () => { clearProblem("#rule-problem"); resetRuleForm(); });

  function editRule(rule) {
    resetRuleForm();
    state.editing = rule.id;
    form.elements.type.value = rule.type;
    for (const box of form.querySelectorAll("input[name=platforms]")) box.checked = (rule.platforms || []).includes(box.value);
    for (const name of ["below", "store_url", "becomes_required_on", "starts_at", "ends_at", "message"]) {
      form.elements[name].value = rule[name] || "";
    }
    form.elements.modules.value = (rule.modules || []).join(", ");
    form.elements.sdks.value = (rule.sdks || []).map((s) => s.name + (s.below ? " " + s.below : "")).join(", ");
    $("#rule-form-title").textContent = `Edit rule ${rule.id}`;
    $("#rule-submit").textContent = "Replace rule";
    $("#rule-cancel").hidden = false;
    showFieldsForType();
    form.elements.type.focus();
  }

  async function deleteRule(rule) {
    if (!confirm(`Delete rule ${rule.id} (${rule.type.replace(/_/g, " ")})?`)) return;
    try {
      await api("DELETE", projectPath(`/rules/${encodeURIComponent(rule.id)}`));
      announce(`Deleted rule ${rule.id}`);
      await reloadRules();
    } catch (error) {
      if (error.status !== 401) showProblem("#rule-problem", error);
    }
  }

  $("#lift-all").addEventListener("click", async () => {
    try {
      const result = await api("POST", projectPath("/lift-all"));
      $("#lift-result").textContent = result.lifted.length ? `Lifted ${result.lifted.map((r) => r.id).join(", ")} (change #${result.change.id})` : "Nothing was blocking.";
      await reloadRules();
    } catch (error) {
      $("#lift-result").textContent = error.message;
    }
  });

  // MARK: Recording

  /** Shows whether a recording runs; a stopped one offers its scenario as a download. */
  function showRecording(recording) {
    const button = $("#record");
    button.setAttribute("aria-pressed", String(recording.recording));
    button.textContent = recording.recording ? "Stop recording" : "Record session";
    $("#record-result").textContent = recording.recording
      ? `Recording ${recording.project}: ${recording.steps} steps, ${recording.devices} devices`
      : "";
    const link = $("#record-download");
    if (!recording.recording && recording.scenario) {
      link.href = URL.createObjectURL(new Blob([recording.scenario], { type: "text/yaml" }));
      link.hidden = false;
      $("#record-scenario").textContent = recording.scenario;
      $("#record-details").hidden = false;
    }
  }

  $("#record").addEventListener("click", async () => {
    try {
      const running = $("#record").getAttribute("aria-pressed") === "true";
      showRecording(running ? await api("DELETE", "/admin/recording") : await api("POST", "/admin/recording", { project: state.project }));
    } catch (error) {
      $("#record-result").textContent = error.message;
    }
  });

  api("GET", "/admin/recording").then(showRecording, () => {});

  // MARK: Faults

  const faultForm = $("#fault-form");
  const FAULT_FIELDS = { status: ["status"], delay: ["seconds"], reset: [], malformed: [], wrong_types: [] };
  function showFaultFields() {
    const kind = faultForm.elements.kind.value;
    for (const name of ["status", "retry_after", "seconds"]) {
      const wanted = name === "retry_after" ? kind === "status" : FAULT_FIELDS[kind].includes(name);
      faultForm.elements[name].closest("label").hidden = !wanted;
    }
  }
  faultForm.elements.kind.addEventListener("change", showFaultFields);
  faultForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearProblem("#fault-problem");
    const kind = faultForm.elements.kind.value;
    const body = { kind };
    const number = (name) => faultForm.elements[name].value.trim();
    if (kind === "status" && number("status")) body.status = Number(number("status"));
    if (kind === "status" && number("retry_after")) body.retry_after = Number(number("retry_after"));
    if (kind === "delay" && number("seconds")) body.seconds = Number(number("seconds"));
    if (number("count")) body.count = Number(number("count"));
    try {
      const result = await api("POST", projectPath("/faults"), body);
      state.faults = result.faults;
      invalidate("faults");
      announce(`Armed a ${kind} fault`);
    } catch (error) {
      if (error.status !== 401) showProblem("#fault-problem", error);
    }
  });
  $("#faults-clear").addEventListener("click", async () => {
    clearProblem("#fault-problem");
    try {
      await api("DELETE", projectPath("/faults"));
      state.faults = [];
      invalidate("faults");
      announce("Cleared the faults");
    } catch (error) {
      if (error.status !== 401) showProblem("#fault-problem", error);
    }
  });

  // MARK: Clock

  async function moveClock(body) {
    $("#clock-error").textContent = "";
    try {
      state.clock = await api("POST", "/admin/clock", body);
      invalidate("clock");
    } catch (error) {
      $("#clock-error").textContent = error.message;
    }
  }
  $("#clock-advance").addEventListener("submit", (event) => {
    event.preventDefault();
    moveClock({ advance_seconds: Number($("#advance-seconds").value || 0) });
  });
  for (const button of document.querySelectorAll("[data-advance]")) {
    button.addEventListener("click", () => moveClock({ advance_seconds: Number(button.dataset.advance) }));
  }
  $("#clock-set").addEventListener("submit", (event) => {
    event.preventDefault();
    moveClock({ set: $("#clock-set-time").value.trim() });
  });

  // MARK: Project and paging

  $("#project").addEventListener("change", (event) => {
    state.project = event.target.value;
    state.checksPage = 0;
    const url = new URL(location.href);
    url.searchParams.set("project", state.project);
    history.replaceState(null, "", url);
    start();
  });
  $("#checks-newer").addEventListener("click", () => { state.checksPage = Math.max(0, state.checksPage - 1); renderCheckLog(); });
  $("#checks-older").addEventListener("click", () => { state.checksPage += 1; renderCheckLog(); });

  showFieldsForType();
  showFaultFields();
  start();
})();
