'use strict';
// Draws the run the page carries as JSON (#run) as an SVG: a lane per host on a true-time
// axis, with bars, marks, fault spans and violations. Every drawn element has data-kind
// (bar, mark, fault, violation, heal), data-what, data-lane, data-start and data-end (ms),
// and a <title> with its event, which a browser shows on hover.
(function () {
  const run = JSON.parse(document.getElementById('run').textContent);
  const NS = 'http://www.w3.org/2000/svg';
  const LANE = 38, AXIS = 22, NAMES = 64, RIGHT = 14;
  const BAR_Y = 8, BAR_H = 13, VALID_Y = 23, VALID_H = 4;
  const SHAPES = {
    acquire: 'circle', release: 'ring', lost: 'cross', unfinished: 'cross',
    enqueue: 'dot', extend: 'dot', wake: 'triangle', queue: 'square', barrier: 'square',
    write: 'diamond', stale_write: 'diamond', refused: 'diamond', server: 'square', user: 'dot',
  };
  const LEGEND = [
    ['bar hold', 'holds a lock'], ['bar lead', 'leads'], ['bar wait', 'waits at a barrier'],
    ['bar inside', 'inside a barrier'], ['bar valid', 'lease valid by its clock'],
    ['fault pause', 'pause'], ['fault pause_before', 'pause at a step'], ['fault partition', 'partition'], ['fault partition_oneway', 'one-way partition'], ['fault delay', 'delay'],
    ['fault loss', 'loss'], ['fault crash', 'crash to restart'], ['fault clock_drift', 'clock drift'],
    ['violation', 'violation'],
  ];
  const svg = document.getElementById('picture');
  const row = new Map(run.lanes.map((lane, i) => [lane.name, i]));
  const top = name => AXIS + row.get(name) * LANE;
  const whole = [0, Math.max(run.end_ms, 1)];
  let view = run.violations.length ? run.focus : whole;

  function add(parent, name, attrs, title) {
    const el = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
    if (title) {
      const t = document.createElementNS(NS, 'title');
      t.textContent = title;
      el.appendChild(t);
    }
    parent.appendChild(el);
    return el;
  }

  // The data attributes the browser test reads back.
  function data(kind, what, lane, start, end) {
    return { 'data-kind': kind, 'data-what': what, 'data-lane': lane, 'data-start': start, 'data-end': end };
  }

  function shape(what, cx, cy) {
    const r = 4.5;
    switch (SHAPES[what] || 'dot') {
      case 'circle': return ['circle', { cx, cy, r }];
      case 'ring': return ['circle', { cx, cy, r: r - 0.5 }];
      case 'dot': return ['circle', { cx, cy, r: 3 }];
      case 'square': return ['rect', { x: cx - 4, y: cy - 4, width: 8, height: 8 }];
      case 'diamond': return ['path', { d: `M${cx} ${cy - 6}l6 6l-6 6l-6 -6z` }];
      case 'triangle': return ['path', { d: `M${cx - 5} ${cy - 5}h10l-5 8z` }];
      case 'cross': return ['path', { d: `M${cx - 4} ${cy - 4}l8 8m0 -8l-8 8`, 'stroke-width': 2.5, stroke: '#e0202a' }];
    }
  }

  function ticks(from, until, width) {
    const raw = Math.max(until - from, 1) / Math.max(width / 90, 1);
    const pow = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(m => m * pow).find(s => s >= raw);
    const all = [];
    for (let t = Math.ceil(from / step) * step; t <= until; t += step) all.push(t);
    return all;
  }

  function draw() {
    svg.replaceChildren();
    const width = Math.max(document.getElementById('frame').clientWidth, 640);
    const height = AXIS + run.lanes.length * LANE + 2;
    svg.setAttribute('width', width);
    svg.setAttribute('height', height);
    const span = Math.max(view[1] - view[0], 1);
    const x = t => NAMES + (t - view[0]) * (width - NAMES - RIGHT) / span;
    const clip = add(add(svg, 'defs', {}), 'clipPath', { id: 'plot' });
    add(clip, 'rect', { x: NAMES, y: 0, width: width - NAMES - RIGHT + 1, height });

    run.lanes.forEach((lane, i) => {
      if (i % 2 === 0) add(svg, 'rect', { class: 'stripe', x: 0, y: top(lane.name), width, height: LANE });
      add(svg, 'text', { class: 'lane-name', x: 6, y: top(lane.name) + BAR_Y + 10 }).textContent = lane.name;
    });
    for (const t of ticks(view[0], view[1], width - NAMES - RIGHT)) {
      add(svg, 'line', { class: 'tick', x1: x(t), x2: x(t), y1: AXIS - 4, y2: height });
      add(svg, 'text', { x: x(t) + 2, y: AXIS - 8 }).textContent = `${t} ms`;
    }
    const plot = add(svg, 'g', { 'clip-path': 'url(#plot)' });
    // Words placed close together on a lane share one label ("↔ redis4, redis5").
    const labeller = (cls, dy, prefix) => {
      const placed = new Map();
      return (lane, at, word) => {
        const near = (placed.get(lane) || []).find(label => Math.abs(label.at - at) < 60);
        if (near) {
          if (!near.words.includes(word)) near.words.push(word);
          near.el.textContent = prefix + near.words.join(', ');
          return;
        }
        const el = add(plot, 'text', { class: cls, x: at, y: top(lane) + dy });
        el.textContent = prefix + word;
        placed.set(lane, [...(placed.get(lane) || []), { at, el, words: [word] }]);
      };
    };
    const faultName = labeller('fault-name', LANE - 2, '');
    const name = labeller('violation-name', 7, '');

    for (const f of run.faults) {
      for (const lane of f.lanes.filter(l => row.has(l))) {
        const attrs = data('fault', f.what, lane, f.start, f.end === null ? f.start : f.end);
        if (f.end === null) {
          const d = `M${x(f.start)} ${top(lane)}v${LANE}m-5 ${-LANE}h10l-5 7z`;
          add(plot, 'path', { ...attrs, class: `fault instant ${f.what}`, d }, f.title);
        } else {
          const w = Math.max(x(f.end) - x(f.start), 2);
          add(plot, 'rect', { ...attrs, class: `fault ${f.what}`, x: x(f.start), y: top(lane), width: w, height: LANE }, f.title);
          // A fault on a link is labelled, on each end's lane, with the other end; a fault
          // on one host, with its kind.
          const other = f.lanes.find(l => l !== lane);
          if (w > 60) faultName(lane, x(f.start) + 3, other ? `↔ ${other}` : f.what.replace('_', ' '));
        }
      }
    }
    for (const b of run.bars) {
      const [y, h] = b.what === 'valid' ? [VALID_Y, VALID_H] : [BAR_Y, BAR_H];
      const w = Math.max(x(b.end) - x(b.start), 2);
      add(plot, 'rect', { ...data('bar', b.what, b.lane, b.start, b.end), class: `bar ${b.what}`, x: x(b.start), y: top(b.lane) + y, width: w, height: h, rx: 2 }, b.title);
      if (b.label && w > b.label.length * 6 + 16) {
        add(plot, 'text', { class: 'bar-label', x: x(b.start) + 8, y: top(b.lane) + y + 10 }).textContent = b.label;
      }
    }
    run.violations.forEach((v, i) => {
      const lanes = v.lanes.filter(l => row.has(l));
      for (const lane of lanes) {
        const w = Math.max(x(v.end) - x(v.start), 3);
        add(plot, 'rect', { ...data('violation', v.property, lane, v.start, v.end), 'data-violation': i, class: 'violation', x: x(v.start), y: top(lane) + 1, width: w, height: LANE - 2 }, v.title);
      }
      if (lanes.length) name(lanes[0], x(v.start) + 2, v.property);
    });
    if (run.heal_ms !== null) {
      add(plot, 'line', { ...data('heal', 'heal', '', run.heal_ms, run.heal_ms), class: 'heal', x1: x(run.heal_ms), x2: x(run.heal_ms), y1: AXIS - 4, y2: height }, `${run.heal_ms} ms  heal phase: faults repaired, no new ones`);
      add(plot, 'text', { x: x(run.heal_ms) + 3, y: AXIS + 9, fill: '#2a9d2a' }).textContent = 'heal';
    }
    for (const m of run.marks) {
      const [name, attrs] = shape(m.what, x(m.at), top(m.lane) + BAR_Y + BAR_H / 2);
      add(plot, name, { ...data('mark', m.what, m.lane, m.at, m.at), class: `mark ${m.what}`, ...attrs }, m.title);
    }
    document.getElementById('range').textContent =
      `showing ${Math.round(view[0])}..${Math.round(view[1])} ms of 0..${run.end_ms} ms; drag across the picture to zoom in`;
  }

  function show(range) {
    view = [Math.max(0, range[0]), Math.min(whole[1], Math.max(range[1], range[0] + 1))];
    draw();
  }

  const list = document.getElementById('violations');
  run.violations.forEach(v => {
    const li = document.createElement('li');
    li.textContent = v.title;
    li.title = 'zoom to it';
    const margin = Math.max((v.end - v.start) / 2, 10);
    li.addEventListener('click', () => show([v.start - margin, v.end + margin]));
    list.appendChild(li);
  });
  document.getElementById('focus').disabled = run.violations.length === 0;
  document.getElementById('focus').addEventListener('click', () => show(run.focus));
  document.getElementById('whole').addEventListener('click', () => show(whole));

  const info = document.getElementById('info');
  svg.addEventListener('mouseover', e => {
    const title = e.target.closest('[data-kind]')?.querySelector('title');
    if (title) info.textContent = title.textContent;
  });
  let dragFrom = null;
  const at = e => {
    const box = svg.getBoundingClientRect();
    const plotWidth = box.width - NAMES - RIGHT;
    return view[0] + (e.clientX - box.left - NAMES) * (view[1] - view[0]) / plotWidth;
  };
  svg.addEventListener('mousedown', e => { dragFrom = at(e); e.preventDefault(); });
  svg.addEventListener('mouseup', e => {
    const to = at(e);
    if (dragFrom !== null && Math.abs(to - dragFrom) * (svg.clientWidth / (view[1] - view[0])) > 5) {
      show([Math.min(dragFrom, to), Math.max(dragFrom, to)]);
    }
    dragFrom = null;
  });

  // The legend names only what this run has.
  const present = new Set([
    ...run.bars.map(b => `bar ${b.what}`),
    ...run.faults.filter(f => f.end !== null).map(f => `fault ${f.what}`),
    ...(run.violations.length ? ['violation'] : []),
  ]);
  const legend = document.getElementById('legend');
  for (const [cls, words] of LEGEND.filter(([cls]) => present.has(cls))) {
    const item = document.createElement('span');
    const swatch = add(item, 'svg', { width: 14, height: 12 });
    add(swatch, 'rect', { class: cls, width: 14, height: 12 });
    item.append(words);
    legend.appendChild(item);
  }
  window.addEventListener('resize', draw);
  draw();
})();
