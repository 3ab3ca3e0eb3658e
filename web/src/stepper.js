// Stepping through a run's arrival order: a slider over the trace's steps with prev/next
// buttons and keys, and for the current step its cause and events in words, the watermark of
// every assigner subtask, input channel and operator subtask as of that step, and the buffered
// state and pending timers of each operator subtask (the latest snapshot at or before the
// step), with what this step changed highlighted.
//
// Drawn only from the result and trace of the engine (crate/src/result.rs, crate/src/trace.rs).
// User text goes in through textContent only.

import { snapshotIndex, snapshotAt } from './app/step-state.js';
import { WatermarkTracker, formatWatermark, keyText, rowName, rowValuesText, sideIndex, streamName, timeFormat, wmValue } from './timeline.js';

const instances = new WeakMap();

function h(tag, cls, textContent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (textContent !== undefined) e.textContent = textContent;
  return e;
}

/** The cause of a step in words. */
export function causeText(result, step, fmt) {
  const c = step && step.cause;
  if (!c) return '';
  const rows = result.rows || [];
  const pt = (v) => (v === undefined || v === null ? '' : `processing time ${fmt.long(v)}`);
  switch (c.type) {
    case 'row': {
      const r = rows[c.row];
      const name = r ? rowName(result, r) : `${streamName(result, c.stream)} row #${c.row}`;
      return `${name} arrives at assigner subtask ${c.assigner}`;
    }
    case 'watermark_row':
      return `WM ${fmt.long(c.value)} (${streamName(result, c.stream)} line ${c.line}) arrives at assigner subtask ${c.assigner}`;
    case 'periodic_emit':
      return `periodic watermark emit at ${pt(c.processing_time)}`;
    case 'processing_time':
      return `processing-time timers fire at ${pt(c.processing_time)}`;
    case 'end_of_input':
      return c.final_watermark ? 'end of input: every source emits Watermark(+∞)' : 'end of input (final watermark switched off: what is buffered stays buffered)';
    default:
      return c.type;
  }
}

/** Details of the cause: the row's values, timestamp and processing time. */
function causeDetail(result, step, fmt) {
  const c = step.cause;
  const rows = result.rows || [];
  if (c.type === 'row') {
    const r = rows[c.row];
    if (!r) return '';
    const parts = [rowValuesText(result, r.side, r.values, fmt)];
    if (r.kind && r.kind !== '+I') parts.unshift(r.kind);
    if (r.timestamp !== null && r.timestamp !== undefined) parts.push(`ts ${fmt.long(r.timestamp)}`);
    parts.push(`processing time ${fmt.long(c.processing_time)}`);
    return parts.join(' · ');
  }
  if (c.type === 'watermark_row') return `processing time ${fmt.long(c.processing_time)}`;
  return '';
}

const rowLabel = (result, id, fmt) => {
  const r = (result.rows || [])[id];
  return r ? `${rowName(result, r)} ${rowValuesText(result, r.side, r.values, fmt)}` : `row #${id}`;
};
const refLabel = (result, ref, fmt) => (ref ? `${rowName(result, ref)} ${rowValuesText(result, ref.stream, ref.values, fmt)}` : 'null');

/**
 * The events of a step in words: [{kind, text}] where kind is route / watermark / timer /
 * state / output / late / side. Channel watermarks of one assigner reaching several subtasks
 * are merged into one line.
 */
export function eventTexts(result, step, fmt) {
  const out = [];
  const rows = result.rows || [];
  const wm = (w) => formatWatermark(w, fmt);
  const evs = step.events || [];
  for (let i = 0; i < evs.length; i++) {
    const e = evs[i];
    switch (e.type) {
      case 'route': {
        const r = rows[e.row];
        const name = r ? rowName(result, r) : `row #${e.row}`;
        if (e.key === null || e.key === undefined) out.push({ kind: 'route', text: `${name} → forward to operator subtask ${e.subtask}` });
        else out.push({ kind: 'route', text: `${name}: key ${keyText(result, e.key)} → key group ${e.key_group} → operator subtask ${e.subtask}` });
        break;
      }
      case 'assigner_watermark': {
        let from = '';
        const r = e.from_row !== null && e.from_row !== undefined ? rows[e.from_row] : null;
        if (wmValue(e.watermark) === Infinity) from = ' (end of input)';
        else if (r) from = ` (max ts ${fmt.long(r.timestamp)}, line ${r.line})`;
        out.push({ kind: 'watermark', text: `${streamName(result, e.stream)} assigner ${e.assigner} emits watermark ${wm(e.watermark)}${from}` });
        break;
      }
      case 'assigner_held':
        out.push({ kind: 'watermark', text: `${streamName(result, e.stream)} assigner ${e.assigner}: watermark ${wm(e.candidate)} not emitted (not above the last one, ${wm(e.last)})` });
        break;
      case 'assigner_status':
        out.push({ kind: 'watermark', text: `${streamName(result, e.stream)} assigner ${e.assigner} ${e.idle ? 'goes idle (its channels stop holding watermarks back)' : 'becomes active again'}` });
        break;
      case 'channel_watermark': {
        // Merge a run of the same watermark from the same channel into several subtasks.
        const subs = [e.subtask];
        while (i + 1 < evs.length) {
          const n = evs[i + 1];
          if (n.type === 'channel_watermark' && n.stream === e.stream && n.assigner === e.assigner && String(n.watermark) === String(e.watermark)) {
            subs.push(n.subtask);
            i++;
          } else break;
        }
        const who = subs.length === 1 ? `operator subtask ${subs[0]}` : `operator subtasks ${subs.join(', ')}`;
        out.push({ kind: 'watermark', text: `${who}: input channel ${streamName(result, e.stream)}/${e.assigner} ← watermark ${wm(e.watermark)}` });
        break;
      }
      case 'operator_watermark': {
        const fwd = String(e.output) !== String(e.watermark) ? `; forwards ${wm(e.output)} downstream` : '';
        out.push({ kind: 'watermark', text: `operator subtask ${e.subtask} watermark → ${wm(e.watermark)} (minimum over its input channels)${fwd}` });
        break;
      }
      case 'timer_registered':
      case 'timer_deleted':
      case 'timer_fired': {
        const verb = e.type === 'timer_registered' ? 'registered' : e.type === 'timer_deleted' ? 'deleted' : 'fires';
        const kind = e.processing ? 'processing-time' : 'event-time';
        out.push({ kind: 'timer', text: `subtask ${e.subtask}: ${kind} timer ${fmt.long(e.timestamp)} for key ${keyText(result, e.key)} ${verb}${e.what ? ` (${e.what})` : ''}` });
        break;
      }
      case 'buffered':
        out.push({ kind: 'state', text: `subtask ${e.subtask}: ${rowLabel(result, e.row, fmt)} buffered${e.what ? ` in ${e.what}` : ''}` });
        break;
      case 'cleared': {
        const ids = e.rows || [];
        const names = ids.slice(0, 6).map((id) => {
          const r = rows[id];
          return r ? rowName(result, r) : `#${id}`;
        });
        const nIds = e.rows_total ?? ids.length;
        const more = nIds > 6 ? ` and ${nIds - 6} more` : '';
        out.push({ kind: 'state', text: `subtask ${e.subtask}: cleared ${names.join(', ')}${more}${e.what ? ` (${e.what})` : ''}` });
        break;
      }
      case 'output': {
        const o = (result.outputs || [])[e.index];
        if (!o) break;
        const kind = o.kind && o.kind !== '+I' ? `${o.kind} ` : result.operator === 'regular_join' ? '+I ' : '';
        const body = result.streams && result.streams.length > 1 ? `${refLabel(result, o.left, fmt)} ⋈ ${refLabel(result, o.right, fmt)}` : refLabel(result, o.left || o.right, fmt);
        const win = o.window ? ` in window [${fmt.short(o.window[0])}, ${fmt.short(o.window[1])})` : '';
        const ts = o.timestamp !== null && o.timestamp !== undefined ? `, ts ${fmt.long(o.timestamp)}` : '';
        out.push({ kind: 'output', text: `output #${e.index + 1}: ${kind}${body}${win}${ts} (subtask ${o.subtask})` });
        break;
      }
      case 'window': {
        const w = (result.windows || [])[e.index];
        if (!w) break;
        out.push({ kind: 'output', text: `window [${fmt.short(w.start)}, ${fmt.short(w.end)}) of key ${w.key === null ? 'null' : String(w.key)} fires: count ${w.count}${w.sum !== undefined ? `, sum ${w.sum}` : ''}${w.firing > 1 ? ` (firing ${w.firing}, late update)` : ''}; lines ${(w.lines || []).join(', ')}` });
        break;
      }
      case 'late': {
        const l = (result.late || [])[e.index];
        if (!l) break;
        out.push({ kind: 'late', text: `late: ${rowName(result, l.row)} — ${l.message}` });
        break;
      }
      case 'side_output': {
        const list = (result.side_outputs || {})[e.tag] || [];
        const s = list[e.index];
        out.push({ kind: 'side', text: `side output "${e.tag}" ← ${s ? refLabel(result, s.row, fmt) : `#${e.index}`}` });
        break;
      }
      default:
        out.push({ kind: 'other', text: e.type });
    }
  }
  return out;
}

/**
 * Renders the stepper into `container` at `stepIndex` and calls `onStep(newIndex)` when the user
 * moves (buttons, slider, ←/→, Home/End, PageUp/PageDown when focused). Calling it again on the
 * same container with the same result only moves the step (focus is kept), so the caller may
 * re-render from its onStep; with a new result it rebuilds and keeps the focus.
 * `options.onSelectRow(rowId)` is called when a row in the state panel is clicked.
 * Returns `{ setStep(i), get step(), destroy() }`.
 */
export function renderStepper(container, result, stepIndex, onStep, options = {}) {
  const existing = instances.get(container);
  if (existing && existing.result === result && container.contains(existing.root)) {
    existing.onStep = onStep;
    existing.options = options;
    existing.setStep(stepIndex, false);
    return existing.handle;
  }
  // A new result (the scenario was edited): rebuild, keeping the keyboard focus where it was.
  let refocus = null;
  if (existing) {
    const active = document.activeElement;
    if (active && existing.root.contains(active)) refocus = active === existing.root ? 'jl-stepper' : active.className.split(' ')[0];
    existing.handle.destroy();
  }
  while (container.firstChild) container.removeChild(container.firstChild);

  const trace = result.trace || [];
  // A window of the trace (`result.window`: {from, end, total, before}, an input too large for
  // a full trace): the slider spans every step, the steps in [from, end) are drawn, and a step
  // outside is drawn as loading while the caller fetches the window around it.
  const win = result.window || null;
  const n = win ? win.total : trace.length;
  const base = win ? win.from : 0;
  const inWindow = (s) => !win || (s >= win.from && s < win.end);
  const root = h('div', 'jl-stepper');
  root.tabIndex = 0;
  root.setAttribute('role', 'group');
  root.setAttribute('aria-label', 'step through the arrival order');
  container.appendChild(root);
  if (!n) {
    root.appendChild(h('p', 'jl-step-empty', 'No trace: run with the trace switched on to step through the arrivals.'));
    const handle = { setStep() {}, step: 0, destroy() {} };
    return handle;
  }

  const rows = result.rows || [];
  const fmt = timeFormat((win ? rows.filter(() => true) : rows).map((r) => r.timestamp));
  const tracker = new WatermarkTracker(result);
  const snaps = snapshotIndex(result);
  const pa = Math.max(1, result.parallelism || 1);
  const po = Math.max(1, result.operator_parallelism || pa);
  const streams = result.streams && result.streams.length ? result.streams : [{ name: 'input' }];
  // Counts of outputs / late rows up to each step (for the summary line).
  const len = win ? win.end - win.from : n;
  const outCum = new Uint32Array(Math.max(0, len));
  const lateCum = new Uint32Array(Math.max(0, len));
  {
    const b = win && win.before;
    let o = b ? b.outputs + b.windows : 0;
    let l = b ? b.late : 0;
    for (let i = base; i < base + len; i++) {
      for (const e of trace[i].events || []) {
        if (e.type === 'output' || e.type === 'window') o++;
        else if (e.type === 'late') l++;
      }
      outCum[i - base] = o;
      lateCum[i - base] = l;
    }
  }

  // ----- controls
  const controls = h('div', 'jl-step-controls');
  const first = h('button', 'jl-step-first', '|◀');
  first.type = 'button';
  first.title = 'first step (Home)';
  first.setAttribute('aria-label', 'first step');
  const prevB = h('button', 'jl-step-prev', '◀');
  prevB.type = 'button';
  prevB.title = 'previous step (←)';
  prevB.setAttribute('aria-label', 'previous step');
  const slider = h('input', 'jl-step-slider');
  slider.type = 'range';
  slider.min = '0';
  slider.max = String(n - 1);
  slider.step = '1';
  slider.setAttribute('aria-label', 'step');
  const nextB = h('button', 'jl-step-next', '▶');
  nextB.type = 'button';
  nextB.title = 'next step (→)';
  nextB.setAttribute('aria-label', 'next step');
  const last = h('button', 'jl-step-last', '▶|');
  last.type = 'button';
  last.title = 'last step (End)';
  last.setAttribute('aria-label', 'last step');
  const count = h('span', 'jl-step-count');
  count.setAttribute('aria-live', 'polite');
  controls.append(first, prevB, slider, nextB, last, count);
  root.appendChild(controls);

  const cause = h('div', 'jl-step-cause');
  const causeMain = h('span', 'jl-cause-text');
  const causeSub = h('span', 'jl-cause-detail');
  cause.append(causeMain, causeSub);
  root.appendChild(cause);
  const summary = h('div', 'jl-step-summary');
  root.appendChild(summary);

  const events = h('ol', 'jl-step-events');
  // It scrolls when long: focusable, so that the keyboard can scroll it too.
  events.tabIndex = 0;
  events.setAttribute('aria-label', 'what happened at this step');
  root.appendChild(events);

  const panels = h('div', 'jl-step-panels');
  const wmPanel = h('section', 'jl-step-watermarks');
  const statePanel = h('section', 'jl-step-state');
  panels.append(wmPanel, statePanel);
  root.appendChild(panels);

  const inst = { result, root, onStep, options, step: -1, handle: null, setStep: null };

  const go = (i, notify) => {
    const target = Math.max(0, Math.min(n - 1, Math.round(Number(i) || 0)));
    if (target === inst.step) return;
    inst.setStep(target, notify);
  };

  inst.setStep = (i, notify) => {
    const s = Math.max(0, Math.min(n - 1, Math.round(Number(i ?? n - 1))));
    const changed = s !== inst.step;
    inst.step = s;
    draw(s);
    if (notify && changed && inst.onStep) inst.onStep(s);
  };

  const draw = (s) => {
    const step = trace[s];
    slider.value = String(s);
    slider.setAttribute('aria-valuetext', `step ${s + 1} of ${n}`);
    count.textContent = `step ${s + 1} / ${n}`;
    prevB.disabled = first.disabled = s === 0;
    nextB.disabled = last.disabled = s === n - 1;
    root.classList.toggle('jl-step-loading', !inWindow(s));
    if (!inWindow(s)) {
      causeMain.textContent = `loading the steps around step ${(s + 1).toLocaleString('en')}…`;
      causeSub.textContent = '';
      summary.textContent = '';
      while (events.firstChild) events.removeChild(events.firstChild);
      while (wmPanel.firstChild) wmPanel.removeChild(wmPanel.firstChild);
      while (statePanel.firstChild) statePanel.removeChild(statePanel.firstChild);
      return;
    }
    causeMain.textContent = causeText(result, step, fmt);
    const detail = causeDetail(result, step, fmt);
    causeSub.textContent = detail ? ` — ${detail}` : '';
    const oc = outCum[s - base];
    summary.textContent = `so far: ${oc} output${oc === 1 ? '' : 's'}, ${lateCum[s - base]} late`;

    // Events.
    while (events.firstChild) events.removeChild(events.firstChild);
    const texts = eventTexts(result, step, fmt);
    const limit = 60;
    texts.slice(0, limit).forEach((t) => events.appendChild(h('li', `jl-ev jl-ev-${t.kind}`, t.text)));
    if (texts.length > limit) events.appendChild(h('li', 'jl-ev jl-ev-more', `… ${texts.length - limit} more events`));
    if (!texts.length) events.appendChild(h('li', 'jl-ev jl-ev-none', 'nothing else happens in this step'));

    drawWatermarkPanel(s, step);
    drawStatePanel(s, step);
  };

  // ----- watermarks as of the step
  const drawWatermarkPanel = (s, step) => {
    while (wmPanel.firstChild) wmPanel.removeChild(wmPanel.firstChild);
    const w = tracker.at(s);
    const changedA = new Set();
    const changedC = new Set();
    const changedO = new Set();
    for (const e of step.events || []) {
      if (e.type === 'assigner_watermark' || e.type === 'assigner_status') changedA.add(`${sideIndex(e.stream)}:${e.assigner}`);
      else if (e.type === 'channel_watermark') changedC.add(`${e.subtask}:${sideIndex(e.stream)}:${e.assigner}`);
      else if (e.type === 'operator_watermark') changedO.add(e.subtask);
    }
    wmPanel.appendChild(h('h4', null, 'Watermarks'));

    // Assigner subtasks.
    const ta = h('table', 'jl-wm-table jl-wm-assigners');
    const cap = h('caption', null, 'assigner subtasks (forwarded watermark)');
    ta.appendChild(cap);
    const head = h('tr');
    head.appendChild(h('th', null, 'stream'));
    for (let a = 0; a < pa; a++) head.appendChild(h('th', null, `subtask ${a}`));
    ta.appendChild(h('thead')).appendChild(head);
    const tb = h('tbody');
    streams.forEach((st, si) => {
      const tr = h('tr');
      tr.appendChild(h('th', null, st.name));
      for (let a = 0; a < pa; a++) {
        const idle = w.idle[si] && w.idle[si][a];
        const td = h('td', changedA.has(`${si}:${a}`) ? 'jl-changed' : null, formatWatermark(w.assigner[si] ? w.assigner[si][a] : '-inf', fmt));
        if (idle) td.appendChild(h('span', 'jl-idle-tag', ' idle'));
        tr.appendChild(td);
      }
      tb.appendChild(tr);
    });
    ta.appendChild(tb);
    wmPanel.appendChild(ta);

    // Operator subtasks: each input channel and the combined watermark.
    const to = h('table', 'jl-wm-table jl-wm-operator');
    to.appendChild(h('caption', null, 'operator subtasks: watermark per input channel (stream/assigner) and their minimum'));
    const hr = h('tr');
    hr.appendChild(h('th', null, 'subtask'));
    streams.forEach((st) => {
      for (let a = 0; a < pa; a++) hr.appendChild(h('th', null, `${st.name}/${a}`));
    });
    hr.appendChild(h('th', 'jl-wm-combined', 'watermark'));
    to.appendChild(h('thead')).appendChild(hr);
    const tbo = h('tbody');
    for (let j = 0; j < po; j++) {
      const tr = h('tr');
      tr.appendChild(h('th', null, String(j)));
      const opw = wmValue(w.operator[j]);
      streams.forEach((st, si) => {
        for (let a = 0; a < pa; a++) {
          const cw = w.channel[j] && w.channel[j][si] ? w.channel[j][si][a] : '-inf';
          const idle = w.idle[si] && w.idle[si][a];
          let cls = changedC.has(`${j}:${si}:${a}`) ? 'jl-changed' : '';
          if (!idle && wmValue(cw) === opw && opw !== Infinity) cls += ' jl-min';
          const td = h('td', cls.trim() || null, formatWatermark(cw, fmt));
          if (idle) {
            td.classList.add('jl-idle');
            td.appendChild(h('span', 'jl-idle-tag', ' idle'));
          }
          tr.appendChild(td);
        }
      });
      const out = w.output[j];
      const td = h('td', `jl-wm-combined${changedO.has(j) ? ' jl-changed' : ''}`, formatWatermark(w.operator[j], fmt));
      if (String(out) !== String(w.operator[j])) td.appendChild(h('span', 'jl-wm-out', ` (forwards ${formatWatermark(out, fmt)})`));
      tr.appendChild(td);
      tbo.appendChild(tr);
    }
    to.appendChild(tbo);
    wmPanel.appendChild(to);
  };

  // ----- state and timers as of the step
  const drawStatePanel = (s, step, known) => {
    while (statePanel.firstChild) statePanel.removeChild(statePanel.firstChild);
    statePanel.appendChild(h('h4', null, 'State and timers'));
    const bufferedNow = new Set();
    const clearedNow = new Map(); // subtask -> [{rows, what}]
    const regNow = new Set();
    const firedNow = new Map(); // subtask -> [event]
    for (const e of step.events || []) {
      if (e.type === 'buffered') bufferedNow.add(`${e.subtask}:${e.row}`);
      else if (e.type === 'cleared') {
        if (!clearedNow.has(e.subtask)) clearedNow.set(e.subtask, []);
        clearedNow.get(e.subtask).push(e);
      } else if (e.type === 'timer_registered') regNow.add(`${e.subtask}:${e.key}:${e.timestamp}:${e.processing ? 1 : 0}:${e.what}`);
      else if (e.type === 'timer_fired') {
        if (!firedNow.has(e.subtask)) firedNow.set(e.subtask, []);
        firedNow.get(e.subtask).push(e);
      }
    }
    const touched = new Set((step.state || []).map((x) => x.subtask));
    // A trace without per-step snapshots (large inputs) asks the engine for the state at
    // this step (`result.stateAt`, the wasm `state_at`).
    let live = known || null;
    if (!live && typeof result.stateAt === 'function' && !snaps.some((l) => l.length)) {
      const got = result.stateAt(s);
      if (Array.isArray(got)) live = got;
      else if (got && typeof got.then === 'function') {
        // A window of the trace: the engine worker runs up to the step (`state_at`).
        statePanel.appendChild(h('div', 'jl-muted jl-state-pending', `computing the state after step ${(s + 1).toLocaleString('en')}…`));
        got.then(
          (v) => {
            if (inst.step === s && Array.isArray(v)) drawStatePanel(s, step, v);
          },
          (e) => {
            if (inst.step === s) statePanel.appendChild(h('div', 'jl-muted', `The state could not be computed: ${e.message || e}`));
          },
        );
        return;
      }
    }
    for (let j = 0; j < po; j++) {
      const box = h('div', `jl-subtask-state${touched.has(j) ? ' jl-touched' : ''}`);
      box.dataset.subtask = String(j);
      const snap = live ? { state: live.find((x) => x.subtask === j) || { entries: [], timers: [] }, step: s } : snapshotAt(result, snaps, j, s);
      const title = h('div', 'jl-subtask-title', `operator subtask ${j}`);
      if (snap && snap.step !== s) title.appendChild(h('span', 'jl-muted', ` — unchanged since step ${snap.step + 1}`));
      box.appendChild(title);
      const entries = snap ? snap.state.entries || [] : [];
      const timers = snap ? snap.state.timers || [] : [];
      if (!entries.length) box.appendChild(h('div', 'jl-muted', 'no buffered state'));
      else {
        const tbl = h('table', 'jl-state-table');
        const hr = h('tr');
        for (const c of ['key', 'side', 'scope', 'rows']) hr.appendChild(h('th', null, c));
        tbl.appendChild(h('thead')).appendChild(hr);
        const tb = h('tbody');
        const maxEntries = 60;
        for (const en of entries.slice(0, maxEntries)) {
          const tr = h('tr');
          const isNew = (en.rows || []).some((id) => bufferedNow.has(`${j}:${id}`));
          if (isNew && snap.step === s) tr.className = 'jl-changed';
          tr.appendChild(h('td', null, keyText(result, en.key)));
          tr.appendChild(h('td', null, en.side ? streamName(result, en.side) : ''));
          tr.appendChild(h('td', null, en.scope || ''));
          const td = h('td', 'jl-state-rows');
          const ids = en.rows || [];
          ids.slice(0, 20).forEach((id, k) => {
            const r = rows[id];
            const span = h('span', bufferedNow.has(`${j}:${id}`) && snap.step === s ? 'jl-row-ref jl-new' : 'jl-row-ref', r ? `line ${r.line} ${rowValuesText(result, r.side, r.values, fmt)}` : `#${id}`);
            span.dataset.row = String(id);
            if (k) td.appendChild(document.createTextNode(', '));
            td.appendChild(span);
          });
          const nRows = en.rows_total ?? ids.length;
          if (nRows > 20) td.appendChild(document.createTextNode(` … ${nRows - 20} more`));
          tr.appendChild(td);
          tb.appendChild(tr);
        }
        tbl.appendChild(tb);
        const nEntries = (snap && snap.state.entries_total) ?? entries.length;
        if (nEntries > maxEntries) box.appendChild(h('div', 'jl-muted', `${nEntries - maxEntries} more entries not shown`));
        box.appendChild(tbl);
      }
      const cleared = clearedNow.get(j) || [];
      for (const c of cleared.slice(0, 12)) {
        const ids = c.rows || [];
        const names = ids.slice(0, 10).map((id) => (rows[id] ? rowName(result, rows[id]) : `#${id}`));
        const nIds = c.rows_total ?? ids.length;
        box.appendChild(h('div', 'jl-cleared', `cleared: ${names.join(', ')}${nIds > 10 ? ` … ${nIds - 10} more` : ''}${c.what ? ` (${c.what})` : ''}`));
      }
      if (cleared.length > 12) box.appendChild(h('div', 'jl-cleared', `… ${cleared.length - 12} more clean-ups`));
      // Timers.
      const tl = h('ul', 'jl-timers');
      for (const t of timers.slice(0, 60)) {
        const isNew = regNow.has(`${j}:${t.key}:${t.timestamp}:${t.processing ? 1 : 0}:${t.what}`) && snap.step === s;
        tl.appendChild(h('li', isNew ? 'jl-timer jl-changed' : 'jl-timer', `${t.processing ? 'processing-time' : 'event-time'} timer ${fmt.long(t.timestamp)} · key ${keyText(result, t.key)}${t.what ? ` · ${t.what}` : ''}`));
      }
      const nTimers = (snap && snap.state.timers_total) ?? timers.length;
      if (nTimers > 60) tl.appendChild(h('li', 'jl-muted', `… ${nTimers - 60} more timers`));
      const fired = firedNow.get(j) || [];
      if (fired.length > 12) tl.appendChild(h('li', 'jl-muted', `${fired.length} timers fired in this step (first 12 below)`));
      for (const e of fired.slice(0, 12)) {
        tl.appendChild(h('li', 'jl-timer jl-fired', `fired: ${e.processing ? 'processing-time' : 'event-time'} timer ${fmt.long(e.timestamp)} · key ${keyText(result, e.key)}${e.what ? ` · ${e.what}` : ''}`));
      }
      if (tl.firstChild) {
        box.appendChild(h('div', 'jl-subtask-sub', 'pending timers'));
        box.appendChild(tl);
      } else box.appendChild(h('div', 'jl-muted', 'no pending timers'));
      statePanel.appendChild(box);
    }
  };

  // ----- input
  const onKey = (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    let t = null;
    switch (ev.key) {
      case 'ArrowRight':
      case 'ArrowDown':
        t = inst.step + 1;
        break;
      case 'ArrowLeft':
      case 'ArrowUp':
        t = inst.step - 1;
        break;
      case 'Home':
        t = 0;
        break;
      case 'End':
        t = n - 1;
        break;
      case 'PageDown':
        t = inst.step + 10;
        break;
      case 'PageUp':
        t = inst.step - 10;
        break;
      default:
        return;
    }
    ev.preventDefault();
    go(t, true);
  };
  const onSlider = () => go(slider.value, true);
  // A row in the state panel selects that row (options.onSelectRow), e.g. in the timeline.
  const onClick = (ev) => {
    const ref = ev.target.closest ? ev.target.closest('.jl-row-ref') : null;
    if (ref && inst.options && inst.options.onSelectRow) inst.options.onSelectRow(Number(ref.dataset.row));
  };
  root.addEventListener('click', onClick);
  root.addEventListener('keydown', onKey);
  slider.addEventListener('input', onSlider);
  first.addEventListener('click', () => go(0, true));
  prevB.addEventListener('click', () => go(inst.step - 1, true));
  nextB.addEventListener('click', () => go(inst.step + 1, true));
  last.addEventListener('click', () => go(n - 1, true));

  inst.handle = {
    get step() {
      return inst.step;
    },
    setStep(i) {
      inst.setStep(i, false);
    },
    destroy() {
      root.removeEventListener('keydown', onKey);
      root.removeEventListener('click', onClick);
      slider.removeEventListener('input', onSlider);
      if (instances.get(container) === inst) instances.delete(container);
      if (root.parentNode === container) container.removeChild(root);
    },
  };
  instances.set(container, inst);
  inst.setStep(stepIndex ?? n - 1, false);
  if (refocus) (refocus === 'jl-stepper' ? root : root.querySelector(`.${refocus}`) || root).focus();
  return inst.handle;
}
