/* kinematrix views: the player of one interactive page (loops/views/page.py).
 *
 * kinematrixView(id, figures, player) draws figures.scene (the 3-D view) and figures.panels
 * (the 2-D panels), plotly's {data, layout} each or null, into the element `id`, and steps them
 * through `player.count` positions: each body (a scene trace whose vertices ride on links) is
 * placed by its links' poses, each follower (a circle shape of the panels) sits on its curve at
 * the position, and the readout shows the inputs there. The slider (and its arrow keys), the
 * play/pause button (and the space bar) move the position. A legend click in one graph hides or
 * shows the same legend group in the other (a design: its linkage and its curves).
 *
 * Arrays arrive as plotly's typed-array specs {dtype, bdata} (little-endian, base64). A pose is
 * 12 numbers per link: the rotation (row-major 3x3), then the translation, in the page's units.
 * After the first drawing the element carries data-rendered (performance.now(), ms since the
 * page began loading); after every placement data-position (the position shown). Performance
 * marks kinematrix:begin, kinematrix:scene and kinematrix:panels time the parts of the opening.
 */
function kinematrixView(id, figures, player) {
  "use strict";
  performance.mark("kinematrix:begin");
  const root = document.getElementById(id);
  const types = { f4: Float32Array, f8: Float64Array, i4: Int32Array };

  function decode(spec) {
    const text = atob(spec.bdata);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new types[spec.dtype](bytes.buffer);
  }

  function isSpec(value) {
    return value && typeof value === "object" && typeof value.bdata === "string" && !value.shape;
  }

  const graphs = {};
  for (const key of ["scene", "panels"]) {
    const figure = figures[key];
    if (!figure) continue;
    // The curves' arrays decoded once: the followers read their points from them.
    for (const trace of figure.data) {
      for (const axis of ["x", "y", "z"]) if (isSpec(trace[axis])) trace[axis] = decode(trace[axis]);
    }
    graphs[key] = { div: root.querySelector(".kx-" + key), figure: figure };
  }
  if (graphs.scene && graphs.panels && player.split) {
    graphs.scene.div.style.flex = `0 0 ${100 * player.split}%`;
  }

  const poseSets = player.poses.map((p) => ({ count: p.count, links: p.links, data: decode(p.data) }));
  const bodies = player.bodies.map((b) => ({
    trace: b.trace, set: poseSets[b.set], links: decode(b.links), local: decode(b.local),
  }));
  const followers = player.followers.map((f) => ({
    shape: f.shape, source: f.source, rows: f.rows ? decode(f.rows) : null,
  }));
  const readouts = player.readouts.map((r) => ({ ...r, values: decode(r.values) }));
  const slider = root.querySelector(".kx-slider");
  const button = root.querySelector(".kx-play");
  const readout = root.querySelector(".kx-readout");

  function bodyAt(body, k) {
    const set = body.set, links = body.links, local = body.local, n = links.length;
    const base = Math.min(k, set.count - 1) * set.links * 12;
    const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const link = links[i], px = local[3 * i], py = local[3 * i + 1], pz = local[3 * i + 2];
      if (link === -1) { x[i] = y[i] = z[i] = NaN; continue; }
      if (link === -2) { x[i] = px; y[i] = py; z[i] = pz; continue; }
      const T = set.data, o = base + 12 * link;
      x[i] = T[o] * px + T[o + 1] * py + T[o + 2] * pz + T[o + 9];
      y[i] = T[o + 3] * px + T[o + 4] * py + T[o + 5] * pz + T[o + 10];
      z[i] = T[o + 6] * px + T[o + 7] * py + T[o + 8] * pz + T[o + 11];
    }
    return [x, y, z];
  }

  function text(k) {
    const parts = readouts.map((r) => `${r.name} = ${r.values[k].toFixed(r.decimals)}${r.unit ? " " + r.unit : ""}`);
    parts.push(`position ${k + 1} of ${player.count}`);
    return parts.join("   ");
  }

  function shapesAt(k) {
    const div = graphs.panels.div, shapes = div.layout.shapes.slice();
    for (const f of followers) {
      const source = graphs.panels.figure.data[f.source];
      const row = f.rows ? f.rows[k] : k;
      const shown = row >= 0 && row < source.x.length && div._fullData[f.source].visible === true;
      shapes[f.shape] = Object.assign({}, shapes[f.shape], shown
        ? { xanchor: source.x[row], yanchor: source.y[row], visible: true } : { visible: false });
    }
    return shapes;
  }

  let shown = -1, wanted = player.start, busy = false;

  function draw(k) {
    const moves = [];
    if (bodies.length) {
      const xs = [], ys = [], zs = [], indices = [];
      for (const body of bodies) {
        const [x, y, z] = bodyAt(body, k);
        xs.push(x); ys.push(y); zs.push(z); indices.push(body.trace);
      }
      moves.push(Plotly.restyle(graphs.scene.div, { x: xs, y: ys, z: zs }, indices));
    }
    if (followers.length) moves.push(Plotly.relayout(graphs.panels.div, { shapes: shapesAt(k) }));
    if (readout) readout.textContent = text(k);
    return Promise.all(moves);
  }

  // One placement at a time; a position asked for meanwhile is drawn next (the last one wins).
  function show(k) {
    wanted = Math.max(0, Math.min(player.count - 1, k));
    if (slider) slider.value = String(wanted);
    if (busy || wanted === shown) return Promise.resolve();
    busy = true;
    const k0 = wanted;
    return draw(k0).then(() => {
      shown = k0;
      root.dataset.position = String(k0);
      busy = false;
      if (wanted !== shown) return show(wanted);
      return undefined;
    });
  }

  let playing = null;
  function setPlaying(on) {
    if (!button) return;
    if (on && !playing) {
      if (shown >= player.count - 1) show(0);
      let last = performance.now();
      const tick = (now) => {
        if (!playing) return;
        const steps = Math.floor((now - last) * player.rate / 1000);
        if (steps >= 1 && !busy) {
          last = now;
          if (shown + steps > player.count - 1) { show(player.count - 1); setPlaying(false); return; }
          show(shown + steps);
        }
        playing = requestAnimationFrame(tick);
      };
      playing = requestAnimationFrame(tick);
      button.innerHTML = "&#10074;&#10074; pause";
    } else if (!on && playing) {
      cancelAnimationFrame(playing);
      playing = null;
      button.innerHTML = "&#9654; play";
    }
  }

  // A legend group hidden or shown in one graph is hidden or shown in the other.
  let syncing = false;
  function follow(from, to) {
    if (!graphs[from] || !graphs[to]) return;
    graphs[from].div.on("plotly_restyle", (event) => {
      if (syncing || !event || !event[0] || !("visible" in event[0])) return;  // a legend click, not a step
      const state = {};
      for (const t of graphs[from].div._fullData) if (t.legendgroup) state[t.legendgroup] = t.visible;
      const indices = [], values = [];
      graphs[to].div._fullData.forEach((t, i) => {
        if (t.legendgroup in state && t.visible !== state[t.legendgroup]) { indices.push(i); values.push(state[t.legendgroup]); }
      });
      const done = [];
      if (indices.length) { syncing = true; done.push(Plotly.restyle(graphs[to].div, { visible: values }, indices)); }
      Promise.all(done).then(() => {
        syncing = false;
        if (graphs.panels && followers.length && shown >= 0) Plotly.relayout(graphs.panels.div, { shapes: shapesAt(shown) });
      });
    });
  }

  if (slider) slider.addEventListener("input", () => { setPlaying(false); show(Number(slider.value)); });
  if (button) button.addEventListener("click", () => setPlaying(!playing));
  root.addEventListener("keydown", (event) => {
    if (event.key === " " && event.target.tagName !== "BUTTON") { event.preventDefault(); setPlaying(!playing); }
  });

  // The figures arrive drawn at the start position: the first drawing places nothing.
  const config = { responsive: true, displaylogo: false, scrollZoom: true };
  let drawn = Promise.resolve();
  for (const [key, g] of Object.entries(graphs)) {
    drawn = drawn.then(() => Plotly.newPlot(g.div, g.figure.data, g.figure.layout, config))
      .then(() => performance.mark(`kinematrix:${key}`));
  }
  drawn.then(() => {
    follow("scene", "panels");
    follow("panels", "scene");
    shown = player.start;
    root.dataset.position = String(shown);
    if (readout) readout.textContent = text(shown);
    requestAnimationFrame(() => { root.dataset.rendered = String(performance.now()); });
  });
}
