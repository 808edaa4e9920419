// TurnLens session map: draws the sessions embedded in #turnlens-data (the JSON of
// turnlens.pipeline.sessionmap). No network, no library. In a VS Code webview it also
// takes {type: "update", data} messages and posts {type: "reveal", ...} when a mark is chosen.
(function () {
  'use strict';
  const CLASSES = ['decision', 'spec', 'code', 'review', 'context', 'chitchat'];
  const EFFORTS = ['none', 'low', 'medium', 'high', 'xhigh', 'max'];
  const LANES = [
    ['user', 'user prompts'],
    ['assistant', 'replies'],
    ['tool', 'tool results'],
    ['other', 'system · text'],
  ];
  // drawing width: the page's own width, so labels keep their size in a narrow webview
  let W = 1200;
  const LEFT = 92;
  const vscode = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : null;
  const app = document.getElementById('app');
  const tip = document.getElementById('tip');
  let data = JSON.parse(document.getElementById('turnlens-data').textContent);
  let current = 0;
  let selected = -1;

  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  const pct = (x) => (100 * x).toFixed(1) + ' %';
  const num = (n) => Number(n).toLocaleString('en-US');
  const laneOf = (u) => (u.role === 'user' || u.role === 'assistant' || u.role === 'tool' ? u.role : 'other');
  const who = (u) => (u.role === 'text' ? 'turn' : u.kind.startsWith(u.role) ? u.kind.replace('_', ' ') : `${u.role} ${u.kind.replace('_', ' ')}`);

  function label(u) {
    const conf = u.confidence !== undefined && u.confidence < 0.5 ? '?' : '';
    let s = `#${u.i} ${who(u)}: ${u.class}${conf} ≤${u.ratio}:1`;
    if (u.frozen === 'true') s += ' · frozen';
    else if (u.frozen === 'partial') s += ' · partly frozen';
    if (u.routed) s += ` · effort ${u.effort || 'none'}`;
    if (u.effort_used) s += ` (used ${u.effort_used})`;
    return s;
  }

  /** x position and width of each unit on the timeline: width by tokens, never thinner than minW. */
  function layout(units) {
    const total = units.reduce((a, u) => a + u.tokens, 0) || 1;
    const span = W - LEFT - 4;
    const minW = Math.min(3, (span * 0.4) / Math.max(1, units.length));
    const scale = (span - minW * units.length) / total;
    let x = LEFT;
    return units.map((u) => {
      const w = minW + u.tokens * scale;
      const slot = { x, w };
      x += w;
      return slot;
    });
  }

  function timeline(s) {
    const units = s.units;
    const slots = layout(units);
    const laneH = 26;
    const top = 14;
    const lanesH = LANES.length * (laneH + 4);
    const ticks = timeTicks(units, slots);
    const axisY = top + lanesH + (ticks.length ? 4 : 0);
    const planY = axisY + (ticks.length ? 22 : 0) + 10;
    const h = planY + 24;
    let out = `<svg id="timeline" viewBox="0 0 ${W} ${h}" role="group" aria-label="Session timeline: ${units.length} units">`;
    LANES.forEach(([, name], k) => {
      const y = top + k * (laneH + 4);
      out += `<rect class="lane-bg" x="${LEFT}" y="${y}" width="${W - LEFT}" height="${laneH}"/>`;
      out += `<text x="0" y="${y + 17}">${esc(name)}</text>`;
    });
    out += `<text x="0" y="${planY + 15}">plan keeps</text>`;
    if (ticks.length) {
      // the time axis: when the file says each message was written, at the message's place
      out += `<g id="time-axis"><text x="0" y="${axisY + 14}">time (UTC)</text><line class="axis" x1="${LEFT}" x2="${W}" y1="${axisY}" y2="${axisY}"></line>`;
      for (const t of ticks) out += `<line class="axis" x1="${t.x.toFixed(2)}" x2="${t.x.toFixed(2)}" y1="${axisY}" y2="${axisY + 4}"></line><text class="tick" data-time="${esc(t.time)}" x="${Math.min(W - 60, t.x).toFixed(2)}" y="${axisY + 15}">${esc(t.label)}</text>`;
      out += '</g>';
    }
    units.forEach((u, idx) => {
      const lane = LANES.findIndex(([key]) => key === laneOf(u));
      const y = top + lane * (laneH + 4);
      const { x, w } = slots[idx];
      const frozen = u.frozen === 'true';
      out += `<rect class="mark c-${u.class} kind-${esc(u.kind)}${frozen ? ' frozen' : ''}" data-i="${idx}" data-class="${u.class}" data-frozen="${u.frozen}" data-role="${esc(u.role)}" data-kind="${esc(u.kind)}" x="${x.toFixed(2)}" y="${y + 3}" width="${Math.max(0.8, w - 0.6).toFixed(2)}" height="${laneH - 6}" tabindex="${idx === 0 ? 0 : -1}" role="button" aria-label="${esc(label(u))}"></rect>`;
      if (frozen) out += `<rect class="frozen-tick" x="${x.toFixed(2)}" y="${y}" width="${Math.max(0.8, w - 0.6).toFixed(2)}" height="2"></rect>`;
      // the plan lane: the unit's slot, and the share compaction keeps
      const kept = w * Math.min(1, u.plan_tokens / Math.max(1, u.tokens));
      out += `<rect class="slot" x="${x.toFixed(2)}" y="${planY}" width="${Math.max(0.8, w - 0.6).toFixed(2)}" height="18"></rect>`;
      out += `<rect class="c-${u.class}" x="${x.toFixed(2)}" y="${planY}" width="${Math.max(0.5, kept - 0.6).toFixed(2)}" height="18"></rect>`;
    });
    return out + '</svg>';
  }

  /** Labelled ticks for the time axis: at most ~8, each at the place of the first message written
   * after an even step of the session's span; none when the file records no times. */
  function timeTicks(units, slots) {
    const timed = units.map((u, idx) => [u.time ? Date.parse(u.time) : NaN, idx]).filter(([t]) => !Number.isNaN(t));
    if (timed.length < 2) return [];
    const first = timed[0][0];
    const last = timed.reduce((a, [t]) => Math.max(a, t), first);
    if (last <= first) return [];
    const multiDay = new Date(first).toISOString().slice(0, 10) !== new Date(last).toISOString().slice(0, 10);
    const fmt = (t) => { const iso = new Date(t).toISOString(); return multiDay ? iso.slice(5, 16).replace('T', ' ') : iso.slice(11, 19); };
    const step = (last - first) / 7;
    const out = [];
    let next = first;
    let lastX = -1e9;
    for (const [t, idx] of timed) {
      if (t < next) continue;
      const x = slots[idx].x;
      if (x - lastX >= 70) {
        out.push({ x, time: new Date(t).toISOString(), label: fmt(t) });
        lastX = x;
      }
      next = t + step;
    }
    return out;
  }

  function planBar(s) {
    const p = s.plan;
    const budget = s.budget || 0;
    const max = Math.max(p.tokens, budget, 1);
    const span = W - LEFT - 4;
    const x = (n) => LEFT + (span * n) / max;
    let out = `<svg id="plan" viewBox="0 0 ${W} 58" role="img" aria-label="Plan: ${num(p.tokens)} tokens to ${num(p.plan_tokens)}${budget ? `, budget ${num(budget)}: ${p.verdict}` : ''}">`;
    out += `<text x="0" y="16">as written</text><rect class="slot" x="${LEFT}" y="4" width="${(x(p.tokens) - LEFT).toFixed(2)}" height="16"></rect>`;
    out += `<text x="0" y="40">after plan</text>`;
    let at = LEFT;
    for (const c of CLASSES) {
      const kept = s.units.filter((u) => u.class === c).reduce((a, u) => a + u.plan_tokens, 0);
      const w = (span * kept) / max;
      if (w > 0) out += `<rect class="c-${c}" x="${at.toFixed(2)}" y="28" width="${w.toFixed(2)}" height="16"><title>${c}: ${num(kept)} tokens kept</title></rect>`;
      at += w;
    }
    if (budget) {
      out += `<line class="budget" x1="${x(budget).toFixed(2)}" x2="${x(budget).toFixed(2)}" y1="0" y2="50"></line>`;
      out += `<text x="${Math.min(W - 120, x(budget) + 4).toFixed(2)}" y="56">budget ${num(budget)}</text>`;
    }
    return out + '</svg>';
  }

  function effortStrip(s) {
    const slots = layout(s.units);
    const prompts = s.units.map((u, idx) => [u, idx]).filter(([u]) => u.routed);
    if (!prompts.length) return '<p class="sub">No prompt was routed.</p>';
    // rows for the efforts this session has (routed or used), from the lowest to the highest
    const seen = prompts.flatMap(([u]) => [u.effort || 'none', u.effort_used].filter(Boolean)).map((e) => EFFORTS.indexOf(e));
    const shown = EFFORTS.slice(Math.max(0, Math.min(...seen)), Math.max(...seen) + 1);
    const rowH = 14;
    const y = (e) => 6 + (shown.length - 1 - Math.max(0, shown.indexOf(e || 'none'))) * rowH;
    const h = 6 + shown.length * rowH + 4;
    let out = `<svg id="efforts" viewBox="0 0 ${W} ${h}" role="img" aria-label="Effort per user prompt: ${prompts.length} prompts">`;
    shown.forEach((e) => {
      out += `<line class="axis" x1="${LEFT}" x2="${W}" y1="${y(e)}" y2="${y(e)}"></line><text x="0" y="${y(e) + 4}">${e}</text>`;
    });
    for (const [u, idx] of prompts) {
      const cx = slots[idx].x + slots[idx].w / 2;
      const disagree = u.effort_used && u.effort_used !== (u.effort || 'none');
      out += `<g class="eff${disagree ? ' eff-disagree' : ''}" data-i="${idx}">`;
      if (u.effort_used) {
        if (disagree) out += `<line class="eff-link" x1="${cx}" x2="${cx}" y1="${y(u.effort)}" y2="${y(u.effort_used)}"></line>`;
        out += `<rect class="eff-used" x="${cx - 4}" y="${y(u.effort_used) - 4}" width="8" height="8" transform="rotate(45 ${cx} ${y(u.effort_used)})"></rect>`;
      }
      out += `<circle class="eff-routed" cx="${cx}" cy="${y(u.effort)}" r="4"><title>${esc(label(u))}</title></circle></g>`;
    }
    return out + '</svg>';
  }

  function effortLegend(s) {
    // the marks this session draws, and only those
    const parts = ['<span>● the effort TurnLens routes (under each prompt above)</span>'];
    const used = s.units.filter((u) => u.routed && u.effort_used);
    if (used.length) {
      parts.push('<span>◆ the effort the agent used (recorded in the file)</span>');
      if (used.some((u) => u.effort_used !== (u.effort || 'none'))) parts.push('<span class="disagree">red: they disagree</span>');
    }
    return `<div class="legend">${parts.join('')}</div>`;
  }

  function totals(s) {
    const st = s.stats;
    const p = s.plan;
    const mix = Object.entries(st.effort_mix).map(([e, n]) => `${e} ${n}`).join(', ') || '–';
    const verdict = p.verdict ? `<div class="card verdict-${p.verdict}"><b>${p.verdict}</b><span>${p.verdict === 'OVERFLOW' ? `${num(p.excess)} over ` : ''}a budget of ${num(s.budget)}</span></div>` : '';
    let out = '<div class="cards">';
    out += `<div class="card"><b id="t-units">${num(st.units)}</b><span>units</span></div>`;
    out += `<div class="card"><b id="t-tokens">${num(st.tokens)}</b><span>tokens (estimate: words × 1.3)</span></div>`;
    if (st.recorded_tokens !== null && st.recorded_tokens !== undefined) {
      const u = st.recorded_usage || {};
      out += `<div class="card"><b id="t-recorded">${num(st.recorded_tokens)}</b><span>tokens recorded by the API (${esc(u.source || '')}): input ${num(u.input || 0)}, cache ${num((u.cache_read || 0) + (u.cache_write || 0))}, output ${num(u.output || 0)}</span></div>`;
    }
    out += `<div class="card"><b id="t-frozen">${pct(st.frozen_share)}</b><span>frozen (${num(st.frozen_tokens)} tokens)</span></div>`;
    out += `<div class="card"><b id="t-saved">${pct(st.saved_share)}</b><span>the plan saves (${num(st.tokens)} → ${num(st.plan_tokens)})</span></div>`;
    out += `<div class="card"><b id="t-prompts">${num(st.prompts)}</b><span>prompts: ${esc(mix)}</span></div>`;
    if (st.aside) out += `<div class="card"><b id="t-aside">${num(st.aside)}</b><span>injected text and commands (not prompts)</span></div>`;
    if (st.effort_agreement !== null && st.effort_agreement !== undefined) out += `<div class="card"><b>${pct(st.effort_agreement)}</b><span>routed = used effort</span></div>`;
    return out + verdict + '</div>';
  }

  function byClass(s) {
    const st = s.stats;
    const maxTok = Math.max(1, ...CLASSES.map((c) => st.tokens_by_class[c] || 0));
    let out = '<h2>Tokens by class</h2><table id="by-class"><thead><tr><th>class</th><th class="num">units</th><th class="num">tokens</th><th></th></tr></thead><tbody>';
    for (const c of CLASSES) {
      const t = st.tokens_by_class[c] || 0;
      out += `<tr data-class="${c}"><td>${c}</td><td class="num">${num(st.by_class[c] || 0)}</td><td class="num">${num(t)}</td><td><span class="bar bg-${c}" data-w="${((200 * t) / maxTok).toFixed(1)}"></span></td></tr>`;
    }
    return out + '</tbody></table>';
  }

  function table(s) {
    let out = '<h2>Units</h2><table id="units"><thead><tr><th class="num">#</th><th>line</th><th>who</th><th>class</th><th>frozen</th><th class="num">tokens → plan</th><th>effort</th><th>first line</th></tr></thead><tbody>';
    s.units.forEach((u, idx) => {
      const disagree = u.effort_used && u.effort_used !== (u.effort || 'none');
      const effort = u.routed ? `${u.effort || 'none'}${u.effort_used ? ` <span class="${disagree ? 'disagree' : ''}">(used ${esc(u.effort_used)})</span>` : ''}` : '';
      const conf = u.confidence !== undefined ? ` <span class="sub">${Math.round(100 * u.confidence)} %</span>` : '';
      out += `<tr id="u-${idx}" data-i="${idx}"${u.aside ? ' class="aside"' : ''}><td class="num">${u.i}</td><td>${u.line}</td><td>${esc(who(u))}</td><td><span class="pill bg-${u.class}">${u.class}</span>${conf}</td><td class="frozen-${u.frozen}">${u.frozen}</td><td class="num">${num(u.tokens)} → ${num(u.plan_tokens)}</td><td>${effort}</td>`;
      out += `<td class="first"><details><summary>${esc(u.first)}</summary><ul>${u.why.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></details></td></tr>`;
    });
    return out + '</tbody></table>';
  }

  function legend() {
    return `<div class="legend">${CLASSES.map((c) => `<span><i class="bg-${c}"></i>${c}</span>`).join('')}<span>▔ frozen (kept verbatim)</span><span>faded: thinking, tool calls, system; fainter: injected text and commands</span></div>`;
  }

  function render() {
    const t0 = performance.now();
    W = Math.max(640, Math.round(app.clientWidth || 1200));
    const sessions = data.sessions || [];
    if (current >= sessions.length) current = 0;
    const s = sessions[current];
    let out = '';
    if (!s) {
      const skipped = data.skipped || [];
      const why = skipped.length
        ? `<ul id="skipped">${skipped.map((x) => `<li>${esc(x.path)}: ${esc(x.reason)}</li>`).join('')}</ul>`
        : '';
      app.innerHTML = `<h1>TurnLens session map</h1><p class="sub">No session${skipped.length ? ': every file was passed over' : ''}.</p>${why}`;
      document.body.dataset.ready = '1';
      return;
    }
    const st = s.stats || {};
    const facts = [esc(s.path), esc(s.format)];
    if (st.models && st.models.length) facts.push(`model ${esc(st.models.join(', '))}`);
    if (st.started) facts.push(`<span id="t-span">${esc(st.started.replace('T', ' ').replace('Z', ''))} → ${esc((st.ended || '').replace('T', ' ').replace('Z', ''))} UTC</span>`);
    if (st.parent_session) facts.push(`sub-agent of session ${esc(st.parent_session)}`);
    if (st.sub_agents && st.sub_agents.length) facts.push(`${st.sub_agents.length} sub-agent session(s): ${esc(st.sub_agents.map((p) => p.split('/').pop()).join(', '))}`);
    out += `<h1>${esc(s.title || s.path.split('/').pop() || 'Session')}</h1><p class="sub">${facts.join(' · ')}</p>`;
    if (sessions.length > 1) {
      out += `<label>Session <select id="pick">${sessions.map((x, k) => `<option value="${k}"${k === current ? ' selected' : ''}>${esc(x.title || x.path)} (${x.units.length})</option>`).join('')}</select></label>`;
    }
    if (s.problems && s.problems.length) out += `<p class="problems">${s.problems.length} line(s) passed over, first at line ${s.problems[0].line}: ${esc(s.problems[0].message)}</p>`;
    // what each mark means sits right above it, and the table of units starts within the
    // first screen: the timeline and the efforts under it (aligned), then the class totals
    // beside the plan, then the units
    out += totals(s);
    out += `<h2>Timeline</h2>${legend()}${timeline(s)}`;
    out += `<h2>Effort per prompt</h2>${effortLegend(s)}${effortStrip(s)}`;
    const full = W;
    W = Math.max(320, Math.round(full / 2 - 16)); // the plan's bar drawn for its half of the page
    out += `<div class="pair"><section>${byClass(s)}</section><section><h2>Plan</h2>${planBar(s)}</section></div>`;
    W = full;
    out += table(s);
    app.innerHTML = out;
    // widths set through the CSSOM: the page's content security policy allows no style attributes
    document.querySelectorAll('.bar[data-w]').forEach((bar) => (bar.style.width = bar.dataset.w + 'px'));
    bind(s);
    document.body.dataset.renderMs = (performance.now() - t0).toFixed(1);
    // where the table of units starts on the page (it should start within the first screen)
    document.body.dataset.unitsTop = Math.round(document.getElementById('units').getBoundingClientRect().top);
    document.body.dataset.ready = '1';
  }

  function marks() {
    return Array.from(document.querySelectorAll('#timeline .mark'));
  }

  function choose(s, idx, reveal) {
    const all = marks();
    if (!all[idx]) return;
    all.forEach((m) => m.classList.remove('sel'));
    document.querySelectorAll('#units tr.sel').forEach((r) => r.classList.remove('sel'));
    all[idx].classList.add('sel');
    selected = idx;
    const row = document.getElementById(`u-${idx}`);
    if (row) row.classList.add('sel');
    if (!reveal) return;
    const u = s.units[idx];
    if (vscode) vscode.postMessage({ type: 'reveal', index: u.i, line: u.line, start: u.start, end: u.end });
    else if (row) row.scrollIntoView({ block: 'center' });
  }

  function showTip(s, el, idx) {
    const u = s.units[idx];
    tip.innerHTML = `<b>${esc(label(u))}</b><div class="first">${esc(u.first)}</div>`;
    tip.style.display = 'block';
    const r = el.getBoundingClientRect();
    tip.style.left = Math.max(4, Math.min(window.innerWidth - tip.offsetWidth - 4, r.left)) + 'px';
    tip.style.top = (r.bottom + 6 + tip.offsetHeight > window.innerHeight ? r.top - tip.offsetHeight - 6 : r.bottom + 6) + 'px';
  }

  function bind(s) {
    const all = marks();
    const svg = document.getElementById('timeline');
    svg.addEventListener('mouseover', (e) => {
      const m = e.target.closest('.mark');
      if (m) showTip(s, m, Number(m.dataset.i));
    });
    svg.addEventListener('mouseout', () => (tip.style.display = 'none'));
    svg.addEventListener('click', (e) => {
      const m = e.target.closest('.mark');
      if (m) {
        m.focus();
        choose(s, Number(m.dataset.i), true);
      }
    });
    svg.addEventListener('focusin', (e) => {
      const m = e.target.closest('.mark');
      if (m) showTip(s, m, Number(m.dataset.i));
    });
    svg.addEventListener('focusout', () => (tip.style.display = 'none'));
    svg.addEventListener('keydown', (e) => {
      const m = e.target.closest('.mark');
      if (!m) return;
      const idx = Number(m.dataset.i);
      const to = { ArrowRight: idx + 1, ArrowDown: idx + 1, ArrowLeft: idx - 1, ArrowUp: idx - 1, Home: 0, End: all.length - 1 }[e.key];
      if (to !== undefined && all[to]) {
        e.preventDefault();
        m.tabIndex = -1;
        all[to].tabIndex = 0;
        all[to].focus();
        choose(s, to, false);
      } else if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        choose(s, idx, true);
      }
    });
    document.querySelectorAll('#efforts .eff').forEach((g) => g.addEventListener('click', () => choose(s, Number(g.dataset.i), true)));
    document.getElementById('units').addEventListener('dblclick', (e) => {
      const row = e.target.closest('tr[data-i]');
      if (row) choose(s, Number(row.dataset.i), true);
    });
    const pick = document.getElementById('pick');
    if (pick) pick.addEventListener('change', () => { current = Number(pick.value); selected = -1; render(); });
    if (selected >= 0 && all[selected]) choose(s, selected, false);
  }

  window.addEventListener('message', (event) => {
    const msg = event.data;
    if (msg && msg.type === 'update' && msg.data) {
      data = msg.data;
      render();
    }
  });
  let resized = null;
  let drawnAt = app.clientWidth;
  window.addEventListener('resize', () => {
    clearTimeout(resized);
    resized = setTimeout(() => {
      if (Math.abs(app.clientWidth - drawnAt) < 8) return;
      drawnAt = app.clientWidth;
      const focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest('.mark') : null;
      render();
      if (focused) {
        const again = document.querySelector(`#timeline .mark[data-i="${focused.dataset.i}"]`);
        if (again) again.focus();
      }
    }, 150);
  });
  render();
  if (vscode) vscode.postMessage({ type: 'ready' });
})();
