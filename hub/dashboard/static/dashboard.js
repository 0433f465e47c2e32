/* Camel Pyramid dashboard: plain JavaScript, no build step, nothing fetched from the internet
 * (the table's Wi-Fi may have none).
 *
 * Data flow: the server sends a snapshot first (view + the game's public event log), then every
 * event with its `seq` as the SSE id, then a fresh `state` (the engine's public view) once the
 * events of an action have gone out. The page keeps the log, drops any event whose seq it already
 * has (a reconnect may replay a few), and redraws. Everything the log can tell (dice log, tallies,
 * money over time) is derived from it here; everything only the engine knows (the track, holdings,
 * legal actions) comes from `state`; odds and advice are fetched separately because they cost more
 * than a move and must never delay one.
 */
"use strict";

(function () {
  const COLOURS = ["blue", "green", "orange", "yellow", "white"];
  const body = document.body;
  const $ = (id) => document.getElementById(id);
  const ROOT = body.dataset.root || "/";   // where the dashboard is mounted, ending in "/"

  const S = {
    gameId: body.dataset.game || null,      // an archived game when set (read only)
    token: body.dataset.token || null,      // a player's own link
    mode: body.dataset.mode,                // "table" | "player" | "archive"
    pin: localStorage.getItem("pyramid.pin") || "",
    liveGameId: null,
    seq: 0,                                 // last event applied
    viewSeq: -1,                            // seq the view was taken at
    log: [],
    seen: new Set(),
    view: null,
    legal: [],
    pending: [],
    status: null,
    auth: { role: "guest", player: null },
    odds: null,
    advice: null,
    oddsSeq: -1,
    source: null,
    deskSide: "oasis",
    chosenPile: null,
    setupReading: null,                     // the camera's setup reading, for the new-game dialog
    stats: { events: 0, duplicates: 0, snapshots: 0 },
  };
  // For tests and the benchmark: read-only handles and, when `timing` is set, the wall-clock
  // time (ms) each seq was drawn at. Never needed by the page itself.
  window.pyramid = { S, timing: null, reconnect: () => connect(), close: () => S.source && S.source.close() };
  const drawn = (kind, seq) => {
    const t = window.pyramid.timing;
    if (t && t.length < 100000) t.push([kind, seq, performance.timeOrigin + performance.now()]);
  };

  // ---------------------------------------------------------------- helpers
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  const svgNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(svgNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  const camel = (colour, extra) =>
    el("span", { class: `camel c-${colour} ${extra || ""}`, title: colour, "aria-label": colour });
  const chip = (colour, text) => el("span", { class: `chip c-${colour}`, title: colour }, text);
  const pct = (x) => `${Math.round((x || 0) * 100)}%`;

  /* The other games draw their own card (static/horserace.js, static/marcopolo2.js, loaded
   * first); Camel Up's cards step aside (body[data-kind]). They get the page's helpers as `ui`. */
  const GAMES = window.pyramidGames || {};
  const KIND_NAMES = { camelup2: "Camel Up 2nd ed.", horserace: "horse race", marcopolo2: "Marco Polo II" };
  const gameMod = (v) => (v && v.game && v.game !== "camelup" ? GAMES[v.game] || null : null);

  function showMessage(text, kind) {
    // an open dialog sits above the page: say it there, where the eyes are
    const box = document.querySelector("dialog[open] .dialog-message") || $("message");
    if (!box.hidden && box.textContent === text) return;  // the same news, from the stream
    box.textContent = text;
    box.classList.remove("error", "info");
    box.classList.add(kind || "error");
    box.hidden = false;
    clearTimeout(showMessage.timer);
    showMessage.timer = setTimeout(() => (box.hidden = true), kind === "info" ? 4000 : 9000);
  }

  function authHeaders() {
    const h = { "Content-Type": "application/json" };
    if (S.pin) h["X-Pyramid-Pin"] = S.pin;
    if (S.token) h["X-Pyramid-Token"] = S.token;
    return h;
  }

  async function getJSON(path) {
    const r = await fetch(path, { headers: authHeaders(), cache: "no-store" });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.message || `${r.status} ${r.statusText}`);
    return data;
  }

  /** POST a command; a refusal is shown as the hub's own sentence and changes nothing here. */
  async function post(path, payload) {
    let r, data;
    try {
      r = await fetch(path, { method: "POST", headers: authHeaders(), body: JSON.stringify(payload || {}) });
      data = await r.json().catch(() => ({}));
    } catch (e) {
      showMessage("The hub cannot be reached. Check the table's Wi-Fi.");
      return null;
    }
    if (!r.ok || data.ok === false) {
      if (r.status === 401 || r.status === 403) {
        if (data.error === "wrong_pin" && S.pin) { S.pin = ""; localStorage.removeItem("pyramid.pin"); renderPinButton(); }
      }
      showMessage(data.message || `The hub refused (${r.status}).`);
      return null;
    }
    $("message").hidden = true;
    document.querySelectorAll(".dialog-message").forEach((n) => (n.hidden = true));
    if (data.state) applyState(data.state);
    return data;
  }

  // ---------------------------------------------------------------- live stream
  function streamUrl() {
    const q = new URLSearchParams();
    if (S.token) q.set("token", S.token);
    if (S.seq) q.set("last", String(S.seq));   // a fresh EventSource cannot set Last-Event-ID
    return `${ROOT}api/stream?${q}`;
  }

  function connect() {
    if (S.mode === "archive") return;
    if (S.source) S.source.close();
    const src = new EventSource(streamUrl());
    S.source = src;
    src.addEventListener("open", () => setConn("live"));
    src.addEventListener("error", () => setConn(src.readyState === EventSource.CLOSED ? "offline" : "reconnecting"));
    src.addEventListener("snapshot", (m) => applySnapshot(JSON.parse(m.data)));
    src.addEventListener("game", (m) => { drawn("recv", +m.lastEventId); applyEvent(JSON.parse(m.data)); });
    src.addEventListener("state", (m) => applyState(JSON.parse(m.data)));
    src.addEventListener("odds", (m) => applyOdds(JSON.parse(m.data)));
    src.addEventListener("reset", () => { S.source.close(); resetTo(null); connect(); });
  }

  function setConn(state) {
    body.dataset.conn = state;
    $("conn").className = `conn ${state}`;
    $("conn").title = state;
    if (state === "offline") setTimeout(connect, 2000);  // the server said no: try afresh
  }

  function resetTo(gameId) {
    S.liveGameId = gameId;
    S.seq = 0; S.viewSeq = -1; S.log = []; S.seen = new Set(); S.view = null;
    S.odds = null; S.advice = null; S.oddsSeq = -1;
  }

  function applySnapshot(snap) {
    S.live = true;   // events from now on happen now; older ones are history
    S.stats.snapshots++;
    if (snap.game_id !== S.liveGameId || (snap.seq || 0) < S.seq) resetTo(snap.game_id);
    for (const e of snap.log || []) addEvent(e);
    if (snap.auth) S.auth = snap.auth;
    if (snap.state) applyState(snap.state, true);
    else if (!snap.game_id) { S.view = null; render(); }
    body.dataset.seq = String(S.seq);
    render();
  }

  function addEvent(e) {
    if (!e.type) e.type = e.event_type;
    if (S.seen.has(e.seq)) { S.stats.duplicates++; return false; }
    S.seen.add(e.seq);
    S.log.push(e);
    if (e.seq > S.seq) S.seq = e.seq;
    else S.log.sort((a, b) => a.seq - b.seq);
    return true;
  }

  function applyEvent(e) {
    if (e.game_id && S.liveGameId && e.game_id !== S.liveGameId) {
      // another game started: the snapshot of the new one follows on a fresh connection
      resetTo(e.game_id);
    }
    if (!S.liveGameId) S.liveGameId = e.game_id || null;
    if (!addEvent(e)) return;
    S.stats.events++;
    body.dataset.seq = String(S.seq);
    body.dataset.lastType = e.type;
    if (e.type === "game_started" || e.type === "game_over" || e.type === "game_abandoned") loadGames();
    if (S.live && e.type === "action_refused") showMessage(`${e.player ? e.player + ": " : ""}${e.error}`, "info");
    if (S.live && e.type === "track_mismatch") showMessage(`The track differs from the game: ${(e.differences || []).join("; ")}`);
    renderLogParts();
    drawn("event", e.seq);
  }

  function applyState(st, quiet) {
    if (!st) return;
    if (st.game_id && S.liveGameId && st.game_id !== S.liveGameId) return;
    if ((st.seq || 0) < S.viewSeq) return;
    S.viewSeq = st.seq || 0;
    S.view = st.view;
    S.legal = st.legal || [];
    S.pending = st.pending || [];
    S.status = st.status;
    if (st.auth) S.auth = st.auth;
    body.dataset.viewSeq = String(S.viewSeq);
    S.derived = st.derived !== false;
    if (!quiet) render();
    drawn("state", S.viewSeq);
    // the hub pushes everyone the public odds; a player on their own turn also asks for the
    // advice with its bet colours, which only their own page may see
    if (S.derived && S.auth.role === "player" && S.view && S.auth.player === S.view.current_player) fetchOdds();
  }

  function applyOdds(d) {
    if (d.game_id && S.liveGameId && d.game_id !== S.liveGameId) return;
    if (d.seq < S.oddsSeq) return;
    const mine = S.privateSeq === d.seq;   // this page already has the unredacted advice
    S.odds = d.odds;
    if (!mine) S.advice = d.advice;
    S.oddsSeq = d.seq;
    body.dataset.oddsSeq = String(d.seq);
    render();
  }

  let oddsTimer = null;
  function fetchOdds() {
    clearTimeout(oddsTimer);
    oddsTimer = setTimeout(async () => {
      if (!S.view || S.oddsSeq === S.viewSeq) return;
      const want = S.viewSeq;
      try {
        const q = S.gameId ? `?game=${encodeURIComponent(S.gameId)}` : "";
        const data = await getJSON(`${ROOT}api/odds${q}`);
        if (data.seq < S.oddsSeq) return;
        S.odds = data.odds; S.advice = data.advice; S.oddsSeq = data.seq; S.privateSeq = data.seq;
        body.dataset.oddsSeq = String(data.seq);
        render();
        if (want !== S.viewSeq) fetchOdds();
      } catch (e) { /* odds are a comfort, never a blocker */ }
    }, 60);
  }

  // ---------------------------------------------------------------- rendering
  function canAct() {
    if (S.mode === "archive" || !S.view || S.view.finished) return false;
    return S.auth.role === "table" || (S.auth.role === "player" && S.auth.player === S.view.current_player);
  }

  /* Each part is redrawn only when what it shows changed: with a tablet and a few phones on a
   * two-core Pi-sized machine, redrawing the whole page for every event was what made updates
   * late (see bench/dashboard.py). */
  const memoKeys = {};
  function memo(name, key, fn) {
    const k = JSON.stringify(key);
    if (memoKeys[name] === k) return;
    memoKeys[name] = k;
    fn();
  }

  function render() {
    const v = S.view || {};
    const mod = gameMod(S.view);
    body.dataset.kind = (S.view && S.view.game) || "camelup";
    $("game-card").hidden = !mod;
    if (mod) memo("game", [S.mode, S.auth, S.view, S.legal, S.pending, S.oddsSeq, S.odds, S.advice, S.derived],
      () => mod.render(ui, $("game-view"), $("game-title")));
    else memoKeys.game = null;
    memo("pin", [S.mode, S.pin, S.auth], renderPinButton);
    memo("status", [S.mode, v.game, v.leg, v.race, v.round, v.phase, v.current_player, v.finished, v.result], renderStatus);
    memo("track", [v.track, v.desert], renderTrack);
    memo("dice", [v.dice_left, v.dice_rolled, v.pyramid_tiles_left], renderDice);
    memo("actions", [S.mode, S.auth, S.legal, v.leg_tiles, v.dice_left, v.current_player, v.finished,
      S.chosenPile, S.deskSide, v.race_cards, !!S.view], renderActions);
    memo("players", [S.mode, S.auth, v.players, v.holdings, v.overall, v.current_player, v.me,
      v.race_cards, v.my_bets], renderPlayers);
    memo("legbets", [v.leg_tiles], renderLegBets);
    memo("result", [v.finished, v.result], renderResult);
    renderLogParts();
    memo("odds", [S.derived, S.oddsSeq, S.odds, S.advice, v.finished, !!S.view, canAct(), S.legal], renderOdds);
    memo("tools", [S.mode], renderTools);
  }

  function renderLogParts() {
    const v = S.view || {};
    memo("dicelog", [S.liveGameId, S.seq, S.log.length], renderDiceLog);
    memo("prompt", [S.mode, S.pending, S.auth, v.dice_left, v.race_cards], renderPrompt);
    memo("tallies", [S.liveGameId, activeLog().filter((e) => e.type === "leg_scored").map((e) => e.seq)], renderTallies);
    memo("chart", moneySeries(), renderChart);
    memo("released", [S.log.length && releasedPending()], renderReleased);
  }

  /** Seqs of events taken back by an undo: the log keeps them (it is the truth, undo is a new
   * event), but the tallies, the chart and the leg count must not count them. */
  function undoneSeqs() {
    const out = new Set();
    for (const e of S.log) if (e.type === "undo") for (const q of e.undone || []) out.add(q);
    return out;
  }
  const activeLog = () => { const u = undoneSeqs(); return u.size ? S.log.filter((e) => !u.has(e.seq)) : S.log; };

  /** The slider was pushed and the camera has not read the die yet. */
  function releasedPending() {
    for (let i = S.log.length - 1; i >= 0; i--) {
      const t = S.log[i].type;
      if (t === "die_released") return S.log[i].player || true;
      if (t === "die_read" || t === "vision_uncertain" || t === "leg_scored" || t === "game_started") return false;
    }
    return false;
  }

  function renderReleased() {
    const who = releasedPending();
    const box = $("released");
    box.hidden = !who;
    box.textContent = who ? `A die is out of the pyramid${who === true ? "" : ` (${who})`}: reading it…` : "";
  }

  function renderPinButton() {
    const b = $("pin-button");
    if (S.mode === "player") { b.textContent = S.auth.player ? `You: ${S.auth.player}` : "Your link"; b.disabled = true; return; }
    if (S.mode === "archive") { b.hidden = true; $("conn").hidden = true; return; }
    if (S.auth.role === "table" && !S.pin) { b.textContent = "Open table"; b.title = "this table has no PIN"; return; }
    b.textContent = S.pin ? "PIN ✓" : "Enter PIN";
    b.classList.toggle("unlocked", !!S.pin);
  }

  function renderStatus() {
    const v = S.view;
    let text;
    if (!v) text = S.mode === "archive" ? "Loading game…" : "No game at this table yet.";
    else if (v.finished) text = `Game over — ${(v.result && (v.result.winners || []).join(" & ")) || ""} won`;
    else if (gameMod(v)) text = gameMod(v).status(v);
    else text = `Leg ${v.leg} · ${v.current_player} to move`;
    if (S.mode === "archive") text = `Past game · ${text}`;
    $("status-text").textContent = text;
    $("leg-label").textContent = v ? `leg ${v.leg}` : "";
  }

  function renderTrack() {
    const box = $("track");
    box.replaceChildren();
    const v = S.view;
    const track = (v && v.track) || {};
    const desert = (v && v.desert) || {};
    let beyond = [];
    for (const [space, stack] of Object.entries(track)) if (+space > 16) beyond.push([+space, stack]);
    for (let s = 1; s <= 16; s++) {
      const stack = track[String(s)] || [];
      const d = desert[String(s)];
      const cell = el("div", { class: "space" + (d ? ` desert ${d.side}` : ""), dataset: { space: s } },
        el("span", { class: "num" }, s),
        el("div", { class: "stack" }, stack.map((c) => camel(c))),
        d ? el("span", { class: `tile ${d.side}`, title: `${d.side} of ${d.owner}` },
          d.side === "oasis" ? "+1" : "−1", el("small", {}, d.owner)) : null);
      box.append(cell);
    }
    beyond.sort((a, b) => a[0] - b[0]);
    box.append(el("div", { class: "space finish", dataset: { space: "finish" } },
      el("span", { class: "num" }, "finish"),
      el("div", { class: "stack" }, beyond.flatMap(([, st]) => st.map((c) => camel(c))))));
  }

  function renderDice() {
    const box = $("dice");
    box.replaceChildren();
    const v = S.view;
    if (!v) return;
    const left = el("div", { class: "dice-left" }, el("span", { class: "muted" }, "in the pyramid "),
      (v.dice_left || []).map((c) => el("span", { class: `die c-${c}`, title: `${c}: not rolled`, dataset: { colour: c } }, "?")));
    const rolled = el("div", { class: "dice-rolled" }, el("span", { class: "muted" }, "rolled "),
      (v.dice_rolled || []).map((d) => el("span", { class: `die rolled c-${d.colour}`,
        title: `${d.colour} ${d.face}${d.player ? " by " + d.player : ""}`, dataset: { colour: d.colour, face: d.face } }, d.face)));
    box.append(left, rolled,
      el("div", { class: "muted small" }, `${v.pyramid_tiles_left ?? "?"} pyramid tile${v.pyramid_tiles_left === 1 ? "" : "s"} left`));
  }

  function legalOf(prefix) { return S.legal.filter((a) => a.startsWith(prefix)); }

  function actionButton(label, action, extra) {
    return el("button", { type: "button", class: `act ${extra || ""}`, dataset: { action },
      onclick: () => doAction(action) }, label);
  }

  async function doAction(action) {
    const res = await post(`${ROOT}api/action`, { action });
    if (res) showMessage(res.message || `Done: ${action}`, "info");
  }

  function renderActions() {
    const box = $("actions");
    box.replaceChildren();
    const v = S.view;
    $("turn-label").textContent = v && !v.finished ? `· ${v.current_player}` : "";
    body.classList.toggle("no-game", !v && S.mode !== "archive");
    if (!v && S.mode === "table") {  // an empty table: the one thing to do, at the top
      $("actions-card").hidden = false;
      box.append(el("p", { class: "muted" }, "No game at this table yet."),
        el("button", { type: "button", class: "act primary", id: "new-game-top", onclick: openNewGame }, "+ New game"));
      return;
    }
    if (gameMod(v)) { $("actions-card").hidden = true; return; }   // the game's own card has them
    $("actions-card").hidden = !v || v.finished || S.mode === "archive";
    if (!v || v.finished || S.mode === "archive") return;
    if (!canAct()) {
      const why = S.auth.role === "player"
        ? `Waiting for ${v.current_player}. Your own actions appear here on your turn.`
        : "Watching as a guest. Enter the table PIN (or open your own link) to play.";
      box.append(el("p", { class: "muted", id: "guest-note" }, why));
      return;
    }
    // 1. pyramid
    const roll = el("div", { class: "row" });
    if (S.legal.includes("roll")) roll.append(actionButton("Pyramid roll", "roll", "primary"));
    roll.append(el("button", { type: "button", class: "act", onclick: () => toggle("enter-die") }, "Enter the die"));
    const dieForm = el("div", { id: "enter-die", class: "picker", hidden: true },
      (v.dice_left || []).map((c) => el("div", { class: "row" }, chip(c, c),
        [1, 2, 3].map((f) => actionButton(String(f), `roll:${c}:${f}`, "face")))));
    // 2. leg tiles
    const legs = el("div", { class: "row" }, el("span", { class: "muted" }, "Leg tile: "),
      legalOf("leg:").map((a) => {
        const c = a.split(":")[1];
        const top = ((v.leg_tiles || {})[c] || [])[0];
        return actionButton(`${c} ${top ?? ""}`, a, `leg c-${c}`);
      }));
    // 3. desert
    const deserts = legalOf("desert:");
    const desertBox = el("div", { class: "row desert-row" });
    if (deserts.length) {
      const spaces = [...new Set(deserts.map((a) => +a.split(":")[1]))].sort((a, b) => a - b);
      const side = el("select", { id: "desert-side", "aria-label": "side",
        onchange: (e) => (S.deskSide = e.target.value) },
        el("option", { value: "oasis", selected: S.deskSide === "oasis" }, "oasis +1"),
        el("option", { value: "mirage", selected: S.deskSide === "mirage" }, "mirage −1"));
      const space = el("select", { id: "desert-space", "aria-label": "space" },
        spaces.map((s) => el("option", { value: s }, `space ${s}`)));
      desertBox.append(el("span", { class: "muted" }, "Desert tile: "), space, side,
        el("button", { type: "button", class: "act", id: "desert-go",
          onclick: () => doAction(`desert:${space.value}:${side.value}`) }, "Place"));
    }
    // 4. overall bets
    const bets = el("div", { class: "row" }, el("span", { class: "muted" }, "Overall: "));
    const betActions = legalOf("bet:");
    const me = S.auth.role === "player";
    for (const pile of ["winner", "loser"]) {
      const forPile = betActions.filter((a) => a.split(":")[1] === pile);
      if (!forPile.length && !S.legal.includes(`bet:${pile}`)) continue;
      bets.append(el("button", { type: "button", class: "act", id: `bet-${pile}`,
        onclick: () => chooseBet(pile, forPile) }, `Bet on ${pile}`));
    }
    const betPick = el("div", { id: "bet-pick", class: "picker", hidden: S.chosenPile === null || !me });
    if (me && S.chosenPile) {
      const options = betActions.filter((a) => a.split(":")[1] === S.chosenPile);
      betPick.append(el("span", { class: "muted" }, `Secret ${S.chosenPile} (only you see this): `),
        ...options.map((a) => actionButton(a.split(":")[2], a, `c-${a.split(":")[2]}`)));
    }
    box.append(roll, dieForm, legs, desertBox, bets, betPick);
    if (S.auth.role === "table") {
      box.append(el("div", { class: "row" },
        el("button", { type: "button", class: "act warn", id: "undo", onclick: async () => {
          if (await post(`${ROOT}api/undo`, {})) showMessage("Undone.", "info");
        } }, "↶ Undo last action")));
    }
  }

  function toggle(id) { const n = $(id); if (n) n.hidden = !n.hidden; }

  function chooseBet(pile, options) {
    if (S.auth.role === "player") { S.chosenPile = pile; renderActions(); return; }
    // The shared screen never sees a colour: either the hub takes a face-down card now (colour
    // revealed when the piles are turned), or the player picks it on their own phone.
    if (S.legal.includes(`bet:${pile}`)) { doAction(`bet:${pile}`); return; }
    const who = S.view.current_player;
    showMessage(`${who}: choose the colour of your ${pile} card on your own phone (your link or QR code under Players).`, "info");
  }

  function renderPlayers() {
    const box = $("players");
    box.replaceChildren();
    const v = S.view;
    if (!v) return;
    const overall = v.overall || {};
    const cards = (name, pile) => (overall[pile] || []).filter((b) => b.player === name);
    const table = el("table", { class: "players" },
      el("thead", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "EP"), el("th", {}, "leg tiles"), el("th", {}, "other"))));
    const tb = el("tbody");
    for (const name of v.players) {
      const h = (v.holdings || {})[name] || {};
      const isMe = v.me === name;
      const bets = ["winner", "loser"].map((p) => {
        const mine = cards(name, p);
        if (!mine.length) return null;
        const colours = isMe ? (v.my_bets || []).filter((b) => b.pile === p).map((b) => b.colour)
          : mine.filter((b) => b.colour).map((b) => b.colour);
        return el("span", { class: "pill", dataset: { pile: p } }, `${p} ×${mine.length}`,
          colours.map((c) => chip(c, "")));
      });
      const raceCards = isMe ? v.race_cards : h.race_cards;
      const row = el("tr", { class: name === v.current_player ? "to-move" : "", dataset: { player: name } },
        el("td", { class: "name" }, name === v.current_player ? "▶ " : "", name,
          S.auth.role === "table" && S.mode === "table"
            ? el("button", { type: "button", class: "tiny qr-btn", title: `${name}'s own link`,
              onclick: () => showQr(name) }, "QR") : null),
        el("td", { class: "money", dataset: { money: h.money } }, h.money ?? ""),
        el("td", {}, (h.leg_tiles || []).map((t) => chip(t.colour, t.value))),
        el("td", { class: "small" },
          h.pyramid_tiles ? el("span", { class: "pill" }, `▲${h.pyramid_tiles}`) : null,
          h.desert ? el("span", { class: `pill ${h.desert.side}` }, `${h.desert.side} @${h.desert.space}`) : null,
          bets,
          raceCards ? el("span", { class: "pill my-cards" }, "cards ", raceCards.map((c) => chip(c, ""))) : null));
      tb.append(row);
    }
    table.append(tb);
    box.append(table);
  }

  async function showQr(name) {
    try {
      const r = await fetch(`${ROOT}api/players/${encodeURIComponent(name)}/link`, { headers: authHeaders() });
      const data = await r.json();
      if (!r.ok) throw new Error(data.message || r.statusText);
      $("qr-title").textContent = `${name}'s own link`;
      $("qr-image").innerHTML = data.svg;   // segno's SVG, generated by our own hub
      $("qr-link").textContent = data.url;
      $("qr-link").href = data.url;
      $("qr-dialog").showModal();
    } catch (e) { showMessage(String(e.message || e)); }
  }

  function renderLegBets() {
    const box = $("legbets");
    box.replaceChildren();
    const v = S.view;
    if (!v) return;
    for (const c of COLOURS) {
      const tiles = (v.leg_tiles || {})[c] || [];
      box.append(el("div", { class: "legpile", dataset: { colour: c } }, camel(c),
        tiles.length ? tiles.map((t, i) => el("span", { class: `tile-v ${i ? "under" : "top"}` }, t))
          : el("span", { class: "muted small" }, "none left")));
    }
  }

  function renderOdds() {
    const box = $("odds");
    box.replaceChildren();
    const o = S.odds;
    $("odds-card").hidden = !S.view || S.view.finished || S.derived === false;
    if (!S.view || S.view.finished || S.derived === false) return;
    if (!o) {
      box.append(el("p", { class: "muted small" }, S.oddsSeq >= 0 ? "No odds for this position." : "Working out the odds…"));
    } else {
      box.append(el("div", { class: "odds-row head" }, el("span"), el("span", {}, "leg 1st"), el("span", {}, "leg 2nd"),
        el("span", {}, "wins"), el("span", {}, "last")));
      const bar = (x, cls) => el("span", { class: `pbar ${cls}`, title: pct(x) },
        el("i", { style: `width:${Math.round((x || 0) * 100)}%` }), el("b", {}, pct(x)));
      for (const c of COLOURS) {
        const leg = (o.leg || {})[c] || {};
        const race = (o.race || {})[c] || {};
        box.append(el("div", { class: "odds-row", dataset: { colour: c } }, camel(c),
          bar(leg.first, `c-${c}`), bar(leg.second, `c-${c}`), bar(race.win, `c-${c}`), bar(race.lose, `c-${c}`)));
      }
      if (o.game_ends_this_leg !== undefined)
        box.append(el("div", { class: "muted small" }, `race ends this leg: ${pct(o.game_ends_this_leg)}`));
    }
    const adv = $("advice");
    adv.replaceChildren();
    const a = S.advice;
    if (a && a.actions && a.actions.length) {
      adv.append(el("h3", {}, `Best for ${a.player}`));
      const list = el("ol", { class: "advice-list" });
      for (const item of a.actions.slice(0, 4)) {
        list.append(el("li", {}, el("span", { class: "mono" }, item.action),
          el("span", { class: "ev" }, `${item.expected >= 0 ? "+" : ""}${Number(item.expected).toFixed(2)} EP`),
          canAct() && S.legal.includes(item.action) ? el("button", { type: "button", class: "tiny",
            onclick: () => doAction(item.action) }, "do it") : null,
          item.why ? el("div", { class: "muted small" }, item.why) : null));
      }
      adv.append(list);
    }
  }

  const cropUrl = (cropId) => `${ROOT}api/crops/${encodeURIComponent(cropId)}`;

  function renderDiceLog() {
    const box = $("dicelog");
    box.replaceChildren();
    const shown = new Set(["die_read", "vision_uncertain", "correction", "undo", "track_mismatch"]);
    const items = S.log.filter((e) => shown.has(e.type));
    const undone = undoneSeqs();
    let leg = 1;
    const legOf = new Map();
    for (const e of S.log) { legOf.set(e.seq, leg); if (e.type === "leg_scored" && !undone.has(e.seq)) leg++; }
    for (const e of items.slice().reverse()) {
      let text, cls = e.type;
      if (e.type === "die_read") {
        text = [chip(e.colour, e.face), ` ${e.colour} ${e.face}`, e.player ? ` · ${e.player}` : "",
          e.confidence !== undefined && e.confidence !== null ? el("span", { class: "muted small" }, ` ${pct(e.confidence)}`) : null,
          e.source === "confirmed" ? el("span", { class: "pill" }, "checked") : null];
      } else if (e.type === "vision_uncertain") {
        const r = e.reading || {};
        text = [`unsure: read ${r.colour || "?"} ${r.face || "?"}`, el("div", { class: "muted small" }, (e.problems || []).join("; "))];
      } else if (e.type === "correction") {
        text = [e.changed ? `corrected to ${e.colour} ${e.face}` : `confirmed ${e.colour} ${e.face}`, ` by ${e.by}`];
      } else if (e.type === "undo") {
        text = [`↶ undone: ${e.action || "last action"}`];
      } else {
        text = ["track differs: ", (e.differences || []).join("; ")];
      }
      if (undone.has(e.seq)) { cls += " undone"; text = [...text, el("span", { class: "pill" }, "undone")]; }
      box.append(el("li", { class: cls, dataset: { seq: e.seq, type: e.type } },
        e.crop ? el("img", { src: cropUrl(e.crop), alt: "the camera's crop of the die", loading: "lazy", width: 48, height: 48 }) : null,
        el("span", { class: "what" }, text), el("span", { class: "muted small when" }, `leg ${legOf.get(e.seq)}`)));
    }
    if (!items.length) box.append(el("li", { class: "muted empty" }, "No die released yet."));
  }

  /** Open prompts: a die reading the hub was unsure of (confirm it or say what it was), or a
   * secret bet whose colour its player picks on their own phone. */
  function renderPrompt() {
    const card = $("prompt-card"), box = $("prompt");
    box.replaceChildren();
    const prompts = S.mode === "archive" ? [] : (S.pending || []);
    card.hidden = !prompts.length;
    $("prompt-title").textContent = prompts.some((p) => p.kind === "die_reading") ? "Check this die"
      : prompts.some((p) => p.kind === "bet_colour") ? "Secret bet"
      : (gameMod(S.view) && gameMod(S.view).promptTitle) || "Check";
    for (const p of prompts) {
      if (p.kind === "die_reading") box.append(diePrompt(p));
      else if (p.kind === "bet_colour") box.append(betPrompt(p));
      else if (gameMod(S.view) && gameMod(S.view).prompt) {
        const node = gameMod(S.view).prompt(p, ui);
        if (node) box.append(node);
      }
    }
  }

  function diePrompt(p) {
    const r = p.reading || {};
    const guess = r.colour && r.face ? `${r.colour} ${r.face}` : "nothing sure";
    const table = S.auth.role === "table";
    const colours = (p.expected_colours && p.expected_colours.length) ? p.expected_colours : (S.view ? S.view.dice_left : []);
    return el("div", { class: "prompt", dataset: { prompt: p.id } },
      p.crop ? el("img", { src: cropUrl(p.crop), alt: "the camera's crop of the die", class: "crop" }) : null,
      el("div", { class: "prompt-body" },
        el("p", {}, `The camera read ${guess}`, r.confidence !== undefined && r.confidence !== null ? ` (${pct(r.confidence)} sure)` : "", ". What does the die show?"),
        (p.problems || []).length ? el("p", { class: "muted small" }, p.problems.join("; ")) : null,
        table && colours.includes(r.colour) && [1, 2, 3].includes(r.face) ? el("button", { type: "button", class: "act primary", id: "confirm-read",
          onclick: () => answer({ prompt: p.id, accept: true }, `Read as ${guess}.`) }, `Yes, ${guess}`) : null,
        table ? el("div", { class: "picker" }, colours.map((c) => el("div", { class: "row" }, chip(c, c),
          [1, 2, 3].map((f) => el("button", { type: "button", class: "act face", dataset: { answer: `${c}:${f}` },
            onclick: () => answer({ prompt: p.id, colour: c, face: f }, `Read as ${c} ${f}.`) }, f)))))
          : el("p", { class: "muted" }, "The table PIN is needed to answer.")));
  }

  function betPrompt(p) {
    const mine = S.auth.role === "player" && S.auth.player === p.player;
    const cards = (S.view && S.view.race_cards) || [];
    return el("div", { class: "prompt", dataset: { prompt: p.id } },
      el("div", { class: "prompt-body" },
        el("p", {}, `${p.player} bets on the overall ${p.pile}: `, mine ? "choose your camel (only you see this)." : `${p.player} chooses the colour on their own phone.`),
        mine ? el("div", { class: "row" }, cards.map((c) => el("button", { type: "button", class: `act c-${c} secret`, dataset: { colour: c },
          onclick: () => answer({ prompt: p.id, colour: c }, `Your ${p.pile} card: ${c}.`) }, c))) : null,
        S.auth.role === "table" ? el("button", { type: "button", class: "act", onclick: () => answer({ prompt: p.id, dismiss: true }, "Bet cancelled.") }, "Cancel this bet") : null));
  }

  async function answer(payload, done) {
    if (await post(`${ROOT}api/confirm`, payload)) showMessage(done, "info");
  }

  function renderTallies() {
    const box = $("tallies");
    box.replaceChildren();
    const legs = activeLog().filter((e) => e.type === "leg_scored");
    if (!legs.length) { box.append(el("p", { class: "muted" }, "No leg scored yet.")); return; }
    for (const t of legs.slice().reverse()) {
      const rows = Object.keys(t.money || {}).map((p) => {
        const d = (t.changes || {})[p] || 0;
        return el("tr", {}, el("td", {}, p),
          el("td", {}, ((t.tiles || {})[p] || []).map((x) => chip(x.colour, x.value)),
            (t.pyramid_tiles || {})[p] ? el("span", { class: "pill" }, `▲${t.pyramid_tiles[p]}`) : null),
          el("td", { class: d > 0 ? "up" : d < 0 ? "down" : "" }, d > 0 ? `+${d}` : d),
          el("td", {}, t.money[p]));
      });
      box.append(el("div", { class: "tally", dataset: { leg: t.leg } },
        el("h3", {}, `Leg ${t.leg}: `, camel(t.first), ` ${t.first} first, `, camel(t.second), ` ${t.second} second`),
        el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "tiles"), el("th", {}, "change"), el("th", {}, "EP"))),
          el("tbody", {}, rows))));
    }
  }

  /** Money per player after every leg (the start, each leg_scored, the end), drawn as SVG lines. */
  function moneySeries() {
    const start = S.log.find((e) => e.type === "game_started");
    if (!start) return null;
    const players = start.players || (S.view && S.view.players) || [];
    const startMoney = start.money || Object.fromEntries(players.map((p) => [p, start.starting_money ?? 3]));
    const points = [{ label: "start", money: startMoney }];
    for (const e of activeLog()) {
      if (e.type === "leg_scored") points.push({ label: `leg ${e.leg}`, money: e.money });
      if (e.type === "game_over") points.push({ label: "end", money: e.money });
    }
    if (S.view && !S.view.finished && S.view.holdings) {
      const now = Object.fromEntries(players.map((p) => [p, (S.view.holdings[p] || {}).money]));
      points.push({ label: "now", money: now });
    }
    return { players, points };
  }

  const LINE_COLOURS = ["#c0392b", "#2c7be5", "#27ae60", "#8e44ad", "#d68910", "#16a085", "#7f8c8d", "#e84393"];

  function renderChart() {
    const box = $("chart");
    box.replaceChildren();
    const series = moneySeries();
    if (!series) return;
    const { players, points } = series;
    const W = 360, H = 180, L = 30, R = 8, T = 10, B = 24;
    const max = Math.max(5, ...points.flatMap((p) => players.map((n) => p.money[n] || 0)));
    const x = (i) => L + (points.length === 1 ? 0 : (i * (W - L - R)) / (points.length - 1));
    const y = (m) => T + (H - T - B) * (1 - m / max);
    const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "money-chart", role: "img", "aria-label": "money over time" });
    for (let m = 0; m <= max; m += Math.max(1, Math.ceil(max / 4))) {
      g.append(svg("line", { x1: L, x2: W - R, y1: y(m), y2: y(m), class: "grid" }),
        svg("text", { x: L - 4, y: y(m) + 4, class: "axis", "text-anchor": "end" }, m));
    }
    points.forEach((p, i) => g.append(svg("text", { x: x(i), y: H - 6, class: "axis", "text-anchor": "middle" }, p.label)));
    players.forEach((name, k) => {
      const colour = LINE_COLOURS[k % LINE_COLOURS.length];
      const off = (k - (players.length - 1) / 2) * 1.6;   // lines of equal money stay visible side by side
      const d = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${(y(p.money[name] || 0) + off).toFixed(1)}`).join(" ");
      g.append(svg("path", { d, class: "line", stroke: colour, "data-player": name }));
      points.forEach((p, i) => g.append(svg("circle", { cx: x(i), cy: y(p.money[name] || 0) + off, r: 3, fill: colour },
        svg("title", {}, `${name}: ${p.money[name]} EP (${p.label})`))));
    });
    box.append(g, el("div", { class: "legend" }, players.map((n, k) =>
      el("span", {}, el("i", { style: `background:${LINE_COLOURS[k % LINE_COLOURS.length]}` }), n))));
  }

  function renderResult() {
    const card = $("result-card"), box = $("result");
    box.replaceChildren();
    const r = S.view && S.view.finished ? S.view.result : null;
    card.hidden = !r;
    if (!r) return;
    const money = Object.entries(r.money || {}).sort((a, b) => b[1] - a[1]);
    box.append(
      el("p", { class: "winners" }, (r.winners || []).join(" & "), ` win with ${money.length ? money[0][1] : "?"} EP`),
      el("p", {}, "Race: ", camel(r.winner), ` ${r.winner} won, `, camel(r.loser), ` ${r.loser} came last`),
      el("table", { class: "final" }, el("tbody", {}, money.map(([p, m]) => el("tr", {}, el("td", {}, p), el("td", {}, m))))),
      (r.overall || []).length ? el("div", {}, el("h3", {}, "Overall bets, in the order they were placed"),
        el("ul", { class: "overall" }, r.overall.map((b) => el("li", {}, `${b.pile}: ${b.player} `, chip(b.colour, b.colour),
          ` ${b.correct ? "✔" : "✘"} ${b.payout > 0 ? "+" : ""}${b.payout}`)))) : null);
  }

  function renderTools() {
    const tools = $("table-tools");
    tools.replaceChildren();
    if (S.mode === "archive") tools.append(el("a", { href: ROOT, class: "button" }, "← back to the live table"));
    else if (S.mode === "table") tools.append(el("button", { type: "button", id: "new-game", class: "act",
      onclick: openNewGame }, "+ New game"));
  }

  async function loadGames() {
    try {
      const data = await getJSON(`${ROOT}api/games`);
      const list = $("games");
      list.replaceChildren();
      for (const g of data.games || []) {
        list.append(el("li", { dataset: { game: g.game_id } },
          el("a", { href: `${ROOT}games/${encodeURIComponent(g.game_id)}` },
            `Game ${g.number || g.game_id}${KIND_NAMES[g.kind] ? ` · ${KIND_NAMES[g.kind]}` : ""} · ${new Date(g.started * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" })} · ${(g.players || []).join(", ")}`),
          el("span", { class: "muted small" }, g.status === "finished" ? ` · won by ${(g.winners || []).join(" & ")}` : ` · ${g.status === "playing" ? "in play" : g.status}`)));
      }
      if (!(data.games || []).length) list.append(el("li", { class: "muted" }, "No games yet."));
    } catch (e) { /* the list is optional */ }
  }

  // ---------------------------------------------------------------- the camera
  /** The firmware's camera health is not an event: asked for every five seconds. A camera that
   * cannot be used says why (the firmware names the cause: import, busy, absent, out of memory)
   * until it gives frames again, so nobody waits for dice that will never be read. */
  const CAMERA_FAULTS = {
    import: "the camera library does not import on the Pi (run the install again)",
    busy: "another program holds the camera",
    absent: "no camera found (check the ribbon)",
    out_of_memory: "the camera's buffers do not fit its memory",
    failed: "the camera failed",
  };
  async function refreshCamera() {
    try {
      const c = (await getJSON(`${ROOT}api/camera`)).camera || {};
      const box = $("camera-alert");
      const text = c.fault ? `Camera: ${CAMERA_FAULTS[c.fault] || c.fault}.` : "";
      box.hidden = !text;
      box.textContent = text;
      box.title = c.message || "";   // the firmware's own words, for whoever fixes it
      body.dataset.cameraFault = c.fault || "";
    } catch (e) { /* the hub is unreachable: the connection dot says so */ }
    setTimeout(refreshCamera, 5000);
  }

  // ---------------------------------------------------------------- dialogs
  /** The camera's setup reading is not an event (nothing is logged before a game starts), so the
   * dialog asks for it when it opens and again every two seconds while it is open: the firmware
   * may read the setup while someone types the names. */
  let setupTimer = null;
  async function refreshSetupReading(first) {
    clearTimeout(setupTimer);
    if (!$("newgame-dialog").open && !first) return;
    try {
      const data = await getJSON(`${ROOT}api/setup`);
      const r = data.setup_reading || null;
      const before = S.setupReading;
      S.setupReading = r;
      if (JSON.stringify(before) !== JSON.stringify(r) || first) renderCameraSetup(first);
    } catch (e) { /* the other two ways to start still work */ }
    setupTimer = setTimeout(() => refreshSetupReading(false), 2000);
  }

  function renderCameraSetup(first) {
    const r = S.setupReading;
    const label = $("ng-camera-label"), box = $("ng-camera"), radio = $("ng-camera-mode");
    const usable = !!(r && r.complete);
    label.hidden = !usable;
    box.replaceChildren();
    if (!usable && radio.checked) document.querySelector("input[name=ng-mode][value=random]").checked = true;
    if (usable && first) radio.checked = true;   // what the table set up is the likely start
    box.hidden = !r;
    if (!r) return;
    box.dataset.setupId = String(r.id);
    box.dataset.complete = String(!!r.complete);
    const from = r.source === "track" ? "the track" : "the setup dice";
    if (!usable) {
      box.append(el("p", { class: "muted small" }, `The camera's reading of ${from} is incomplete: `,
        (r.problems || []).join("; "), ". Read it again on the pyramid, or choose below."));
    } else {
      box.append(el("p", { class: "muted small" }, `Read from ${from} (bottom to top):`));
    }
    for (const [space, stack] of Object.entries(r.track || {}).sort((a, b) => a[0] - b[0])) {
      box.append(el("p", { class: "ng-space", dataset: { space } }, `space ${space}: `,
        stack.map((c) => chip(c, c))));
    }
    for (const n of r.notes || []) box.append(el("p", { class: "muted small" }, n));
  }

  /** The game chosen in the new-game dialog: its settings show, Camel Up's setup roll only for it. */
  function showGameSettings() {
    const game = $("ng-game").value;
    document.querySelectorAll(".ng-settings").forEach((f) => (f.hidden = f.dataset.game !== game));
    $("ng-setup").hidden = game !== "camelup";
  }

  function gameSettings(game) {
    const num = (id) => ($(id).value.trim() === "" ? null : Number($(id).value));
    if (game === "horserace") {
      return { races: num("ng-races") ?? 1, track_length: num("ng-track-length") ?? 30, next_starter: $("ng-next-starter").value };
    }
    if (game === "marcopolo2") {
      const out = {};
      if (num("ng-expected-dice") !== null) out.expected_dice = num("ng-expected-dice");
      const table = $("ng-banner-table").value.trim();
      if (table) out.banner_table = table.split(/[\s,]+/).filter(Boolean).map(Number);
      return out;
    }
    return {};
  }

  function openNewGame() {
    if (!S.pin) { showMessage("Enter the table PIN first."); return; }
    if (S.view && S.view.game) $("ng-game").value = S.view.game;
    showGameSettings();
    renderRollInputs();
    refreshSetupReading(true);
    const inPlay = !!S.view && !S.view.finished;
    $("ng-abandon-label").hidden = !inPlay;
    $("ng-abandon").checked = false;
    if (!$("ng-players").value && S.view) $("ng-players").value = S.view.players.join(", ");
    $("newgame-dialog").showModal();
  }

  function renderRollInputs() {
    const box = $("ng-roll");
    box.replaceChildren();
    const mode = document.querySelector("input[name=ng-mode]:checked").value;
    if (mode !== "entered") return;
    COLOURS.forEach((c, i) => box.append(el("div", { class: "row" }, el("span", { class: "muted" }, `${i + 1}.`),
      el("select", { class: "ng-colour", "aria-label": `colour rolled ${i + 1}` }, COLOURS.map((k) => el("option", { value: k, selected: k === c }, k))),
      el("select", { class: "ng-face", "aria-label": `face rolled ${i + 1}` }, [1, 2, 3].map((f) => el("option", { value: f }, f))))));
  }

  async function startGame(ev) {
    ev.preventDefault();
    const players = $("ng-players").value.split(/[\n,]+/).map((s) => s.trim()).filter(Boolean);
    const game = $("ng-game").value;
    const mode = game === "camelup" ? document.querySelector("input[name=ng-mode]:checked").value : "random";
    const payload = { players, ...(game === "camelup" ? {} : { game, ...gameSettings(game) }) };
    if (!$("ng-abandon-label").hidden) payload.abandon = $("ng-abandon").checked;
    if (mode === "camera") {
      if (!S.setupReading) { showMessage("The camera has not read a setup."); return; }
      payload.setup = "camera";
      payload.setup_id = S.setupReading.id;   // the reading shown: the hub refuses a newer one
    } else if (mode === "entered") {
      const colours = [...document.querySelectorAll(".ng-colour")].map((s) => s.value);
      const faces = [...document.querySelectorAll(".ng-face")].map((s) => +s.value);
      payload.setup = colours.map((c, i) => [c, faces[i]]);
    }
    const res = await post(`${ROOT}api/games`, payload);
    if (!res && mode === "camera") refreshSetupReading(false);   // show what the camera has now
    if (res) {
      $("newgame-dialog").close();
      showMessage(`New game: ${players.join(", ")}`, "info");
      loadGames();
    }
  }

  function wire() {
    $("pin-button").addEventListener("click", () => { $("pin-input").value = S.pin; $("pin-dialog").showModal(); });
    $("pin-cancel").addEventListener("click", () => $("pin-dialog").close());
    $("pin-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const pin = $("pin-input").value.trim();
      S.pin = pin;
      const r = await fetch(`${ROOT}api/whoami`, { headers: authHeaders() });
      const data = await r.json().catch(() => ({}));
      if (!r.ok) {
        S.pin = ""; localStorage.removeItem("pyramid.pin");
        showMessage(data.message || "That PIN is not right.");  // in the dialog: try again
        $("pin-input").select();
        return;
      }
      localStorage.setItem("pyramid.pin", pin);
      S.auth = data.auth || S.auth;
      $("message").hidden = true;
      $("pin-dialog").close();
      render();   // the stream is the same for everyone: only what the page offers changes
    });
    $("ng-cancel").addEventListener("click", () => $("newgame-dialog").close());
    $("newgame-dialog").addEventListener("close", () => clearTimeout(setupTimer));
    $("newgame-form").addEventListener("submit", startGame);
    $("ng-game").addEventListener("change", showGameSettings);
    document.querySelectorAll("input[name=ng-mode]").forEach((r) => r.addEventListener("change", renderRollInputs));
  }

  async function loadArchive() {
    try {
      const data = await getJSON(`${ROOT}api/games/${encodeURIComponent(S.gameId)}`);
      S.liveGameId = S.gameId;
      for (const e of data.log || []) addEvent(e);
      S.view = data.state.view; S.viewSeq = data.state.seq;
      body.dataset.seq = String(S.seq);
      render();
    } catch (e) { showMessage(String(e.message || e)); }
  }

  // what the other games' views use of this page (static/horserace.js, static/marcopolo2.js)
  const ui = { S, el, chip, camel, pct, post, doAction, answer, showMessage, showQr, canAct, ROOT, legal: () => S.legal };
  window.pyramid.ui = ui;

  wire();
  render();
  loadGames();
  if (S.mode === "archive") loadArchive();
  else {
    {  // always ask: a table without a PIN lets everyone play
      getJSON(`${ROOT}api/whoami`).then((d) => { S.auth = d.auth; render(); }).catch((e) => {
        // a PIN kept from an earlier evening, or a player's link from a game that is over
        if (S.pin) { S.pin = ""; localStorage.removeItem("pyramid.pin"); }
        if (S.token) {
          S.token = null; S.mode = "table"; body.dataset.mode = "table";
          S.auth = { role: "guest", player: null };
          connect();   // watch as a guest rather than knock with a dead link forever
        }
        showMessage(`${e.message} You can watch; enter the PIN again to play.`);
        render();
      });
    }
    connect();
    refreshCamera();
  }
})();
