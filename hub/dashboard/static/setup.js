/* The camera's guided set-up (/setup): a snapshot with the 16 spaces drawn where the system
   believes they are, four handles on the board's outer corners to drag until the overlay fits,
   then the camels' and the desert tiles' colours. Every step is the hub's (the same code as
   `pyramid calibrate`); this page only shows, drags and sends. A refused step shows the hub's
   sentence and changes nothing. */
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const ROOT = document.body.dataset.root || "/";
  // the table's camels, in the order the page asks for them on spaces 1, 2, ...: the desk's
  // board file says which (five on the first edition, seven on the second)
  let COLOURS = ["blue", "green", "orange", "yellow", "white"];
  const SVGNS = "http://www.w3.org/2000/svg";
  // the first-edition ring as [row, column] of a 5 x 5 grid, space 1 first (vision/board.py)
  const RING = [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [1, 4], [2, 4], [3, 4],
                [4, 4], [4, 3], [4, 2], [4, 1], [4, 0], [3, 0], [2, 0], [1, 0]];

  const S = {
    pin: localStorage.getItem("pyramid.pin") || "",
    snap: null,        // {snapshot, width, height, corners, cells}
    corners: null,     // the handles now: [[x, y] x 4] in the snapshot's pixels
    dragged: false,
    drag: -1,
    thicknessTouched: false,  // the person typed a thickness: a status answer keeps it
  };

  function headers() {
    const h = { "Content-Type": "application/json" };
    if (S.pin) h["X-Pyramid-Pin"] = S.pin;
    return h;
  }

  function say(text, kind) {
    const m = $("setup-message");
    m.textContent = text || "";
    m.hidden = !text;
    m.classList.toggle("info", kind === "info");
  }

  async function call(method, path, payload) {
    let r;
    try {
      r = await fetch(ROOT + path, { method, headers: headers(), cache: "no-store",
        body: method === "GET" ? undefined : JSON.stringify(payload || {}) });
    } catch (e) {
      return { ok: false, message: "The hub cannot be reached. Is it still running?" };
    }
    let data = {};
    try { data = await r.json(); } catch (e) { data = {}; }
    if (r.ok) return Object.assign({ ok: true }, data);
    if (r.status === 401 || data.error === "wrong_pin") {
      if (data.error === "wrong_pin") { S.pin = ""; localStorage.removeItem("pyramid.pin"); }
      $("pin-card").hidden = false;
    }
    return { ok: false, code: data.error, message: data.message || "The hub refused." };
  }

  function busy(button, on, text) {
    button.disabled = on;
    if (on) { button.dataset.label = button.textContent; button.textContent = text; }
    else if (button.dataset.label) button.textContent = button.dataset.label;
    document.body.dataset.busy = on ? "1" : "";
  }

  // -- the overlay ------------------------------------------------------------------------------
  // the homography taking the board's 5 x 5 grid (0..5, 0..5) onto the four corners
  function homography(c) {
    const src = [[0, 0], [5, 0], [5, 5], [0, 5]];
    const A = [], b = [];
    for (let i = 0; i < 4; i++) {
      const [x, y] = src[i], [u, v] = c[i];
      A.push([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.push(u);
      A.push([0, 0, 0, x, y, 1, -v * x, -v * y]); b.push(v);
    }
    for (let col = 0; col < 8; col++) {  // Gaussian elimination with partial pivoting
      let p = col;
      for (let r = col + 1; r < 8; r++) if (Math.abs(A[r][col]) > Math.abs(A[p][col])) p = r;
      [A[col], A[p]] = [A[p], A[col]]; [b[col], b[p]] = [b[p], b[col]];
      if (Math.abs(A[col][col]) < 1e-12) return null;
      for (let r = 0; r < 8; r++) {
        if (r === col) continue;
        const f = A[r][col] / A[col][col];
        for (let k = col; k < 8; k++) A[r][k] -= f * A[col][k];
        b[r] -= f * b[col];
      }
    }
    const h = b.map((v, i) => v / A[i][i]);
    return [[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1]];
  }

  function apply(H, x, y) {
    const w = H[2][0] * x + H[2][1] * y + H[2][2];
    return [(H[0][0] * x + H[0][1] * y + H[0][2]) / w, (H[1][0] * x + H[1][1] * y + H[1][2]) / w];
  }

  // the 16 spaces' outlines in the snapshot's pixels, space 1 first (what the hub's
  // track_cells gives for the same corners)
  function cells(corners) {
    const H = homography(corners);
    if (!H) return [];
    return RING.map(([r, q]) => [[q, r], [q + 1, r], [q + 1, r + 1], [q, r + 1]]
      .map(([x, y]) => apply(H, x, y)));
  }
  window.setupCells = cells;  // for the page's tests: the drawing follows this

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVGNS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }

  function draw() {
    const svg = $("overlay");
    svg.replaceChildren();
    if (!S.snap || !S.corners) return;
    // strokes, labels and handles keep their size on screen (a handle a fingertip can hold)
    const shown = svg.getBoundingClientRect().width || 640;
    const scale = S.snap.width / Math.max(200, shown);
    const g = el("g", { class: "spaces" }, svg);
    cells(S.corners).forEach((poly, i) => {
      el("polygon", { points: poly.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" "),
                      class: "space", "data-space": i + 1, "stroke-width": 1.5 * scale }, g);
      const mx = poly.reduce((a, p) => a + p[0], 0) / 4, my = poly.reduce((a, p) => a + p[1], 0) / 4;
      const t = el("text", { x: mx, y: my, class: "space-no", "font-size": 11 * scale,
                             "stroke-width": 2.5 * scale }, g);
      t.textContent = String(i + 1);
    });
    S.corners.forEach(([x, y], i) => {
      const h = el("g", { class: "handle", "data-corner": i }, svg);
      el("circle", { cx: x, cy: y, r: 12 * scale, "stroke-width": 2.5 * scale }, h);
      const t = el("text", { x: x, y: y, "font-size": 12 * scale }, h);
      t.textContent = String(i + 1);
    });
    document.body.dataset.overlay = S.corners.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" ");
  }

  function toImage(ev) {
    const svg = $("overlay");
    const r = svg.getBoundingClientRect();
    const x = (ev.clientX - r.left) * S.snap.width / r.width;
    const y = (ev.clientY - r.top) * S.snap.height / r.height;
    return [Math.max(0, Math.min(S.snap.width, x)), Math.max(0, Math.min(S.snap.height, y))];
  }

  function nearestCorner(p) {
    const reach = 40 * S.snap.width / $("overlay").getBoundingClientRect().width;  // ~40 css px
    let best = -1, bd = reach;
    S.corners.forEach((c, i) => {
      const d = Math.hypot(c[0] - p[0], c[1] - p[1]);
      if (d < bd) { bd = d; best = i; }
    });
    return best;
  }

  function wireDrag() {
    const svg = $("overlay");
    svg.addEventListener("pointerdown", (ev) => {
      if (!S.corners) return;
      const i = nearestCorner(toImage(ev));
      if (i < 0) return;
      S.drag = i;
      svg.setPointerCapture(ev.pointerId);
      ev.preventDefault();
    });
    svg.addEventListener("pointermove", (ev) => {
      if (S.drag < 0) return;
      S.corners[S.drag] = toImage(ev);
      S.dragged = true;
      draw();
    });
    const end = () => { S.drag = -1; };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
  }

  // a square in the middle of the picture, for a snapshot whose cards were not all seen
  function middleSquare(w, h) {
    const s = Math.min(w, h) * 0.3, cx = w / 2, cy = h / 2;
    return [[cx - s, cy - s], [cx + s, cy - s], [cx + s, cy + s], [cx - s, cy + s]];
  }

  // -- the steps --------------------------------------------------------------------------------
  async function snapshot() {
    const b = $("snap");
    busy(b, true, "Taking a snapshot…");
    document.body.dataset.state = "snapping";
    say("");
    const r = await call("POST", "api/table-setup/snapshot");
    busy(b, false);
    if (!r.ok) { say(r.message); return; }
    S.snap = r;
    $("shot").src = "data:image/jpeg;base64," + r.jpeg;
    $("overlay").setAttribute("viewBox", `0 0 ${r.width} ${r.height}`);
    $("stage").hidden = false;
    await new Promise((ok) => { if ($("shot").complete) ok(); else $("shot").onload = ok; });
    b.textContent = "Take another snapshot";
    if (r.refusal) {
      S.corners = null;
      $("fit").hidden = true;
      draw();
      say(r.refusal.error);
      document.body.dataset.state = "refused";
      return;
    }
    S.corners = r.corners.map((p) => p.slice());
    S.dragged = false;
    $("fit").hidden = false;
    draw();
    // the board saved before has moved against the cards: the track is not read until the
    // person places it again (the prompt stays until the board is saved)
    document.body.dataset.moved = r.moved ? "1" : "";
    if (r.moved) say(r.moved.error);
    document.body.dataset.state = "proposed";
  }

  async function saveBoard() {
    const b = $("save-board");
    busy(b, true, "Saving…");
    document.body.dataset.state = "saving";
    // to a tenth of a pixel, as document.body.dataset.overlay shows them
    const corners = S.corners.map((p) => p.map((v) => +v.toFixed(1)));
    const payload = { snapshot: S.snap.snapshot, corners: S.dragged ? corners : null };
    // the board's thickness as typed; an empty or unreadable field is sent as such and the
    // hub says why it is refused (a blank field would otherwise silently mean 2 mm)
    const thick = $("board-thickness").value.trim();
    payload.board_thickness = thick === "" ? "" : Number(thick);
    const r = await call("POST", "api/table-setup/track", payload);
    busy(b, false);
    if (!r.ok) { say(r.message); document.body.dataset.state = "refused"; return; }
    say(`The board is saved: spaces of ${r.cell_mm} mm, ${r.board_thickness_mm} mm thick.`, "info");
    document.body.dataset.moved = "";
    document.body.dataset.state = "saved";
    await status();
  }

  function swatch(name, chroma) {
    // a learnt colour is a white-balanced chromaticity (b, g, r shares): shown at full light
    const m = Math.max(...chroma);
    const srgb = chroma.map((v) => {
      const l = v / m;
      return Math.round(255 * (l <= 0.0031308 ? 12.92 * l : 1.055 * Math.pow(l, 1 / 2.4) - 0.055));
    });
    const d = document.createElement("div");
    d.className = "setup-swatch";
    d.dataset.colour = name;
    const chip = document.createElement("span");
    chip.className = "chip";
    chip.style.background = `rgb(${srgb[2]}, ${srgb[1]}, ${srgb[0]})`;
    d.append(chip, document.createTextNode(" " + name));
    return d;
  }

  async function learn(button, path, payload, into, key, done) {
    busy(button, true, "Looking…");
    say("");
    document.body.dataset.last = "";
    const r = await call("POST", path, payload);
    busy(button, false);
    document.body.dataset.last = `${key}:${r.ok ? "ok" : "refused"}`;
    if (!r.ok) { say(r.message); return; }
    $(into).replaceChildren(...Object.entries(r[key]).map(([k, v]) => swatch(k, v.chroma)));
    say(done, "info");
    await status();
  }

  async function status() {
    const r = await call("GET", "api/table-setup");
    if (!r.ok) {
      if (r.code !== "pin_required" && r.code !== "wrong_pin") say(r.message);
      return false;
    }
    $("pin-card").hidden = true;
    if (Array.isArray(r.colours) && r.colours.join() !== COLOURS.join()) {
      COLOURS = r.colours.slice();
      fillOrder();
    }
    const mark = (step, text) => {
      const li = document.querySelector(`#progress li[data-step='${step}'] .setup-done`);
      li.textContent = text || "not yet";
      li.classList.toggle("yes", !!text);
    };
    mark("board", r.board
      ? `placed, spaces of ${r.board.cell_mm} mm, ${r.board.thickness_mm} mm thick` : "");
    // a board placed again keeps the thickness it was saved with unless the person types another
    if (r.board && !S.thicknessTouched) $("board-thickness").value = String(r.board.thickness_mm);
    mark("camels", r.camels.length ? r.camels.join(", ") : "");
    mark("tiles", r.tiles.length ? r.tiles.join(", ") : "");
    document.body.dataset.ready = "1";
    return true;
  }

  function fillOrder() {
    const box = $("camel-order");
    box.replaceChildren();
    $("camel-count").textContent =
      { 5: "five", 7: "seven" }[COLOURS.length] || String(COLOURS.length);
    $("camel-last").textContent = String(COLOURS.length);
    COLOURS.forEach((c, i) => {
      const label = document.createElement("label");
      label.textContent = `space ${i + 1} `;
      const sel = document.createElement("select");
      sel.id = `camel-${i + 1}`;
      COLOURS.forEach((o) => sel.add(new Option(o, o, o === c, o === c)));
      label.appendChild(sel);
      box.appendChild(label);
    });
  }

  // "3: blue green" per line -> {"3": ["blue", "green"]}; the hub checks the rest and says
  // what is wrong in its own words
  function rollStacks(text) {
    const out = {};
    for (const line of text.split("\n")) {
      const m = line.trim().match(/^(\d+)\s*[:.]?\s*(.*)$/);
      if (m) out[m[1]] = m[2].trim().toLowerCase().split(/[\s,]+/).filter(Boolean);
    }
    return out;
  }

  function fillTiles() {
    for (const [id, dflt] of [["oasis-space", 8], ["mirage-space", 12]]) {
      for (let s = 1; s <= 16; s++) $(id).add(new Option(String(s), String(s), s === dflt, s === dflt));
    }
  }

  function init() {
    fillOrder();
    fillTiles();
    wireDrag();
    window.addEventListener("resize", draw);
    $("zoom").addEventListener("click", () => {
      const box = $("stage-scroll"), on = !box.classList.contains("zoomed");
      box.classList.toggle("zoomed", on);
      $("zoom").setAttribute("aria-pressed", String(on));
      $("zoom").textContent = on ? "Zoom out" : "Zoom in";
      draw();
      if (on && S.corners) {  // bring the board into view
        const r = $("overlay").getBoundingClientRect(), k = r.width / S.snap.width;
        const cx = S.corners.reduce((a, p) => a + p[0], 0) / 4 * k;
        const cy = S.corners.reduce((a, p) => a + p[1], 0) / 4 * k;
        box.scrollTo(cx - box.clientWidth / 2, cy - box.clientHeight / 2);
      }
    });
    $("board-thickness").addEventListener("input", () => { S.thicknessTouched = true; });
    $("snap").addEventListener("click", snapshot);
    $("save-board").addEventListener("click", saveBoard);
    $("reset-corners").addEventListener("click", () => {
      if (!S.snap) return;
      S.corners = (S.snap.corners || middleSquare(S.snap.width, S.snap.height)).map((p) => p.slice());
      S.dragged = false;
      draw();
    });
    $("learn-camels").addEventListener("click", () => learn($("learn-camels"),
      "api/table-setup/camels", { order: COLOURS.map((_, i) => $(`camel-${i + 1}`).value) },
      "camel-result", "camels", "The camels' colours are saved."));
    $("learn-roll").addEventListener("click", () => learn($("learn-roll"),
      "api/table-setup/roll", { stacks: rollStacks($("roll-stacks").value) },
      "camel-result", "camels", "The camels' colours are saved from the setup roll."));
    $("learn-tiles").addEventListener("click", () => learn($("learn-tiles"),
      "api/table-setup/tiles", { oasis: +$("oasis-space").value, mirage: +$("mirage-space").value },
      "tile-result", "tiles", "The desert tiles' colours are saved."));
    $("setup-pin-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      S.pin = $("setup-pin").value.trim();
      if (await status()) localStorage.setItem("pyramid.pin", S.pin);
      else say("That PIN is not the table's.");
    });
    status().then((ok) => { if (!ok && !S.pin) $("pin-card").hidden = false; });
  }

  init();
})();
