// dfsim studio: the page. Controls come from the server (read from the game's spec models); a control's
// release (the `change` event, not `input`) starts a job that plays games in batches; the page polls it
// and redraws the win rate, its interval, the paired difference against a pinned baseline and the charts.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const SVGNS = 'http://www.w3.org/2000/svg';
  const POLL_MS = 200;
  const body = document.body;
  const S = { game: null, controls: [], values: {}, job: null, throwJob: null, baseline: null, seq: 0, recordedSeen: 0 };

  // ---- plumbing ----
  const showError = (msg) => { $('errorbox').textContent = msg || ''; body.dataset.error = msg || ''; };
  async function api(path, payload) {
    const opts = payload === undefined ? {} : {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload),
    };
    const r = await fetch(path, opts);
    let data;
    try { data = await r.json(); } catch (e) { data = { error: `the studio answered ${r.status} without JSON` }; }
    if (!r.ok || data.error) throw new Error(data.error || `HTTP ${r.status}`);
    return data;
  }
  const clock = (s) => { const t = Math.max(0, Math.round(s)); return t < 60 ? `${t} s` : `${Math.floor(t / 60)} min ${String(t % 60).padStart(2, '0')} s`; };
  const pct = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '–' : (100 * x).toFixed(d));
  const el = (tag, attrs = {}, text) => {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // ---- tooltip: hovering anything with data-tip says its number ----
  document.addEventListener('mousemove', (ev) => {
    const t = ev.target.closest && ev.target.closest('[data-tip]');
    const tip = $('tip');
    if (!t) { tip.hidden = true; return; }
    tip.textContent = t.dataset.tip;
    tip.hidden = false;
    tip.style.left = `${ev.clientX + 12}px`;
    tip.style.top = `${ev.clientY + 12}px`;
    body.dataset.tip = t.dataset.tip;
  });

  // ---- tabs ----
  for (const b of document.querySelectorAll('nav button')) {
    b.addEventListener('click', () => {
      for (const o of document.querySelectorAll('nav button')) o.setAttribute('aria-selected', String(o === b));
      $('tab-games').hidden = b.dataset.tab !== 'games';
      $('tab-throws').hidden = b.dataset.tab !== 'throws';
      if (b.dataset.tab === 'throws') loadThrowOptions();
    });
  }

  // ---- controls ----
  function drawControls(controls) {
    const box = $('control-groups');
    box.textContent = '';
    const groups = new Map();
    for (const c of controls) {
      if (!groups.has(c.group)) {
        const fs = document.createElement('fieldset');
        fs.className = 'group';
        const lg = document.createElement('legend');
        lg.textContent = c.group;
        fs.appendChild(lg);
        box.appendChild(fs);
        groups.set(c.group, fs);
      }
      groups.get(c.group).appendChild(controlElement(c));
    }
  }

  function controlElement(c) {
    const wrap = document.createElement('div');
    wrap.className = 'control';
    wrap.dataset.key = c.key;
    const head = document.createElement('div');
    head.className = 'head';
    const lab = document.createElement('label');
    lab.textContent = c.label;
    const val = document.createElement('span');
    val.className = 'val';
    head.append(lab, val);
    wrap.appendChild(head);
    let input;
    const id = `c-${c.key.replace(/[^a-z0-9]+/gi, '-')}`;
    if (c.kind === 'bool') {
      input = document.createElement('input');
      input.type = 'checkbox';
      input.checked = !!c.default;
      val.textContent = '';
      lab.prepend(input);
    } else if (c.kind === 'choice') {
      input = document.createElement('select');
      for (const ch of c.choices) input.appendChild(new Option(ch, ch, ch === c.default, ch === c.default));
      wrap.appendChild(input);
    } else {
      const span = c.max - c.min;
      const slider = !c.optional && span / c.step <= 100;
      input = document.createElement('input');
      input.type = slider ? 'range' : 'number';
      input.min = c.min; input.max = c.max; input.step = c.step;
      if (c.default !== null && c.default !== undefined) input.value = c.default;
      else input.placeholder = 'rule';
      wrap.appendChild(input);
      const show = () => { val.textContent = input.value === '' ? 'rule' : input.value; };
      input.addEventListener('input', show);  // while dragging: the number only, no games
      show();
    }
    input.id = id;
    lab.htmlFor = id;
    if (c.disabled) { input.disabled = true; wrap.classList.add('disabled'); wrap.title = c.disabled; }
    if (c.doc || c.disabled) {
      const d = document.createElement('div');
      d.className = 'doc';
      d.textContent = c.disabled ? `${c.doc} Not offered here: ${c.disabled}.` : c.doc;
      wrap.appendChild(d);
    }
    input.addEventListener('change', () => { S.values[c.key] = readValue(c, input); play(); });
    return wrap;
  }

  function readValue(c, input) {
    if (c.kind === 'bool') return input.checked;
    if (c.kind === 'choice') return input.value;
    if (input.value === '') return null;
    const x = Number(input.value);
    return Number.isFinite(x) ? x : input.value;  // a bad number goes to the server, which says why
  }

  function setting() {
    const set = {};
    for (const c of S.controls) {
      if (c.key in S.values && S.values[c.key] !== c.default) set[c.key] = S.values[c.key];
    }
    const seedText = $('seed').value;
    return { game: $('game').value, policy: $('policy').value, seed: seedText === '' ? null : Number(seedText), set };
  }

  // ---- playing ----
  async function play() {
    const seq = ++S.seq;
    showError('');
    body.dataset.state = 'starting';
    const s = setting();
    if (s.seed === null) delete s.seed;
    const payload = { setting: s, target: Number($('target').value) / 100, cap: Number($('cap').value) };
    try {
      const { job } = await api('/api/play', payload);
      if (seq !== S.seq) return;
      S.job = job;
      body.dataset.job = job;
      poll(job, seq);
    } catch (e) {
      if (seq !== S.seq) return;
      body.dataset.state = 'refused';
      showError(e.message);
    }
  }

  async function poll(job, seq) {
    while (seq === S.seq) {
      let snap;
      try { snap = await api(`/api/job/${job}`); } catch (e) { showError(e.message); body.dataset.state = 'error'; return; }
      if (seq !== S.seq) return;
      render(snap);
      if (['done', 'cancelled', 'error'].includes(snap.state)) {
        body.dataset.state = snap.state === 'error' ? 'error' : 'done';
        if (snap.error) showError(snap.error);
        return;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  function render(snap) {
    const p = snap.progress || {};
    const prog = $('progress');
    if (p.phase === 'recording') {
      body.dataset.state = 'recording';
      prog.hidden = false;
      const left = p.left_s !== undefined ? `, about ${clock(p.left_s)} left` : '';
      const parts = [`${p.done} of ${p.of} scenarios done`];
      if (p.aiming) parts.push(`${p.aiming} aimed release${p.aiming > 1 ? 's' : ''} to solve first`);
      if (p.planned) parts.push(`${p.thrown.toLocaleString('en')} of ${p.planned.toLocaleString('en')} throws${p.throws === 'by precision' ? ' planned so far' : ''}`);
      $('progress-text').textContent = `Recording the throws the bank lacks (throws per scenario: ${p.throws}): ${parts.join(', ')}${p.scenario ? `; last: ${p.scenario}` : ''}; ${clock(p.elapsed_s)} so far${left}. The page stays live: move on at any time, what is recorded is kept.`;
      $('progress-fill').style.width = `${p.planned ? (100 * p.thrown) / p.planned : (100 * p.done) / Math.max(1, p.of)}%`;
      body.dataset.recording = `${p.done}/${p.of}`;
      body.dataset.recordingSeen = String(Number(body.dataset.recordingSeen || 0) + 1);
    } else if (p.recorded) {
      prog.hidden = false;
      $('progress-text').textContent = `Recorded ${p.recorded} scenario${p.recorded > 1 ? 's' : ''} into the bank in ${p.recorded_s} s` + (snap.state === 'running' ? '; playing' : '');
      $('progress-fill').style.width = '100%';
      body.dataset.recorded = String(p.recorded);
    } else if (snap.state !== 'running') {
      prog.hidden = true;
    }
    if (snap.state === 'running' && p.phase !== 'recording') body.dataset.state = p.phase === 'bank' ? 'bank' : 'playing';
    const r = snap.result || {};
    if (r.summary) drawAnswer(r);
    const why = (p.why || r.stopped) ? ` (stopped: ${p.why || r.stopped})` : '';
    const doing = snap.state === 'running' && p.phase === 'bank' ? ` (the bank's part: replaying the first ${p.replay} games on ${p.replicates} bootstrap banks)` : '';
    $('status').textContent = `${snap.state}${why}${doing}; ${snap.elapsed_s} s`;
  }

  // the bank's part of an interval in words: "of which the bank's ±1.2 (the games' ±2.8, in quadrature; ...)"
  function bankWords(wb, reps, pending) {
    if (!reps) return "the bank's part not computed (--bank-replicates 0): the interval is the games' alone";
    if (!wb) return `the bank's part: replaying these games on ${reps} bootstrap banks…`;
    const on = `${wb.replicates} bootstrap banks, the first ${wb.replayed.toLocaleString('en')} games`;
    return `of which the bank's ±${pct(wb.bank_half_width)} points (${Math.round(100 * wb.bank_share)} % of the variance) and the games' ±${pct(wb.games_half_width)}, added in quadrature; ${on}${pending || !wb.complete ? ', updating…' : ''}`;
  }
  // an interval's half-width: the two parts in quadrature (as the stop rule reads it), else half its width
  const halfWidth = (iv) => (iv.bank_half_width !== undefined && iv.bank_half_width !== null ? Math.hypot(iv.games_half_width, iv.bank_half_width) : (iv.hi - iv.lo) / 2);

  function drawAnswer(r) {
    const w = r.summary.won, wb = r.summary.won_with_bank, reps = r.bank_replicates;
    const iv = wb || w;  // the interval shown: with the bank's part once it is there
    $('winrate-value').textContent = `${pct(w.rate)} %`;
    $('winrate-interval').textContent = `95 % interval [${pct(iv.lo)}, ${pct(iv.hi)}] (±${pct(halfWidth(iv))} points)`;
    $('winrate-bank').textContent = bankWords(wb, reps, false);
    // when the bank's part is the larger, what would narrow the answer (dfsim game's line under it)
    $('winrate-advice').textContent = r.bank_advice ? r.bank_advice.charAt(0).toUpperCase() + r.bank_advice.slice(1) + '.' : '';
    $('winrate-n').textContent = `${r.n.toLocaleString('en')} games, ${w.count.toLocaleString('en')} won`;
    const bar = $('winrate-bar');
    bar.querySelector('.ci').style.left = `${100 * iv.lo}%`;
    bar.querySelector('.ci').style.width = `${100 * (iv.hi - iv.lo)}%`;
    const g0 = Math.max(0, w.rate - (wb ? wb.games_half_width : (w.rate - w.lo))), g1 = Math.min(1, w.rate + (wb ? wb.games_half_width : (w.hi - w.rate)));
    bar.querySelector('.ci-games').style.left = `${100 * g0}%`;
    bar.querySelector('.ci-games').style.width = `${100 * (g1 - g0)}%`;
    bar.querySelector('.pt').style.left = `calc(${100 * w.rate}% - 1px)`;
    bar.dataset.tip = `${pct(w.rate)} %: 95 % interval [${pct(iv.lo)}, ${pct(iv.hi)}] (light), the games' part alone [${pct(g0)}, ${pct(g1)}] (dark)`;
    const ds = $('winrate').dataset;
    Object.assign(ds, { rate: w.rate, lo: iv.lo, hi: iv.hi, half: halfWidth(iv), n: r.n, count: w.count, gamesLo: w.lo, gamesHi: w.hi });
    if (wb) Object.assign(ds, { bankHalf: wb.bank_half_width, gamesHalf: wb.games_half_width, replicates: wb.replicates, replayed: wb.replayed, bankComplete: wb.complete ? 1 : 0 });
    else for (const k of ['bankHalf', 'gamesHalf', 'replicates', 'replayed', 'bankComplete']) delete ds[k];
    const d = r.difference;
    if (d && S.baseline) {
      const sign = d.value > 0 ? '+' : '';
      const dv = d.with_bank || d;
      $('difference-value').textContent = `${sign}${pct(d.value)} points`;
      $('difference-interval').textContent = `95 % interval [${pct(dv.lo)}, ${pct(dv.hi)}] (±${pct(halfWidth(dv))} points) on ${d.n.toLocaleString('en')} paired games`;
      $('difference-bank').textContent = bankWords(d.with_bank, reps, false);
      $('baseline-text').textContent = `baseline: ${pct(r.baseline_won.rate)} % [${pct(r.baseline_won.lo)}, ${pct(r.baseline_won.hi)}] on the same games (the games' part)`;
      Object.assign($('difference').dataset, { value: d.value, lo: dv.lo, hi: dv.hi, n: d.n, gamesLo: d.lo, gamesHi: d.hi });
      if (d.with_bank) $('difference').dataset.bankHalf = d.with_bank.bank_half_width;
    }
    drawBankPart(wb, reps, r);
    drawCharts(r);
    drawRestsOn(r.rests_on);
  }

  // ---- charts (hand-drawn SVG; every bar and point carries its number in data-tip) ----
  function frame(svg, ymax, ylabel, fmt) {
    svg.textContent = '';
    const W = 420, H = 220, L = 44, R = 10, T = 10, B = 46;
    const g = { W, H, L, R, T, B, iw: W - L - R, ih: H - T - B, y: (v) => T + (H - T - B) * (1 - v / (ymax || 1)) };
    for (let i = 0; i <= 4; i++) {
      const v = (ymax * i) / 4, y = g.y(v);
      svg.appendChild(el('line', { x1: L, x2: W - R, y1: y, y2: y, class: 'grid' }));
      svg.appendChild(el('text', { x: L - 4, y: y + 4, 'text-anchor': 'end' }, fmt(v)));
    }
    svg.appendChild(el('line', { x1: L, x2: L, y1: T, y2: H - B, class: 'axis' }));
    svg.appendChild(el('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' }));
    if (ylabel) svg.appendChild(el('text', { x: 4, y: T + 8 }, ylabel));
    return g;
  }

  function bars(svg, items, opts) {
    const ymax = Math.max(opts.min || 0, ...items.map((i) => i.hi ?? i.value)) * 1.05 || 1;
    const g = frame(svg, ymax, opts.ylabel, opts.fmt);
    const bw = g.iw / Math.max(1, items.length);
    items.forEach((it, k) => {
      const x = g.L + k * bw + bw * 0.15, h = g.y(0) - g.y(it.value);
      svg.appendChild(el('rect', { x, y: g.y(it.value), width: bw * 0.7, height: Math.max(h, 0.5), fill: it.colour || '#b5442c', 'data-tip': it.tip, class: 'bar-rect' }));
      if (it.lo !== undefined && it.hi !== undefined) {
        const cx = x + bw * 0.35;
        svg.appendChild(el('line', { x1: cx, x2: cx, y1: g.y(it.lo), y2: g.y(it.hi), stroke: '#333', 'stroke-width': 1.2 }));
      }
      const lab = el('text', { x: x + bw * 0.35, y: g.H - g.B + 12, 'text-anchor': 'end', transform: `rotate(-30 ${x + bw * 0.35} ${g.H - g.B + 12})` }, it.label);
      svg.appendChild(lab);
    });
  }

  function lines(svg, series, opts) {
    const all = series.flatMap((s) => s.values);
    const ymax = Math.max(opts.min || 0, ...all) * 1.05 || 1;
    const g = frame(svg, ymax, opts.ylabel, opts.fmt);
    const n = Math.max(1, ...series.map((s) => s.values.length));
    const x = (k) => g.L + (g.iw * (k + 0.5)) / n;
    for (const s of series) {
      const pts = s.values.map((v, k) => `${x(k)},${g.y(v)}`).join(' ');
      svg.appendChild(el('polyline', { points: pts, fill: 'none', stroke: s.colour, 'stroke-width': 2 }));
      s.values.forEach((v, k) => {
        svg.appendChild(el('circle', { cx: x(k), cy: g.y(v), r: 3.5, fill: s.colour, 'data-tip': s.tip(k, v), class: 'point' }));
      });
    }
    const every = Math.max(1, Math.ceil(n / 12));
    for (let k = 0; k < n; k += every) svg.appendChild(el('text', { x: x(k), y: g.H - g.B + 14, 'text-anchor': 'middle' }, String(k + (opts.first ?? 1))));
    svg.appendChild(el('text', { x: g.L + g.iw / 2, y: g.H - 6, 'text-anchor': 'middle' }, opts.xlabel));
    series.forEach((s, i) => {
      svg.appendChild(el('rect', { x: g.W - 130, y: 14 + 14 * i, width: 10, height: 10, fill: s.colour }));
      svg.appendChild(el('text', { x: g.W - 116, y: 23 + 14 * i }, s.name));
    });
  }

  function drawCharts(r) {
    const s = r.summary, c = r.charts;
    const lost = Object.entries(s.lost_where).map(([where, v]) => ({
      label: where, value: v.rate, lo: v.lo, hi: v.hi,
      tip: `lost at ${where}: ${pct(v.rate)} % of games [${pct(v.lo)}, ${pct(v.hi)}] (${v.count} games)`,
    }));
    lost.push({ label: 'won', value: s.won.rate, lo: s.won.lo, hi: s.won.hi, colour: '#2f6690',
      tip: `won: ${pct(s.won.rate)} % [${pct(s.won.lo)}, ${pct(s.won.hi)}] (${s.won.count} games)` });
    bars($('chart-lost'), lost, { fmt: (v) => `${Math.round(100 * v)}%` });
    lines($('chart-survival'), [{ name: 'still going', colour: '#b5442c', values: c.survival,
      tip: (k, v) => `after ${k} combats: ${pct(v)} % of games still going` }],
    { fmt: (v) => `${Math.round(100 * v)}%`, xlabel: 'combats fought', first: 0, min: 1 });
    lines($('chart-loot'), [
      { name: 'gold', colour: '#c9a227', values: c.gold, tip: (k, v) => `after combat ${k + 1}: ${v.toFixed(2)} gold (mean of ${c.reached[k]} games)` },
      { name: 'white dice', colour: '#2f6690', values: c.white_dice, tip: (k, v) => `after combat ${k + 1}: ${v.toFixed(2)} white dice (mean of ${c.reached[k]} games)` },
    ], { fmt: (v) => v.toFixed(1), xlabel: 'combat' });
    bars($('chart-titles'), c.titles.map(([t, n]) => ({ label: t.split(' ').slice(-1)[0], value: n, colour: '#7a6c5d', tip: `${t}: ${n} games (${pct(n / r.n)} %)` })), { fmt: (v) => String(Math.round(v)) });
    body.dataset.charts = String(Number(body.dataset.charts || 0) + 1);
  }

  function drawBankPart(wb, reps, r) {
    const p = $('bank-part');
    if (!reps) { p.textContent = 'Not computed (the studio was started with --bank-replicates 0).'; return; }
    const head = `Each bank entry is a sample of its scenario's throws. The first games are replayed on ${reps} bootstrap banks (every entry's throws drawn again with replacement, the same shuffles and throw streams), as dfsim game does; the spread of their win rates is the bank's part, added to the games' own in quadrature.`;
    if (!wb) { p.textContent = `${head} Replaying…`; return; }
    const vals = wb.replicate_values.map((v) => `${pct(v)} %`).join(', ');
    p.textContent = `${head} On the first ${wb.replayed.toLocaleString('en')} of ${r.n.toLocaleString('en')} games: ${vals}; the bank's half-width ±${pct(wb.bank_half_width)} points, ${Math.round(100 * wb.bank_share)} % of the interval's variance.`;
  }

  function drawRestsOn(ro) {
    if (!ro) return;
    $('command').textContent = ro.command;
    const tb = $('tables').querySelector('tbody');
    tb.textContent = '';
    for (const t of ro.tables) {
      const tr = document.createElement('tr');
      for (const v of [t.label.replace(/^bank:/, ''), t.throws, `${pct(t.hit_rate)} %`, t.mean_damage.toFixed(2), `${pct(t.void_fraction)} %`]) {
        const td = document.createElement('td'); td.textContent = String(v); tr.appendChild(td);
      }
      tb.appendChild(tr);
    }
    const ul = $('cards');
    if (ul.dataset.count !== String(ro.estimated_cards.length)) {
      ul.textContent = '';
      for (const c of ro.estimated_cards) {
        const li = document.createElement('li');
        li.textContent = `${c.name} (${c.kind}, deck ${c.deck}): ${c.estimated}`;
        ul.appendChild(li);
      }
      ul.dataset.count = String(ro.estimated_cards.length);
    }
    $('bankline').textContent = `bank ${ro.bank} (throws per scenario: ${ro.bank_throws})`;
  }

  // ---- baseline ----
  $('pin').addEventListener('click', async () => {
    try {
      const s = setting();
      if (s.seed === null) delete s.seed;
      const { baseline } = await api('/api/baseline', { setting: s });
      S.baseline = baseline;
      $('unpin').hidden = false;
      $('difference-value').textContent = '±0.0 points';
      $('baseline-text').textContent = 'baseline pinned: move a control';
      body.dataset.baseline = JSON.stringify(baseline);
      play();
    } catch (e) { showError(e.message); }
  });
  $('unpin').addEventListener('click', async () => {
    await api('/api/baseline', { setting: null });
    S.baseline = null;
    $('unpin').hidden = true;
    $('difference-value').textContent = 'no baseline';
    $('difference-interval').textContent = '';
    $('difference-bank').textContent = '';
    $('baseline-text').textContent = '';
    delete body.dataset.baseline;
    play();
  });

  // ---- loading a game ----
  async function loadGame(id) {
    const g = await api(`/api/game?id=${encodeURIComponent(id)}`);
    S.game = g;
    S.controls = g.controls;
    S.values = {};
    $('seed').value = g.seed;
    $('policy').value = g.policy;
    drawControls(g.controls);
    $('controls-note').textContent = g.description;
  }

  async function start() {
    // #target=3&cap=5000 (points, games) start with that stop rule; #tab=throws on the throw tab
    const hash = new URLSearchParams(location.hash.slice(1));
    if (hash.get('target')) $('target').value = hash.get('target');
    if (hash.get('cap')) $('cap').value = hash.get('cap');
    if (hash.get('tab') === 'throws') $('tab-throws-btn').click();
    try {
      const st = await api('/api/state');
      for (const g of st.games) $('game').appendChild(new Option(g.label + (g.builtin ? ' (built-in)' : ''), g.id));
      for (const p of st.policies) $('policy').appendChild(new Option(p, p));
      $('game').value = st.game;
      $('bankline').textContent = `bank ${st.bank.dir} (${st.bank.entries} scenarios; throws per scenario: ${st.bank.throws})`;
      if (st.baseline) { S.baseline = st.baseline; $('unpin').hidden = false; }
      await loadGame(st.game);
      for (const id of ['policy', 'seed', 'target', 'cap']) $(id).addEventListener('change', play);
      $('game').addEventListener('change', async () => { await loadGame($('game').value); play(); });
      body.dataset.state = 'ready';
      play();
    } catch (e) {
      body.dataset.state = 'error';
      showError(e.message);
    }
  }

  // ---- the throw tab ----
  let throwOptions = null;
  async function loadThrowOptions() {
    if (throwOptions) return;
    throwOptions = await api('/api/throw-options');
    for (let i = 0; i < 3; i++) {
      const sel = $(`shot-${i}`);
      if (i > 0) sel.appendChild(new Option('(none)', ''));
      for (const s of throwOptions.shots) sel.appendChild(new Option(s.label, s.id, false, i === 0 && s.id === 'standard'));
      if (i > 0) sel.value = '';
    }
    const fill = (id, list, dflt) => { for (const v of list) $(id).appendChild(new Option(v, v, false, v === dflt)); $(id).value = dflt; };
    fill('t-skill', throwOptions.skills, 'casual');
    fill('t-die', throwOptions.dice, 'hero-d8');
    fill('t-board', throwOptions.boards, 'magma');
    body.dataset.throwOptions = 'ready';
  }

  $('t-go').addEventListener('click', async () => {
    showError('');
    const shots = [0, 1, 2].map((i) => $(`shot-${i}`).value).filter((v) => v);
    const payload = { shots, skill: $('t-skill').value, die: $('t-die').value, board: $('t-board').value,
      throws: Number($('t-throws').value), seed: Number($('t-seed').value) };
    try {
      const { job } = await api('/api/throw', payload);
      S.throwJob = job;
      body.dataset.throwJob = job;
      body.dataset.throwState = 'running';
      pollThrow(job);
    } catch (e) { showError(e.message); body.dataset.throwState = 'refused'; }
  });

  async function pollThrow(job) {
    while (S.throwJob === job) {
      const snap = await api(`/api/job/${job}`);
      const p = snap.progress || {};
      $('t-progress').hidden = !p.busy;
      if (p.phase === 'aiming') $('t-progress-text').textContent = `Aiming the shot (solved once, then cached): reference throw ${p.done} of at most ${p.of}`;
      else if (p.phase === 'throwing') $('t-progress-text').textContent = `Throwing: ${p.done} of ${p.of}` + (p.left_s !== undefined ? `, about ${Math.round(p.left_s)} s left` : '');
      else $('t-progress-text').textContent = p.phase || '';
      if (p.of) $('t-progress-fill').style.width = `${(100 * p.done) / p.of}%`;
      if (snap.result && snap.result.hit) drawThrows(snap.result);
      if (['done', 'cancelled', 'error'].includes(snap.state)) {
        body.dataset.throwState = snap.state;
        if (snap.error) showError(snap.error);
        return;
      }
      await new Promise((r) => setTimeout(r, POLL_MS * 2));
    }
  }

  let landing = null;
  function drawThrows(r) {
    const h = r.hit;
    $('t-hit-value').textContent = `${pct(h.rate)} %`;
    $('t-hit-interval').textContent = `95 % interval [${pct(h.lo)}, ${pct(h.hi)}] on ${r.n} throws (seed ${r.seed})`;
    $('t-bank').textContent = r.bank ? `the bank's entry of this scenario: ${pct(r.bank.hit_rate)} % hits on ${r.bank.throws} throws` : 'the bank has no entry of this scenario yet';
    Object.assign($('t-hit').dataset, { rate: h.rate, lo: h.lo, hi: h.hi, n: r.n });
    bars($('chart-mix'), Object.entries(r.mix).map(([k, v]) => ({ label: k, value: v.rate, lo: v.lo, hi: v.hi, colour: k === 'hit' ? '#2f6690' : '#b5442c', tip: `${k}: ${v.count} of ${r.n} throws, ${pct(v.rate)} % [${pct(v.lo)}, ${pct(v.hi)}]` })), { fmt: (v) => `${Math.round(100 * v)}%` });
    drawLanding(r);
  }

  function drawLanding(r) {
    const cv = $('landing'), ctx = cv.getContext('2d');
    const pts = r.points.filter((p) => p[1] !== null);
    let ext = 300;
    for (const p of pts) ext = Math.max(ext, Math.abs(p[1]), Math.abs(p[2]));
    ext = Math.min(ext * 1.05, 1500);
    const W = cv.width, s = W / (2 * ext);
    const X = (x) => W / 2 + x * s, Y = (y) => W / 2 - y * s;
    ctx.fillStyle = '#e9e1d3'; ctx.fillRect(0, 0, W, W);
    const b = r.board;
    if (b) {
      for (const reg of b.regions || []) {
        ctx.fillStyle = reg.colour || '#ccc';
        for (const poly of reg.polys) {
          ctx.beginPath();
          for (const ring of [poly.ext, ...(poly.holes || [])]) {
            ring.forEach(([x, y], i) => (i ? ctx.lineTo(X(x), Y(y)) : ctx.moveTo(X(x), Y(y))));
            ctx.closePath();
          }
          ctx.fill('evenodd');
        }
      }
    }
    for (const [, x, y, result] of pts) {
      ctx.beginPath();
      ctx.arc(X(x), Y(y), 3.2, 0, 2 * Math.PI);
      ctx.fillStyle = result === 'hit' ? '#1d4f7a' : '#d0021b';
      ctx.fill();
      ctx.strokeStyle = '#fff'; ctx.lineWidth = 0.8; ctx.stroke();
    }
    landing = { pts, X, Y, job: S.throwJob };
  }

  $('landing').addEventListener('mousemove', (ev) => {
    const near = nearest(ev);
    $('landing').dataset.tip = near ? `throw ${near[0]}: ${near[3]} (${near[4]}) at ${near[1].toFixed(0)}, ${near[2].toFixed(0)} mm` : '';
    if (!near) delete $('landing').dataset.tip;
  });
  function nearest(ev) {
    if (!landing) return null;
    const cv = $('landing'), rc = cv.getBoundingClientRect();
    const mx = ((ev.clientX - rc.left) * cv.width) / rc.width, my = ((ev.clientY - rc.top) * cv.height) / rc.height;
    let best = null, bd = 64;
    for (const p of landing.pts) {
      const d = (landing.X(p[1]) - mx) ** 2 + (landing.Y(p[2]) - my) ** 2;
      if (d < bd) { bd = d; best = p; }
    }
    return best;
  }
  $('landing').addEventListener('click', (ev) => { const p = nearest(ev); if (p) openReplay(landing.job, p[0]); });

  async function openReplay(job, index) {
    $('replay-line').textContent = `Replaying throw ${index} in 3-D…`;
    try {
      const r = await api('/api/replay', { job, index });
      let snap;
      do {
        await new Promise((res) => setTimeout(res, POLL_MS * 2));
        snap = await api(`/api/job/${r.job}`);
      } while (!['done', 'cancelled', 'error'].includes(snap.state));
      if (snap.error) throw new Error(snap.error);
      const a = document.createElement('a');
      a.href = snap.result.url; a.target = '_blank'; a.rel = 'noopener'; a.id = 'replay-link';
      a.textContent = `open throw ${index} (${snap.result.result}, ${snap.result.reason}) in the 3-D viewer`;
      $('replay-line').textContent = '';
      $('replay-line').appendChild(a);
      body.dataset.replay = snap.result.url;
    } catch (e) { showError(e.message); }
  }
  window.dfsimStudio = { play, setting, openReplay, state: S, landing: () => landing };

  start();
})();
