// The operations board (courier 4.4, ARCHITECTURE "Boards"): rows and open alerts from the REST
// API, kept current by the live WebSocket. Plain browser JavaScript, no build step, no network
// resource beyond this service. Every text from the API goes into the page as text, never HTML.
"use strict";

(() => {
  /** The API base: this page lives at <base>/business/courier/board. */
  const API = location.pathname.replace(/\/business\/courier\/board\/?$/, "");
  const KEY_STORAGE = "courier-board-key";
  /** The list endpoints' largest page. */
  const ROWS_MAX = 500;
  const ALERTS_MAX = 500;
  /** Reconnect after a dropped socket: 1 s, doubling to at most 30 s. */
  const RETRY_MS_MIN = 1_000;
  const RETRY_MS_MAX = 30_000;
  /** Close codes of the live board (routes/courier/board.ts). */
  const CLOSE_UNAUTHENTICATED = 4401;
  const CLOSE_REFUSED = 4403;

  /** Health values (courier 3.2), most urgent first: the board's sort and count order. */
  const HEALTHS = [
    "exception",
    "late",
    "waiting_courier",
    "at_risk",
    "waiting_customs",
    "waiting_customer",
    "on_schedule",
    "delivered",
    "closed",
  ];

  const $ = (id) => document.getElementById(id);
  const el = {
    connection: $("connection"),
    signOut: $("sign-out"),
    signIn: $("sign-in"),
    key: $("key"),
    signInError: $("sign-in-error"),
    board: $("board"),
    notice: $("notice"),
    counts: $("counts"),
    health: $("filter-health"),
    owner: $("filter-owner"),
    groupBy: $("group-by"),
    overdue: $("filter-overdue"),
    includeClosed: $("include-closed"),
    shown: $("shown"),
    table: $("rows"),
    empty: $("empty"),
    alerts: $("alerts"),
    alertCount: $("alert-count"),
    noAlerts: $("no-alerts"),
  };

  const state = {
    key: null,
    /** waybill -> board row */
    rows: new Map(),
    /** waybill -> last version seen on the socket (older messages are ignored) */
    versions: new Map(),
    /** alert id -> alert, open or acknowledged */
    alerts: new Map(),
    socket: null,
    retryMs: RETRY_MS_MIN,
    retryTimer: null,
    /** Messages that arrive while the lists load; applied on top of them. */
    queued: null,
    renderPending: false,
  };

  // ---- text helpers ----

  const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

  function human(value) {
    if (value === null || value === undefined || value === "") return "—";
    const text = String(value).replaceAll("_", " ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function when(iso) {
    return iso ? dateTime.format(new Date(iso)) : "—";
  }

  /** Builds an element with attributes and children (strings become text nodes). */
  function h(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // ---- API ----

  class ApiFailure extends Error {
    constructor(status, body) {
      super(body?.message ?? `request failed: HTTP ${status}`);
      this.status = status;
      this.code = body?.code ?? null;
    }
  }

  async function api(method, path, body) {
    const headers = { "X-Business-API-Key": state.key, Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(API + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
    const answer = await response.json().catch(() => null);
    if (!response.ok || !answer?.success) throw new ApiFailure(response.status, answer);
    return answer;
  }

  function refused(e) {
    return e instanceof ApiFailure && (e.status === 401 || e.status === 403);
  }

  function notify(message) {
    el.notice.textContent = message;
    el.notice.hidden = !message;
  }

  // ---- loading and live updates ----

  async function loadAll() {
    state.queued = [];
    try {
      const closed = el.includeClosed.checked ? "&include_closed=1" : "";
      const [rows, open, acknowledged] = await Promise.all([
        api("GET", `/business/courier/operations?limit=${ROWS_MAX}${closed}`),
        api("GET", `/business/courier/alerts?status=open&limit=${ALERTS_MAX}`),
        api("GET", `/business/courier/alerts?status=acknowledged&limit=${ALERTS_MAX}`),
      ]);
      state.rows = new Map(rows.data.map((r) => [r.waybill, r]));
      state.alerts = new Map([...open.data, ...acknowledged.data].map((a) => [a.id, a]));
      const more = rows.data.length >= ROWS_MAX ? ` (the first ${ROWS_MAX})` : "";
      el.table.dataset.limited = more ? "true" : "false";
      const queued = state.queued;
      state.queued = null;
      for (const message of queued) apply(message);
      notify("");
      scheduleRender();
    } catch (e) {
      state.queued = null;
      if (refused(e)) return signOut(e.message);
      notify(`Could not load the board: ${e.message}`);
    }
  }

  function apply(message) {
    if (state.queued !== null) {
      state.queued.push(message);
      return;
    }
    if (message.type === "shipment") applyRow(message.row, message.version);
    else if (message.type === "alert") applyAlert(message.alert);
  }

  function applyRow(row, version) {
    const seen = state.versions.get(row.waybill);
    if (typeof version === "number") {
      if (seen !== undefined && version < seen) return;
      state.versions.set(row.waybill, version);
    }
    const previous = state.rows.get(row.waybill);
    // The live feed does not count alerts; the board counts them from its own alert list.
    const merged = { ...row, open_alerts: row.open_alerts ?? previous?.open_alerts ?? null };
    if (merged.closed && !el.includeClosed.checked) state.rows.delete(row.waybill);
    else state.rows.set(row.waybill, merged);
    scheduleRender();
  }

  function applyAlert(alert) {
    if (alert.status === "resolved") state.alerts.delete(alert.id);
    else state.alerts.set(alert.id, alert);
    scheduleRender();
  }

  function socketUrl() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}${API}/business/courier/operations/live`;
  }

  function connect() {
    clearTimeout(state.retryTimer);
    setConnection("connecting", "Connecting…");
    const socket = new WebSocket(socketUrl());
    state.socket = socket;
    // The key goes in the first message, not the URL, so it stays out of logs.
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ type: "auth", key: state.key }));
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "ready") {
        state.retryMs = RETRY_MS_MIN;
        setConnection("live", "Live");
        // Subscribed first, then loaded: no change falls between the list and the feed.
        loadAll();
      } else {
        apply(message);
      }
    });
    socket.addEventListener("close", (event) => {
      if (state.socket !== socket) return;
      state.socket = null;
      if (event.code === CLOSE_UNAUTHENTICATED || event.code === CLOSE_REFUSED) {
        return signOut(event.reason || "The key was refused");
      }
      const seconds = Math.round(state.retryMs / 1000);
      const why = event.reason ? `${event.reason}. ` : "";
      setConnection("offline", `${why}Reconnecting in ${seconds} s…`);
      state.retryTimer = setTimeout(connect, state.retryMs);
      state.retryMs = Math.min(state.retryMs * 2, RETRY_MS_MAX);
    });
  }

  function setConnection(kind, text) {
    el.connection.dataset.state = kind;
    el.connection.textContent = text;
  }

  // ---- rendering ----

  function scheduleRender() {
    if (state.renderPending) return;
    state.renderPending = true;
    requestAnimationFrame(() => {
      state.renderPending = false;
      render();
    });
  }

  function openAlertsOf(waybill) {
    let n = 0;
    for (const a of state.alerts.values()) if (a.waybill === waybill) n++;
    return n;
  }

  function visibleRows() {
    const health = el.health.value;
    const owner = el.owner.value;
    const overdueOnly = el.overdue.checked;
    return [...state.rows.values()].filter((r) =>
      (!health || r.health === health) &&
      (!owner || (r.next_owner ?? "none") === owner) &&
      (!overdueOnly || r.overdue)
    ).sort(byUrgency);
  }

  function byUrgency(a, b) {
    const rank = (r) => {
      const i = HEALTHS.indexOf(r.health);
      return i === -1 ? HEALTHS.length : i;
    };
    return rank(a) - rank(b) ||
      Number(b.overdue) - Number(a.overdue) ||
      String(a.next_due_at ?? "~").localeCompare(String(b.next_due_at ?? "~")) ||
      a.waybill.localeCompare(b.waybill);
  }

  function render() {
    renderCounts();
    renderRows();
    renderAlerts();
  }

  function renderCounts() {
    const counts = new Map(HEALTHS.map((health) => [health, 0]));
    for (const r of state.rows.values()) counts.set(r.health, (counts.get(r.health) ?? 0) + 1);
    const items = [...counts].filter(([health, n]) =>
      n > 0 || !["delivered", "closed"].includes(health)
    )
      .map(([health, n]) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: `count health-${health}`,
              "data-health-count": health,
              "aria-pressed": el.health.value === health ? "true" : "false",
              onclick: () => {
                el.health.value = el.health.value === health ? "" : health;
                scheduleRender();
              },
            },
            h("span", { class: "count-n" }, n),
            h("span", { class: "count-label" }, human(health)),
          ),
        )
      );
    el.counts.replaceChildren(...items);
  }

  function groupOf(row) {
    const by = el.groupBy.value;
    if (by === "health") return human(row.health);
    if (by === "next_owner") return row.next_owner ? human(row.next_owner) : "No next owner";
    return null;
  }

  function renderRows() {
    const rows = visibleRows();
    const groups = new Map();
    for (const row of rows) {
      const name = groupOf(row);
      if (!groups.has(name)) groups.set(name, []);
      groups.get(name).push(row);
    }
    const bodies = [...groups].map(([name, members]) => {
      const body = h("tbody", name === null ? {} : { "data-group": name });
      if (name !== null) {
        body.append(h(
          "tr",
          { class: "group" },
          h("th", { scope: "colgroup", colspan: 10 }, `${name} (${members.length})`),
        ));
      }
      body.append(...members.map(rowElement));
      return body;
    });
    if (bodies.length === 0) bodies.push(h("tbody"));
    el.table.querySelectorAll("tbody").forEach((b) => b.remove());
    el.table.append(...bodies);
    el.empty.hidden = rows.length > 0;
    const limited = el.table.dataset.limited === "true" ? ` (list capped at ${ROWS_MAX})` : "";
    el.shown.textContent = `Showing ${rows.length} of ${state.rows.size} shipments${limited}`;
  }

  function rowElement(r) {
    const refs = [r.client_order_reference, r.external_customer_code].filter(Boolean).join(" · ");
    const alerts = openAlertsOf(r.waybill);
    const scan = r.last_scan;
    return h(
      "tr",
      {
        "data-waybill": r.waybill,
        "data-health": r.health,
        "data-status": r.status,
        "data-owner": r.next_owner ?? "none",
        "data-overdue": r.overdue ? "true" : "false",
        class: r.overdue ? "overdue" : null,
      },
      h(
        "th",
        { scope: "row" },
        h("span", { class: "waybill" }, r.waybill),
        refs && h("small", {}, refs),
      ),
      h("td", { class: "status" }, human(r.status)),
      h(
        "td",
        {},
        h("span", { class: `badge health-${r.health}` }, human(r.health)),
        r.health_reason && h("small", {}, r.health_reason),
      ),
      h(
        "td",
        {},
        r.custody.holder ?? "—",
        r.custody.facility_id && h("small", {}, r.custody.facility_id),
      ),
      h(
        "td",
        {},
        scan ? human(scan.event) : "—",
        scan &&
          h("small", {}, [when(scan.at), scan.facility_id, scan.note].filter(Boolean).join(" · ")),
      ),
      h(
        "td",
        {},
        human(r.next_milestone),
        r.next_owner && h("small", {}, `Owner: ${human(r.next_owner)}`),
      ),
      h(
        "td",
        {},
        when(r.next_due_at),
        r.overdue && h("span", { class: "badge overdue-tag" }, "Overdue"),
      ),
      h(
        "td",
        { class: "num" },
        r.pieces.count,
        r.pieces.places > 1 && h("small", { class: "warn" }, `in ${r.pieces.places} places`),
      ),
      h("td", { class: alerts > 0 ? "num has-alerts" : "num" }, alerts),
      h("td", { class: "num" }, `${r.age_days} d`),
    );
  }

  function renderAlerts() {
    const alerts = [...state.alerts.values()].sort((a, b) =>
      Number(a.status !== "open") - Number(b.status !== "open") ||
      String(b.raised_at).localeCompare(String(a.raised_at))
    );
    el.alertCount.textContent = String(alerts.length);
    el.noAlerts.hidden = alerts.length > 0;
    el.alerts.replaceChildren(...alerts.map(alertElement));
  }

  function alertElement(a) {
    const subject = a.waybill ?? (a.subject ? `${a.subject.type} ${a.subject.id}` : "");
    const title = `${human(a.kind)}${subject ? ` on ${subject}` : ""}`;
    return h(
      "li",
      { class: "alert", "data-alert-id": a.id, "data-status": a.status, "data-waybill": a.waybill },
      h(
        "div",
        { class: "alert-head" },
        h("div", {}, h("strong", {}, human(a.kind)), subject && h("small", {}, subject)),
        h("span", { class: `badge alert-${a.status}` }, human(a.status)),
      ),
      a.message && h("p", {}, a.message),
      h(
        "p",
        { class: "meta" },
        `Owner: ${human(a.owner)} · Assigned to: ${a.assigned_to ?? "nobody"} · Raised ${
          when(a.raised_at)
        }`,
      ),
      h(
        "div",
        { class: "actions" },
        h("button", {
          type: "button",
          "data-action": "assign",
          "aria-label": `Assign alert ${title}`,
          onclick: () => assign(a),
        }, "Assign…"),
        h("button", {
          type: "button",
          "data-action": "acknowledge",
          "aria-label": `Acknowledge alert ${title}`,
          disabled: a.status !== "open",
          onclick: () => act(a, "acknowledge", {}),
        }, "Acknowledge"),
        h("button", {
          type: "button",
          "data-action": "resolve",
          "aria-label": `Resolve alert ${title}`,
          onclick: () => resolve(a),
        }, "Resolve…"),
      ),
    );
  }

  // ---- alert actions ----

  async function act(alert, action, body) {
    try {
      const answer = await api(
        "POST",
        `/business/courier/alerts/${encodeURIComponent(alert.id)}/${action}`,
        body,
      );
      applyAlert(answer.data);
      notify("");
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 401) return signOut(e.message);
      notify(`Could not ${action} the alert: ${e.message}`);
    }
  }

  function assign(alert) {
    const to = prompt(`Assign "${human(alert.kind)}" to whom?`, alert.assigned_to ?? "");
    if (to === null || to.trim() === "") return;
    return act(alert, "assign", { to: to.trim() });
  }

  function resolve(alert) {
    const resolution = prompt("Resolution: what was done?");
    if (resolution === null) return;
    const evidence = prompt("Evidence: where can it be checked (reference, note, document)?");
    if (evidence === null) return;
    if (resolution.trim() === "" || evidence.trim() === "") {
      notify("Resolving an alert needs both a resolution and evidence");
      return;
    }
    return act(alert, "resolve", { resolution: resolution.trim(), evidence: evidence.trim() });
  }

  // ---- signing in and out ----

  function start(key) {
    state.key = key;
    sessionStorage.setItem(KEY_STORAGE, key);
    el.signIn.hidden = true;
    el.signInError.textContent = "";
    el.board.hidden = false;
    el.signOut.hidden = false;
    connect();
  }

  function signOut(message = "") {
    sessionStorage.removeItem(KEY_STORAGE);
    clearTimeout(state.retryTimer);
    const socket = state.socket;
    state.socket = null;
    socket?.close(1000, "signed out");
    state.key = null;
    state.rows = new Map();
    state.alerts = new Map();
    state.versions = new Map();
    el.board.hidden = true;
    el.signOut.hidden = true;
    el.signIn.hidden = false;
    el.signInError.textContent = message;
    setConnection("offline", "Not connected");
    el.key.value = "";
    el.key.focus();
  }

  function keyFromFragment() {
    const params = new URLSearchParams(location.hash.slice(1));
    const key = params.get("key");
    if (key) {
      // Out of the address bar and history once read.
      history.replaceState(null, "", location.pathname + location.search);
    }
    return key;
  }

  function init() {
    for (const health of HEALTHS) el.health.append(h("option", { value: health }, human(health)));
    for (const control of [el.health, el.owner, el.groupBy, el.overdue]) {
      control.addEventListener("change", scheduleRender);
    }
    el.includeClosed.addEventListener("change", () => {
      if (state.key) loadAll();
    });
    el.signIn.addEventListener("submit", (event) => {
      event.preventDefault();
      const key = el.key.value.trim();
      if (key) start(key);
    });
    el.signOut.addEventListener("click", () => signOut());
    const key = keyFromFragment() ?? sessionStorage.getItem(KEY_STORAGE);
    if (key) start(key);
    else signOut();
  }

  init();
})();
