// dfsim viewer: draws a simulated throw in 3-D and plays it. Shared by replay pages and report.html.
// Data (built by sim/viewer/scene.py): lengths in mm, times in s, quaternions x, y, z, w; z is up,
// the thrower stands on -x and throws toward +x. This file only draws: every shape comes from the data.
import * as THREE from 'three';
import { OrbitControls } from 'orbit';

const KIND_COLOURS = { table: '#8d6e63', board: '#2e7d32', prop: '#c0392b', template: '#8e44ad', die: '#1f618d', other: '#555555' };
const TEMPLATE_COLOURS = { damage: '#e67e22', armor: '#7f8c8d', healing: '#27ae60', slime: '#9acd32' };
const SPEEDS = [1, 0.5, 0.25, 0.1];

// ------------------------------------------------------------------ small helpers ----
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function fmt(x, nd = 1) { return (x === null || x === undefined) ? '–' : Number(x).toFixed(nd); }

function shapesFrom(polys) {
  return polys.map((p) => {
    const s = new THREE.Shape(p.ext.map(([x, y]) => new THREE.Vector2(x, y)));
    for (const h of p.holes) s.holes.push(new THREE.Path(h.map(([x, y]) => new THREE.Vector2(x, y))));
    return s;
  });
}

function outlineLines(polys, z, colour, width = 1) {
  const g = new THREE.Group();
  const mat = new THREE.LineBasicMaterial({ color: colour, linewidth: width });
  for (const p of polys) {
    for (const ring of [p.ext, ...p.holes]) {
      const pts = ring.map(([x, y]) => new THREE.Vector3(x, y, z));
      g.add(new THREE.LineLoop(new THREE.BufferGeometry().setFromPoints(pts), mat));
    }
  }
  return g;
}

const textureCache = new Map();
function textTexture(text, colour = '#2b1d12', weight = 'bold') {
  const key = `${text}|${colour}|${weight}`;
  if (textureCache.has(key)) return textureCache.get(key);
  const c = document.createElement('canvas');
  c.width = 256; c.height = 256;
  const g = c.getContext('2d');
  let size = 180;
  g.font = `${weight} ${size}px sans-serif`;
  while (g.measureText(text).width > 236 && size > 20) { size -= 8; g.font = `${weight} ${size}px sans-serif`; }
  g.fillStyle = colour; g.textAlign = 'center'; g.textBaseline = 'middle';
  g.fillText(text, 128, 136);
  const t = new THREE.CanvasTexture(c);
  t.colorSpace = THREE.SRGBColorSpace;
  t.anisotropy = 4;
  textureCache.set(key, t);
  return t;
}

// A label printed flat on a surface (the plane's +z is the surface normal); `up` is the text's up.
function flatLabel(text, size, colour, position, normal, up) {
  const m = new THREE.Mesh(new THREE.PlaneGeometry(size, size),
    new THREE.MeshBasicMaterial({ map: textTexture(text, colour), transparent: true, depthWrite: false,
      polygonOffset: true, polygonOffsetFactor: -4, polygonOffsetUnits: -4 }));
  const n = normal.clone().normalize();
  const u = up.clone().sub(n.clone().multiplyScalar(up.dot(n))).normalize();
  const r = new THREE.Vector3().crossVectors(u, n);
  m.quaternion.setFromRotationMatrix(new THREE.Matrix4().makeBasis(r, u, n));
  m.position.copy(position);
  m.renderOrder = 2;
  return m;
}

// ------------------------------------------------------------------ scene objects ----
function buildBoard(board) {
  const g = new THREE.Group();
  g.name = 'board';
  const t = board.thickness_mm;
  const card = new THREE.Mesh(new THREE.ExtrudeGeometry(shapesFrom(board.surface), { depth: t, bevelEnabled: false, curveSegments: 1 }),
    new THREE.MeshStandardMaterial({ color: '#f4efe6', roughness: 0.95 }));
  card.receiveShadow = true;
  g.add(card);
  const up = new THREE.Vector3(1, 0, 0); // read from the thrower's side (-x looking toward +x)
  const zTop = t + 0.05;
  for (const r of board.regions) {
    const mat = new THREE.MeshStandardMaterial({ color: r.colour, roughness: 0.9, polygonOffset: true, polygonOffsetFactor: -1, polygonOffsetUnits: -1 });
    const m = new THREE.Mesh(new THREE.ShapeGeometry(shapesFrom(r.polys), 1), mat);
    m.position.z = zTop;
    m.receiveShadow = true;
    m.userData.region = r;
    g.add(m);
    g.add(outlineLines(r.polys, zTop + 0.05, r.kind === 'bones' ? '#555555' : '#7a5c3e'));
    const text = r.kind === 'section' ? String(r.value) : 'bones';
    for (const [x, y, s] of r.labels) {
      const size = r.kind === 'section' ? s : Math.min(s, 14) * 1.6;
      g.add(flatLabel(text, size, r.bullseye ? '#fff6e0' : '#3b2a1a', new THREE.Vector3(x, y, zTop + 0.1), new THREE.Vector3(0, 0, 1), up));
    }
  }
  for (const h of board.holes) g.add(outlineLines(h.polys, t + 0.1, '#111111'));
  g.add(outlineLines(board.surface, t + 0.1, '#222222'));
  return g;
}

function buildDie(spec) {
  const g = new THREE.Group();
  const pos = [], nrm = [];
  const edges = [];
  for (const f of spec.faces) {
    const c = f.corners;
    for (let i = 1; i + 1 < c.length; i++) {
      for (const p of [c[0], c[i], c[i + 1]]) { pos.push(...p); nrm.push(...f.normal); }
    }
    for (let i = 0; i < c.length; i++) edges.push(...c[i], ...c[(i + 1) % c.length]);
  }
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  geo.setAttribute('normal', new THREE.Float32BufferAttribute(nrm, 3));
  const body = new THREE.Mesh(geo, new THREE.MeshStandardMaterial({ color: spec.colour, roughness: 0.45, metalness: 0.05, side: THREE.DoubleSide }));
  body.castShadow = true;
  g.add(body);
  const eg = new THREE.BufferGeometry();
  eg.setAttribute('position', new THREE.Float32BufferAttribute(edges, 3));
  g.add(new THREE.LineSegments(eg, new THREE.LineBasicMaterial({ color: '#1b1b1b' })));
  for (const f of spec.faces) {
    const c = f.corners.map((p) => new THREE.Vector3(...p));
    const centre = c.reduce((a, b) => a.add(b), new THREE.Vector3()).multiplyScalar(1 / c.length);
    const n = new THREE.Vector3(...f.normal);
    let room = Infinity; // distance from the centre to the nearest edge: the label fits inside
    for (let i = 0; i < c.length; i++) {
      const a = c[i], b = c[(i + 1) % c.length];
      const ab = b.clone().sub(a), ac = centre.clone().sub(a);
      room = Math.min(room, ac.clone().cross(ab).length() / ab.length());
    }
    const up = c[0].clone().sub(centre);
    const blank = /^blank$/i.test(f.label);
    const colour = f.icon ? '#ffd54f' : (blank ? 'rgba(255,255,255,0.45)' : '#ffffff');
    const size = room * (f.label.length > 2 ? 1.9 : 1.5);
    g.add(flatLabel(f.label, size, colour, centre.clone().add(n.clone().multiplyScalar(0.08)), n, up));
  }
  return g;
}

function buildMesh(spec) {
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.Float32BufferAttribute(spec.mesh.v, 3));
  geo.setIndex(spec.mesh.f);
  const flat = geo.toNonIndexed();
  flat.computeVertexNormals();
  const m = new THREE.Mesh(flat, new THREE.MeshStandardMaterial({ color: spec.colour, roughness: 0.8, transparent: true, opacity: 0.78, side: THREE.DoubleSide }));
  m.castShadow = true;
  m.receiveShadow = true;
  const g = new THREE.Group();
  g.add(m);
  g.add(new THREE.LineSegments(new THREE.EdgesGeometry(flat, 30), new THREE.LineBasicMaterial({ color: '#3d2b1f', transparent: true, opacity: 0.5 })));
  return g;
}

function buildTemplate(spec) {
  const g = new THREE.Group();
  const t = spec.thickness_mm;
  const colour = TEMPLATE_COLOURS[spec.effect] || '#e67e22';
  const geo = new THREE.ExtrudeGeometry(shapesFrom(spec.outline), { depth: t, bevelEnabled: false, curveSegments: 1 });
  geo.translate(0, 0, -t / 2);
  const m = new THREE.Mesh(geo, new THREE.MeshStandardMaterial({ color: colour, roughness: 0.9 }));
  m.castShadow = true; m.receiveShadow = true;
  g.add(m);
  g.add(outlineLines(spec.outline, t / 2 + 0.05, '#4a2b0f'));
  const up = new THREE.Vector3(1, 0, 0), nz = new THREE.Vector3(0, 0, 1);
  for (const r of spec.regions) {
    const rm = new THREE.Mesh(new THREE.ShapeGeometry(shapesFrom(r.polys), 1),
      new THREE.MeshStandardMaterial({ color: '#c0392b', roughness: 0.9, polygonOffset: true, polygonOffsetFactor: -1, polygonOffsetUnits: -1 }));
    rm.position.z = t / 2 + 0.05;
    g.add(rm);
    for (const [x, y, s] of r.labels) g.add(flatLabel(String(r.value), s, '#fff3e0', new THREE.Vector3(x, y, t / 2 + 0.1), nz, up));
  }
  const text = spec.effect === 'damage' ? String(spec.value) : spec.title;
  if (!spec.regions.length) {
    for (const [x, y, s] of spec.labels) g.add(flatLabel(text, s, '#3b2a1a', new THREE.Vector3(x, y, t / 2 + 0.1), nz, up));
  }
  return g;
}

// ------------------------------------------------------------------ the viewer ----
export class Viewer {
  constructor(root) {
    this.root = root;
    this.time = 0; this.speed = 1; this.playing = false; this.follow = true; // the camera follows the die
    this.sceneKey = null; this.throw = null; this.renders = 0;
    this.objects = new Map();
    this._buildDom();
    this.renderer = new THREE.WebGLRenderer({ canvas: this.canvas, antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.shadowMap.enabled = true;
    this.renderer.shadowMap.type = THREE.PCFSoftShadowMap;
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color('#dfe6ec');
    this.camera = new THREE.PerspectiveCamera(40, 1, 5, 20000);
    this.camera.up.set(0, 0, 1);
    this.controls = new OrbitControls(this.camera, this.canvas);
    this.controls.enableDamping = true;
    this.controls.maxPolarAngle = Math.PI * 0.495;
    this.scene.add(new THREE.HemisphereLight('#ffffff', '#6b4f35', 1.4));
    const sun = new THREE.DirectionalLight('#ffffff', 2.2);
    sun.position.set(-300, -500, 1800);
    sun.castShadow = true;
    sun.shadow.mapSize.set(2048, 2048);
    Object.assign(sun.shadow.camera, { left: -900, right: 900, top: 900, bottom: -900, near: 100, far: 4000 });
    sun.shadow.bias = -0.0005;
    this.scene.add(sun);
    this.world = new THREE.Group();
    this.scene.add(this.world);
    this.view('thrower');
    new ResizeObserver(() => this._resize()).observe(this.stage);
    this._resize();
    this._last = performance.now();
    const loop = (now) => { this._tick(now); requestAnimationFrame(loop); };
    requestAnimationFrame(loop);
  }

  _buildDom() {
    const r = this.root;
    r.classList.add('dfsim-viewer');
    this.stage = el('div', { class: 'stage' });
    this.canvas = el('canvas', { class: 'scene3d' });
    this.banner = el('div', { class: 'banner' });
    this.stage.append(this.canvas, this.banner);
    this.playBtn = el('button', { class: 'play', title: 'play / pause (space)', onclick: () => this.toggle() }, '▶');
    this.clock = el('span', { class: 'clock' }, '0.00 s');
    this.speedSel = el('select', { title: 'playback speed', onchange: (e) => { this.speed = Number(e.target.value); } },
      ...SPEEDS.map((s) => el('option', { value: String(s) }, s === 1 ? 'real time' : `${s}×`)));
    const views = el('span', { class: 'views' },
      ...[['thrower', 'thrower'], ['top', 'top'], ['side', 'side']].map(([v, label]) =>
        el('button', { onclick: () => this.view(v), title: `camera: ${label} view` }, label)));
    this.followBox = el('input', { type: 'checkbox', checked: true, onchange: (e) => { this.follow = e.target.checked; this.render(); } });
    const follow = el('label', { title: 'keep the die in the middle of the view' }, this.followBox, ' follow die');
    this.scrub = el('input', { type: 'range', min: '0', max: '1000', value: '0', class: 'scrub',
      oninput: (e) => { this.pause(); this.seek(Number(e.target.value) / 1000 * this.duration); } });
    this.ticks = el('div', { class: 'ticks' });
    const bar = el('div', { class: 'timeline' }, this.scrub, this.ticks);
    const controls = el('div', { class: 'controls' }, this.playBtn, this.clock, this.speedSel, views, follow);
    this.outcomeBox = el('div', { class: 'outcome' });
    this.eventsBox = el('div', { class: 'events' });
    r.append(this.stage, controls, bar, el('div', { class: 'panels' }, this.outcomeBox, this.eventsBox));
    this.canvas.addEventListener('keydown', (e) => { if (e.code === 'Space') { e.preventDefault(); this.toggle(); } });
    this.canvas.tabIndex = 0;
  }

  _resize() {
    const w = this.stage.clientWidth || 800, h = this.stage.clientHeight || 450;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
  }

  view(name) {
    const c = this.camera, t = this.controls.target;
    if (name === 'top') { c.position.set(-151, 0, 1250); t.set(-150, 0, 0); }
    else if (name === 'side') { c.position.set(-200, -1150, 220); t.set(-200, 0, 40); }
    else { c.position.set(-900, -240, 430); t.set(-60, 0, 0); }
    this.controls.update();
  }

  setScene(scene) {
    if (this.sceneKey === scene.key && this.objects.size) return;
    this.world.clear();
    this.objects.clear();
    this.sceneKey = scene.key;
    const table = new THREE.Mesh(new THREE.PlaneGeometry(2 * scene.table.half_size_mm, 2 * scene.table.half_size_mm),
      new THREE.MeshStandardMaterial({ color: scene.table.colour, roughness: 0.85 }));
    table.receiveShadow = true;
    table.position.z = -0.02;
    this.world.add(table);
    const grid = new THREE.GridHelper(2 * scene.table.half_size_mm, 30, '#5a4330', '#5a4330');
    grid.rotation.x = Math.PI / 2;
    grid.material.transparent = true; grid.material.opacity = 0.25;
    this.world.add(grid);
    if (scene.board) this.world.add(buildBoard(scene.board));
    for (const [name, spec] of Object.entries(scene.bodies)) {
      const o = spec.kind === 'die' ? buildDie(spec) : spec.kind === 'template' ? buildTemplate(spec) : buildMesh(spec);
      o.name = name;
      o.visible = false;
      this.objects.set(name, o);
      this.world.add(o);
    }
    this.paths = new THREE.Group();
    this.markers = new THREE.Group();
    this.world.add(this.paths, this.markers);
  }

  showThrow(scene, th) {
    this.setScene(scene);
    this.throw = th;
    this.duration = th.t[th.t.length - 1] || 0;
    for (const [name, o] of this.objects) o.visible = name in th.bodies || name in th.static;
    for (const [name, p] of Object.entries(th.static)) this._place(this.objects.get(name), p, 0);
    this.paths.clear();
    this.markers.clear();
    this.travelled = [];
    for (const d of th.dice) {
      const a = th.bodies[d], pts = [];
      for (let k = 0; k < th.t.length; k++) pts.push(new THREE.Vector3(a[7 * k], a[7 * k + 1], a[7 * k + 2]));
      const geo = new THREE.BufferGeometry().setFromPoints(pts);
      this.paths.add(new THREE.Line(geo, new THREE.LineDashedMaterial({ color: '#34495e', dashSize: 8, gapSize: 6, transparent: true, opacity: 0.55 })).computeLineDistances());
      const done = new THREE.Line(geo.clone(), new THREE.LineBasicMaterial({ color: '#f1c40f' }));
      this.paths.add(done);
      this.travelled.push(done);
      const start = new THREE.Mesh(new THREE.SphereGeometry(4, 12, 8), new THREE.MeshBasicMaterial({ color: '#34495e', transparent: true, opacity: 0.6 }));
      start.position.copy(pts[0]);
      this.markers.add(start);
    }
    this.eventMarks = th.events.map((e) => {
      const m = new THREE.Mesh(new THREE.SphereGeometry(3.2, 12, 8), new THREE.MeshBasicMaterial({ color: KIND_COLOURS[e.kind] || '#555' }));
      m.position.set(...e.at);
      m.visible = false;
      this.markers.add(m);
      return m;
    });
    this._fillPanels(th);
    this.pause();
    this.seek(0);
    document.body.dataset.throw = th.label || '';
  }

  _fillPanels(th) {
    const o = th.outcome;
    const res = (o.result || '').toUpperCase();
    const rows = [
      ['reason', o.reason], ['section', o.section ? `${o.section} (value ${o.value})` : '–'],
      ['face', `${o.face ?? '–'}${o.icon ? ' [icon]' : ''}${o.cocked ? ` [cocked ${fmt(o.tilt_deg)}°]` : ''}`],
      ['damage', `${o.damage}${o.insta_kill ? ' INSTA-KILL' : ''}${o.hero_damage ? `, hero takes ${o.hero_damage}` : ''}`],
      ['bounces before board', o.bounces_before_board],
      ['rest at', `(${fmt(o.position_mm[0])}, ${fmt(o.position_mm[1])}) mm after ${fmt(o.time_s, 2)} s`],
      ['touching', (o.touching || []).join(', ') || 'nothing'],
    ];
    if (o.template) rows.push(['template', `${o.template}${o.partial_template ? ' (partial)' : ''}`]);
    const req = Object.entries(o.requirements || {});
    if (req.length) rows.push(['requirements', req.map(([k, v]) => `${k} ${v}`).join(', ')]);
    if (th.seed !== null && th.seed !== undefined) rows.push(['throw', `seed ${th.seed}, index ${th.index}`]);
    const { warning, ...extra } = th.extra || {};
    for (const [k, v] of Object.entries(extra)) rows.push([k, String(v)]);
    this.outcomeBox.replaceChildren(
      el('div', { class: `result ${o.result}` }, res, el('span', { class: 'reason' }, ` ${o.reason}`)),
      ...(warning ? [el('div', { class: 'warning' }, warning)] : []),
      el('table', {}, ...rows.map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, String(v))))));
    this.banner.textContent = `${res} · ${o.reason}${o.section ? ` · section ${o.value}` : ''}${o.face ? ` · face ${o.face}` : ''}`;
    this.banner.className = `banner ${o.result}`;
    const list = el('table', { class: 'eventlist' }, el('tr', {}, el('th', {}, 't (s)'), el('th', {}, 'die'), el('th', {}, 'touches'), el('th', {}, 'speed (m/s)')));
    th.events.forEach((e) => {
      list.append(el('tr', { class: 'ev', onclick: () => { this.pause(); this.seek(e.t); } },
        el('td', {}, fmt(e.t, 3)), el('td', {}, e.die), el('td', {}, el('span', { class: 'dot', style: `background:${KIND_COLOURS[e.kind]}` }), ` ${e.other}`), el('td', {}, fmt(e.speed, 2))));
    });
    this.eventsBox.replaceChildren(el('div', { class: 'caption' }, `${th.events.length} contact events (click one to jump to it)`), list);
    this.ticks.replaceChildren(...th.events.map((e) => el('span', {
      class: 'tick', title: `${fmt(e.t, 3)} s: ${e.die} touches ${e.other} at ${fmt(e.speed, 2)} m/s`,
      style: `left:${(100 * e.t / (this.duration || 1)).toFixed(3)}%;background:${KIND_COLOURS[e.kind]}`,
      onclick: () => { this.pause(); this.seek(e.t); },
    })));
  }

  _place(obj, a, k, b = null, w = 0) {
    if (!obj) return;
    const i = 7 * k;
    if (b === null || w === 0) {
      obj.position.set(a[i], a[i + 1], a[i + 2]);
      obj.quaternion.set(a[i + 3], a[i + 4], a[i + 5], a[i + 6]);
      return;
    }
    const j = i + 7;
    obj.position.set(a[i] + w * (a[j] - a[i]), a[i + 1] + w * (a[j + 1] - a[i + 1]), a[i + 2] + w * (a[j + 2] - a[i + 2]));
    const q0 = new THREE.Quaternion(a[i + 3], a[i + 4], a[i + 5], a[i + 6]);
    const q1 = new THREE.Quaternion(a[j + 3], a[j + 4], a[j + 5], a[j + 6]);
    obj.quaternion.copy(q0.slerp(q1, w));
  }

  seek(t) {
    const th = this.throw;
    if (!th) return;
    this.time = Math.max(0, Math.min(t, this.duration));
    const ts = th.t;
    let lo = 0, hi = ts.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (ts[mid] <= this.time) lo = mid; else hi = mid - 1; }
    const k = lo, w = k + 1 < ts.length ? (this.time - ts[k]) / (ts[k + 1] - ts[k]) : 0;
    for (const [name, a] of Object.entries(th.bodies)) this._place(this.objects.get(name), a, k, k + 1 < ts.length ? a : null, w);
    for (const line of this.travelled) line.geometry.setDrawRange(0, k + 2);
    th.events.forEach((e, n) => { this.eventMarks[n].visible = e.t <= this.time + 1e-9; });
    this.clock.textContent = `${this.time.toFixed(2)} / ${this.duration.toFixed(2)} s`;
    this.scrub.value = String(Math.round(1000 * this.time / (this.duration || 1)));
    this.banner.style.opacity = this.time >= this.duration - 1e-9 ? '1' : '0.35';
    document.body.dataset.time = this.time.toFixed(3);
    if (!this.playing) this.render(); // scrubbing, jumps: draw now, whatever the frame clock does
  }

  render() {
    this._followDie();
    this.controls.update();
    this.renderer.render(this.scene, this.camera);
    this.renders += 1;
    document.body.dataset.renders = String(this.renders);
  }

  play() {
    if (!this.throw) return;
    if (this.time >= this.duration - 1e-9) this.seek(0);
    this.playing = true; this.playBtn.textContent = '❚❚';
    document.body.dataset.state = 'playing';
  }

  pause() {
    this.playing = false; this.playBtn.textContent = '▶';
    if (document.body.dataset.state === 'playing') document.body.dataset.state = 'paused';
  }

  toggle() { if (this.playing) this.pause(); else this.play(); }

  setSpeed(s) { this.speed = s; this.speedSel.value = String(s); }

  _tick(now) {
    const dt = Math.min(0.1, (now - this._last) / 1000);
    this._last = now;
    if (this.playing) {
      this.seek(this.time + dt * this.speed);
      if (this.time >= this.duration - 1e-9) { this.playing = false; this.playBtn.textContent = '▶'; document.body.dataset.state = 'ended'; }
    }
    this.render();
  }

  _followDie() {
    // keep the die in the middle of the view (the camera keeps its direction and distance): in sight
    // from the release to the rest, whether playing, scrubbing or jumping to an event
    if (!this.follow || !this.throw || !this.throw.dice.length) return;
    const d = this.objects.get(this.throw.dice[0]);
    if (!d) return;
    const shift = d.position.clone().sub(this.controls.target);
    this.controls.target.add(shift); this.camera.position.add(shift);
  }
}

// ------------------------------------------------------------------ pages ----
function hashOptions() {
  const out = {};
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    if (!part) continue;
    const [k, v] = part.split('=');
    out[decodeURIComponent(k)] = v === undefined ? true : decodeURIComponent(v);
  }
  return out;
}

function startFromHash(viewer, opts) {
  if (opts.speed) viewer.setSpeed(Number(opts.speed));
  if (opts.view) viewer.view(opts.view);
  if (opts.t !== undefined && opts.t !== true) viewer.seek(Number(opts.t));
  if (opts.autoplay) viewer.play();
  viewer.render();
  if (!viewer.playing) document.body.dataset.state = 'ready';
}

export function main(data) {
  const opts = hashOptions();
  const viewer = new Viewer(document.getElementById('viewer'));
  window.dfsimViewer = viewer;
  const scenes = data.scenes;
  if (data.kind === 'replay') {
    const pick = document.getElementById('throw-pick');
    const show = (i) => { const th = data.throws[i]; viewer.showThrow(scenes[th.scene], th); };
    if (pick && data.throws.length > 1) {
      pick.append(...data.throws.map((th, i) => el('option', { value: String(i) }, th.label || `throw ${i}`)));
      pick.addEventListener('change', (e) => show(Number(e.target.value)));
      pick.hidden = false;
    }
    show(Math.min(Number(opts.throw || 0), data.throws.length - 1));
    startFromHash(viewer, opts);
    return viewer;
  }
  // report: one sample of throws per cell; the landing map's sample dots open them
  const byId = new Map();
  for (const cell of data.cells) for (const th of cell.throws) byId.set(th.id, [cell, th]);
  const open = (id, autoplay = true) => {
    const hit = byId.get(id);
    if (!hit) return;
    const [cell, th] = hit;
    viewer.showThrow(scenes[cell.scene], th);
    document.querySelectorAll('.landing .sample.on').forEach((n) => n.classList.remove('on'));
    document.querySelectorAll(`.landing .sample[data-throw="${CSS.escape(id)}"]`).forEach((n) => n.classList.add('on'));
    const title = document.getElementById('viewer-title');
    if (title) title.textContent = `${cell.name} · throw ${th.index}`;
    if (autoplay) viewer.play();
  };
  document.querySelectorAll('.landing .sample').forEach((n) => {
    n.addEventListener('click', () => open(n.dataset.throw));
  });
  document.querySelectorAll('.cell-tabs button').forEach((b) => b.addEventListener('click', () => {
    document.querySelectorAll('.cell-tabs button').forEach((x) => x.classList.toggle('on', x === b));
    document.querySelectorAll('.landing').forEach((m) => { m.hidden = m.dataset.cell !== b.dataset.cell; });
  }));
  const first = opts.throw && byId.has(opts.throw) ? opts.throw : (data.cells.find((c) => c.throws.length) || { throws: [{}] }).throws[0].id;
  if (first) open(first, false);
  startFromHash(viewer, opts);
  return viewer;
}
