// The table panel: one page, five tabs, fed by server-sent events (/api/events) and the JSON API.
"use strict";
const $ = (sel) => document.querySelector(sel);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
let S = null;          // the latest panel state from the server
let lastAlertKey = null, alertTimer = null, lastCheckKey = null;

const nameOf = (id) => (S && S.players.find((p) => p.id === id) || {name: id}).name;
const signed = (n) => (n > 0 ? "+" : "") + n;
// a player's name in a table: shortened with … where twelve do not fit a phone, whole in its title
const nameCell = (name) => `<span class="name" title="${esc(name)}">${esc(name)}</span>`;
const GOALS = {target: (v) => `to ${v} points`, rounds: (v) => `${v} rounds`, minutes: (v) => `${v} minutes`, endless: () => "endless"};
const ARROW = {up: "<span class='up' title='moved up'>▲</span>", down: "<span class='down' title='moved down'>▼</span>", same: "<span class='same'>–</span>"};

function toast(text, bad = true) {
  const t = $("#toast");
  t.textContent = text; t.className = "toast " + (bad ? "bad" : "good"); t.hidden = false;
  clearTimeout(t._timer); t._timer = setTimeout(() => (t.hidden = true), 5000);
}

// A header carries Latin-1 only: "Łukasz" or "Zoë 🎲" go percent-encoded (the panel decodes them).
function changeHeaders(extra = {}, pin = null) {
  const headers = {...extra};
  pin = pin || sessionStorage.getItem("pin");
  const who = sessionStorage.getItem("who");
  if (pin) headers["X-Table-PIN"] = pin;
  if (who) headers["X-Who"] = encodeURIComponent(who);
  return headers;
}

// What a refused change means, in plain words; `where` tells where the PIN is entered.
function refusal(status, detail, where) {
  if (status === 401) return `This change needs the table's PIN: enter it ${where}.`;
  if (status === 403 && /PIN/.test(detail || "")) return `That PIN is wrong: check it and enter it ${where} again.`;
  return detail || `the panel refused (${status})`;
}

class Refused extends Error {
  constructor(status, detail) { super(detail); this.status = status; this.detail = detail; }
}
// a refused change has been told to the person already (toast or the form's message): nothing more to report
window.addEventListener("unhandledrejection", (e) => { if (e.reason instanceof Refused) e.preventDefault(); });

// opts.pin: the PIN typed next to the change; opts.where: where to enter it (for the message); opts.quiet: no toast
async function api(method, path, body, opts = {}) {
  const headers = changeHeaders({"Content-Type": "application/json"}, opts.pin);
  let res;
  try {
    res = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  } catch (err) {  // no answer at all: the connection is down
    if (!opts.quiet) toast("No connection to the table: try again once it is back.");
    throw new Refused(0, String(err));
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const text = refusal(res.status, data.detail, opts.where || "under “Make changes” on the Set-up page");
    if (!opts.quiet) toast(text);
    throw new Refused(res.status, text);
  }
  return data;
}
const get = (path) => api("GET", path);

// A form's own message line (PIN asked where the change is made)
function formMsg(form, text) {
  const m = form.querySelector(".form-msg");
  m.textContent = text || ""; m.hidden = !text;
}

// ---- live ------------------------------------------------------------------------------------------
function render() {
  if (!S) return;
  $("#round-label").textContent = `Round ${S.round.no}` + (S.round.ended ? " (counting)" : "");
  $("#goal-label").textContent = `· match ${S.match.id}, ${GOALS[S.match.goal](S.match.value)}`;
  const tb = $("#tally tbody");
  tb.innerHTML = S.players.map((p) => {
    const t = S.round.tallies[p.id] || {laid: 0, illegal: 0, disputes_won: 0};
    return `<tr data-player="${esc(p.id)}"><td>${nameCell(p.name)}</td><td class="laid">${t.laid}</td>` +
      `<td class="illegal ${t.illegal ? "bad" : ""}">${t.illegal}</td><td>${t.disputes_won}</td>` +
      `<td>${S.match.totals[p.id] ?? 0} ${ARROW[S.match.trend[p.id]] || ""}</td></tr>`;
  }).join("");
  $("#plays").innerHTML = S.round.plays.map((p) =>
    `<li class="${p.unsure ? "unsure" : p.legal ? "ok" : "bad"}" data-card="${esc(p.card)}"><b>${esc(nameOf(p.player))}</b> ` +
    `<span class="card c-${esc(String(p.card).split("-")[0])}">${esc(p.card)}</span> → pile ${esc(p.pile)} ` +
    (p.unsure ? "? check this card" : p.legal ? "✓" : `✗ ${esc(p.said || p.reason)}`) + "</li>").join("") || "<li class='muted'>no card laid yet this round</li>";
  showAlert(S.alert);
  showCheck(S.check);
  cueRoundEnd();
  renderBoard();
}

function showAlert(a) {
  if (!a) return;
  const key = `${a.frame}/${a.player}/${a.card}`;
  if (key === lastAlertKey) return;
  const first = lastAlertKey === null && !seenState;  // an alert already standing when the page opened: no cue
  lastAlertKey = key;
  const el = $("#alert");
  $("#alert-text").innerHTML = `⚠ <b>Illegal play:</b> ${esc(nameOf(a.player))} laid <b>${esc(a.card)}</b> on pile ${esc(a.pile)} — ${esc(a.why || a.said || a.reason)}`;
  el.hidden = false;
  clearTimeout(alertTimer); alertTimer = setTimeout(() => (el.hidden = true), 8000);
  if (!first) cue("illegal");
}

// a play read too unsurely to judge: the table is asked to look at the card (no cue: it is no alarm);
// it stays until dismissed, the next one replaces it, and it goes with its round
function showCheck(c) {
  const el = $("#check");
  if (!c) { el.hidden = true; lastCheckKey = null; return; }
  const key = `${c.frame}/${c.player}/${c.card}`;
  if (key === lastCheckKey) return;
  lastCheckKey = key;
  $("#check-text").innerHTML = `🔍 <b>Check this card:</b> ${esc(nameOf(c.player))} laid <b>${esc(c.card)}</b>? on pile ${esc(c.pile)} — ${esc(c.why)}.`;
  const img = $("#check-img");
  img.hidden = !c.picture;
  if (c.picture) img.src = c.picture; else img.removeAttribute("src");
  el.hidden = false;
}

// the round's end: "Ligretto Stop!" seen (round.ended), or its count arriving without it
let lastRound = null;
function cueRoundEnd() {
  const now = {no: S.round.no, ended: S.round.ended, match: S.match.id};
  const was = lastRound;
  lastRound = now;
  if (!was || was.match !== now.match) return;
  if ((now.ended && !was.ended) || (now.no > was.no && !was.ended)) cue("round");
}

// ---- sound and vibration (each phone chooses, Set-up → On this phone) --------------------------------------
const PREFS = {sound: false, vibrate: false, awake: false, theme: "auto"};
function pref(k) { try { const v = localStorage.getItem(`pref-${k}`); return v === null ? PREFS[k] : JSON.parse(v); } catch (e) { return PREFS[k]; } }
function setPref(k, v) { try { localStorage.setItem(`pref-${k}`, JSON.stringify(v)); } catch (e) { /* private mode: for this visit */ } }
let audio = null;
function beep(freqs, ms) {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  audio = audio || new Ctx();
  if (audio.state === "suspended") audio.resume();
  let t = audio.currentTime;
  for (const f of freqs) {
    const o = audio.createOscillator(), g = audio.createGain();
    o.frequency.value = f; o.type = "sine";
    g.gain.setValueAtTime(0.0001, t); g.gain.exponentialRampToValueAtTime(0.4, t + 0.02); g.gain.exponentialRampToValueAtTime(0.0001, t + ms / 1000);
    o.connect(g).connect(audio.destination); o.start(t); o.stop(t + ms / 1000 + 0.02);
    t += ms / 1000 + 0.05;
  }
}
function cue(kind) {
  if (pref("sound")) kind === "illegal" ? beep([880, 440], 180) : beep([523, 659, 784], 160);
  if (pref("vibrate") && navigator.vibrate) navigator.vibrate(kind === "illegal" ? [250, 100, 250] : [120]);
}

// ---- keeping the screen awake: the Screen Wake Lock where the browser has it (https, localhost), else a
// silent 1-pixel video playing (what keeps some phones awake; others need a longer screen timeout) -----------
let wake = null, wakeVideo = null;
function silentVideo(on) {
  if (!on) {
    if (wakeVideo) { clearInterval(wakeVideo._tick); wakeVideo.pause(); wakeVideo.remove(); wakeVideo = null; }
    return false;
  }
  if (wakeVideo) { wakeVideo.play().catch(() => {}); return true; }  // (a hidden page's video may have paused)
  const c = document.createElement("canvas");
  if (!c.captureStream) return false;
  c.width = c.height = 2;
  const g = c.getContext("2d");
  let n = 0;
  const v = document.createElement("video");
  v.muted = true; v.loop = true; v.playsInline = true; v.setAttribute("playsinline", ""); v.className = "wake-video";
  v._tick = setInterval(() => { g.fillStyle = n++ % 2 ? "#000" : "#010101"; g.fillRect(0, 0, 2, 2); }, 1000);
  v.srcObject = c.captureStream(1);
  document.body.appendChild(v);
  v.play().catch(() => {});
  wakeVideo = v;
  return true;
}
async function keepAwake() {
  const state = $("#awake-state");
  if (!pref("awake")) {
    if (wake) { wake.release().catch(() => {}); wake = null; }
    silentVideo(false); state.textContent = ""; return;
  }
  if (!("wakeLock" in navigator)) {  // plain http on a phone: browsers give the Wake Lock to https pages only
    state.textContent = silentVideo(true)
      ? "A silent video keeps the screen on where the phone allows it (this page is not https); if yours still dims, lengthen its screen timeout."
      : "This browser cannot keep the screen on from this page: lengthen the phone's screen timeout instead.";
    return;
  }
  if (wake || document.visibilityState !== "visible") return;
  try {
    wake = await navigator.wakeLock.request("screen");
    state.textContent = "The screen stays on while this page is open.";
    wake.addEventListener("release", () => { wake = null; });
  } catch (err) { state.textContent = `The screen could not be kept awake: ${err.message}`; }
}
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") keepAwake(); });

// ---- the theme ----------------------------------------------------------------------------------------------
function applyTheme() {
  const t = pref("theme");
  if (t === "dark" || t === "light") document.documentElement.dataset.theme = t; else delete document.documentElement.dataset.theme;
  try { if (t === "auto") localStorage.removeItem("theme"); else localStorage.setItem("theme", t); } catch (e) { /* nothing kept */ }
}

// ---- the connection: events, the video, a banner while it is down ---------------------------------------
let es = null, seenState = false, lastMessage = 0, retryTimer = null, wasOffline = false;
function connect() {
  clearTimeout(retryTimer);
  if (es) es.close();
  es = new EventSource("/api/events");
  es.addEventListener("state", (m) => { lastMessage = Date.now(); S = JSON.parse(m.data); render(); seenState = true; online(true); });
  es.addEventListener("ping", () => { lastMessage = Date.now(); });
  es.addEventListener("hub", (m) => {
    lastMessage = Date.now();
    const ev = JSON.parse(m.data);
    if (ev.type === "dispute" && location.hash.startsWith("#disputes")) loadDisputes();
    if (ev.type === "count") setTimeout(() => loadHistory().catch(() => {}), 300);
  });
  es.onopen = () => { lastMessage = Date.now(); };
  es.onerror = () => {
    online(false);
    if (es.readyState === EventSource.CLOSED) retryTimer = setTimeout(connect, 2000);  // the browser gave up: we do not
  };
}
// a connection that silently stalls (a phone leaving the Wi-Fi) sends nothing: the server says something every 15 s
setInterval(() => { if (es && lastMessage && Date.now() - lastMessage > 35000) { online(false); connect(); } }, 5000);

function online(up) {
  $("#conn").className = "conn " + (up ? "on" : "off");
  $("#conn").title = up ? "live connection" : "connection lost, reconnecting";
  document.body.classList.toggle("offline", !up);
  $("#offline").hidden = up;
  if (up && wasOffline) {  // back: a fresh video stream, and the page's lists again
    restartVideo();
    const tab = currentTab();
    if (tab === "scores") loadHistory().catch(() => {});
    if (tab === "disputes" && !location.hash.includes("/")) loadDisputes().catch(() => {});
    if (tab === "stats") loadStats().catch(() => {});
  }
  wasOffline = !up;
}

function restartVideo() {
  const v = $("#video");
  if (currentTab() === "live") v.src = "/video.mjpg?t=" + Date.now();
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
    `<tr data-player="${esc(p.id)}"><td>${nameCell(p.name)}${m.leaders.includes(p.id) && m.rounds.length ? " ★" : ""}</td>` +
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
  f.pin.value = sessionStorage.getItem("pin") || "";
  formMsg(f, "");
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
  $("#changes").innerHTML = changes.map((c) =>
    `<li><span class="when">${esc(new Date(c.at * 1000).toLocaleString())}</span> ${esc(c.text)}${c.note ? ` — “${esc(c.note)}”` : ""}</li>`
  ).join("") || "<li class='muted'>No change made by hand yet.</li>";
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

const R = {frames: [], i: 0, timer: null, d: null, zoom: true};
async function openReplay(id) {
  stopReplay();
  const d = await get(`/api/disputes/${id}`);
  R.d = d; R.frames = d.frames || []; R.i = 0; R.zoom = true;
  $("#replay-zoom").hidden = !d.view;
  applyZoom();
  $("#replay-title").textContent = `Dispute on pile ${d.pile}: ${d.card}`;
  $("#replay-verdict").textContent = verdict(d);
  if (!R.frames.length) { $("#replay-info").textContent = d.replay === "saving" ? "The replay is being saved — try again in a moment." : "No replay was saved for this dispute."; $("#replay-img").removeAttribute("src"); return; }
  R.frames.forEach((f) => { const im = new Image(); im.src = f.url; });  // preload
  const slider = $("#replay-slider");
  slider.max = R.frames.length - 1;
  const first = R.frames[0].frame, span = Math.max(1, R.frames[R.frames.length - 1].frame - first);
  $("#replay-ticks").innerHTML = [...d.claims].sort((a, b) => a.touch - b.touch).map((c) => {
    const at = Math.max(0, Math.min(100, 100 * (c.touch - first) / span));
    return `<span class="tick${at > 60 ? " end" : ""}" style="left:${at.toFixed(1)}%" title="${esc(nameOf(c.player))} touches">▲ ${esc(nameOf(c.player))}</span>`;
  }).join("");
  requestAnimationFrame(layTicks);
  showFrame(0);
}

// ticks whose labels would overlap go on a row of their own
function layTicks() {
  const box = $("#replay-ticks"), rows = [];
  let used = 1;
  box.querySelectorAll(".tick").forEach((t) => {
    t.style.top = "0";
    const r = t.getBoundingClientRect();
    let row = 0;
    while (rows.some((p) => p.row === row && r.left < p.right + 6 && r.right + 6 > p.left)) row++;
    rows.push({row, left: r.left, right: r.right});
    t.style.top = `${row * 1.4}rem`;
    used = Math.max(used, row + 1);
  });
  box.style.height = `${used * 1.4}rem`;
}
window.addEventListener("resize", () => { if (!$("#replay").hidden) layTicks(); });

// the replay shows the part of the picture around the disputed cards (the panel says where), or the whole table
function applyZoom() {
  const box = $("#replay-frame"), img = $("#replay-img"), v = R.d && R.d.view;
  const on = !!(v && R.zoom);
  box.classList.toggle("zoomed", on);
  $("#replay-zoom").textContent = on ? "Whole table" : "Zoom on the pile";
  if (!on) { img.style.width = img.style.left = img.style.top = ""; box.style.aspectRatio = ""; return; }
  const W = img.naturalWidth || 16, H = img.naturalHeight || 9;
  box.style.aspectRatio = `${(v.w * W).toFixed(1)} / ${(v.h * H).toFixed(1)}`;
  img.style.width = `${(100 / v.w).toFixed(3)}%`;
  img.style.left = `${(-100 * v.x / v.w).toFixed(3)}%`;
  img.style.top = `${(-100 * v.y / v.h).toFixed(3)}%`;
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
const tenths = (v) => (v == null ? "–" : (+v).toFixed(1));  // a tenth is what tells players apart (and fits a phone)
function statsTable(sel, stats, names) {
  const rows = Object.entries(stats);
  $(sel).innerHTML = "<thead><tr><th>Player</th><th>Cards /min</th><th>Pile → card (s)</th><th>Illegal</th><th>Disputes won</th><th>Rounds</th><th>Points</th></tr></thead><tbody>" +
    (rows.map(([p, s]) => `<tr data-player="${esc(p)}"><td>${nameCell(names[p] || p)}</td><td>${tenths(s.cards_per_minute)}</td><td>${tenths(s.open_to_land_s)}</td>` +
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
  const ph = $("#phone");
  ph.sound.checked = pref("sound"); ph.vibrate.checked = pref("vibrate"); ph.awake.checked = pref("awake"); ph.theme.value = pref("theme");
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
  const fr = status.frames;  // the latest frame that came late, broken, or that the referee failed on
  $("#frames-news").hidden = !fr;
  if (fr) $("#frames-news").textContent = `Frame ${fr.frame}: ${fr.frame_gap || fr.frame_problem || fr.referee_error}`;
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
  showNumbers(en.numbers);
}

// the ten numbers of one colour: the stored crops, and what the reader read on each (known after an upload)
let numbersRead = null;
function showNumbers(nb) {
  $("#enrol-numbers-msg").textContent = nb.message;
  $("#enrol-numbers").innerHTML = nb.cards.map((c, i) => {
    const r = numbersRead && numbersRead[i];
    const pic = c.enrolled ? `<img class="thumb" alt="the ${c.number}" src="${esc(c.url)}?v=${nb.updated_at}">` : `<span class="thumb none">${c.number}</span>`;
    const said = !r ? "" : `<span class="read ${r.read === c.number ? "ok" : "missing"}">read ${r.read ?? "?"}</span>`;
    return `<div class="number-item" data-number="${c.number}">${pic}<b>${c.number}</b> ${said}</div>`;
  }).join("");
  const inp = $("#enrol-numbers-photo input");
  inp.onchange = () => { if (inp.files[0]) uploadNumbers(inp.files[0]).catch(() => {}).finally(() => { inp.value = ""; loadEnrollment(); }); };
}

async function uploadNumbers(file) {
  const note = $("#enrol-numbers-note");
  let blob;
  // ten cards in one photo: sharpness counts more than JPEG quality
  try { blob = await shrinkPhoto(file, (+$("#enrollment").dataset.maxBytes || 65536) - 1024, SHARP_STEPS); }
  catch (err) { toast(`${err.message}: choose a photo of the ten cards`); throw err; }
  const res = await fetch("/api/enrollment/numbers", {method: "POST", headers: changeHeaders({"Content-Type": "image/jpeg"}), body: blob});
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const text = refusal(res.status, data.detail, "under “Make changes” on this page");
    note.textContent = text; note.hidden = false; toast(text); throw new Error(text);
  }
  numbersRead = data.cards;
  note.textContent = `${data.message}; the referee ${data.referee}`; note.hidden = false;
  toast(note.textContent, data.cards.some((c) => c.read !== c.number));
  return data;
}

function loadPicture(file) {
  return new Promise((ok, fail) => {
    const url = URL.createObjectURL(file), img = new Image();
    img.onload = () => { URL.revokeObjectURL(url); ok(img); };
    img.onerror = () => { URL.revokeObjectURL(url); fail(new Error("not a picture")); };
    img.src = url;
  });
}

const PHOTO_STEPS = [[1280, 0.85], [1024, 0.8], [800, 0.75], [640, 0.7], [480, 0.6], [360, 0.5]];
const SHARP_STEPS = [[1600, 0.8], [1280, 0.75], [1280, 0.6], [1024, 0.6], [1024, 0.45], [800, 0.5], [640, 0.5]];
async function shrinkPhoto(file, maxBytes, steps = PHOTO_STEPS) {
  // a phone photo is several MB, the panel takes small requests: send it shrunk (the stored crop is ~53×82 px)
  const img = await loadPicture(file);
  const c = document.createElement("canvas");
  for (const [side, q] of steps) {
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
  const headers = changeHeaders({"Content-Type": "image/jpeg"});
  const res = await fetch(`/api/enrollment/${kind}/${encodeURIComponent(name)}`, {method: "POST", headers, body: blob});
  const data = await res.json().catch(() => ({}));
  if (!res.ok) { const text = refusal(res.status, data.detail, "under “Make changes” on this page"); toast(text); throw new Error(text); }
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
  $("#correct").onsubmit = async (e) => {
    e.preventDefault();
    const f = e.target, scores = {}, pin = f.pin.value.trim();
    S.players.forEach((p) => (scores[p.id] = +f[`s-${p.id}`].value));
    sessionStorage.setItem("who", f.who.value.trim());
    try {
      await api("PUT", `/api/rounds/${f.dataset.round}`, {scores, who: f.who.value, note: f.note.value},
                {pin, quiet: true, where: "in this form"});
    } catch (err) { formMsg(f, err.message); return; }
    sessionStorage.setItem("pin", pin);
    f.hidden = true; toast("Round corrected", false); loadHistory();
  };
  $("#correct-cancel").onclick = () => ($("#correct").hidden = true);
  $("#new-match").onclick = () => {
    const f = $("#new-match-form");
    $("#new-match-text").textContent = S ? `Match ${S.match.id} ends now (${S.match.rounds.length} rounds played); its rounds stay under “Past matches”.` : "";
    f.pin.value = sessionStorage.getItem("pin") || ""; f.who.value = sessionStorage.getItem("who") || "";
    formMsg(f, ""); f.hidden = false; f.scrollIntoView({behavior: "smooth"});
  };
  $("#new-match-cancel").onclick = () => ($("#new-match-form").hidden = true);
  $("#new-match-form").onsubmit = async (e) => {
    e.preventDefault();
    const f = e.target, pin = f.pin.value.trim();
    if (f.who.value.trim()) sessionStorage.setItem("who", f.who.value.trim());
    try { await api("POST", "/api/matches", undefined, {pin, quiet: true, where: "in this form"}); }
    catch (err) { formMsg(f, err.message); return; }
    sessionStorage.setItem("pin", pin);
    f.hidden = true; toast("New match started", false); loadHistory();
  };
  $("#alert-close").onclick = () => { $("#alert").hidden = true; clearTimeout(alertTimer); };
  $("#check-close").onclick = () => { $("#check").hidden = true; };
  $("#phone").addEventListener("change", (e) => {
    const t = e.target;
    setPref(t.name, t.type === "checkbox" ? t.checked : t.value);
    if (t.name === "theme") applyTheme();
    if (t.name === "awake") keepAwake();
    if ((t.name === "sound" || t.name === "vibrate") && t.checked) cue("round");  // a sample, and it unlocks audio
  });
  $("#replay-zoom").onclick = () => { R.zoom = !R.zoom; applyZoom(); };
  $("#replay-img").addEventListener("load", () => { if (R.d && R.d.view) applyZoom(); });
  $("#replay-play").onclick = playReplay;
  $("#replay-prev").onclick = () => { stopReplay(); showFrame(R.i - 1); };
  $("#replay-next").onclick = () => { stopReplay(); showFrame(R.i + 1); };
  $("#replay-slider").oninput = (e) => { stopReplay(); showFrame(+e.target.value); };
}

// ---- tabs -------------------------------------------------------------------------------------------------
const currentTab = () => (location.hash.slice(1) || "live").split("/")[0];
function route() {
  const [tab, arg] = (location.hash.slice(1) || "live").split("/");
  document.body.dataset.tab = tab;  // the illegal-play alert shows on Live only
  document.querySelectorAll("main > section").forEach((s) => (s.hidden = s.id !== `tab-${tab}`));
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", a.dataset.tab === tab));
  // the live video only streams while it is shown, to spare the Pi and the phone's data
  const v = $("#video");
  if (tab === "live" && !v.getAttribute("src")) v.src = "/video.mjpg?t=" + Date.now();
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
// the video stream broke (the server went away): try again shortly, while the events say it is back
$("#video").addEventListener("error", () => setTimeout(() => { if (!document.body.classList.contains("offline")) restartVideo(); }, 2000));
wireForms();
applyTheme();
route();
connect();
keepAwake();
