// The table panel: one page, five tabs, fed by server-sent events (/api/events) and the JSON API.
"use strict";
const $ = (sel) => document.querySelector(sel);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
let S = null;          // the latest panel state from the server
let lastAlertKey = null, alertTimer = null;

const nameOf = (id) => (S && S.players.find((p) => p.id === id) || {name: id}).name;
const signed = (n) => (n > 0 ? "+" : "") + n;
const GOALS = {target: (v) => `to ${v} points`, rounds: (v) => `${v} rounds`, minutes: (v) => `${v} minutes`, endless: () => "endless"};
const ARROW = {up: "<span class='up' title='moved up'>▲</span>", down: "<span class='down' title='moved down'>▼</span>", same: "<span class='same'>–</span>"};

function toast(text, bad = true) {
  const t = $("#toast");
  t.textContent = text; t.className = "toast " + (bad ? "bad" : "good"); t.hidden = false;
  clearTimeout(t._timer); t._timer = setTimeout(() => (t.hidden = true), 5000);
}

async function api(method, path, body) {
  const headers = {"Content-Type": "application/json"};
  const pin = sessionStorage.getItem("pin"), who = sessionStorage.getItem("who");
  if (pin) headers["X-Table-PIN"] = pin;
  if (who) headers["X-Who"] = who;
  const res = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await res.json().catch(() => ({}));
  if (!res.ok) { toast(data.detail || `${res.status} ${res.statusText}`); throw new Error(data.detail); }
  return data;
}
const get = (path) => api("GET", path);

// ---- live ------------------------------------------------------------------------------------------
function render() {
  if (!S) return;
  $("#round-label").textContent = `Round ${S.round.no}` + (S.round.ended ? " (counting)" : "");
  $("#goal-label").textContent = `· match ${S.match.id}, ${GOALS[S.match.goal](S.match.value)}`;
  const tb = $("#tally tbody");
  tb.innerHTML = S.players.map((p) => {
    const t = S.round.tallies[p.id] || {laid: 0, illegal: 0, disputes_won: 0};
    return `<tr data-player="${esc(p.id)}"><td>${esc(p.name)}</td><td class="laid">${t.laid}</td>` +
      `<td class="illegal ${t.illegal ? "bad" : ""}">${t.illegal}</td><td>${t.disputes_won}</td>` +
      `<td>${S.match.totals[p.id] ?? 0} ${ARROW[S.match.trend[p.id]] || ""}</td></tr>`;
  }).join("");
  $("#plays").innerHTML = S.round.plays.map((p) =>
    `<li class="${p.legal ? "ok" : "bad"}" data-card="${esc(p.card)}"><b>${esc(nameOf(p.player))}</b> ` +
    `<span class="card c-${esc(String(p.card).split("-")[0])}">${esc(p.card)}</span> → pile ${esc(p.pile)} ` +
    (p.legal ? "✓" : `✗ ${esc(p.reason)}`) + "</li>").join("") || "<li class='muted'>no card laid yet this round</li>";
  showAlert(S.alert);
  renderBoard();
}

function showAlert(a) {
  if (!a) return;
  const key = `${a.frame}/${a.player}/${a.card}`;
  if (key === lastAlertKey) return;
  lastAlertKey = key;
  const el = $("#alert");
  el.innerHTML = `⚠ <b>Illegal play:</b> ${esc(nameOf(a.player))} laid <b>${esc(a.card)}</b> on pile ${esc(a.pile)} — ${esc(a.why || a.reason)}`;
  el.hidden = false;
  clearTimeout(alertTimer); alertTimer = setTimeout(() => (el.hidden = true), 8000);
}

function connect() {
  const es = new EventSource("/api/events");
  es.addEventListener("state", (m) => { S = JSON.parse(m.data); render(); });
  es.addEventListener("hub", (m) => {
    const ev = JSON.parse(m.data);
    if (ev.type === "dispute" && location.hash.startsWith("#disputes")) loadDisputes();
    if (ev.type === "count") setTimeout(loadHistory, 300);
  });
  es.onopen = () => ($("#conn").className = "conn on");
  es.onerror = () => ($("#conn").className = "conn off");
}

// ---- scores ----------------------------------------------------------------------------------------
function renderBoard() {
  const m = S.match;
  $("#match-label").textContent = `match ${m.id}, ${GOALS[m.goal](m.value)}`;
  const newest = [...m.rounds].reverse();  // totals first, then the latest rounds: what a phone shows without scrolling
  const heads = newest.map((r) => `<th><a href="#scores" class="round-link" data-round="${r.id}" data-no="${r.no}" title="correct this round">R${r.no}${r.corrected ? "*" : ""}</a></th>`).join("");
  $("#board thead").innerHTML = `<tr><th>Player</th><th>Total</th><th></th>${heads}</tr>`;
  const order = [...S.players].sort((a, b) => (m.totals[b.id] ?? 0) - (m.totals[a.id] ?? 0));
  $("#board tbody").innerHTML = order.map((p) =>
    `<tr data-player="${esc(p.id)}"><td>${esc(p.name)}${m.leaders.includes(p.id) && m.rounds.length ? " ★" : ""}</td>` +
    `<td class="total">${m.totals[p.id] ?? 0}</td><td>${ARROW[m.trend[p.id]] || ""}</td>` +
    newest.map((r) => `<td>${signed(r.scores[p.id] ?? 0)}</td>`).join("") + "</tr>").join("");
  document.querySelectorAll(".round-link").forEach((a) => a.onclick = (e) => { e.preventDefault(); openCorrection(+a.dataset.round, a.dataset.no); });
}

function openCorrection(roundId, no) {
  const r = S.match.rounds.find((x) => x.id === roundId);
  const f = $("#correct");
  f.dataset.round = roundId;
  $("#correct-label").textContent = `round ${no}`;
  $("#correct-fields").innerHTML = S.players.map((p) =>
    `<label>${esc(p.name)} <input type="number" name="s-${esc(p.id)}" value="${r.scores[p.id] ?? 0}" min="-200" max="200" required></label>`).join("");
  f.who.value = sessionStorage.getItem("who") || "";
  f.hidden = false; f.scrollIntoView({behavior: "smooth"});
}

async function loadHistory() {
  const [matches, changes] = await Promise.all([get("/api/matches"), get("/api/changes?limit=20")]);
  const past = matches.filter((m) => m.ended_at);
  $("#history").innerHTML = past.map((m) => {
    const when = new Date(m.started_at * 1000).toLocaleString();
    const win = (m.winners || []).map((w) => `${esc(nameOf(w))} (${m.totals[w]})`).join(" & ") || "nobody";
    const rows = m.rounds.map((r) => `<li>Round ${r.no}: ${Object.entries(r.scores).map(([p, s]) => `${esc(nameOf(p))} ${signed(s)}`).join(", ")}${r.corrected ? " (corrected)" : ""}</li>`).join("");
    return `<details class="match"><summary>Match ${m.id} · ${when} · ${m.rounds.length} rounds · won by ${win}</summary><ol>${rows}</ol></details>`;
  }).join("") || "<p class='muted'>No finished match yet.</p>";
  $("#changes").innerHTML = changes.map((c) => {
    const what = c.what === "pin" ? "changed the PIN" : c.before === null && c.after === null ? `changed ${esc(c.what)}` :
      `changed ${esc(c.what)}: ${esc(JSON.stringify(c.before))} → ${esc(JSON.stringify(c.after))}`;
    return `<li>${new Date(c.at * 1000).toLocaleString()} · <b>${esc(c.who)}</b> ${what}${c.note ? ` (“${esc(c.note)}”)` : ""}</li>`;
  }).join("") || "<li class='muted'>No change made by hand yet.</li>";
}

// ---- disputes ----------------------------------------------------------------------------------------
function verdict(d) {
  const claims = [...d.claims].sort((a, b) => a.touch - b.touch);
  if (d.winner === "both") return `Both cards touched in the same frame (${claims[0].touch}): both stay.`;
  const losers = claims.filter((c) => c.player !== d.winner).map((c) => nameOf(c.player));
  const w = claims.find((c) => c.player === d.winner), other = claims.find((c) => c.player !== d.winner);
  const gap = other && w ? other.touch - w.touch : 0;
  const secs = d.fps ? ` (${(gap / d.fps).toFixed(2)} s)` : "";
  return `${nameOf(d.winner)}'s card touched first, ${gap} frame${gap === 1 ? "" : "s"}${secs} earlier: it stays; ${losers.join(", ")} take${losers.length > 1 ? "" : "s"} theirs back.`;
}

async function loadDisputes() {
  const list = await get("/api/disputes");
  $("#disputes").innerHTML = list.map((d) =>
    `<li><a href="#disputes/${d.id}" data-dispute="${d.id}">Pile ${esc(d.pile)} · <span class="card c-${esc(String(d.card).split("-")[0])}">${esc(d.card)}</span> · ` +
    `${d.claims.map((c) => esc(nameOf(c.player))).join(" vs ")} → <b>${d.winner === "both" ? "both stay" : esc(nameOf(d.winner)) + " first"}</b></a>` +
    ` <span class="muted">match ${d.match_id}, round ${d.round_no}${d.replay === "ready" ? "" : d.replay === "saving" ? " · replay being saved" : " · no replay"}</span></li>`).join("")
    || "<li class='muted'>No dispute yet.</li>";
}

const R = {frames: [], i: 0, timer: null, d: null};
async function openReplay(id) {
  stopReplay();
  const d = await get(`/api/disputes/${id}`);
  R.d = d; R.frames = d.frames || []; R.i = 0;
  $("#replay-title").textContent = `Dispute on pile ${d.pile}: ${d.card}`;
  $("#replay-verdict").textContent = verdict(d);
  if (!R.frames.length) { $("#replay-info").textContent = d.replay === "saving" ? "The replay is being saved — try again in a moment." : "No replay was saved for this dispute."; $("#replay-img").removeAttribute("src"); return; }
  R.frames.forEach((f) => { const im = new Image(); im.src = f.url; });  // preload
  const slider = $("#replay-slider");
  slider.max = R.frames.length - 1;
  const first = R.frames[0].frame, span = Math.max(1, R.frames[R.frames.length - 1].frame - first);
  $("#replay-ticks").innerHTML = d.claims.map((c) =>
    `<span class="tick" style="left:${(100 * (c.touch - first) / span).toFixed(1)}%" title="${esc(nameOf(c.player))} touches">▲ ${esc(nameOf(c.player))}</span>`).join("");
  showFrame(0);
}

function touchAt(frame) {
  // a claim's touch frame, or the nearest saved frame at or after it (frames may be sparse when sped up)
  return R.d.claims.filter((c) => {
    const j = R.frames.findIndex((f) => f.frame >= c.touch);
    return j >= 0 && R.frames[j].frame === frame;
  });
}

function showFrame(i) {
  R.i = Math.max(0, Math.min(i, R.frames.length - 1));
  const f = R.frames[R.i];
  $("#replay-img").src = f.url;
  $("#replay-slider").value = R.i;
  const touches = touchAt(f.frame);
  const mark = $("#replay-mark");
  mark.hidden = !touches.length;
  mark.textContent = touches.map((c) => `${nameOf(c.player)}'s card touches${c.player === R.d.winner ? " (first)" : ""}`).join(" · ");
  $("#replay-info").textContent = `frame ${f.frame} (${R.i + 1} of ${R.frames.length})`;
}

function playReplay() {
  if (R.timer) return stopReplay();
  const speed = +$("#replay-speed").value;
  $("#replay-play").textContent = "❚❚ Pause";
  if (R.i >= R.frames.length - 1) R.i = 0;
  R.timer = setInterval(() => {
    if (R.i >= R.frames.length - 1) return stopReplay();
    showFrame(R.i + 1);
    if (touchAt(R.frames[R.i].frame).length) { clearInterval(R.timer); setTimeout(() => { if (R.timer) { R.timer = null; playReplay(); } }, 1200); }
  }, 1000 / ((R.d.fps || 15) * speed));
}
function stopReplay() { clearInterval(R.timer); R.timer = null; $("#replay-play").textContent = "▶ Play"; }

// ---- stats ---------------------------------------------------------------------------------------------
function statsTable(sel, stats, names) {
  const rows = Object.entries(stats);
  $(sel).innerHTML = "<thead><tr><th>Player</th><th>Cards/min</th><th>Pile → card (s)</th><th>Illegal</th><th>Disputes won</th><th>Rounds</th><th>Points</th></tr></thead><tbody>" +
    (rows.map(([p, s]) => `<tr data-player="${esc(p)}"><td>${esc(names[p] || p)}</td><td>${s.cards_per_minute ?? "–"}</td><td>${s.open_to_land_s ?? "–"}</td>` +
      `<td>${s.illegal}</td><td>${s.disputes_won} of ${s.disputes}</td><td>${s.rounds}</td><td>${s.points}</td></tr>`).join("")
      || "<tr><td colspan='7' class='muted'>No finished round yet.</td></tr>") + "</tbody>";
}
async function loadStats() {
  const st = await get("/api/stats");
  statsTable("#stats-match", st.match, st.names);
  statsTable("#stats-all", st.all_time, st.names);
}

// ---- set-up -----------------------------------------------------------------------------------------------
async function loadSetup() {
  const [st, status, url] = await Promise.all([get("/api/settings"), get("/api/status"), get("/api/url")]);
  $("#panel-url").textContent = url.url;
  $("#pin-first").hidden = st.has_pin;
  $("#unlock").pin.value = sessionStorage.getItem("pin") || "";
  $("#unlock").who.value = sessionStorage.getItem("who") || "";
  $("#player-fields").innerHTML = st.players.map((p) =>
    `<div class="row"><label>${esc(p.id)} <input name="name-${esc(p.id)}" value="${esc(p.name)}" maxlength="20" required></label>` +
    `<label>seat <select name="seat-${esc(p.id)}">${["south", "west", "north", "east"].map((s) => `<option ${p.seat === s ? "selected" : ""}>${s}</option>`).join("")}` +
    (typeof p.seat === "number" ? `<option value="${p.seat}" selected>${p.seat}°</option>` : "") + "</select></label></div>").join("");
  const f = $("#rules"), o = st.rules.options;
  f.edition.value = st.rules.edition; f.ten_face_down.checked = o.ten === "face-down"; f.grace_s.value = o.grace_s;
  f.profi.checked = o.profi; f.handicap.checked = o.handicap; f.stack_penalty.value = o.stack_penalty;
  f.ten_points.value = o.ten_points; f.illegal_penalty.value = o.illegal_penalty; f.stack_size.value = o.stack_size;
  f._options = o;
  $("#goal").goal.value = st.match_goal.kind; $("#goal").value.value = st.match_goal.value;
  const cal = status.calibration || {state: "unknown", detail: "the feed has not said"};
  $("#calib-state").textContent = cal.state; $("#calib-detail").textContent = cal.detail || "";
  const c = st.calibration;
  if (c) { const cf = $("#calibration"); if (c.table_mm) { cf.w.value = c.table_mm[0]; cf.h.value = c.table_mm[1]; } cf.note.value = c.note || "";
    $("#calib-saved").textContent = `saved ${new Date(c.saved_at * 1000).toLocaleString()}`; }
  const img = $("#calib-img");
  img.onload = () => { img.hidden = false; $("#calib-none").hidden = true; };
  img.onerror = () => { img.hidden = true; $("#calib-none").hidden = false; };
  img.src = "/api/frame.jpg?t=" + Date.now();
  loadEnrollment();
}

// ---- set-up: enrollment of backs and colours ------------------------------------------------------------
async function loadEnrollment() {
  const en = await get("/api/enrollment");
  $("#enrol-msg").textContent = en.message;
  $("#enrol-lists").hidden = !en.needed;
  if (!en.needed) return;
  $("#enrol-folder").textContent = `Stored in ${en.table_folder}/enroll/`;
  $("#enrollment").dataset.maxBytes = en.max_upload_bytes;
  const item = (kind, r) => {
    const label = kind === "backs" ? nameOf(r.name) + (nameOf(r.name) !== r.name ? ` (${r.name})` : "") : r.name;
    const pic = r.enrolled ? `<img class="thumb" alt="${esc(r.name)}" src="${esc(r.url)}?v=${r.updated_at}">` : `<span class="thumb none">?</span>`;
    return `<div class="enrol-item" data-kind="${kind}" data-name="${esc(r.name)}">${pic}<b>${esc(label)}</b><br>` +
      (r.enrolled ? `<span class="ok">✓ enrolled</span>` : `<span class="missing">not yet</span>`) +
      `<label class="button">📷 ${r.enrolled ? "Retake" : "Photo"}<input type="file" accept="image/*" capture="environment"></label></div>`;
  };
  $("#enrol-faces").innerHTML = en.faces.map((r) => item("faces", r)).join("");
  $("#enrol-backs").innerHTML = en.backs.map((r) => item("backs", r)).join("");
  document.querySelectorAll(".enrol-item input[type=file]").forEach((inp) => inp.onchange = () => {
    const box = inp.closest(".enrol-item");
    if (inp.files[0]) uploadCard(box.dataset.kind, box.dataset.name, inp.files[0]).catch(() => {}).finally(loadEnrollment);
  });
}

function loadPicture(file) {
  return new Promise((ok, fail) => {
    const url = URL.createObjectURL(file), img = new Image();
    img.onload = () => { URL.revokeObjectURL(url); ok(img); };
    img.onerror = () => { URL.revokeObjectURL(url); fail(new Error("not a picture")); };
    img.src = url;
  });
}

async function shrinkPhoto(file, maxBytes) {
  // a phone photo is several MB, the panel takes small requests: send it shrunk (the stored crop is ~53×82 px)
  const img = await loadPicture(file);
  const c = document.createElement("canvas");
  for (const [side, q] of [[1280, 0.85], [1024, 0.8], [800, 0.75], [640, 0.7], [480, 0.6], [360, 0.5]]) {
    const s = Math.min(1, side / Math.max(img.naturalWidth, img.naturalHeight));
    c.width = Math.round(img.naturalWidth * s); c.height = Math.round(img.naturalHeight * s);
    c.getContext("2d").drawImage(img, 0, 0, c.width, c.height);
    const blob = await new Promise((ok) => c.toBlob(ok, "image/jpeg", q));
    if (blob && blob.size <= maxBytes) return blob;
  }
  throw new Error("the photo is too big even when shrunk");
}

async function uploadCard(kind, name, file) {
  let blob;
  try { blob = await shrinkPhoto(file, (+$("#enrollment").dataset.maxBytes || 65536) - 1024); }
  catch (err) { toast(`${err.message}: choose a photo of one card`); throw err; }
  const headers = {"Content-Type": "image/jpeg"};
  const pin = sessionStorage.getItem("pin"), who = sessionStorage.getItem("who");
  if (pin) headers["X-Table-PIN"] = pin;
  if (who) headers["X-Who"] = who;
  const res = await fetch(`/api/enrollment/${kind}/${encodeURIComponent(name)}`, {method: "POST", headers, body: blob});
  const data = await res.json().catch(() => ({}));
  if (!res.ok) { toast(data.detail || `${res.status} ${res.statusText}`); throw new Error(data.detail); }
  toast(`${data.message}; the referee ${data.referee}`, !data.outline_found);
  return data;
}

function wireForms() {
  $("#unlock").addEventListener("input", (e) => sessionStorage.setItem(e.target.name, e.target.value.trim()));
  $("#pin-first").onsubmit = async (e) => {
    e.preventDefault();
    const pin = e.target.pin.value.trim();
    await api("POST", "/api/pin", {pin});
    sessionStorage.setItem("pin", pin); toast("PIN set: keep it to yourselves", false); loadSetup();
  };
  $("#players").onsubmit = async (e) => {
    e.preventDefault();
    const players = S.players.map((p) => { const seat = e.target[`seat-${p.id}`].value;
      return {id: p.id, name: e.target[`name-${p.id}`].value, seat: /^\d+$/.test(seat) ? +seat : seat}; });
    await api("PUT", "/api/settings/players", {players}); toast("Players saved", false);
  };
  $("#rules").onsubmit = async (e) => {
    e.preventDefault();
    const f = e.target;
    const options = {...f._options, ten: f.ten_face_down.checked ? "face-down" : "face-up", grace_s: +f.grace_s.value,
      profi: f.profi.checked, handicap: f.handicap.checked, stack_penalty: +f.stack_penalty.value,
      ten_points: +f.ten_points.value, illegal_penalty: +f.illegal_penalty.value, stack_size: +f.stack_size.value};
    await api("PUT", "/api/settings/rules", {edition: f.edition.value, options}); toast("Rules saved: from the next round", false);
  };
  $("#goal").onsubmit = async (e) => {
    e.preventDefault();
    await api("PUT", "/api/settings/match", {goal: e.target.goal.value, value: +e.target.value.value}); toast("Match goal saved", false);
  };
  $("#calibration").onsubmit = async (e) => {
    e.preventDefault();
    const f = e.target;
    await api("PUT", "/api/calibration", {table_mm: f.w.value && f.h.value ? [+f.w.value, +f.h.value] : null, note: f.note.value});
    toast("Calibration saved", false); loadSetup();
  };
  $("#correct").onsubmit = async (e) => {
    e.preventDefault();
    const f = e.target, scores = {};
    S.players.forEach((p) => (scores[p.id] = +f[`s-${p.id}`].value));
    sessionStorage.setItem("who", f.who.value.trim());
    await api("PUT", `/api/rounds/${f.dataset.round}`, {scores, who: f.who.value, note: f.note.value});
    f.hidden = true; toast("Round corrected", false); loadHistory();
  };
  $("#correct-cancel").onclick = () => ($("#correct").hidden = true);
  $("#new-match").onclick = async () => {
    if (!confirm("End this match and start a new one?")) return;
    await api("POST", "/api/matches"); toast("New match started", false); loadHistory();
  };
  $("#replay-play").onclick = playReplay;
  $("#replay-prev").onclick = () => { stopReplay(); showFrame(R.i - 1); };
  $("#replay-next").onclick = () => { stopReplay(); showFrame(R.i + 1); };
  $("#replay-slider").oninput = (e) => { stopReplay(); showFrame(+e.target.value); };
}

// ---- tabs -------------------------------------------------------------------------------------------------
function route() {
  const [tab, arg] = (location.hash.slice(1) || "live").split("/");
  document.querySelectorAll("main > section").forEach((s) => (s.hidden = s.id !== `tab-${tab}`));
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", a.dataset.tab === tab));
  // the live video only streams while it is shown, to spare the Pi and the phone's data
  const v = $("#video");
  if (tab === "live" && !v.getAttribute("src")) v.src = "/video.mjpg";
  if (tab !== "live" && v.getAttribute("src")) v.removeAttribute("src");
  if (tab === "scores") loadHistory();
  if (tab === "stats") loadStats();
  if (tab === "setup") loadSetup();
  if (tab === "disputes") {
    $("#dispute-list-view").hidden = !!arg; $("#replay").hidden = !arg;
    if (arg) openReplay(arg); else { stopReplay(); loadDisputes(); }
  }
}

window.addEventListener("hashchange", route);
wireForms();
route();
connect();
