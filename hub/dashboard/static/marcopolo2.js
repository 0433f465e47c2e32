/* The Marco Polo II assistant's view on the dashboard (plain JavaScript, no build step).
 *
 * Round n of 5; each player's dice (own colour and black) with the total and the compensation owed
 * below 15, taken as any mix of coins and camels; the 2- and 3-player setup; and in round 5 the
 * final scoring calculator: one form per player, scored by the hub (`score:<player>:...`, then
 * `finish`), whose result (contract majorities, totals, tie-break, winners) is drawn here.
 * Nothing is computed here that the hub computes: the page shows the engine's view.
 *
 * Everyone acts at once: a player's own link acts for that player (their dice, their
 * compensation, their sheet), the table PIN for anyone and for the next round.
 */
"use strict";

(function () {
  const games = (window.pyramidGames = window.pyramidGames || {});
  // Node.append would write "null" for a part that is not there
  const add = (box, ...parts) => box.append(...parts.flat().filter((x) => x !== null && x !== undefined && x !== false));
  // typed but not yet sent: a redraw (another player's event) must not wipe it
  const drafts = {};
  const SHEET = [
    ["seal_points", "guild seals (points)"], ["banner_points", "banners (points)"], ["banners", "banners (count)"],
    ["pepper", "pepper"], ["silk", "silk"], ["gold", "gold"], ["jade", "jade"], ["coins", "coins"],
    ["camels", "camels"], ["contracts", "contracts fulfilled"], ["contract_points", "contract rewards (points)"],
    ["trading_posts", "trading posts placed"], ["other_points", "other points"],
    ["jade_as_coins", "jade counted as coins"], ["jade_as_camels", "jade counted as camels"],
  ];
  const ENTRIES = [["seals", "seals"], ["banners", "banners"], ["goods", "goods"], ["coins", "coins"],
    ["contract_majority", "contract majority"], ["trading_posts", "trading posts"],
    ["contract_points", "contract rewards"], ["other", "other"]];

  function status(v) {
    // short: a phone's bar holds about thirty letters (the game's name is the card's title)
    return `Round ${v.round} of ${v.rounds}` +
      (v.pending_compensation.length ? ` · to choose: ${v.pending_compensation.join(", ")}` : "");
  }

  const isTable = (ui) => ui.S.auth.role === "table" && ui.S.mode !== "archive";
  const mayFor = (ui, p) => ui.S.mode !== "archive" && !(ui.S.view || {}).finished &&
    (isTable(ui) || (ui.S.auth.role === "player" && ui.S.auth.player === p));

  function draftInput(ui, key, attrs) {
    const input = ui.el("input", { ...attrs, value: drafts[key] ?? attrs.value ?? "" });
    input.addEventListener("input", () => { drafts[key] = input.value; });
    return input;
  }

  async function act(ui, action, done, clear) {
    const res = await ui.post(`${ui.ROOT}api/action`, { action });
    if (res) {
      for (const k of clear || []) delete drafts[k];
      ui.showMessage(done || `Done: ${action}`, "info");
    }
    return res;
  }

  function setup(ui, v) {
    const { el } = ui;
    const s = v.setup;
    const details = el("details", { id: "mp-setup", open: v.round === 1 && !v.finished },
      el("summary", {}, `Setup for ${s.players} players`),
      el("p", {}, s.black_dice === null ? "Black dice: the standard number." : `Black dice in play: ${s.black_dice} (the rest stay in the box).`),
      s.neutral_dice.length ? el("ul", { class: "neutral" }, s.neutral_dice.map((d) =>
        el("li", {}, `a neutral die showing ${d.face} on ${d.where}`, d.space !== undefined ? ` (${d.space})` : ""))) : null,
      s.notes.map((n) => el("p", { class: "muted small" }, n)));
    return details;
  }

  function compensationCell(ui, v, p, d) {
    const { el } = ui;
    if (!d.owed) return el("td", { class: "muted" }, "none");
    if (d.compensation) return el("td", { class: "taken" }, `${d.compensation.coins} coins, ${d.compensation.camels} camels`);
    const owed = d.owed;
    if (!mayFor(ui, p)) return el("td", { class: "owed" }, `${owed} owed: ${p} chooses`);
    const key = `comp:${p}`;
    const range = draftInput(ui, key, { type: "range", min: 0, max: owed, step: 1, value: String(owed), "aria-label": `${p}'s coins`, class: "comp-coins" });
    const label = el("span", { class: "small comp-split" });
    const show = () => { label.textContent = `${range.value} coins · ${owed - range.value} camels`; };
    range.addEventListener("input", show);
    show();
    return el("td", {}, el("span", { class: "owed" }, `${owed} owed `), range, label,
      el("button", { type: "button", class: "tiny take", dataset: { player: p },
        onclick: () => act(ui, `comp:${p}:${range.value}`, `${p} takes ${range.value} coins and ${owed - range.value} camels.`, [key]) }, "take"));
  }

  function diceEntry(ui, p) {
    const { el } = ui;
    if (!mayFor(ui, p)) return el("td", { class: "muted", colspan: 4 }, "not read yet");
    const own = draftInput(ui, `own:${p}`, { class: "dice-own", placeholder: "3,5,6,1,2", size: 10, "aria-label": `${p}'s dice` });
    const black = draftInput(ui, `black:${p}`, { class: "dice-black", placeholder: "black", size: 5, "aria-label": `${p}'s black dice` });
    const send = () => {
      const clean = (x) => x.value.split(/[\s,]+/).filter(Boolean).join(",");
      const b = clean(black);
      act(ui, `dice:${p}:${clean(own)}${b ? "+" + b : ""}`, `${p}'s dice entered.`, [`own:${p}`, `black:${p}`]);
    };
    return el("td", { colspan: 4, class: "entry" }, own, " + ", black, el("button", { type: "button", class: "tiny enter-dice", dataset: { player: p }, onclick: send }, "enter"));
  }

  function roundTable(ui, v) {
    const { el } = ui;
    const head = el("tr", {}, el("th", {}, "player"), el("th", {}, "dice"), el("th", {}, "black"), el("th", {}, "total"), el("th", {}, "compensation"));
    const rows = v.players.map((p) => {
      const d = v.dice[p];
      const colour = v.colours[p];
      const name = el("td", { class: "name" }, ui.chip(colour, ""), ` ${p}`,
        isTable(ui) && ui.S.mode === "table" ? el("button", { type: "button", class: "tiny qr-btn", title: `${p}'s own link`, onclick: () => ui.showQr(p) }, "QR") : null);
      if (!d) return el("tr", { dataset: { player: p } }, name, diceEntry(ui, p));
      const compensation = compensationCell(ui, v, p, d);
      compensation.dataset.label = "compensation";
      return el("tr", { dataset: { player: p, total: d.total, owed: d.owed } }, name,
        el("td", { class: "faces", dataset: { label: "dice" } }, d.faces.map((f) => ui.chip(colour, f))),
        el("td", { class: "black", dataset: { label: "black" } }, d.black.length ? d.black.map((f) => ui.chip("black", f)) : "–"),
        el("td", { class: "total", dataset: { label: "total" } }, d.total), compensation);
    });
    // "stacks": on a phone each player is one block, every value after its label (dashboard.css)
    return el("table", { class: "grid-table stacks", id: "mp-round" }, el("thead", {}, head), el("tbody", {}, rows));
  }

  /** The rounds played: each round one row, each player's total and the compensation taken.
   * On a phone each round is one block, every player after their name (class "stacks",
   * dashboard.css): four players' columns ran past the card, and the camel was an emoji a
   * phone's font may lack. */
  function history(ui, v) {
    const { el } = ui;
    if (!v.history.length) return null;
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    return el("details", { id: "mp-history" }, el("summary", {}, "Earlier rounds"),
      el("table", { class: "grid-table stacks" }, el("thead", {}, el("tr", {}, el("th", {}, "round"), v.players.map((p) => el("th", {}, p)))),
        el("tbody", {}, v.history.map((h) => el("tr", { dataset: { round: h.round } }, el("td", { class: "name" }, `Round ${h.round}`),
          v.players.map((p) => {
            const d = (h.dice || {})[p];
            const c = (h.compensation || {})[p];
            return el("td", { dataset: { label: p } }, d ? `${d.total}${d.owed ? ` → ${c ? `${plural(c.coins, "coin")}, ${plural(c.camels, "camel")}` : "?"}` : ""}` : "—");
          }))))));
  }

  /** One form per player; a sheet goes to the hub as score:<player>:entry=n,... */
  function calculator(ui, v) {
    const { el } = ui;
    const box = el("div", { id: "mp-calculator" }, el("h3", {}, "Final scoring"));
    for (const p of v.players) {
      const entered = v.sheets[p];
      const fields = SHEET.filter(([k]) => k !== "banners" || (v.banner_table !== null && v.banner_table !== undefined))
        .map(([k, label]) => el("label", {}, label, draftInput(ui, `sheet:${p}:${k}`, {
          type: "number", min: 0, step: 1, name: k, disabled: !mayFor(ui, p),
          value: entered && entered[k] !== undefined ? String(entered[k]) : "" })));
      const form = el("form", { class: "sheet-form", dataset: { player: p } },
        el("div", { class: "row" }, ui.chip(v.colours[p], ""), el("b", {}, ` ${p}`),
          entered ? el("span", { class: "pill entered" }, "entered") : el("span", { class: "muted small" }, " not entered")),
        el("div", { class: "fields" }, fields),
        mayFor(ui, p) ? el("button", { type: "submit", class: "small enter-sheet" }, entered ? "Enter again" : "Enter sheet") : null);
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        const pairs = [...form.querySelectorAll("input")].filter((i) => i.value.trim() !== "" && Number(i.value) !== 0)
          .map((i) => `${i.name}=${Math.trunc(Number(i.value))}`);
        act(ui, `score:${p}:${pairs.join(",")}`, `${p}'s sheet entered.`, SHEET.map(([k]) => `sheet:${p}:${k}`));
      });
      add(box, form);
    }
    if (isTable(ui)) {
      const missing = v.players.filter((p) => !v.sheets[p]);
      add(box, el("div", { class: "row" }, el("button", { type: "button", class: "act primary", id: "mp-finish",
        disabled: missing.length > 0, onclick: () => act(ui, "finish", "Scored.") }, "Score the game"),
        missing.length ? el("span", { class: "muted small" }, `sheets missing: ${missing.join(", ")}`) : null));
    }
    return box;
  }

  /** Game over: who won, the podium (equal points told apart by camels, as the rules say),
   * the score sheet's lines turned over one by one, and (for the table) the next game. */
  function result(ui, v) {
    const { el } = ui;
    const r = v.result;
    const places = ui.placesOf(r.points, (a, b) => (r.camels[b] || 0) - (r.camels[a] || 0));
    const order = places.map((x) => x.p);
    const head = el("tr", {}, el("th", {}, ""), order.map((p) => el("th", {}, p)));
    const rows = ENTRIES.map(([k, label]) => el("tr", { dataset: { entry: k } }, el("td", {}, label),
      order.map((p) => el("td", {}, r.breakdown[p][k]))));
    rows.push(el("tr", { class: "total-row", dataset: { entry: "total" } }, el("th", {}, "total"), order.map((p) => el("th", {}, r.breakdown[p].total))));
    rows.push(el("tr", { dataset: { entry: "camels" } }, el("td", { class: "muted" }, "camels (tie-break)"), order.map((p) => el("td", { class: "muted" }, r.camels[p]))));
    ui.revealed(rows, 0.35);
    const why = r.tie_break === "camels" ? "Tied on points: the most camels wins."
      : r.tie_break === "shared" ? "Tied on points and camels: the victory is shared." : "";
    return el("div", { id: "mp-result", class: "game-over" },
      el("p", { class: "winners" }, `${r.winners.join(" & ")} ${r.winners.length > 1 ? "share the victory" : "wins"} with ${r.points[r.winners[0]]} points`),
      why ? el("p", { class: "tie-break" }, why) : null,
      ui.podiumOf(places, "points"),
      el("h3", {}, "The score sheets, line by line"),
      el("table", { class: "grid-table final" }, el("thead", {}, head), el("tbody", {}, rows)),
      ui.nextGameRow({ colours: v.players.map((p) => v.colours[p]) }));
  }

  function render(ui, box, title) {
    const { el, S } = ui;
    const v = S.view;
    box.replaceChildren();
    title.textContent = `Marco Polo II · round ${v.round} of ${v.rounds}`;
    if (v.finished) {
      add(box, result(ui, v), setup(ui, v));
      return;
    }
    add(box, setup(ui, v), el("h3", {}, `Round ${v.round}: the dice at the round's start`), roundTable(ui, v));
    if (v.pending_compensation.length) add(box, el("p", { class: "muted small", id: "mp-pending" }, `Still to choose coins or camels: ${v.pending_compensation.join(", ")}.`));
    if (isTable(ui) && v.round < v.rounds) {
      add(box, el("div", { class: "row" }, el("button", { type: "button", class: "act primary", id: "mp-next-round",
        disabled: v.pending_compensation.length > 0, onclick: () => act(ui, "round", `Round ${v.round + 1}.`) }, `Start round ${v.round + 1}`)));
    }
    add(box, history(ui, v));
    if (v.round === v.rounds) add(box, calculator(ui, v));
    if (isTable(ui) && S.mode === "table") {
      add(box, ui.undoRow());   // names the move it takes back, asks once more
    }
  }

  /** The camera could not read every die of the frame: say which, and who to enter by hand. */
  function prompt(p, ui) {
    const { el } = ui;
    if (p.kind !== "dice_check") return null;
    return el("div", { class: "prompt", dataset: { prompt: p.id } }, el("div", { class: "prompt-body" },
      el("p", {}, p.players.length ? `Enter the dice of ${p.players.join(", ")} by hand (below): the camera could not read them all.`
        : "The camera could not place every die: check the totals below."),
      el("ul", { class: "muted small" }, (p.needs_person || []).map((n) =>
        el("li", {}, n.board ? `${n.board}: ` : "", ui.plainProblem(n.reason), n.colour ? ` (${n.colour}${n.face ? " " + n.face : ""})` : ""))),
      isTable(ui) ? el("button", { type: "button", class: "act", onclick: () => ui.answer({ prompt: p.id, dismiss: true }, "Dismissed.") }, "Dismiss") : null));
  }

  games.marcopolo2 = { status, render, prompt, promptTitle: "Check the dice" };
})();
