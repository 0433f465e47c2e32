/* Camel Up second edition's view on the dashboard (plain JavaScript, no build step).
 *
 * dashboard.js keeps the stream, the log and the taps; when the view's `game` is "camelup2" it
 * calls render(ui, box, title) here. Everything drawn comes from the engine's public view
 * (S.view: seven camels on the track, spectator tiles, the dice out with the camel each moved
 * and why) and the hub's odds and advice (S.odds, S.advice), never worked out here.
 */
"use strict";

(function () {
  const games = (window.pyramidGames = window.pyramidGames || {});
  const add = (box, ...parts) => box.append(...parts.flat().filter((x) => x !== null && x !== undefined && x !== false));
  const RACING = ["blue", "green", "yellow", "red", "purple"];
  // the choices in the action selects, kept across redraws (odds arriving redraw the card)
  const chosen = {};
  const keep = (ui, id, options) => {
    const sel = ui.el("select", { id, "aria-label": id.slice(3), onchange: () => (chosen[id] = sel.value) }, options);
    if (chosen[id] !== undefined && [...sel.options].some((o) => o.value === chosen[id])) sel.value = chosen[id];
    return sel;
  };
  const WHY = {
    colour: "the numeral's colour",
    only_carrier: "it is the only crazy camel carrying racing camels",
    on_top: "it sits directly on the other crazy camel",
  };

  /** The status line in play (over, the page's own "Game over — ... won" is shown). */
  function status(v) {
    // who plays first: on a phone the bar is cut after about thirty letters (the game's name is
    // the card's title)
    const n = v.pyramid_tickets_left;
    return `Leg ${v.leg} · ${v.current_player} to play · ${n} pyramid ticket${n === 1 ? "" : "s"} left`;
  }

  function mayAct(ui) {
    const v = ui.S.view;
    if (ui.S.mode === "archive" || !v || v.finished) return false;
    return ui.S.auth.role === "table" || (ui.S.auth.role === "player" && ui.S.auth.player === v.current_player);
  }

  function button(ui, label, action) {
    return ui.el("button", { type: "button", class: "act", dataset: { action }, onclick: () => ui.doAction(action) }, label);
  }

  /** The track: spaces 1..16 (and past either end once the race is over), stacks bottom up. */
  function track(ui, v) {
    const { el } = ui;
    const spaces = Object.keys(v.track).map(Number);
    const lo = Math.min(1, ...spaces), hi = Math.max(16, ...spaces);
    const cells = [];
    for (let s = lo; s <= hi; s++) {
      const stack = v.track[String(s)] || [];
      const past = s < 1 || s > 16;
      if (past && !stack.length) continue;   // past the line: only where camels stand
      const tile = v.spectators[String(s)];
      // the number first, then the tile under it (never on top of it), the camels at the bottom
      cells.push(el("div", { class: `space${past ? " finish" : ""}`, dataset: { space: String(s) } },
        el("div", { class: "num" }, past ? `${s} (past the ${s < 1 ? "start" : "finish"})` : s),
        tile ? el("div", { class: `tile ${tile.side}`, title: `${tile.owner}'s ${tile.side} tile` },
          el("b", {}, tile.side === "cheering" ? "+1" : "−1"), " ", el("small", {}, tile.owner)) : null,
        // bottom camel first, as the first edition's board: the stack is drawn upward from it,
        // each camel over the one it sits on, all inside the space however tall the stack
        el("div", { class: "stack" }, stack.map((c) => ui.camel(c, RACING.includes(c) ? "" : "crazy")))));
    }
    return el("div", { class: "track c2-track", id: "c2-track" }, cells);
  }

  /** The dice out this leg: for the grey die, the camel it moved and why. */
  function dice(ui, v) {
    const { el } = ui;
    const items = v.dice_rolled.map((d) => {
      if (d.die !== "grey") return el("li", {}, ui.chip(d.die, `${d.die} ${d.face}`), ` by ${d.player}`);
      const other = d.camel !== d.shade;
      return el("li", { class: "grey-die", dataset: { camel: d.camel, why: d.why } },
        ui.chip("grey", `grey ${d.shade} ${d.face}`), " → ", ui.chip(d.camel, d.camel),
        ` back ${d.face}`, other ? ` (not ${d.shade}: ${WHY[d.why] || d.why})` : ` (${WHY[d.why] || d.why})`,
        ` by ${d.player}`);
    });
    return el("div", {}, el("h3", {}, "Dice out this leg"),
      items.length ? el("ul", { id: "c2-dice" }, items) : el("p", { class: "muted" }, "none yet"),
      el("p", { class: "muted small" }, `in the pyramid: ${v.dice_left.join(", ")}`));
  }

  function odds(ui) {
    const { el } = ui;
    const o = ui.S.odds;
    if (!o || o.edition !== 2) return null;
    const rows = RACING.map((c) => el("tr", {}, el("td", {}, ui.chip(c, c)),
      el("td", {}, ui.pct(o.leg[c].first)), el("td", {}, ui.pct(o.leg[c].second)),
      el("td", {}, o.race ? ui.pct(o.race[c].win) : "–"), el("td", {}, o.race ? ui.pct(o.race[c].lose) : "–")));
    const se = o.race_method ? `race odds simulated over ${o.race_method.games} games, standard error ≤ ${o.race_method.standard_error.toFixed(3)}` : "";
    return el("div", { id: "c2-odds" }, el("h3", {}, "Odds"),
      el("table", { class: "grid-table" }, el("thead", {}, el("tr", {}, ["camel", "leg 1st", "leg 2nd", "wins race", "last"].map((h) => el("th", {}, h)))),
        el("tbody", {}, rows)),
      el("p", { class: "muted small" }, `the race ends this leg: ${ui.pct(o.game_ends_this_leg)} (forward ${ui.pct(o.ends_by.forward)}, backward ${ui.pct(o.ends_by.backward)}); ${se}`));
  }

  /** The advisor's best moves in words, as on the first edition's card (dashboard.js). */
  function advice(ui) {
    const parts = ui.adviceParts();
    if (!parts.length || ui.S.view.finished) return null;
    return ui.el("div", { id: "c2-advice", class: "advice" }, parts);
  }

  /** The players' holdings. On a narrow card (a phone) each player is one block whose values
   * wrap after their own labels (data-label, class "stacks" in dashboard.css), so every column is
   * seen without scrolling sideways; six columns did not fit 360 px, "finish cards" was cut. */
  function players(ui, v) {
    const { el } = ui;
    // the partner column only where partnerships can be (6+ players): a column of dashes pushed
    // the table past a phone's width
    const partnerCol = v.partner_play || v.players.some((name) => v.holdings[name].partner);
    const cols = ["player", "coins", "leg tickets", "pyramid tickets", "spectator tile", "finish cards"];
    const head = el("tr", {}, (partnerCol ? [...cols, "partner"] : cols).map((h) => el("th", {}, h)));
    const cell = (label, ...value) => el("td", { dataset: { label } }, ...value);
    const rows = v.players.map((name) => {
      const h = v.holdings[name];
      const tile = h.spectator
        ? `${h.spectator.side === "cheering" ? "+1" : "−1"} ${h.spectator.side} on ${h.spectator.space}` : "–";
      return el("tr", { class: name === v.current_player ? "to-move" : "", dataset: { player: name } },
        el("td", { class: "name" }, name === v.current_player && !v.finished ? "▶ " : "", name),
        cell("coins", h.money),
        cell("leg tickets", h.leg_tickets.length ? h.leg_tickets.map((t) => ui.ticket(t.colour, t.value)) : "–"),
        cell("pyramid tickets", h.pyramid_tickets),
        cell("spectator tile", tile),
        cell("finish cards", h.finish_cards_left),
        partnerCol ? cell("partner", h.partner || (v.partner_play ? "available" : "–")) : null);
    });
    return el("table", { class: "grid-table stacks", id: "c2-players" }, el("thead", {}, head), el("tbody", {}, rows));
  }

  /** The legal actions as buttons (a die is entered: the camera does not read this edition yet). */
  function actions(ui, v) {
    const { el } = ui;
    if (!mayAct(ui)) return null;
    const legal = ui.legal();
    const of = (p) => legal.filter((a) => a.startsWith(p));
    const legs = of("leg:").map((a) => button(ui, `${a.slice(4)} ${v.leg_tickets[a.slice(4)][0]}`, a));
    const dieSel = keep(ui, "c2-die", v.dice_left.flatMap((d) => d === "grey"
      ? ["black", "white"].map((s) => el("option", { value: `grey:${s}` }, `grey (${s} numeral)`)) : [el("option", { value: d }, d)]));
    const faceSel = keep(ui, "c2-face", [1, 2, 3].map((f) => el("option", { value: f }, f)));
    const roll = el("button", { type: "button", class: "act", id: "c2-roll",
      onclick: () => ui.doAction(`roll:${dieSel.value}:${faceSel.value}`) }, "Die released");
    const spaces = [...new Set(of("spectator:").map((a) => a.split(":")[1]))];
    const spaceSel = keep(ui, "c2-space", spaces.map((s) => el("option", { value: s }, `space ${s}`)));
    const sideSel = keep(ui, "c2-side", ["cheering", "booing"].map((s) => el("option", { value: s }, s)));
    const tile = spaces.length ? el("button", { type: "button", class: "act", id: "c2-tile",
      onclick: () => ui.doAction(`spectator:${spaceSel.value}:${sideSel.value}`) }, "Place tile") : null;
    const partners = of("partner:").map((a) => button(ui, `partner ${a.slice(8)}`, a));
    return el("div", { id: "c2-actions" }, el("h3", {}, "Actions"),
      el("div", { class: "row" }, legs),
      el("div", { class: "row" }, dieSel, faceSel, roll),
      el("div", { class: "row" }, spaceSel, sideSel, tile),
      partners.length ? el("div", { class: "row" }, partners) : null,
      el("p", { class: "muted small" }, "Overall bets are placed from each player's own link (the colour stays secret)."));
  }

  function result(ui, v) {
    const r = v.result;
    if (!r) return null;
    // the same game over as the first edition's: podium, the piles turned over, next game
    return ui.el("div", { id: "c2-result", class: "game-over" }, ui.el("h3", {}, "Race over"), ui.camelResult(r));
  }

  function render(ui, box, title) {
    const v = ui.S.view;
    title.textContent = "Camel Up (second edition)";
    box.replaceChildren();
    add(box, result(ui, v), track(ui, v), dice(ui, v), actions(ui, v), odds(ui), advice(ui),
      ui.el("h3", {}, "Players"), players(ui, v));
    if (ui.S.auth.role === "table" && ui.S.mode === "table" && !v.finished) {
      add(box, ui.undoRow());   // names the move it takes back, asks once more
    }
  }

  games.camelup2 = { status, render };
})();
