/* The horse race's view on the dashboard (plain JavaScript, no build step).
 *
 * dashboard.js keeps the stream, the log and the taps; when the view's `game` is "horserace" it
 * calls render(ui, box, title) here with its helpers (`ui.el`, `ui.post`, `ui.doAction`...) and
 * hides Camel Up's cards. Everything drawn comes from the engine's public view (S.view) and the
 * hub's advice (S.advice.actions: {roll: advise_roll, bets: bet_values}, S.odds.podium), never
 * worked out here: the page shows the hub's numbers with the hub's standard errors.
 */
"use strict";

(function () {
  const games = (window.pyramidGames = window.pyramidGames || {});
  // Node.append would write "null" for a part that is not there
  const add = (box, ...parts) => box.append(...parts.flat().filter((x) => x !== null && x !== undefined && x !== false));
  const fmt = (x) => Number(x).toFixed(1);
  const pm = (se) => `± ${(1.96 * se).toFixed(1)}`;   // the 95 % half-width the hub's errors give

  function status(v) {
    const phase = v.phase === "betting" ? "betting" : v.roll ? `rolled ${v.roll}` : "running";
    // who plays first: on a phone the bar is cut after about thirty letters
    return `Race ${v.race} of ${v.races} · ${v.current_player} to play · round ${v.round} · ${phase}`;
  }

  function mayAct(ui) {
    const v = ui.S.view;
    if (ui.S.mode === "archive" || !v || v.finished) return false;
    return ui.S.auth.role === "table" || (ui.S.auth.role === "player" && ui.S.auth.player === v.current_player);
  }

  function button(ui, label, action, cls) {
    return ui.el("button", { type: "button", class: `act ${cls || ""}`, dataset: { action },
      onclick: () => ui.doAction(action) }, label);
  }

  function lanes(ui, v) {
    const { el } = ui;
    const len = v.track_length;
    return el("div", { class: "lanes", id: "hr-track" }, Object.entries(v.positions).map(([horse, pos]) => {
      const place = v.podium.indexOf(horse);
      const left = Math.min(100, (100 * Math.min(pos, len)) / len);
      return el("div", { class: `lane${place >= 0 ? " finished" : ""}`, dataset: { horse, pos } },
        el("span", {}, ui.chip(horse, horse)),
        el("div", { class: "strip", title: `${horse}: space ${pos} of ${len}` },
          el("span", { class: `horse c-${horse}`, style: `left:${left}%` })),
        el("span", { class: "pos" }, place >= 0 ? `#${place + 1}` : `${pos}/${len}`));
    }));
  }

  const ORDINALS = ["1st", "2nd", "3rd", "4th", "5th"];

  /** Each horse's column of circles: who holds each, and what a free one scores by the horse's
   * place, labelled (a bare "16/12/8" told a player nothing). On a phone each horse is one
   * block, each circle after its label (class "stacks", dashboard.css): the table of circles
   * ran sideways past the card. */
  function columns(ui, v) {
    const { el } = ui;
    const size = (v.score_table[0] || []).length;
    const head = el("tr", {}, el("th", {}, "horse"), [...Array(size).keys()].map((i) => el("th", {}, `circle ${i + 1}`)));
    const rows = Object.keys(v.positions).map((horse) => {
      const col = v.columns[horse] || [];
      return el("tr", { dataset: { column: horse } }, el("td", { class: "name" }, ui.chip(horse, horse)),
        [...Array(size).keys()].map((i) => {
          const label = `circle ${i + 1}`;
          if (i < col.length) return el("td", { class: "token", dataset: { label } }, col[i]);
          const points = v.score_table.map((r) => r[i]);
          const said = `${label}: ${points.map((p, k) => (k ? `${p} if ${ORDINALS[k]}` : `${p} points if ${horse} comes 1st`)).join(", ")}`;
          return el("td", { class: "free", dataset: { label }, title: said, "aria-label": said }, `${points.join("/")} pts`);
        }));
    });
    return [el("p", { class: "muted small", id: "hr-columns-legend" },
      `A free circle shows the points a token there scores if its horse finishes ${ORDINALS.slice(0, v.score_table.length).join(" / ")}; `,
      "off the podium it scores nothing."),
    el("table", { class: "grid-table stacks", id: "hr-columns" }, el("thead", {}, head), el("tbody", {}, rows))];
  }

  function players(ui, v) {
    const { el } = ui;
    const races = v.races_scored || [];
    const head = el("tr", {}, el("th", {}, "player"), el("th", {}, "points"), el("th", {}, "tokens"),
      races.map((r) => el("th", {}, `race ${r.race}`)));
    const rows = v.players.map((name) => {
      const h = v.holdings[name] || {};
      return el("tr", { class: name === v.current_player ? "to-move" : "", dataset: { player: name } },
        el("td", { class: "name" }, name === v.current_player && !v.finished ? "▶ " : "", name,
          ui.S.auth.role === "table" && ui.S.mode === "table" ? el("button", { type: "button", class: "tiny qr-btn",
            title: `${name}'s own link`, onclick: () => ui.showQr(name) }, "QR") : null),
        el("td", { class: "points" }, h.points), el("td", { class: "tokens" }, h.tokens),
        races.map((r) => el("td", {}, `${(r.changes || {})[name] > 0 ? "+" : ""}${(r.changes || {})[name] || 0}`)));
    });
    return el("table", { class: "grid-table", id: "hr-players" }, el("thead", {}, head), el("tbody", {}, rows));
  }

  /** The roll in hand: each horse it may go to, every player's expected points after the race. */
  function rollAdvice(ui, v, advice) {
    const { el } = ui;
    const act = mayAct(ui);
    const legal = ui.legal();
    const box = el("div", { id: "hr-roll" }, el("h3", {}, el("span", { class: "big-die", id: "hr-roll-face" }, v.roll),
      `${v.current_player} gives the ${v.roll} to a horse that has not moved this round`));
    const roll = advice && advice.roll && advice.roll.roll === v.roll ? advice.roll : null;
    if (!roll) {
      add(box, el("p", { class: "muted small" }, ui.S.derived === false ? "" : "Working out the advice…"));
      if (act) add(box, el("div", { class: "row" }, legal.filter((a) => a.startsWith("assign:")).map((a) =>
        button(ui, `→ ${a.split(":")[1]}`, a, `c-${a.split(":")[1]}`))));
      return box;
    }
    const head = el("tr", {}, el("th", {}, "give to"), v.players.map((p) => el("th", {}, p)), el("th", {}, ""));
    const rows = roll.choices.map((c, i) => el("tr", { dataset: { choice: c.horse }, class: i === 0 ? "winner-row" : "" },
      el("td", {}, ui.chip(c.horse, c.horse)),
      v.players.map((p) => el("td", { class: "ev", title: `95 %: ${c.ci95[p][0]} to ${c.ci95[p][1]}` },
        el("span", { class: "num" }, fmt(c.expected[p])), " ", el("span", { class: "muted small pm" }, pm(c.stderr[p])))),
      el("td", {}, act && legal.includes(c.action) ? button(ui, "give", c.action, "tiny") : null)));
    add(box, el("table", { class: "grid-table advice-table" }, el("thead", {}, head), el("tbody", {}, rows)),
      el("p", { class: "muted small" }, `Expected points after this race (${roll.samples} simulated races; ± is 1.96 standard errors; `,
        `best for ${roll.player} first). ${roll.policy}.`));
    return box;
  }

  function betting(ui, v, advice) {
    const { el } = ui;
    const act = mayAct(ui);
    const legal = ui.legal();
    const bets = advice && advice.bets ? advice.bets.bets : null;
    const rows = Object.keys(v.positions).map((horse) => {
      const val = bets ? bets[horse] : undefined;
      return el("tr", { dataset: { bet: horse } }, el("td", {}, ui.chip(horse, horse)),
        el("td", { class: "ev" }, val ? [el("span", { class: "num" }, fmt(val.expected)), " ", el("span", { class: "muted small pm" }, pm(val.stderr))]
          : val === null ? "full" : "…"),
        el("td", {}, act && legal.includes(`bet:${horse}`) ? button(ui, "bet", `bet:${horse}`, `tiny c-${horse}`) : null));
    });
    return el("div", { id: "hr-betting" },
      el("h3", {}, `${v.current_player} bets or passes`),
      el("table", { class: "grid-table" }, el("thead", {}, el("tr", {}, el("th", {}, "horse"), el("th", {}, "a token now is worth (points)"), el("th", {}, ""))),
        el("tbody", {}, rows)),
      act && legal.includes("pass") ? el("div", { class: "row" }, button(ui, "Pass", "pass")) : null);
  }

  function running(ui, v) {
    const { el } = ui;
    if (!mayAct(ui)) return el("p", { class: "muted", id: "hr-wait" }, `${v.current_player} rolls the die.`);
    return el("div", { id: "hr-running" }, el("h3", {}, `${v.current_player} rolls`),
      el("div", { class: "row" }, button(ui, "The hub rolls", "roll", "primary"),
        el("span", { class: "muted" }, "or we rolled:"),
        [1, 2, 3, 4, 5, 6].map((f) => button(ui, String(f), `roll:${f}`, "face"))));
  }

  const ordinal = (n) => `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`;

  /** Game over: who won, the players' podium, the last race's tokens turned over one by one
   * with what each scored, and (for the table) the next game with the same players. */
  function result(ui, v) {
    const { el } = ui;
    const r = v.result || {};
    const places = ui.placesOf(r.points || {});
    const winners = r.winners || [];
    const races = v.races_scored || [];
    const last = races.length ? races[races.length - 1] : null;
    const cards = [];
    if (last) {
      for (const a of last.awards || []) {
        cards.push(el("li", { class: "right", dataset: { player: a.player, horse: a.horse } },
          el("span", { class: "who" }, a.player), " ", ui.chip(a.horse, a.horse), ` ${a.horse} came ${ordinal(a.place)} (circle ${a.slot + 1}) `,
          el("b", {}, `+${a.points} point${a.points === 1 ? "" : "s"}`)));
      }
      for (const [horse, col] of Object.entries(v.columns || {})) {
        if ((last.podium || []).includes(horse)) continue;
        col.forEach((player, slot) => cards.push(el("li", { class: "wrong", dataset: { player, horse } },
          el("span", { class: "who" }, player), " ", ui.chip(horse, horse), ` ${horse} off the podium (circle ${slot + 1}) `,
          el("b", {}, "no points"))));
      }
    }
    return el("div", { id: "hr-result", class: "game-over" },
      el("p", { class: "winners" }, winners.join(" & "), ` win${winners.length > 1 ? "" : "s"} with ${places.length ? places[0].m : "?"} points`),
      ui.podiumOf(places, "points"),
      last ? el("h3", {}, `Race ${last.race}: the tokens turned over`) : null,
      cards.length ? el("ol", { class: "overall awards" }, ui.revealed(cards)) : last ? el("p", { class: "muted" }, "No token was placed.") : null,
      el("table", { class: "final" }, el("thead", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "points"))),
        el("tbody", {}, places.map((x) => el("tr", {}, el("td", {}, x.p), el("td", {}, x.m))))),
      ui.nextGameRow({ races: v.races, track_length: v.track_length }));
  }

  function render(ui, box, title) {
    const { el, S } = ui;
    const v = S.view;
    box.replaceChildren();
    title.textContent = `Horse race · race ${v.race} of ${v.races}`;
    const advice = S.advice && S.advice.actions && !Array.isArray(S.advice.actions) ? S.advice.actions : null;
    const podium = v.podium.length
      ? el("p", { id: "hr-podium" }, "Podium: ", v.podium.map((h, i) => el("span", { class: "pill", dataset: { place: i + 1 } }, `${i + 1}. `, ui.chip(h, h))))
      : null;
    let now = null;
    if (v.finished) now = result(ui, v);
    else if (v.phase === "betting") now = betting(ui, v, advice);
    else if (v.roll) now = rollAdvice(ui, v, advice);
    else now = running(ui, v);
    add(box, v.finished ? now : null, lanes(ui, v), podium, v.finished ? null : now,
      el("h3", {}, "Bet columns"), columns(ui, v),
      el("h3", {}, "Players"), players(ui, v));
    if (S.auth.role === "table" && S.mode === "table" && !v.finished) {
      add(box, ui.undoRow());   // names the move it takes back, asks once more
    }
  }

  /** The camera was not sure of the die: a person says what it shows (1 to 6). */
  function prompt(p, ui) {
    const { el } = ui;
    if (p.kind !== "roll_reading") return null;
    const r = p.reading || {};
    const table = ui.S.auth.role === "table";
    const said = ui.readSentence(r.face ?? "nothing sure", r.confidence, p.problems);
    return el("div", { class: "prompt", dataset: { prompt: p.id } },
      p.crop ? el("button", { type: "button", class: "crop-btn", "aria-label": "enlarge the camera's photo of the die", onclick: () => ui.enlarge(ui.cropUrl(p.crop)) },
        el("img", { src: ui.cropUrl(p.crop), alt: "the camera's photo of the die", class: "crop" })) : null,
      el("div", { class: "prompt-body" },
        el("p", { class: "read" }, said.text, " What does the die show?"),
        said.rest.length ? el("p", { class: "muted small" }, said.rest.join("; ")) : null,
        table ? el("div", { class: "row" }, [1, 2, 3, 4, 5, 6].map((f) => el("button", { type: "button", class: "act face",
          dataset: { answer: String(f) }, onclick: () => ui.answer({ prompt: p.id, face: f }, `Read as ${f}.`) }, f)),
          el("button", { type: "button", class: "act", onclick: () => ui.answer({ prompt: p.id, dismiss: true }, "Dismissed.") }, "Dismiss"))
          : el("p", { class: "muted" }, "The table PIN is needed to answer.")));
  }

  games.horserace = { status, render, prompt, promptTitle: "Check the die" };
})();
