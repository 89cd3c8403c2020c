// The board game's page: draws /api/board (the board as the referee sees it) and polls it.
"use strict";
const F = 30;  // pixels per field in the drawing (the SVG scales to the phone)
const WHY = {"colour-mismatch": "the colours do not match the fields", "not-adjacent": "not next to a token",
  "covers-card": "it covers a card or a token", "corner-only": "it touches a token at a corner only",
  "swapped": "the colours are the wrong way round", "after-stop": "laid after the stop"};

function rgb(state, name) {
  const c = state.palette[name];
  return c ? `rgb(${c[0]},${c[1]},${c[2]})` : name;
}

function esc(s) { return String(s).replace(/[&<>"]/g, ch => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[ch])); }

function drawBoard(state) {
  const w = state.cols * F, h = state.rows * F;
  const parts = [`<svg viewBox="-2 -2 ${w + 4} ${h + 4}" role="img" aria-label="the board">`];
  state.fields.forEach((row, r) => row.forEach((name, c) => {
    parts.push(`<rect class="field" x="${c * F}" y="${r * F}" width="${F}" height="${F}" fill="${rgb(state, name)}" stroke="#fff8" stroke-width="1"/>`);
  }));
  for (const l of state.lying) {
    const xs = l.cells.map(c => c[0]), ys = l.cells.map(c => c[1]);
    const x = Math.min(...xs) * F + 2, y = Math.min(...ys) * F + 2;
    const cw = (Math.max(...xs) - Math.min(...xs) + 1) * F - 4, ch = (Math.max(...ys) - Math.min(...ys) + 1) * F - 4;
    const edge = l.legal ? "#222" : "#d00";
    parts.push(`<g class="${l.joker ? "joker" : "card"}${l.legal ? "" : " illegal"}" data-owner="${esc(l.owner)}">`);
    if (l.joker) {
      parts.push(`<rect x="${x}" y="${y}" width="${cw}" height="${ch}" rx="3" fill="#fafafa" stroke="${edge}" stroke-width="${l.legal ? 1.5 : 3}"/>`);
      parts.push(`<text x="${x + cw / 2}" y="${y + ch / 2 + 5}" text-anchor="middle" font-size="14">★</text>`);
    } else {
      l.cells.forEach((cell, i) => parts.push(`<rect x="${cell[0] * F + 4}" y="${cell[1] * F + 4}" width="${F - 8}" height="${F - 8}" fill="${rgb(state, l.colours[i])}"/>`));
      parts.push(`<rect x="${x}" y="${y}" width="${cw}" height="${ch}" rx="3" fill="none" stroke="${edge}" stroke-width="${l.legal ? 1.5 : 3}"/>`);
    }
    parts.push(`<text x="${x + 3}" y="${y + 10}" font-size="9" fill="#000" stroke="#fff" stroke-width="2" paint-order="stroke">${esc(l.owner)}</text></g>`);
  }
  for (const t of state.tokens) {
    parts.push(`<circle class="token" cx="${t.cell[0] * F + F / 2}" cy="${t.cell[1] * F + F / 2}" r="${F * 0.28}" fill="#fff" stroke="#333" stroke-width="1.5"><title>${esc(t.id)}</title></circle>`);
  }
  parts.push("</svg>");
  return parts.join("");
}

function render(state) {
  document.getElementById("state").textContent = state.ended ? "· round over" : (state.ready ? "· playing" : "· setting up");
  if (state.ready && state.fields) document.getElementById("board").innerHTML = drawBoard(state);
  const ill = document.getElementById("illegal");
  ill.innerHTML = state.illegal.length ? state.illegal.map(l =>
    `<li>${esc(l.owner)}: ${l.joker ? "joker" : esc(l.colours.join("+"))} on ${l.cells.map(c => `(${c[0]},${c[1]})`).join(" ")} — <span class="why">${esc(WHY[l.reason] || l.reason)}</span></li>`).join("")
    : `<li class="muted">None so far.</li>`;
  const body = document.querySelector("#ranks tbody");
  const rows = state.ranks.length ? state.ranks.slice().sort((a, b) => a.place - b.place).map(r =>
    `<tr><td>${esc(r.player)}</td><td>${r.place}</td><td>${r.cards_left}</td><td>${r.jokers_left}</td><td>${r.chips}</td><td>${r.aside}</td></tr>`)
    : Object.entries(state.left || {}).map(([p, l]) => `<tr><td>${esc(p)}</td><td>–</td><td>${l.cards}</td><td>${l.jokers}</td><td>–</td><td>–</td></tr>`);
  body.innerHTML = rows.join("");
}

async function poll() {
  try {
    const res = await fetch("/api/board");
    if (res.ok) render(await res.json());
    else document.getElementById("board").innerHTML = `<p class="empty muted">${esc((await res.json()).error)}</p>`;
  } catch (e) { /* the table is restarting: try again */ }
  setTimeout(poll, 1000);
}
poll();
