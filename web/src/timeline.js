// The timeline picture of a run: event time across, one lane per stream (and per assigner
// subtask), each input row a mark coloured by what happened to it, the windows or each row's
// matching interval, the watermark lines of the operator subtasks at the selected step and the
// late rows crossed out.
//
// The picture is drawn in layers, one module each under timeline/: the time scale (scale.js,
// d3-scale), the axis, the windows band (and the SQL window TVFs), the versions band (temporal
// and lookup joins), the lanes, the intervals and the selection, the
// watermarks, the marks, the legend and the pointer. renderTimeline builds the drawing context
// they share and stacks them.
//
// Exports: renderTimeline (the picture), renderComparison (side by side runs of the same rows),
// and helpers shared with stepper.js and the page: WatermarkTracker (watermarks as of a step),
// rowFacts / describeRow (what happened to each row), timeFormat, formatWatermark, toMillis,
// durationText, rowValuesText, windowSettings, intervalSettings.
//
// Everything is drawn from the engine's result (crate/src/result.rs) and trace
// (crate/src/trace.rs); the only thing computed here is display bookkeeping (which step a row
// arrived in, the watermark of each subtask as of a step, where tumbling/sliding windows lie).
// All user text goes into the DOM through textContent / SVG text nodes, never as markup.

import { el, uid } from './timeline/svg.js';
import { timeDomain, timeScale } from './timeline/scale.js';
import { layoutWindows, drawWindows } from './timeline/windows.js';
import { layoutVersions, drawVersions } from './timeline/versions.js';
import { layoutLanes, drawLanes } from './timeline/lanes.js';
import { drawAxis } from './timeline/axis.js';
import { drawIntervals, drawSelection } from './timeline/intervals.js';
import { drawWatermarks } from './timeline/watermarks.js';
import { createMarks } from './timeline/marks.js';
import { legend } from './timeline/legend.js';
import { wirePointer } from './timeline/pointer.js';

/** Above this many rows the lanes show a density histogram instead of one mark per row. */
export const DENSITY_THRESHOLD = 5000;

// ---------------------------------------------------------------------------------------------
// Small shared helpers (also used by stepper.js and the page).

/** A watermark of the result JSON (a number, or "-inf" / "+inf") as a JS number. */
export function wmValue(w) {
  if (w === '-inf' || w === null || w === undefined) return -Infinity;
  if (w === '+inf') return Infinity;
  return typeof w === 'number' ? w : Number(w);
}

/** Event times at or above this (March 1973 in epoch ms) are shown as dates. */
const DATE_LIMIT = 1e11;

const mod = (a, b) => ((a % b) + b) % b;
const pad2 = (n) => String(n).padStart(2, '0');
const pad3 = (n) => String(n).padStart(3, '0');

/**
 * A time formatter for a set of timestamps: plain milliseconds for small values, UTC clock
 * times (HH:MM:SS, with the date where it helps) for epoch-millisecond dates.
 */
export function timeFormat(values) {
  let dates = false;
  let any = false;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    any = true;
    if (Math.abs(v) < DATE_LIMIT) {
      dates = false;
      break;
    }
    dates = true;
  }
  if (!any) dates = false;
  const clock = (t, withMs) => {
    const d = new Date(t);
    if (!Number.isFinite(d.getTime())) return String(t);
    const s = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
    return withMs || d.getUTCMilliseconds() !== 0 ? `${s}.${pad3(d.getUTCMilliseconds())}` : s;
  };
  const day = (t) => {
    const d = new Date(t);
    if (!Number.isFinite(d.getTime())) return String(t);
    return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
  };
  // Beyond ±2^53 a value is not exact in JavaScript: it is an infinity minus a small delay
  // (e.g. Long.MAX_VALUE minus a SQL join's output delay).
  const inf = (t) => (t === Infinity ? '+∞' : t === -Infinity ? '−∞' : t >= 2 ** 53 ? '≈+∞' : t <= -(2 ** 53) ? '≈−∞' : null);
  return {
    dates,
    /** A short form for tick labels and marks. */
    short(t) {
      const i = inf(t);
      if (i) return i;
      return dates ? clock(t, false) : String(t);
    },
    /** A full form for tooltips and the stepper: the date and time, or the number. */
    long(t) {
      const i = inf(t);
      if (i) return i;
      return dates ? `${day(t)} ${clock(t, false)}` : String(t);
    },
    day,
    clock,
    /** A tick label for a tick at `t` when ticks are `step` apart. */
    tick(t, step) {
      if (dates) {
        if (step >= 864e5 || mod(t, 864e5) === 0) return day(t);
        return clock(t, step < 1000);
      }
      if (step < 1000 || Math.abs(t) >= 1e9) return String(t);
      if (step < 60000) return `${t / 1000} s`;
      const neg = t < 0 ? '−' : '';
      const a = Math.abs(t);
      const hh = Math.floor(a / 36e5);
      const mm = Math.floor((a % 36e5) / 6e4);
      const ss = Math.floor((a % 6e4) / 1000);
      return `${neg}${hh}:${pad2(mm)}:${pad2(ss)}`;
    },
  };
}

/** A duration in words: "5 ms", "10 s", "10 min", "1 h 30 min". */
export function durationText(ms) {
  if (!Number.isFinite(ms)) return String(ms);
  const a = Math.abs(ms);
  const sign = ms < 0 ? '−' : '';
  if (a === 0) return '0';
  if (a % 1000 !== 0) return `${sign}${a} ms`;
  const parts = [];
  let r = a;
  for (const [u, n] of [['d', 864e5], ['h', 36e5], ['min', 6e4], ['s', 1e3]]) {
    if (r >= n) {
      parts.push(`${Math.floor(r / n)} ${u}`);
      r %= n;
    }
  }
  return sign + parts.join(' ');
}

/** `base ± duration` in words: "R.t + 10 min", "left.ts − 5 ms". */
function plusText(base, ms) {
  if (!ms) return base;
  return `${base} ${ms < 0 ? '−' : '+'} ${durationText(Math.abs(ms))}`;
}

/**
 * The values of a row as text, with its time column shown as a date when `fmt` shows dates.
 * `stream` is the stream's name or side.
 */
export function rowValuesText(result, stream, values, fmt) {
  if (!fmt || !fmt.dates || !values) return valuesText(values);
  const streams = (result && result.streams) || [];
  let si = typeof stream === 'string' ? streams.findIndex((s) => s.name === stream) : -1;
  if (si < 0) si = sideIndex(stream);
  const st = streams[si];
  const ti = st && st.time ? (st.columns || []).findIndex((c) => c.name === st.time) : -1;
  if (ti < 0) return valuesText(values);
  return `(${values.map((v, i) => (i === ti && typeof v === 'number' ? fmt.long(v) : valueText(v))).join(', ')})`;
}

/** A watermark in words through a time format. */
export function formatWatermark(w, fmt) {
  const v = wmValue(w);
  return fmt ? fmt.long(v) : v === Infinity ? '+∞' : v === -Infinity ? '−∞' : String(v);
}

/** A value of a row as text. */
export function valueText(v) {
  if (v === null || v === undefined) return 'null';
  return String(v);
}

/** "(Alice, ./home, 1000)". */
export function valuesText(values) {
  return `(${(values || []).map(valueText).join(', ')})`;
}

/** "emp line 3" for a row of result.rows (or a RowRef). */
export function rowName(result, row) {
  if (!row) return 'null';
  const stream = row.stream !== undefined ? row.stream : streamName(result, row.side);
  return `${stream} line ${row.line}`;
}

/** The name of a stream by its side ("left" / "right" / 0 / 1). */
export function streamName(result, side) {
  const i = sideIndex(side);
  const s = result && result.streams && result.streams[i];
  return s ? s.name : i === 0 ? 'left' : 'right';
}

export function sideIndex(side) {
  return side === 'right' || side === 1 ? 1 : 0;
}

/** The key value of a key id, as text. */
export function keyText(result, keyId) {
  const k = result && result.keys && result.keys[keyId];
  return k ? valueText(k.value) : `#${keyId}`;
}

/**
 * A duration of the scenario JSON in milliseconds: a number, or the string forms the engine
 * reads ("5s", "-10m", "1h 30m", "250ms", "1.5s", "00:01:03"). NaN when unreadable.
 */
export function toMillis(v) {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return NaN;
  let t = v.trim();
  if (!t) return NaN;
  let sign = 1;
  if (t[0] === '-') {
    sign = -1;
    t = t.slice(1).trim();
  } else if (t[0] === '+') t = t.slice(1).trim();
  if (t.includes(':')) {
    const p = t.split(':');
    if (p.length < 2 || p.length > 3) return NaN;
    const [h, m, s] = p.length === 3 ? p : ['0', p[0], p[1]];
    const sec = Number(s);
    if (![h, m].every((x) => /^\d+$/.test(x)) || !/^\d+(\.\d{1,3})?$/.test(s)) return NaN;
    return sign * Math.round(((Number(h) * 60 + Number(m)) * 60 + sec) * 1000);
  }
  const units = { '': 1, ms: 1, s: 1e3, sec: 1e3, secs: 1e3, second: 1e3, seconds: 1e3, m: 6e4, min: 6e4, mins: 6e4, minute: 6e4, minutes: 6e4, h: 36e5, hr: 36e5, hour: 36e5, hours: 36e5, d: 864e5, day: 864e5, days: 864e5 };
  const re = /\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)/y;
  let total = 0;
  let terms = 0;
  let m;
  re.lastIndex = 0;
  while (re.lastIndex < t.length && (m = re.exec(t))) {
    const scale = units[m[2].toLowerCase()];
    if (scale === undefined) return NaN;
    total += Number(m[1]) * scale;
    terms++;
  }
  if (!terms || re.lastIndex < t.length) return NaN;
  return sign * Math.round(total);
}

// ---------------------------------------------------------------------------------------------
// Watermarks as of a step (display bookkeeping over the trace's events).

/**
 * The watermark of every assigner subtask, operator input channel and operator subtask as of
 * the end of each step, derived by scanning the trace's events. Checkpoints every 256 steps
 * keep any `at(step)` cheap.
 */
export class WatermarkTracker {
  constructor(result) {
    this.result = result;
    this.trace = result.trace || [];
    this.streams = (result.streams || []).length || 1;
    this.pa = result.parallelism || 1;
    this.po = result.operator_parallelism || result.parallelism || 1;
    this.checkpoints = new Map();
    this.cursor = null;
  }

  initial() {
    const { streams, pa, po } = this;
    const grid = (n, m, v) => Array.from({ length: n }, () => new Array(m).fill(v));
    const win = this.result.window;
    if (win && win.before) {
      // A window of the trace (an input too large for a full one): the engine reports the
      // watermarks after the step before the window (crate/src/sim/mod.rs, `WindowStart`).
      const b = win.before;
      return {
        step: win.from - 1,
        assigner: b.assigner.map((a) => a.slice()),
        idle: b.idle.map((a) => a.slice()),
        channel: b.channel.map((c) => c.map((a) => a.slice())),
        operator: b.operator.slice(),
        output: b.output.slice(),
        fromRow: grid(streams, pa, null),
      };
    }
    return {
      step: -1,
      assigner: grid(streams, pa, '-inf'),
      idle: grid(streams, pa, false),
      /** channel[subtask][stream][assigner] */
      channel: Array.from({ length: po }, () => grid(streams, pa, '-inf')),
      operator: new Array(po).fill('-inf'),
      output: new Array(po).fill('-inf'),
      /** The row whose timestamp set each assigner's watermark. */
      fromRow: grid(streams, pa, null),
    };
  }

  static clone(s) {
    return {
      step: s.step,
      assigner: s.assigner.map((a) => a.slice()),
      idle: s.idle.map((a) => a.slice()),
      channel: s.channel.map((c) => c.map((a) => a.slice())),
      operator: s.operator.slice(),
      output: s.output.slice(),
      fromRow: s.fromRow.map((a) => a.slice()),
    };
  }

  static apply(s, step) {
    for (const e of step.events || []) {
      switch (e.type) {
        case 'assigner_watermark': {
          const si = sideIndex(e.stream);
          if (s.assigner[si]) {
            s.assigner[si][e.assigner] = e.watermark;
            s.fromRow[si][e.assigner] = e.from_row ?? null;
          }
          break;
        }
        case 'assigner_status': {
          const si = sideIndex(e.stream);
          if (s.idle[si]) s.idle[si][e.assigner] = !!e.idle;
          break;
        }
        case 'channel_watermark': {
          const c = s.channel[e.subtask];
          const si = sideIndex(e.stream);
          if (c && c[si]) c[si][e.assigner] = e.watermark;
          break;
        }
        case 'operator_watermark':
          if (e.subtask < s.operator.length) {
            s.operator[e.subtask] = e.watermark;
            s.output[e.subtask] = e.output ?? e.watermark;
          }
          break;
        default:
          break;
      }
    }
    s.step = step.index ?? s.step + 1;
  }

  /** The watermarks after step `index` (−1: before any step). Returns a shared object. */
  at(index) {
    const last = this.trace.length - 1;
    const target = Math.max(-1, Math.min(index, last));
    let s = this.cursor;
    if (!s || s.step > target) {
      // Restart from the nearest checkpoint at or before the target.
      const cp = Math.floor((target + 1) / 256) * 256 - 1;
      let start = null;
      for (let c = cp; c >= 255; c -= 256) {
        if (this.checkpoints.has(c)) {
          start = this.checkpoints.get(c);
          break;
        }
      }
      s = start ? WatermarkTracker.clone(start) : this.initial();
    }
    for (let i = s.step + 1; i <= target; i++) {
      WatermarkTracker.apply(s, this.trace[i]);
      s.step = i;
      if ((i + 1) % 256 === 0 && !this.checkpoints.has(i)) this.checkpoints.set(i, WatermarkTracker.clone(s));
    }
    this.cursor = s;
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// What happened to each row.

/**
 * Per input row: the step it arrived in, the outputs it joined into, its late entry, windows,
 * side outputs, and its final outcome with the step at which that outcome became known.
 * Outcomes: 'joined', 'padded' (only in null-padded outer-join output), 'late', 'none' (no
 * partner), 'window' (counted in a window aggregation result), 'main' / 'side' (split), 'dropped'
 * (a split row matching no route).
 */
export function rowFacts(result) {
  const rows = result.rows || [];
  const n = rows.length;
  const trace = result.trace || [];
  const lastStep = trace.length ? trace.length - 1 : 0;
  const facts = new Array(n);
  for (let i = 0; i < n; i++) {
    facts[i] = { arrival: -1, outputs: [], padded: [], late: -1, windows: [], results: [], sides: [], buffered: -1, cleared: -1, outcome: 'none', decided: lastStep };
  }
  const byLine = new Map(); // "side:line" -> row id
  for (const r of rows) byLine.set(`${sideIndex(r.side)}:${r.line}`, r.id);
  const nameToSide = new Map((result.streams || []).map((s, i) => [s.name, i]));
  const idOf = (ref) => {
    if (!ref) return -1;
    if (typeof ref.id === 'number' && ref.id < n) return ref.id;
    const id = byLine.get(`${nameToSide.get(ref.stream) ?? 0}:${ref.line}`);
    return id === undefined ? -1 : id;
  };
  const twoInputs = (result.streams || []).length > 1;
  (result.outputs || []).forEach((o, k) => {
    const l = idOf(o.left);
    const r = idOf(o.right);
    if (l >= 0 && r >= 0) {
      facts[l].outputs.push(k);
      facts[r].outputs.push(k);
    } else if (l >= 0 || r >= 0) {
      const id = l >= 0 ? l : r;
      if (twoInputs) facts[id].padded.push(k);
      else facts[id].outputs.push(k);
    }
  });
  // Computed rows (a SQL window aggregation's results) name their input rows as "stream:line".
  (result.outputs || []).forEach((o, k) => {
    if (o.left || o.right || !o.from) return;
    for (const ref of o.from) {
      const at = ref.lastIndexOf(':');
      const id = idOf({ stream: ref.slice(0, at), line: Number(ref.slice(at + 1)) });
      if (id >= 0) facts[id].results.push(k);
    }
  });
  (result.late || []).forEach((e, k) => {
    const id = idOf(e.row);
    if (id >= 0 && facts[id].late < 0) facts[id].late = k;
  });
  (result.windows || []).forEach((w, k) => {
    for (const line of w.lines || []) {
      const id = byLine.get(`0:${line}`);
      if (id !== undefined) facts[id].windows.push(k);
    }
  });
  for (const [tag, list] of Object.entries(result.side_outputs || {})) {
    list.forEach((s, k) => {
      const id = idOf(s.row);
      if (id >= 0) facts[id].sides.push({ tag, index: k });
    });
  }
  trace.forEach((step, si) => {
    const c = step.cause;
    if (c && c.type === 'row' && c.row < n) facts[c.row].arrival = si;
    for (const e of step.events || []) {
      if (e.type === 'buffered' && e.row < n && facts[e.row].buffered < 0) facts[e.row].buffered = si;
      else if (e.type === 'cleared') for (const id of e.rows || []) if (id < n) facts[id].cleared = si;
    }
  });
  const outs = result.outputs || [];
  const op = result.operator;
  for (let i = 0; i < n; i++) {
    const f = facts[i];
    const minStep = (list, get) => list.reduce((m, x) => Math.min(m, get(x)), Infinity);
    const isLate = f.late >= 0 && !(result.late[f.late].side_output && f.outputs.length);
    if (f.late >= 0 && isLate) {
      f.outcome = 'late';
      f.decided = result.late[f.late].step;
    } else if (f.outputs.length && (op !== 'split')) {
      f.outcome = 'joined';
      f.decided = minStep(f.outputs, (k) => outs[k].step);
    } else if (f.outputs.length) {
      f.outcome = 'main';
      f.decided = minStep(f.outputs, (k) => outs[k].step);
    } else if (f.padded.length) {
      f.outcome = 'padded';
      f.decided = minStep(f.padded, (k) => outs[k].step);
    } else if (f.results.length) {
      f.outcome = 'window';
      f.decided = minStep(f.results, (k) => outs[k].step);
    } else if (f.windows.length) {
      f.outcome = 'window';
      f.decided = minStep(f.windows, (k) => result.windows[k].step);
    } else if (f.sides.length) {
      f.outcome = 'side';
      f.decided = minStep(f.sides, (s) => result.side_outputs[s.tag][s.index].step);
    } else {
      f.outcome = op === 'split' ? 'dropped' : 'none';
      f.decided = op === 'split' ? Math.max(f.arrival, 0) : f.cleared >= 0 ? f.cleared : lastStep;
    }
    if (!Number.isFinite(f.decided)) f.decided = lastStep;
  }
  // The engine's verdicts (crate/src/verdict.rs) decide the outcome where present.
  const VERDICT = { joined: 'joined', padded: 'padded', late: 'late', aggregated: 'window', main: 'main', side_output: 'side', unmatched: op === 'split' ? 'dropped' : 'none', buffered: 'buffered' };
  for (const v of result.verdicts || []) {
    const f = facts[v.row];
    if (!f) continue;
    f.verdict = v.message;
    const o = VERDICT[v.outcome];
    if (o && o !== f.outcome) {
      f.outcome = o;
      if (o === 'buffered' || o === 'none' || o === 'dropped') f.decided = o === 'dropped' ? Math.max(f.arrival, 0) : lastStep;
    }
  }
  return facts;
}

export const OUTCOME_LABEL = {
  joined: 'joined',
  padded: 'null-padded (no partner)',
  none: 'no partner',
  late: 'late',
  window: 'counted in a window',
  main: 'main output',
  side: 'side output',
  dropped: 'dropped (no route)',
  pending: 'waiting (in state)',
  buffered: 'still in state at the end',
  future: 'not arrived yet',
};

export const STATUS_INDEX = Object.fromEntries(Object.keys(OUTCOME_LABEL).map((k, i) => [k, i]));

/** The status of a row as of a step: its outcome if known by then, else pending / future. */
export function statusAt(f, step, lastStep, traced) {
  if (!traced || step >= lastStep) return f.outcome;
  if (f.arrival > step) return 'future';
  if (f.decided <= step) return f.outcome;
  return 'pending';
}

/** What happened to a row, as lines of text (for tooltips and the page's verdicts). */
export function describeRow(result, rowId, facts, fmt) {
  const rows = result.rows || [];
  const r = rows[rowId];
  if (!r) return [];
  const f = (facts || rowFacts(result))[rowId];
  fmt = fmt || timeFormat(rows.map((x) => x.timestamp));
  const lines = [];
  lines.push(`${rowName(result, r)}${r.kind && r.kind !== '+I' ? ` ${r.kind}` : ''} ${rowValuesText(result, r.side, r.values, fmt)}`);
  const parts = [];
  if (r.timestamp !== null && r.timestamp !== undefined) parts.push(`ts ${fmt.long(r.timestamp)}`);
  if (result.keys && result.operator !== 'split') {
    const k = result.keys[r.key];
    if (k) parts.push(`key ${valueText(k.value)} → key group ${k.key_group} → subtask ${k.subtask}`);
  } else parts.push(`→ subtask ${r.subtask}`);
  if ((result.parallelism || 1) > 1) parts.push(`via assigner subtask ${r.assigner}`);
  lines.push(parts.join(' · '));
  const outs = result.outputs || [];
  const partnerText = (o) => {
    const other = o.left && o.left.id === rowId ? o.right : o.left;
    return other ? `${rowName(result, other)} ${rowValuesText(result, other.stream, other.values, fmt)}` : 'null';
  };
  const max = 8;
  if (f.outputs.length) {
    const verb = result.operator === 'split' ? 'main output' : 'joined with';
    f.outputs.slice(0, max).forEach((k) => {
      const o = outs[k];
      const kind = o.kind && o.kind !== '+I' ? `${o.kind} ` : '';
      const win = o.window ? ` in window [${fmt.short(o.window[0])}, ${fmt.short(o.window[1])})` : '';
      lines.push(result.operator === 'split' ? `${verb} #${k + 1}` : `${kind}${verb} ${partnerText(o)}${win} → output #${k + 1}, ts ${fmt.long(o.timestamp)}`);
    });
    if (f.outputs.length > max) lines.push(`… and ${f.outputs.length - max} more outputs`);
  }
  if (f.padded.length) {
    f.padded.slice(0, max).forEach((k) => {
      const o = outs[k];
      lines.push(`${o.kind && o.kind !== '+I' ? `${o.kind} ` : ''}emitted null-padded → output #${k + 1}`);
    });
  }
  for (const k of f.results.slice(0, max)) {
    const o = outs[k];
    lines.push(`counted in output #${k + 1}${o.window ? ` of window [${fmt.short(o.window[0])}, ${fmt.short(o.window[1])})` : ''}: ${valuesText(o.values)}`);
  }
  if (f.results.length > max) lines.push(`… and ${f.results.length - max} more outputs`);
  if (f.verdict && f.outcome !== 'joined' && f.outcome !== 'window') lines.push(f.verdict);
  else if (f.late >= 0) lines.push(`late: ${result.late[f.late].message}`);
  for (const k of f.windows.slice(0, max)) {
    const w = result.windows[k];
    lines.push(`in window [${fmt.short(w.start)}, ${fmt.short(w.end)}) of key ${valueText(w.key)}: count ${w.count}${w.sum !== undefined ? `, sum ${w.sum}` : ''}${w.firing > 1 ? ` (firing ${w.firing})` : ''}`);
  }
  if (!f.verdict) {
    for (const s of f.sides.slice(0, max)) lines.push(`sent to side output "${s.tag}"`);
    if (f.outcome === 'none') lines.push(result.operator === 'window_aggregate' ? 'not in any window result' : 'joined with nothing');
    if (f.outcome === 'dropped') lines.push('matched no route: dropped');
  } else if (f.outcome === 'window' && f.windows.length === 0) lines.push(f.verdict);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Windows and intervals from the job settings.

function jobOf(scenario) {
  return (scenario && scenario.job) || {};
}

/** Flink SQL's name of each window TVF kind of the scenario (crate/src/scenario.rs TvfKind). */
export const TVF_NAMES = { tumble: 'TUMBLE', hop: 'HOP', cumulate: 'CUMULATE', session: 'SESSION' };

/**
 * The window assigner settings in ms, or null when the operator has no windows.
 *
 * `kind` is where the windows lie: 'tumbling' and 'sliding' on a grid of `slide`, 'cumulate'
 * (Flink's CumulativeWindowAssigner / SliceAssigners.CumulativeSliceAssigner: windows
 * [start, start + k·step) for k = 1 … size/step, `start` on the grid of `size`), 'session'
 * (only the windows the result reports). `caption` names the windows as the job does.
 */
export function windowSettings(scenario, result) {
  const op = result.operator || jobOf(scenario).operator;
  if (op === 'window_tvf_aggregate' || op === 'window_tvf_join') {
    // The SQL window TVFs (TUMBLE / HOP / CUMULATE with their optional offset, SESSION):
    // the same window starts as Flink's SliceAssigners (TimeWindow.getWindowStartWithOffset).
    const t = jobOf(scenario).tvf || {};
    const tvf = t.kind || 'tumble';
    const size = t.size === undefined ? 10000 : toMillis(t.size);
    const offset = t.offset === undefined ? 0 : toMillis(t.offset);
    const gap = t.gap === undefined ? NaN : toMillis(t.gap);
    const caption = `${TVF_NAMES[tvf] || tvf} windows`;
    if (tvf === 'hop') {
      const slide = t.slide === undefined ? NaN : toMillis(t.slide);
      return { kind: 'sliding', size, slide, offset, gap, caption, tvf };
    }
    if (tvf === 'cumulate') {
      const step = t.step === undefined ? NaN : toMillis(t.step);
      return { kind: 'cumulate', size, slide: size, step, offset, gap, caption, tvf };
    }
    if (tvf === 'session') return { kind: 'session', size: NaN, slide: NaN, offset: 0, gap, caption, tvf };
    return { kind: 'tumbling', size, slide: size, offset, gap, caption, tvf };
  }
  if (op !== 'window_join' && op !== 'window_aggregate') return null;
  const w = jobOf(scenario).window || {};
  const kind = w.kind || 'tumbling';
  const size = w.size === undefined ? 10000 : toMillis(w.size);
  const slide = w.slide === undefined ? size : toMillis(w.slide);
  const offset = w.offset === undefined ? 0 : toMillis(w.offset);
  const gap = w.gap === undefined ? NaN : toMillis(w.gap);
  return { kind, size, slide: kind === 'sliding' ? slide : size, offset, gap, caption: `${kind} windows` };
}

/**
 * The range of partner timestamps of each side's rows, as offsets from the row's timestamp:
 * `[lo, hi, loExclusive, hiExclusive]` per side (0 = left, 1 = right), or null.
 * DataStream: left.ts + lower <= right.ts <= left.ts + upper.
 * SQL: L.t BETWEEN R.t + lower AND R.t + upper, the opposite orientation.
 */
export function intervalSettings(scenario, result) {
  const job = jobOf(scenario);
  const op = result.operator || job.operator;
  if (op === 'interval_join') {
    const i = job.interval || {};
    const lo = toMillis(i.lower ?? 0);
    const hi = toMillis(i.upper ?? 0);
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) return null;
    const le = !!i.lower_exclusive;
    const ue = !!i.upper_exclusive;
    return { sql: false, text: `${plusText('left.ts', lo)} ${le ? '<' : '≤'} right.ts ${ue ? '<' : '≤'} ${plusText('left.ts', hi)}`, sides: [[lo, hi, le, ue], [-hi, -lo, ue, le]] };
  }
  if (op === 'sql_interval_join') {
    const s = job.sql || {};
    if (s.time === 'processing') return null;
    const lo = toMillis(s.lower ?? 0);
    const hi = toMillis(s.upper ?? 0);
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) return null;
    const ls = !!s.lower_strict;
    const us = !!s.upper_strict;
    return { sql: true, text: ls || us ? `L.t ${ls ? '>' : '>='} ${plusText('R.t', lo)} AND L.t ${us ? '<' : '<='} ${plusText('R.t', hi)}` : `L.t BETWEEN ${plusText('R.t', lo)} AND ${plusText('R.t', hi)}`, sides: [[-hi, -lo, us, ls], [lo, hi, ls, us]] };
  }
  return null;
}

/**
 * Draws the timeline of `result` (a RunResult with rows, keys and trace) into `container`.
 *
 * options:
 * - `step`: the trace step whose watermarks and state of rows are shown (default: the last);
 * - `selectedRow`: a row id to highlight, with its interval and lines to its partners;
 * - `onSelectRow(rowId)`: called when a mark is clicked;
 * - `width`: the picture's width in px (default: the container's width, at least 480);
 * - `densityThreshold`: above this many rows, lanes show a density histogram (default 5000);
 * - `showIntervals` (default true), `showWindows` (default true).
 *
 * Returns a handle `{ svg, setStep(i), setSelectedRow(id), destroy() }`; `setStep` only redraws
 * the watermark layer and the rows' step status, so stepping stays cheap.
 */
export function renderTimeline(container, scenario, result, options = {}) {
  const prev = container.__jlTimeline;
  if (prev) prev.destroy();
  container.classList.add('jl-timeline-host');
  while (container.firstChild) container.removeChild(container.firstChild);

  // The drawing context every layer reads (and the layout layers extend).
  const rows = result.rows || [];
  const trace = result.trace || [];
  const traced = trace.length > 0;
  const showIntervals = options.showIntervals !== false;
  const showWindows = options.showWindows !== false;
  // Time of each row: its event time, else its arrival (processing) time. A lookup join
  // (LookupJoinRunner) works in processing time only: each probe row sees the dimension table
  // as it stands at the row's arrival, so every row is drawn at its arrival, and the axis is
  // arrival time.
  const processingAxis = result.operator === 'lookup_join';
  const eventTimed = !processingAxis && rows.some((r) => r.timestamp !== null && r.timestamp !== undefined);
  const times = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) times[i] = !processingAxis && rows[i].timestamp !== null && rows[i].timestamp !== undefined ? rows[i].timestamp : rows[i].arrival;
  const pa = Math.max(1, result.parallelism || 1);
  const c = {
    container,
    result,
    rows,
    trace,
    traced,
    lastStep: traced ? trace.length - 1 : 0,
    streams: result.streams && result.streams.length ? result.streams : [{ name: 'input' }],
    pa,
    po: Math.max(1, result.operator_parallelism || pa),
    facts: rowFacts(result),
    density: rows.length > (options.densityThreshold ?? DENSITY_THRESHOLD),
    eventTimed,
    processingAxis,
    times,
    ws: showWindows && eventTimed ? windowSettings(scenario, result) : null,
    iv: showIntervals && eventTimed ? intervalSettings(scenario, result) : null,
    firedWindows: collectWindows(result),
    bandTop: undefined,
    selected: options.selectedRow ?? -1,
    curRow: -1,
    currentStep: 0,
  };
  c.nStreams = c.streams.length;

  // ----- scale: the domain, x, the label format
  const { d0, d1, firstT, padT } = timeDomain(c);
  Object.assign(c, { d0, d1, firstT });
  c.fmt = timeFormat([d0 + padT, d1 - padT, ...(rows.length ? [times[0]] : [])]);
  c.width = Math.max(480, Math.floor(options.width || container.clientWidth || 900));
  c.left = 132;
  c.right = c.width - 18;
  c.plotW = c.right - c.left;
  Object.assign(c, timeScale(d0, d1, c.left, c.right));

  // ----- the SVG and its layers, bottom to top
  c.axisTop = 20;
  c.axisH = 26;
  c.y = c.axisTop + c.axisH;
  const svg = (c.svg = el('svg', { class: 'jl-timeline', width: c.width, role: 'img', 'font-family': 'inherit' }));
  el('title', null, svg).textContent = `Timeline of ${rows.length} rows: ${result.outputs ? result.outputs.length : 0} outputs, ${result.late ? result.late.length : 0} late`;
  const clip = el('clipPath', { id: uid('jlclip') }, el('defs', null, svg));
  const clipRect = el('rect', { x: c.left - 8, y: 0, width: c.plotW + 16, height: 10 }, clip);
  c.gBack = el('g', { class: 'jl-back' }, svg);
  c.gWin = el('g', { class: 'jl-windows' }, svg);
  c.gLanes = el('g', { class: 'jl-lanes' }, svg);
  c.gIv = el('g', { class: 'jl-intervals', 'clip-path': `url(#${clip.id})` }, svg);
  c.gWm = el('g', { class: 'jl-wm-layer' }, svg);
  c.gSel = el('g', { class: 'jl-selection' }, svg);
  c.gMarks = el('g', { class: 'jl-marks' }, svg);
  c.gAxis = el('g', { class: 'jl-axis' }, svg);

  layoutWindows(c);
  drawWindows(c);
  layoutVersions(c);
  drawVersions(c);
  layoutLanes(c);
  drawLanes(c);
  const height = c.lanesBottom + 36;
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${c.width} ${height}`);
  clipRect.setAttribute('height', height);
  drawAxis(c);
  drawIntervals(c);
  const marks = createMarks(c);
  c.tracker = new WatermarkTracker(result);
  container.appendChild(svg);
  container.appendChild(legend(c));

  c.onHoverRow = options.onHoverRow || null;
  const removePointer = wirePointer(c, marks, (id) => {
    handle.setSelectedRow(id === c.selected ? -1 : id);
    if (options.onSelectRow) options.onSelectRow(id);
  });

  const handle = {
    svg,
    /** The event-time range drawn, [from, to] in ms. */
    domain: [d0, d1],
    get step() {
      return c.currentStep;
    },
    setStep(step) {
      c.currentStep = traced ? Math.max(0, Math.min(c.lastStep, step ?? c.lastStep)) : 0;
      drawWatermarks(c, c.currentStep);
      marks.applyStatus(c.currentStep);
    },
    /** Rings row `id` as hovered elsewhere (-1: none). */
    setHoverRow(id) {
      c.hovered = id ?? -1;
      marks.drawRings();
    },
    setSelectedRow(id) {
      c.selected = id ?? -1;
      drawSelection(c);
      marks.drawRings();
    },
    /** The row under a point in the SVG's own coordinates, or -1. */
    rowAt: marks.rowAt,
    /** The trace step at which row `id` arrived (-1 without a trace). */
    rowStep(id) {
      return c.facts[id] ? c.facts[id].arrival : -1;
    },
    /** Where row `id`'s mark is, in the SVG's own coordinates (null in density mode). */
    markPosition(id) {
      return c.density || !rows[id] ? null : { x: c.rowX[id], y: c.rowY[id] };
    },
    destroy() {
      removePointer();
      if (container.__jlTimeline === handle) container.__jlTimeline = null;
    },
  };
  container.__jlTimeline = handle;
  drawSelection(c);
  handle.setStep(options.step ?? c.lastStep);
  return handle;
}

/**
 * The windows that produced output, merged over keys: {start, end, label, keys, step, …}.
 * A SQL window aggregation's outputs are computed rows (`values`, `from`), not input rows: they
 * are kept as `results`; a window join's SEMI / ANTI and null-padded outputs have one side.
 */
function collectWindows(result) {
  const map = new Map();
  const get = (start, end) => {
    const k = `${start},${end}`;
    let w = map.get(k);
    if (!w) {
      w = { start, end, pairs: 0, single: 0, results: [], keys: new Map(), firings: 0, agg: false, step: Infinity };
      map.set(k, w);
    }
    return w;
  };
  const rows = result.rows || [];
  for (const o of result.outputs || []) {
    if (!o.window) continue;
    const w = get(o.window[0], o.window[1]);
    w.step = Math.min(w.step, o.step);
    if (!o.left && !o.right) {
      w.results.push(o);
      continue;
    }
    if (o.left && o.right) w.pairs++;
    else w.single++;
    const ref = o.left || o.right;
    const row = ref && rows[ref.id];
    const key = row && result.keys ? valueText(result.keys[row.key] && result.keys[row.key].value) : '?';
    w.keys.set(key, (w.keys.get(key) || 0) + 1);
  }
  for (const r of result.windows || []) {
    const w = get(r.start, r.end);
    w.agg = true;
    w.step = Math.min(w.step, r.step);
    w.firings++;
    const key = valueText(r.key);
    const list = w.keys.get(key) || [];
    list.push(r);
    w.keys.set(key, list);
  }
  const plural = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;
  for (const w of map.values()) {
    if (w.agg) {
      const total = [...w.keys.values()].reduce((s, l) => s + l[l.length - 1].count, 0);
      w.label = w.keys.size === 1 ? `${[...w.keys.keys()][0]}: ${total}` : `${w.keys.size} keys · ${total} rows`;
    } else if (w.results.length) w.label = plural(w.results.length, 'result');
    else if (w.single) w.label = w.pairs ? `${plural(w.pairs, 'pair')} + ${w.single}` : plural(w.single, 'row');
    else w.label = plural(w.pairs, 'pair');
  }
  return [...map.values()];
}

export function windowTip(w, fmt, result) {
  const lines = [`window [${fmt.long(w.start)}, ${fmt.long(w.end)})`];
  const f = w.fired;
  if (!f) {
    lines.push('no output');
    return lines;
  }
  if (Number.isFinite(f.step)) lines.push(`fires at step ${f.step + 1}`);
  if (f.agg) {
    for (const [key, list] of f.keys) {
      for (const r of list) {
        lines.push(`key ${key}: count ${r.count}${r.sum !== undefined ? `, sum ${r.sum}` : ''}${r.firing > 1 ? ` (firing ${r.firing}, late)` : ''} — lines ${r.lines.join(', ')}`);
      }
    }
  } else if (f.results.length) {
    const cols = (result && result.columns) || [];
    if (cols.length) lines.push(cols.join(', '));
    for (const o of f.results.slice(0, 12)) lines.push(`${valuesText(o.values)}${o.from ? ` ← ${o.from.join(', ')}` : ''}`);
    if (f.results.length > 12) lines.push(`… and ${f.results.length - 12} more`);
  } else {
    lines.push(`${f.pairs} joined pair${f.pairs === 1 ? '' : 's'}`);
    if (f.single) lines.push(`${f.single} output row${f.single === 1 ? '' : 's'} with one side (null-padded, SEMI or ANTI)`);
    for (const [key, n] of f.keys) lines.push(`key ${key}: ${n}`);
  }
  return lines;
}

export { renderComparison } from './timeline/comparison.js';
