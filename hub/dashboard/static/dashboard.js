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
      else if (k === "style") node.style.cssText = v;   // CSSOM: allowed under the page's CSP
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
  /* The camels: fill, the ink of the letter on it, and the letter itself, so that no camel is
   * told from another by colour alone. The second edition's camels are one line each here. */
  const CAMELS = {
    blue: { fill: "#2f6fd6", ink: "#fff", letter: "B" },
    green: { fill: "#2e9d4a", ink: "#111", letter: "G" },
    orange: { fill: "#f08a24", ink: "#111", letter: "O" },
    yellow: { fill: "#f2cf2b", ink: "#111", letter: "Y" },
    white: { fill: "#fbfbf7", ink: "#111", letter: "W" },
    black: { fill: "#262626", ink: "#fff", letter: "K" },
    red: { fill: "#c0392b", ink: "#fff", letter: "R" },
    purple: { fill: "#7d4cb5", ink: "#fff", letter: "P" },
  };
  const camelInfo = (c) => CAMELS[c] || { fill: "#9a8f80", ink: "#111", letter: String(c || "?")[0].toUpperCase() };
  const CAMEL_PATH = "M3 23V16.5Q3 12.5 7 12.5H11Q13 4 18.5 4Q24 4 25 10.5Q27 8 29.5 8.5L32.5 4.5Q34.5 2.5 37 4L38.5 8Q38 10.5 35.5 10.5L33 13.5Q33 17 30.5 18V23H27.5V19H10V23Z";
  /** A camel piece (inline SVG): its colour, a dark outline (the white camel on cream), its letter. */
  const camel = (colour, extra) => {
    const info = camelInfo(colour);
    const piece = el("span", { class: `camel c-${colour} ${extra || ""}`, title: colour,
      role: "img", "aria-label": `${colour} camel`, dataset: { colour } });
    piece.append(svg("svg", { viewBox: "0 0 40 25", "aria-hidden": "true", focusable: "false" },
      svg("path", { d: CAMEL_PATH, fill: info.fill, stroke: "#2b2118", "stroke-width": "1.3", "stroke-linejoin": "round" }),
      svg("text", { x: "19", y: "17", "text-anchor": "middle", "font-size": "8.5", "font-weight": "800", fill: info.ink }, info.letter)));
    return piece;
  };
  const Cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
  const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");
  const chip = (colour, text) => el("span", { class: `chip c-${colour}`, title: colour }, text);
  // a camel's card or ticket: its value after the camel's letter, so that a player who cannot
  // tell the colours apart (blue and purple, red and green, orange and yellow) reads which one
  const ticket = (colour, value) => el("span", { class: `chip ticket c-${colour}`, title: `${colour} ${value}` },
    el("span", { class: "letter" }, camelInfo(colour).letter), value);
  // a secret bet's card: the camel's letter alone
  const card = (colour) => chip(colour, camelInfo(colour).letter);
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
    if ((kind || "error") === "error") showMessage.refusals = (showMessage.refusals || 0) + 1;
    clearTimeout(showMessage.timer);
    showMessage.timer = setTimeout(() => (box.hidden = true), kind === "info" ? 4000 : 9000);
  }

  /** This browser's device id: a player's link shows its secrets only on the device that
   * opened it first (hub/dashboard/guard.py), not to whoever else holds the link. */
  function deviceId() {
    let id = localStorage.getItem("pyramid.device");
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(id || "")) {
      id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
      localStorage.setItem("pyramid.device", id);
    }
    return id;
  }

  /** The one-time claim code of a link the table handed over to a new phone (``?claim=`` in
   * the link the table's screen showed after releasing it): only with it does this device take
   * the released link (hub/dashboard/guard.py). */
  function claimCode() {
    const code = new URLSearchParams(location.search).get("claim");
    return /^[A-Za-z0-9_-]{16,64}$/.test(code || "") ? code : null;
  }

  function authHeaders() {
    const h = { "Content-Type": "application/json" };
    if (S.pin) h["X-Pyramid-Pin"] = S.pin;
    if (S.token) {
      h["X-Pyramid-Token"] = S.token; h["X-Pyramid-Device"] = deviceId();
      if (claimCode()) h["X-Pyramid-Claim"] = claimCode();
    }
    return h;
  }

  async function getJSON(path) {
    const r = await fetch(path, { headers: authHeaders(), cache: "no-store" });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.message || `${r.status} ${r.statusText}`);
    return data;
  }

  /** POST a command; a refusal is shown as the hub's own sentence and changes nothing here.
   * Each tap carries its own Idempotency-Key (a repeat of it is applied once) and, for a move,
   * an undo or an answer to a prompt, the seq this screen was drawn at (and a move the player
   * it was drawn for): a double tap after the move went through is refused ("Bob has already
   * moved"), never played for the next player. */
  const SEQ_CHECKED = /api\/(action|undo|confirm)$/;
  const tapId = () => (crypto.randomUUID ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""));
  async function post(path, payload) {
    let r, data;
    // answers may come back out of order (a double tap): a refusal shown meanwhile stays shown
    const refusals = showMessage.refusals || 0;
    const body = { ...(payload || {}) };
    if (SEQ_CHECKED.test(path) && S.liveGameId && body.expected_seq === undefined) body.expected_seq = S.seq;
    // the shared screen's move is for the player it was drawn for, never for whoever is next
    if (/api\/action$/.test(path) && body.player === undefined && S.auth.role === "table"
        && S.view && typeof S.view.current_player === "string") body.player = S.view.current_player;
    try {
      r = await fetch(path, { method: "POST", headers: { ...authHeaders(), "Idempotency-Key": tapId() }, body: JSON.stringify(body) });
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
    if ((showMessage.refusals || 0) === refusals) {
      $("message").hidden = true;
      document.querySelectorAll(".dialog-message").forEach((n) => (n.hidden = true));
    }
    if (data.state) applyState(data.state);
    return data;
  }

  // ---------------------------------------------------------------- live stream
  function streamUrl() {
    const q = new URLSearchParams();
    if (S.token) {
      q.set("token", S.token); q.set("device", deviceId());
      if (claimCode()) q.set("claim", claimCode());
    }
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
    // once the game is over there is nothing to put right on the board: the camera reading the
    // track as the players pack up is not news (afterGameOver)
    if (S.live && e.type === "track_mismatch" && !afterGameOver(e)) showMessage(`The track differs from the game: ${(e.differences || []).join("; ")}`);
    if (e.type === "game_over" && /^The track differs/.test($("message").textContent)) $("message").hidden = true;
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
    ownAdvice();
  }

  /** On a player's own link, on their turn: ask for the advice with their own secrets (also
   * once the hub has said who this page is, which may come after the first state). */
  function ownAdvice() {
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
      // the public odds of this position may have come first by the stream: they carry no
      // colours, so the player's own page still asks for its own advice
      if (!S.view || S.privateSeq === S.viewSeq) return;
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
      () => {
        mod.render(ui, $("game-view"), $("game-title"));
        // a wide table scrolls inside its card on a phone: reachable by keyboard too
        $("game-view").querySelectorAll(".grid-table").forEach((t) => (t.tabIndex = 0));
      });
    else memoKeys.game = null;
    memo("pin", [S.mode, S.pin, S.auth], renderPinButton);
    memo("status", [S.mode, v.game, v.leg, v.race, v.round, v.phase, v.current_player, v.finished, v.result], renderStatus);
    memo("track", [v.track, v.desert], renderTrack);
    // over, the pyramid and the leg bets cards tell the last leg's tally (from the log)
    const paid = v.finished ? lastTally() : null;
    memo("dice", [v.dice_left, v.dice_rolled, v.pyramid_tiles_left, v.finished, paid && paid.seq], renderDice);
    memo("actions", [S.mode, S.auth, S.legal, v.leg_tiles, v.dice_left, v.current_player, v.finished,
      S.chosenPile, S.deskSide, v.race_cards, !!S.view, S.seq], renderActions);
    memo("players", [S.mode, S.auth, v.players, v.holdings, v.overall, v.current_player, v.me,
      v.race_cards, v.my_bets, v.finished, S.seq], renderPlayers);
    memo("turn", [S.mode, S.auth, v.current_player, v.finished, v.result, v.game, S.liveGameId], renderTurn);
    memo("legbets", [v.leg_tiles, v.finished, paid && paid.seq], renderLegBets);
    memo("result", [v.finished, v.result, S.mode, S.auth], renderResult);
    renderLogParts();
    memo("odds", [S.derived, S.oddsSeq, S.odds, S.advice, v.finished, !!S.view, canAct(), S.legal], renderOdds);
    memo("tools", [S.mode], renderTools);
  }

  function renderLogParts() {
    const v = S.view || {};
    memo("dicelog", [S.liveGameId, S.seq, S.log.length], renderDiceLog);
    memo("feed", [S.liveGameId, S.seq, S.log.length, (S.view || {}).game], renderFeed);
    memo("prompt", [S.mode, S.pending, S.auth, v.dice_left, v.race_cards], renderPrompt);
    memo("tallies", [S.liveGameId, activeLog().filter((e) => e.type === "leg_scored").map((e) => e.seq)], renderTallies);
    memo("chart", moneySeries(), renderChart);
    memo("released", [S.log.length && releasedPending()], renderReleased);
  }

  /** Whether ``e`` came after the game's end (a game over that no undo took back). */
  function afterGameOver(e) {
    const undone = undoneSeqs();
    return S.log.some((x) => x.type === "game_over" && x.seq < e.seq && !undone.has(x.seq));
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


  // ---------------------------------------------------------------- what just happened
  /** Events that start a player's action: the one an undo takes back is the last of these. */
  const ACTION_TYPES = new Set(["leg_tile_taken", "desert_placed", "die_read", "overall_bet_placed", "bet_pending",
    "bet_placed", "passed", "roll", "rolled", "horse_assigned", "dice_read", "compensation_taken", "round_started", "sheet_entered"]);
  const PILE_WORDS = { winner: "the overall winner", loser: "the overall loser" };
  const REVEAL_MAX_S = 5;   // the last card of a game over starts turning by then, however many

  /** The event ``e`` in plain words (``log`` for the camel move a die caused), or null: not news. */
  function describe(e, log) {
    const p = e.player;
    switch (e.type) {
      case "game_started": {
        const first = Number.isInteger(e.first_player) ? (e.players || [])[e.first_player] : e.first_player;
        return `New game: ${(e.players || []).join(", ")}.${first ? ` ${first} starts.` : ""}`;
      }
      case "leg_tile_taken": return `${p} took the ${e.colour} ${e.value} tile`;
      case "leg_ticket_taken": return `${p} took the ${e.colour} ${e.value} ticket`;
      case "spectator_placed":
        return `${p} put their spectator tile (${e.side}) on ${e.space}${e.moved_from ? ` (moved from ${e.moved_from})` : ""}`;
      case "partnership_entered": return `${p} and ${e.partner} are partners this leg`;
      case "desert_placed":
        return `${p} put their ${e.side} on ${e.space}${e.moved_from ? ` (moved from ${e.moved_from})` : ""}`;
      case "die_released": return `${p ? `${p} pushed` : "Someone pushed"} the pyramid: a die is out`;
      case "die_read": {
        const i = log.indexOf(e);
        const colour = e.colour || e.camel || e.die;   // the second edition names die and camel
        const move = log.slice(i + 1, i + 4).find((x) => x.type === "camel_moved" && (x.colour || x.camel) === colour);
        let text = e.die === "grey" ? `The grey die showed ${e.camel} ${e.face}` : `${Cap(colour)} rolled ${e.face}`;
        if (move) {
          const unit = move.unit && move.unit.length ? move.unit : [colour];
          const many = unit.length > 1;
          // past space 16 forward, or (second edition's crazy camels) back past space 1
          const where = move.to > 16 ? `${many ? "cross" : "crosses"} the finish line`
            : move.to < 1 ? `${many ? "cross" : "crosses"} the finish line backward`
              : `${many ? "move" : "moves"} to ${move.to}`;
          text += `: ${unit.join(" and ")} ${where}`;
          const tile = move.desert || move.spectator;
          if (tile) text += ` (${tile.owner || "a"}'s ${tile.side || "tile"}${move.under ? ", under the stack" : ""})`;
          else if (move.under) text += " (under the stack)";
        }
        return p ? `${text} — ${p}'s pyramid ${e.die ? "ticket" : "tile"}` : text;   // e.die: 2nd edition
      }
      case "camel_moved": return null;   // told with its die
      case "leg_scored": {
        const ch = Object.entries(e.changes || {}).sort((a, b) => b[1] - a[1]).map(([n, d]) => `${n} ${signed(d)}`);
        return `Leg ${e.leg} over: ${ch.join(", ")} (${e.first} first, ${e.second} second)`;
      }
      case "overall_bet_placed":
        return `${p} bet on ${PILE_WORDS[e.pile] || e.pile}${e.colour ? `: ${e.colour}` : ""}`;
      case "bet_pending": return `${p} is choosing a card for ${PILE_WORDS[e.pile] || e.pile} on their own phone`;
      case "prompt_dismissed": return "A question was closed without a move";
      case "vision_uncertain": {
        const r = e.reading || {};
        return `The camera was unsure of a die${r.colour ? ` (it read ${r.colour} ${r.face || "?"})` : ""}: a person checks it`;
      }
      case "correction":
        return e.changed ? `The die was corrected to ${e.colour} ${e.face}${e.by && e.by !== "table" ? ` by ${e.by}` : ""}` : `The die was confirmed: ${e.colour} ${e.face}${e.by && e.by !== "table" ? ` by ${e.by}` : ""}`;
      case "undo": {
        const first = (e.undone || []).map((q) => log.find((x) => x.seq === q)).find((x) => x && describe(x, log));
        return `Taken back${e.by && e.by !== "table" ? ` by ${e.by}` : ""}: ${first ? describe(first, log) : e.action || "the last move"}`;
      }
      case "track_mismatch": return afterGameOver(e) ? null : `The camera sees the track differently: ${(e.differences || []).join("; ")}`;
      case "action_refused": return `${p ? `${p}: ` : ""}not allowed — ${e.error || e.reason}`;
      case "game_over": {
        const money = Object.entries(e.money || {}).sort((a, b) => b[1] - a[1]);
        const who = (e.winners || []).join(" & ");
        if (e.winner && e.loser) return `Game over: ${e.winner} won the race, ${e.loser} came last. ${who} win${(e.winners || []).length > 1 ? "" : "s"} with ${money.length ? money[0][1] : "?"} coins.`;
        return `Game over: ${who} won`;
      }
      case "game_abandoned": return "The game was ended unfinished";
      case "link_released": return `The table released ${p}'s link: the next phone to open it shows ${p}'s cards`;
      // the horse race
      case "bet_placed": return `${p} bet a token on ${e.horse}${e.tokens_left !== undefined ? ` (${e.tokens_left} left)` : ""}`;
      case "bet_passed": return `${p} passed`;
      case "die_rolled": return `${p} rolled a ${e.face}`;
      case "horse_moved": return `${p} gave the ${e.face} to ${e.horse}: ${e.horse} moves to ${e.to}${e.place ? ` and finishes ${e.place === 1 ? "first" : e.place === 2 ? "second" : e.place === 3 ? "third" : `#${e.place}`}` : ""}`;
      case "race_started": return `Race ${e.race} starts: ${e.first_player} first`;
      case "round_started": return e.race !== undefined ? null : `Round ${e.round} starts`;
      case "race_scored": return `Race ${e.race} over: ${(e.podium || []).join(", ")}; ${Object.entries(e.changes || {}).map(([n, d]) => `${n} ${signed(d)}`).join(", ")}`;
      // Marco Polo II
      case "dice_read": return `${p}'s dice: ${(e.faces || []).join(" ")}${(e.black || []).length ? ` + black ${e.black.join(" ")}` : ""} (total ${e.total}${e.owed ? `, ${e.owed} owed` : ""})`;
      case "compensation_taken": return `${p} took ${e.coins} coin${e.coins === 1 ? "" : "s"} and ${e.camels} camel${e.camels === 1 ? "" : "s"}`;
      case "sheet_entered": return `${p}'s score sheet is in`;
      default: {
        // the horse race and Marco Polo II: their own words when they give them, else the fields
        const mod = gameMod(S.view);
        if (mod && mod.describe) { const t = mod.describe(e); if (t !== undefined) return t; }
        const fields = Object.entries(e).filter(([k, v]) => !["type", "event_type", "seq", "ts", "table", "game_id", "player", "batch_end"].includes(k)
          && v !== null && typeof v !== "object").map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`);
        return `${p ? `${p}: ` : ""}${e.type.replace(/_/g, " ")}${fields.length ? ` (${fields.join(", ")})` : ""}`;
      }
    }
  }

  function renderFeed() {
    const box = $("feed");
    box.replaceChildren();
    const undone = undoneSeqs();
    const items = [];
    for (const e of S.log) {
      const text = describe(e, S.log);
      if (text) items.push([e, text]);
    }
    for (const [e, text] of items.slice(-60).reverse()) {
      box.append(el("li", { class: `${e.type}${undone.has(e.seq) ? " undone" : ""}`, dataset: { seq: e.seq, type: e.type } },
        el("span", { class: "what" }, text), undone.has(e.seq) ? el("span", { class: "pill" }, "taken back") : null));
    }
    if (!items.length) box.append(el("li", { class: "muted empty" }, "Nothing yet."));
  }

  /** The move an undo would take back now, in words (null: nothing to undo). */
  function lastUndoable() {
    const log = activeLog();
    // the start is no move: the game's opening events (Marco Polo II's round 1, the horse
    // race's first race and round) come with no player right after game_started
    let start = log.findIndex((e) => e.type === "game_started");
    while (start >= 0 && start + 1 < log.length && !log[start + 1].player) start++;
    for (let i = log.length - 1; i > start; i--) {
      const e = log[i];
      if (e.type === "game_started") return null;
      if (ACTION_TYPES.has(e.type) || (e.player && !["die_released", "vision_uncertain", "action_refused", "camel_moved", "undo"].includes(e.type))) {
        const text = describe(e, S.log);
        if (text) return { e, text };
      }
    }
    return null;
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
    // over, the board says so and names the winning camel (as the second edition's card does),
    // not the leg the race ended in
    $("leg-label").textContent = !v ? "" : v.finished
      ? `· race over${v.result && v.result.winner ? ` · ${v.result.winner} camel won` : ""}` : `leg ${v.leg}`;
  }

  /* The board: the 16 spaces as the outer ring of a 5 x 5 grid round the pyramid, as on the real
   * board. Space 1 is the bottom-right corner; the race runs clockwise (left along the bottom, up,
   * right along the top, down) and the finish line lies between space 16 and space 1. */
  const RING = [null, [5, 5], [5, 4], [5, 3], [5, 2], [5, 1], [4, 1], [3, 1], [2, 1], [1, 1],
    [1, 2], [1, 3], [1, 4], [1, 5], [2, 5], [3, 5], [4, 5]];

  function renderTrack() {
    const box = $("track");
    // where each camel was drawn, so the moving stack can glide to its new space
    const before = new Map();
    for (const n of box.querySelectorAll(".camel[data-colour]")) before.set(n.dataset.colour, n.getBoundingClientRect());
    box.replaceChildren();
    box.classList.add("ring");
    const v = S.view;
    const track = (v && v.track) || {};
    const desert = (v && v.desert) || {};
    const beyond = [];
    for (const [space, stack] of Object.entries(track)) if (+space > 16) beyond.push([+space, stack]);
    for (let s = 1; s <= 16; s++) {
      const stack = track[String(s)] || [];
      const d = desert[String(s)];
      const cell = el("div", { class: "space" + (d ? ` desert ${d.side}` : "") + (s === 1 ? " first" : ""),
        dataset: { space: s }, "aria-label": `space ${s}${stack.length ? `: ${stack.join(" under ")}` : ""}${d ? `, ${d.owner}'s ${d.side}` : ""}` },
        el("span", { class: "num" }, s),
        d ? el("span", { class: `tile ${d.side}`, title: `${d.owner}'s ${d.side} (${d.side === "oasis" ? "+1: camels landing here move on one" : "−1: camels landing here step back one"})` },
          el("b", {}, d.side === "oasis" ? "+1" : "−1"), el("small", {}, d.owner)) : null,
        el("div", { class: "stack" }, stack.map((c, i) => camel(c, i === stack.length - 1 && stack.length > 1 ? "top" : ""))));
      cell.style.gridRow = String(RING[s][0]);
      cell.style.gridColumn = String(RING[s][1]);
      box.append(cell);
    }
    beyond.sort((a, b) => a[0] - b[0]);
    const centre = el("div", { class: "centre" },
      el("div", { class: "pyramid-mark", "aria-hidden": "true" }),
      el("div", { class: "leg-big" }, v ? (v.finished ? "Race over" : `Leg ${v.leg}`) : ""),
      v && !v.finished ? el("div", { class: "muted small" }, `${(v.dice_left || []).length} ${(v.dice_left || []).length === 1 ? "die" : "dice"} in the pyramid`) : null,
      el("div", { class: "space finish", dataset: { space: "finish" } },
        el("span", { class: "num" }, "past the finish"),
        el("div", { class: "stack" }, beyond.flatMap(([, st]) => st.map((c) => camel(c))))));
    box.append(centre);
    // the moving stack glides from where it was (not on the first drawing, nor when asked not to)
    if (!before.size || !S.live || matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    for (const n of box.querySelectorAll(".camel[data-colour]")) {
      const old = before.get(n.dataset.colour);
      if (!old || !n.animate) continue;
      const now = n.getBoundingClientRect();
      const dx = old.left - now.left, dy = old.top - now.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      n.classList.add("moving");
      n.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
        { duration: 650, easing: "cubic-bezier(.3,.7,.3,1)" }).finished.then(() => n.classList.remove("moving"), () => {});
    }
  }

  /** The last leg's tally (the one the finish scored, once the race is over), or null. */
  const lastTally = () => activeLog().filter((e) => e.type === "leg_scored").pop() || null;

  function renderDice() {
    const box = $("dice");
    box.replaceChildren();
    const v = S.view;
    $("dice-label").textContent = v && v.finished ? "· race over" : "";
    if (!v) return;
    const rolledDice = (v.dice_rolled || []).map((d) => el("span", { class: `die rolled c-${d.colour}`,
      title: `${d.colour} ${d.face}${d.player ? " by " + d.player : ""}`, dataset: { colour: d.colour, face: d.face } },
      d.face, el("span", { class: "letter" }, camelInfo(d.colour).letter)));
    if (v.finished) {
      // over, no die is left to roll and no tile to take: the dice still "in the pyramid" and
      // the tiles "left" were the last leg's, which read as if the game went on
      const t = lastTally();
      const paid = t ? Object.entries(t.pyramid_tiles || {}).filter(([, n]) => n > 0) : [];
      box.append(el("p", { class: "over-note" }, "The race is over: no more dice to roll."),
        el("div", { class: "dice-rolled" }, el("span", { class: "muted" }, "the last leg's dice "), rolledDice),
        el("p", { class: "muted small", id: "pyramid-paid" }, paid.length
          ? `Pyramid tiles paid at the finish: ${paid.map(([p, n]) => `${p} ${signed(n)} (${n} tile${n === 1 ? "" : "s"})`).join(", ")}.`
          : "No pyramid tile was held at the finish."));
      return;
    }
    const left = el("div", { class: "dice-left" }, el("span", { class: "muted" }, "in the pyramid "),
      (v.dice_left || []).map((c) => el("span", { class: `die c-${c}`, title: `${c}: not rolled`, dataset: { colour: c } }, camelInfo(c).letter)));
    const rolled = el("div", { class: "dice-rolled" }, el("span", { class: "muted" }, "rolled "), rolledDice);
    box.append(left, rolled,
      el("div", { class: "muted small" }, `${v.pyramid_tiles_left ?? "?"} pyramid tile${v.pyramid_tiles_left === 1 ? "" : "s"} left`));
  }

  function legalOf(prefix) { return S.legal.filter((a) => a.startsWith(prefix)); }

  function actionButton(label, action, extra) {
    return el("button", { type: "button", class: `act ${extra || ""}`, dataset: { action },
      onclick: () => doAction(action) }, label);
  }

  async function doAction(action) {
    const refusals = showMessage.refusals || 0;
    const res = await post(`${ROOT}api/action`, { action });
    // a later tap's refusal, answered first, is not covered by this tap's news; the action's
    // own code ("spectator:4:booing") is for the hub, not for people: the feed says it in words
    if (res && (showMessage.refusals || 0) === refusals) showMessage(res.message || "Done.", "info");
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
    if (S.auth.role === "table") box.append(undoRow());
  }

  /** Undo names what it takes back and asks once more before it does (every game's: the other
   * games' cards draw it with ui.undoRow, where a bare "Undo last action" took back a move
   * on one tap without saying which). */
  function undoRow() {
    const row = el("div", { class: "row undo-row", id: "undo-row" });
    const last = lastUndoable();
    if (!last) return row;
    const ask = el("button", { type: "button", class: "act warn", id: "undo", onclick: () => {
      row.replaceChildren(el("span", { class: "confirm-text" }, `Take back “${last.text}”?`),
        el("button", { type: "button", class: "act warn", id: "undo-yes", onclick: async () => {
          if (await post(`${ROOT}api/undo`, {})) showMessage(`Taken back: ${last.text}.`, "info");
        } }, "Yes, take it back"),
        el("button", { type: "button", class: "act", id: "undo-no", onclick: () => row.replaceWith(undoRow()) }, "No"));
    } }, `↶ Undo: ${last.text}`);
    row.append(ask);
    return row;
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

  /** Each player's money when this leg began (the last leg's tally, or the start). */
  function legStartMoney() {
    const start = S.log.find((e) => e.type === "game_started");
    const players = (S.view && S.view.players) || [];
    let base = start && start.money ? start.money : Object.fromEntries(players.map((p) => [p, (start && start.starting_money) ?? 3]));
    for (const e of activeLog()) if (e.type === "leg_scored" && e.money) base = e.money;
    return base;
  }

  /** The scoreboard: ranked by money, each player's change this leg, the player to move marked. */
  function renderPlayers() {
    const box = $("players");
    box.replaceChildren();
    const v = S.view;
    if (!v) return;
    const overall = v.overall || {};
    const cards = (name, pile) => (overall[pile] || []).filter((b) => b.player === name);
    const base = legStartMoney();
    const ranked = v.players.map((name, seat) => ({ name, seat, money: ((v.holdings || {})[name] || {}).money ?? 0 }))
      .sort((a, b) => b.money - a.money || a.seat - b.seat);
    const table = el("table", { class: "players" },
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "player"), el("th", {}, "coins"),
        // once the race is over the last leg is scored (legStartMoney) and what is left of the
        // change is the overall bets turned over: so it is called (it said "this leg")
        v.finished ? el("th", { title: "coins won or lost on the overall bets, turned over at the end" }, "overall bets")
          : el("th", { title: "coins won or lost since this leg began" }, "this leg"), el("th", {}, "holding"))));
    const tb = el("tbody");
    let rank = 0, prev = null;
    ranked.forEach((r, i) => {
      if (r.money !== prev) { rank = i + 1; prev = r.money; }
      const name = r.name;
      const h = (v.holdings || {})[name] || {};
      const isMe = v.me === name;
      const delta = (h.money ?? 0) - (base[name] ?? h.money ?? 0);
      const bets = ["winner", "loser"].map((p) => {
        const mine = cards(name, p);
        if (!mine.length) return null;
        const colours = isMe ? (v.my_bets || []).filter((b) => b.pile === p).map((b) => b.colour)
          : mine.filter((b) => b.colour).map((b) => b.colour);
        return el("span", { class: "pill", dataset: { pile: p }, title: `cards on ${PILE_WORDS[p]}` },
          `${p} bet${mine.length > 1 ? ` ×${mine.length}` : ""}`, colours.map((c) => card(c)));
      });
      const raceCards = isMe ? v.race_cards : h.race_cards;
      const toMove = name === v.current_player && !v.finished;
      tb.append(el("tr", { class: toMove ? "to-move" : "", dataset: { player: name, rank } },
        el("td", { class: "rank" }, rank),
        el("td", { class: "name" }, toMove ? el("span", { class: "to-move-mark", "aria-label": "to move" }, "▶ ") : null, name,
          isMe ? el("span", { class: "pill you" }, "you") : null,
          S.auth.role === "table" && S.mode === "table"
            ? el("button", { type: "button", class: "tiny qr-btn", title: `${name}'s own link`, "aria-label": `${name}'s own link (QR code)`,
              onclick: () => showQr(name) }, "QR") : null),
        el("td", { class: "money", dataset: { money: h.money } }, h.money ?? ""),
        el("td", { class: `delta ${delta > 0 ? "up" : delta < 0 ? "down" : ""}` }, signed(delta)),
        el("td", { class: "small" },
          (h.leg_tiles || []).map((t) => ticket(t.colour, t.value)),
          h.pyramid_tiles ? el("span", { class: "pill", title: "pyramid tiles: 1 coin each at the leg's end" }, `pyramid ×${h.pyramid_tiles}`) : null,
          h.desert ? el("span", { class: `pill ${h.desert.side}` }, `${h.desert.side} on ${h.desert.space}`) : null,
          bets,
          raceCards ? el("span", { class: "pill my-cards" }, "cards ", raceCards.map((c) => card(c))) : null)));
    });
    table.append(tb);
    box.append(table);
  }

  // ---------------------------------------------------------------- whose turn
  let cuedFor = null;
  /** The player to move in large letters; on a player's own link, a cue when their turn comes. */
  function renderTurn() {
    const v = S.view;
    const box = $("turn");
    const card = $("turn-card");
    const me = S.mode === "player" ? S.auth.player : null;
    card.hidden = !v || S.mode === "archive" || (!v.current_player && !v.finished);
    if (!v) { document.title = "Camel Pyramid"; return; }
    let big, small = "";
    const current = v.current_player;
    const mine = !!me && current === me && !v.finished;
    if (v.finished) {
      const w = (v.result && v.result.winners) || [];
      big = w.length ? `${w.join(" & ")} win${w.length > 1 ? "" : "s"}!` : "Game over";
      small = "The game is over.";
    } else if (mine) {
      big = "Your turn!"; small = `You are ${me}.`;
    } else if (current) {
      big = `${current}’s turn`; small = me ? `You are ${me}: wait for your turn.` : "";
    } else {
      big = gameMod(v) ? gameMod(v).status(v) : ""; small = "";
    }
    card.classList.toggle("mine", mine);
    body.dataset.yourTurn = mine ? "1" : "";
    box.replaceChildren(el("div", { class: "turn-big", id: "turn-name" }, big));
    if (small) box.append(el("div", { class: "muted" }, small));
    if (me) box.append(el("button", { type: "button", class: "small sound-toggle", id: "sound-toggle",
      "aria-pressed": String(soundOn()), onclick: () => { localStorage.setItem("pyramid.sound", soundOn() ? "off" : "on"); memoKeys.turn = null; renderTurn(); if (soundOn()) beep(); } },
      soundOn() ? "Sound: on" : "Sound: off"));
    document.title = mine ? "▶ Your turn · Camel Pyramid" : v.finished ? "Game over · Camel Pyramid" : current ? `${current} to move · Camel Pyramid` : "Camel Pyramid";
    const key = mine ? `${S.liveGameId}/${S.viewSeq}` : null;
    if (mine && cuedFor === null) {   // the turn has just come: cue once
      try { if (navigator.vibrate) navigator.vibrate([180, 90, 180]); } catch (e) { /* not allowed here */ }
      if (soundOn()) beep();
      window.pyramid.cues = (window.pyramid.cues || 0) + 1;
    }
    cuedFor = key;
  }
  const soundOn = () => localStorage.getItem("pyramid.sound") === "on";
  let audio = null;
  function beep() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const o = audio.createOscillator(), g = audio.createGain();
      o.frequency.value = 660; g.gain.value = 0.08;
      o.connect(g); g.connect(audio.destination);
      o.start(); o.stop(audio.currentTime + 0.18);
    } catch (e) { /* no sound on this device */ }
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
    $("legbets-label").textContent = v && v.finished ? "· race over" : "";
    box.classList.toggle("over", !!(v && v.finished));
    if (!v) return;
    if (v.finished) {
      // the piles left on the board were the last leg's: over, what counts is what they paid
      const t = lastTally();
      if (!t) { box.append(el("p", { class: "over-note" }, "The race is over.")); return; }
      box.append(el("p", { class: "over-note" }, `The race is over. Leg ${t.leg}, the last, was paid at the finish: `,
          camel(t.first), ` ${t.first} first, `, camel(t.second), ` ${t.second} second.`),
        el("table", { class: "paid", id: "legbets-paid" },
          el("thead", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "held"), el("th", {}, "paid"))),
          el("tbody", {}, tallyRows(t, false))));
      return;
    }
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
    box.append(el("p", { class: "muted small explain" }, "Leg 1st / 2nd: the chance the camel is first or second when this leg ends (what leg tiles pay for). ",
      "Wins / last: the chance it wins or comes last in the whole race (what overall bets pay for)."));
    renderAdvice();
  }

  /** An advised action in words: "Take the yellow leg tile". Both editions' notations: the
   * second edition's tickets, spectator tiles and partnerships have words of their own. */
  function actionWords(action) {
    const [kind, a, b] = String(action).split(":");
    const second = (S.view || {}).game === "camelup2";
    if (kind === "leg") return `Take the ${a} leg ${second ? "ticket" : "tile"}`;
    if (kind === "roll") return a ? `Enter the die ${a} ${b}` : `Take a pyramid ${second ? "ticket" : "tile"} (a die is released)`;
    if (kind === "desert") return `Put your ${b} on space ${a}`;
    if (kind === "spectator") return `Put your spectator tile on space ${a}, ${b} side up`;
    if (kind === "partner") return `Go into partnership with ${a}`;
    if (kind === "bet") return b ? `Bet ${b} as ${PILE_WORDS[a] || a}` : `Bet on ${PILE_WORDS[a] || a}`;
    return String(action);
  }
  const coins = (x) => `${x >= 0 ? "+" : "−"}${Math.abs(Number(x)).toFixed(1)} coin${Math.abs(Number(x)).toFixed(1) === "1.0" ? "" : "s"}`;
  const adviceShown = () => localStorage.getItem("pyramid.advice") === "on";

  /** The advice in words, for either edition's card: on a player's own link (their own turn)
   * always; on the shared screen only when the table turns it on (everyone sees it there).
   * Each move says what it is worth and, underneath, why, in the advisor's own sentence. */
  function adviceParts() {
    const out = [];
    const a = S.advice;
    const own = S.mode === "player";
    if (!own && S.mode === "table") {
      out.push(el("button", { type: "button", class: "small", id: "advice-toggle", "aria-pressed": String(adviceShown()),
        onclick: () => { localStorage.setItem("pyramid.advice", adviceShown() ? "off" : "on"); memoKeys.odds = null; memoKeys.game = null; render(); } },
        adviceShown() ? "Hide advice on this screen" : "Show advice on this screen"));
      if (!adviceShown()) return out;
    }
    if (own && !(a && a.player === S.auth.player)) {
      out.push(el("p", { class: "muted small" }, "Advice for you appears here on your turn."));
      return out;
    }
    if (a && a.actions && a.actions.length) {
      out.push(el("h3", {}, own ? "Best moves for you" : `Best moves for ${a.player}`));
      const list = el("ol", { class: "advice-list" });
      for (const item of a.actions.slice(0, 4)) {
        list.append(el("li", { dataset: { action: item.action } },
          el("span", { class: "advice-what" }, actionWords(item.action)),
          el("span", { class: "ev" }, `: worth about ${coins(item.expected)}`),
          canAct() && S.legal.includes(item.action) ? el("button", { type: "button", class: "tiny",
            onclick: () => doAction(item.action) }, "do it") : null,
          item.why ? el("span", { class: "advice-why muted small" }, item.why) : null));
      }
      out.push(list, el("p", { class: "muted small" }, "“Worth” is what the move adds to your coins on average, by the exact odds."));
    }
    return out;
  }

  function renderAdvice() {
    $("advice").replaceChildren(...adviceParts());
  }

  const cropUrl = (cropId) => `${ROOT}api/crops/${encodeURIComponent(cropId)}`;

  /** What the camera had read of a die a person corrected: "camera read blue 2", or that it
   * read nothing sure (a reading without colour or face said "camera read null null"). */
  const cameraRead = (r) => {
    if (!r || (!r.colour && !r.face)) return "the camera read nothing sure";
    return `camera read ${r.colour || "?"} ${r.face || "?"}`;
  };

  /** One row per die: the die as played, with the camera's crop (tap to enlarge) and, when a
   * person checked it, who and what the camera had read. */
  function renderDiceLog() {
    const box = $("dicelog");
    box.replaceChildren();
    const undone = undoneSeqs();
    let leg = 1;
    const legOf = new Map();
    for (const e of S.log) { legOf.set(e.seq, leg); if (e.type === "leg_scored" && !undone.has(e.seq)) leg++; }
    const rows = [];
    let doubt = null, fix = null;
    for (const e of S.log) {
      if (e.type === "vision_uncertain") doubt = e;
      else if (e.type === "correction") fix = e;
      else if (e.type === "die_read") { rows.push({ e, doubt, fix }); doubt = null; fix = null; }
      else if (e.type === "track_mismatch" && !afterGameOver(e)) rows.push({ e });
    }
    if (doubt) rows.push({ e: doubt });   // waiting for a person
    for (const { e, doubt: d, fix: f } of rows.slice().reverse()) {
      let text, cls = e.type;
      const crop = e.crop || (d && d.crop);
      if (e.type === "die_read") {
        text = [chip(e.colour, e.face), ` ${Cap(e.colour)} ${e.face}`, e.player ? ` · ${e.player}` : "",
          f ? el("span", { class: "pill" }, f.changed ? `corrected${f.by && f.by !== "table" ? ` by ${f.by}` : " at the table"} (${cameraRead(f.read)})` : `checked${f.by && f.by !== "table" ? ` by ${f.by}` : " at the table"}`)
            : e.source === "confirmed" ? el("span", { class: "pill" }, "checked")
            : e.confidence !== undefined && e.confidence !== null ? el("span", { class: "muted small" }, ` camera ${pct(e.confidence)} sure`) : null];
      } else if (e.type === "vision_uncertain") {
        const r = e.reading || {};
        text = [`Unsure: the camera read ${r.colour || "?"} ${r.face || "?"}; waiting for a person`];
      } else {
        text = ["Track differs: ", (e.differences || []).join("; ")];
      }
      if (undone.has(e.seq)) { cls += " undone"; text = [...text, el("span", { class: "pill" }, "taken back")]; }
      box.append(el("li", { class: cls, dataset: { seq: e.seq, type: e.type } },
        crop ? el("button", { type: "button", class: "crop-btn", "aria-label": "enlarge the camera's photo of the die",
          onclick: () => enlarge(cropUrl(crop)) },
          el("img", { src: cropUrl(crop), alt: "the camera's photo of the die", loading: "lazy", width: 96, height: 96 })) : null,
        el("span", { class: "what" }, text), el("span", { class: "muted small when" }, `leg ${legOf.get(e.seq)}`)));
    }
    if (!rows.length) box.append(el("li", { class: "muted empty" }, "No die released yet."));
  }

  function enlarge(src) {
    $("photo-image").src = src;
    $("photo-dialog").showModal();
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

  /* The hub's problems say "confidence 0.35 is below 0.80" (for the log and MQTT); a player
   * reads one sentence with one number format: the same in percent, in words. */
  const LOW_CONFIDENCE = /confidence (unknown|\d*\.?\d+) is below (\d*\.?\d+)/;
  /** ``problems`` split into the camera's low confidence ({conf, need}, or null) and the rest,
   * any other mention of a confidence in percent. */
  function plainProblems(problems) {
    let low = null;
    const rest = [];
    for (const text of problems || []) {
      const m = LOW_CONFIDENCE.exec(text);
      if (m && !low && m.index === 0) { low = { conf: m[1] === "unknown" ? null : +m[1], need: +m[2] }; continue; }
      rest.push(plainProblem(text));
    }
    return { low, rest };
  }
  /** One problem with any confidence in it said in percent, in words. */
  const plainProblem = (text) => String(text).replace(LOW_CONFIDENCE, (_, c, n) => c === "unknown"
    ? `the camera gave no confidence (under ${pct(+n)} a person checks)`
    : `the camera is only ${pct(+c)} sure (under ${pct(+n)} a person checks)`);
  /** "The camera read blue 1, but it is only 35% sure (under 80% a person checks)": what the
   * camera read and how sure it was, in one sentence (``what``: "blue 1" or "nothing sure"). */
  function readSentence(what, confidence, problems) {
    const { low, rest } = plainProblems(problems);
    const conf = low && low.conf !== null ? low.conf : confidence;
    let text = `The camera read ${what}`;
    if (low && conf !== undefined && conf !== null) text += `, but it is only ${pct(conf)} sure (under ${pct(low.need)} a person checks)`;
    else if (low) text += `, but gave no confidence (under ${pct(low.need)} a person checks)`;
    else if (conf !== undefined && conf !== null) text += ` (${pct(conf)} sure)`;
    return { text: `${text}.`, rest };
  }

  function diePrompt(p) {
    const r = p.reading || {};
    const guess = r.colour && r.face ? `${r.colour} ${r.face}` : "nothing sure";
    const table = S.auth.role === "table";
    const colours = (p.expected_colours && p.expected_colours.length) ? p.expected_colours : (S.view ? S.view.dice_left : []);
    const said = readSentence(guess, r.confidence, p.problems);
    return el("div", { class: "prompt", dataset: { prompt: p.id } },
      p.crop ? el("button", { type: "button", class: "crop-btn", "aria-label": "enlarge the camera's photo of the die", onclick: () => enlarge(cropUrl(p.crop)) },
        el("img", { src: cropUrl(p.crop), alt: "the camera's photo of the die", class: "crop" })) : null,
      el("div", { class: "prompt-body" },
        el("p", { class: "read" }, said.text, " What does the die show?"),
        said.rest.length ? el("p", { class: "muted small" }, said.rest.join("; ")) : null,
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

  /** A leg's tally, one row per player: the tiles held, the change (and the coins after). */
  function tallyRows(t, withCoins) {
    return Object.keys(t.money || {}).map((p) => {
      const d = (t.changes || {})[p] || 0;
      const held = [...((t.tiles || {})[p] || []).map((x) => ticket(x.colour, x.value)),
        (t.pyramid_tiles || {})[p] ? el("span", { class: "pill" }, `pyramid ×${t.pyramid_tiles[p]}`) : null].filter(Boolean);
      return el("tr", { dataset: { player: p } }, el("td", {}, p),
        el("td", {}, held.length ? held : el("span", { class: "muted" }, "nothing")),
        el("td", { class: `change ${d > 0 ? "up" : d < 0 ? "down" : ""}` }, signed(d)),
        withCoins ? el("td", {}, t.money[p]) : null);
    });
  }

  function renderTallies() {
    const box = $("tallies");
    box.replaceChildren();
    const legs = activeLog().filter((e) => e.type === "leg_scored");
    if (!legs.length) { box.append(el("p", { class: "muted" }, "No leg scored yet.")); return; }
    for (const t of legs.slice().reverse()) {
      const rows = tallyRows(t, true);
      box.append(el("div", { class: "tally", dataset: { leg: t.leg } },
        el("h3", {}, `Leg ${t.leg}: `, camel(t.first), ` ${t.first} first, `, camel(t.second), ` ${t.second} second`),
        el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "tiles"), el("th", {}, "change"), el("th", {}, "coins"))),
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

  /* Players' colours that no camel has (no blue, green, orange, yellow, white), each with its own
   * dash pattern too, so the lines are told apart without colour. */
  const LINE_COLOURS = ["#8e24aa", "#c2185b", "#5d4037", "#37474f", "#b71c1c", "#00695c", "#6a1b9a", "#3e2723"];
  const LINE_DASHES = ["", "6 3", "2 3", "8 3 2 3", "4 4", "1 2", "10 4", "3 6"];
  const niceStep = (max) => [1, 2, 5, 10, 20, 25, 50, 100].find((s) => max / s <= 5) || 100;

  function renderChart() {
    const box = $("chart");
    box.replaceChildren();
    const series = moneySeries();
    if (!series) return;
    const { players, points } = series;
    const W = 360, H = 180, L = 30, R = 8, T = 10, B = 24;
    const top = Math.max(5, ...points.flatMap((p) => players.map((n) => p.money[n] || 0)));
    const max = Math.ceil(top / niceStep(top)) * niceStep(top);
    const x = (i) => L + (points.length === 1 ? 0 : (i * (W - L - R)) / (points.length - 1));
    const y = (m) => T + (H - T - B) * (1 - m / max);
    const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "money-chart", role: "img", "aria-label": "money over time" });
    for (let m = 0; m <= max; m += niceStep(max)) {
      g.append(svg("line", { x1: L, x2: W - R, y1: y(m), y2: y(m), class: "grid" }),
        svg("text", { x: L - 4, y: y(m) + 4, class: "axis", "text-anchor": "end" }, m));
    }
    points.forEach((p, i) => g.append(svg("text", { x: x(i), y: H - 6, class: "axis", "text-anchor": "middle" }, p.label)));
    players.forEach((name, k) => {
      const colour = LINE_COLOURS[k % LINE_COLOURS.length];
      const off = (k - (players.length - 1) / 2) * 1.6;   // lines of equal money stay visible side by side
      const d = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${(y(p.money[name] || 0) + off).toFixed(1)}`).join(" ");
      g.append(svg("path", { d, class: "line", stroke: colour, "stroke-dasharray": LINE_DASHES[k % LINE_DASHES.length], "data-player": name }));
      points.forEach((p, i) => g.append(svg("circle", { cx: x(i), cy: y(p.money[name] || 0) + off, r: 3, fill: colour },
        svg("title", {}, `${name}: ${p.money[name]} coins (${p.label})`))));
    });
    box.append(g, el("div", { class: "legend" }, players.map((n, k) =>
      el("span", {}, svg("svg", { viewBox: "0 0 24 6", width: "24", height: "6", "aria-hidden": "true" },
        svg("line", { x1: 0, x2: 24, y1: 3, y2: 3, stroke: LINE_COLOURS[k % LINE_COLOURS.length], "stroke-width": 2.5,
          "stroke-dasharray": LINE_DASHES[k % LINE_DASHES.length] })), ` ${n}`))));
  }

  /** Places from scores (best first): equal scores share a place, unless ``tie`` (a
   * comparison of two names, e.g. Marco Polo II's most camels) still tells them apart. */
  function placesOf(scores, tie) {
    const order = Object.entries(scores || {}).sort((a, b) => b[1] - a[1] || (tie ? tie(a[0], b[0]) : 0));
    const places = [];
    order.forEach(([p, m], i) => {
      const prev = places[i - 1];
      const same = prev && prev.m === m && !(tie && tie(prev.p, p) !== 0);
      places.push({ p, m, place: same ? prev.place : i + 1 });
    });
    return places;
  }

  /** A podium (second, first, third: its shape) of ``places``; ``unit`` names the score. */
  const ordinal = (n) => `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;

  function podiumOf(places, unit) {
    const podium = el("div", { class: "podium", id: "podium", role: "list", "aria-label": "the podium" });
    for (const step of [2, 1, 3]) {
      const here = places.filter((x) => x.place === step);
      if (!here.length) continue;
      podium.append(el("div", { class: `step step-${step}`, dataset: { place: step }, role: "listitem" },
        el("div", { class: "who" }, here.map((x) => x.p).join(" & ")),
        el("div", { class: "coins" }, `${here[0].m} ${unit}`),
        el("div", { class: "block" }, step === 1 ? "1st" : step === 2 ? "2nd" : "3rd")));
    }
    const rest = places.filter((x) => x.place > 3);
    return [podium, rest.length ? el("p", { class: "muted podium-rest" }, rest.map((x) => `${ordinal(x.place)} ${x.p}, ${x.m} ${unit}`).join(" · ")) : null];
  }

  /** Turned over one by one: each item appears a little after the one before it. */
  function revealed(items, step) {
    // one card after another, but the whole turn-over within REVEAL_MAX_S: sixteen overall bets
    // at 0.6 s each kept a table waiting ten seconds (and the demo's next game came first)
    const pace = Math.min(step || 0.6, REVEAL_MAX_S / Math.max(items.length - 1, 1));
    items.forEach((node, k) => { node.classList.add("reveal"); node.style.animationDelay = `${pace * k}s`; });
    return items;
  }

  /** For the table at game over: the next game with the same players (and the same game and
   * settings), or the new-game dialog. Nothing starts by itself outside the demo. */
  function nextGameRow(settings) {
    if (!(S.mode === "table" && S.auth.role === "table")) return null;
    return el("div", { class: "row next-game" }, el("button", { type: "button", class: "act primary", id: "next-game",
      onclick: async () => {
        const players = (S.view && S.view.players) || [];
        const game = (S.view && S.view.game) || "camelup";
        const res = await post(`${ROOT}api/games`, game === "camelup" ? { players } : { players, game, ...(settings || {}) });
        if (res) { showMessage(`New game: ${players.join(", ")}`, "info"); loadGames(); }
      } }, "Next game, same players"),
      el("button", { type: "button", class: "act", onclick: openNewGame }, "New game…"));
  }

  /** Game over: a podium, the overall-bet piles turned over card by card with what each card
   * won or lost, and (for the table) the next game with the same players. The other games draw
   * their own game over with the same parts (ui.placesOf, ui.podiumOf, ui.revealed, ui.nextGameRow). */
  function renderResult() {
    const card = $("result-card"), box = $("result");
    box.replaceChildren();
    const r = S.view && S.view.finished && !gameMod(S.view) ? S.view.result : null;
    card.hidden = !r;
    if (r) box.append(...camelResult(r));
  }

  /** Camel Up's game over (either edition): the winners, the podium, the race, the piles. */
  function camelResult(r) {
    const out = [];
    const places = placesOf(r.money);
    const money = places.map((x) => [x.p, x.m]);
    out.push(...[
      el("p", { class: "winners" }, `${(r.winners || []).join(" & ")} win${(r.winners || []).length > 1 ? "" : "s"} with ${money.length ? money[0][1] : "?"} coins`),
      ...podiumOf(places, "coins"),
      el("p", { class: "race-result" }, "Race: ", camel(r.winner), ` ${r.winner} won, `, camel(r.loser), ` ${r.loser} came last`),
      el("table", { class: "final" }, el("thead", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "coins"))),
        el("tbody", {}, money.map(([p, m]) => el("tr", {}, el("td", {}, p), el("td", {}, m)))))].filter(Boolean));
    const overall = r.overall || [];
    if (overall.length) {
      const piles = el("div", { class: "piles" });
      const cards = [];
      for (const pile of ["winner", "loser"]) {
        const bets = overall.filter((b) => b.pile === pile);
        if (!bets.length) continue;
        const items = bets.map((b) => el("li", { class: `${b.correct ? "right" : "wrong"}`, dataset: { player: b.player } },
          el("span", { class: "who" }, b.player), " ", chip(b.colour, camelInfo(b.colour).letter), ` ${b.colour} `,
          el("b", { class: b.payout > 0 ? "up" : "down" }, `${b.correct ? "✔ right" : "✘ wrong"}, ${signed(b.payout)} coin${Math.abs(b.payout) === 1 ? "" : "s"}`)));
        cards.push(...items);
        piles.append(el("div", { class: "pile", dataset: { pile } },
          el("h3", {}, `Bets on ${PILE_WORDS[pile]} (`, camel(pile === "winner" ? r.winner : r.loser), ` ${pile === "winner" ? r.winner : r.loser}), turned over in the order placed`),
          el("ol", { class: "overall" }, items)));
      }
      revealed(cards);   // card by card, across both piles
      out.push(piles);
    }
    const next = nextGameRow();
    if (next) out.push(next);
    return out;
  }

  /** The shared screen shows a QR code of the table's address: a phone scans it to watch. */
  async function renderJoin() {
    const card = $("join-card");
    if (S.mode !== "table") { card.hidden = true; return; }
    try {
      const data = await getJSON(`${ROOT}api/join`);
      const box = $("join");
      box.replaceChildren();
      const qr = el("div", { class: "qr-join", role: "img", "aria-label": `QR code of ${data.url}` });
      qr.innerHTML = data.svg;   // segno's SVG, drawn by our own hub
      box.append(el("div", { class: "join" }, qr, el("p", {}, "Scan to watch on your phone: ",
        el("a", { href: data.url, class: "mono" }, data.url), el("br"),
        el("span", { class: "muted small" }, "Each player's own link (with their secrets and advice) is under Scores → QR."))));
      card.hidden = false;
    } catch (e) { card.hidden = true; }
  }

  function renderTools() {
    renderJoin();
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
  const ui = { S, el, chip, ticket, camel, pct, post, doAction, answer, showMessage, showQr, canAct, ROOT, legal: () => S.legal,
    placesOf, podiumOf, revealed, nextGameRow, camelResult, cropUrl, enlarge, adviceParts, readSentence, plainProblem, undoRow };
  window.pyramid.ui = ui;

  wire();
  render();
  loadGames();
  if (S.mode === "archive") loadArchive();
  else {
    {  // always ask: a table without a PIN lets everyone play
      getJSON(`${ROOT}api/whoami`).then((d) => { S.auth = d.auth; if (d.message) showMessage(d.message, "info"); render(); ownAdvice(); }).catch((e) => {
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
