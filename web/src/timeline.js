// The timeline picture of a run: event time across, one lane per stream (and per assigner
// subtask), each input row a mark coloured by what happened to it, the windows or each row's
// matching interval, the watermark lines of the operator subtasks at the selected step and the
// late rows crossed out.
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

const SVG_NS = 'http://www.w3.org/2000/svg';

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
      // watermarks after the step before the window (crate/src/sim.rs, `WindowStart`).
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
    facts[i] = { arrival: -1, outputs: [], padded: [], late: -1, windows: [], sides: [], buffered: -1, cleared: -1, outcome: 'none', decided: lastStep };
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

const OUTCOME_LABEL = {
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

const STATUS_INDEX = Object.fromEntries(Object.keys(OUTCOME_LABEL).map((k, i) => [k, i]));

/** The status of a row as of a step: its outcome if known by then, else pending / future. */
function statusAt(f, step, lastStep, traced) {
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
// Time axis.

const NICE_DATE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5, 1728e5, 6048e5];

function niceStep(span, maxTicks, dates) {
  const raw = span / Math.max(1, maxTicks);
  if (dates) {
    for (const s of NICE_DATE_STEPS) if (s >= raw) return s;
    return Math.ceil(raw / 864e5) * 864e5;
  }
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return Math.max(1, m * p);
  return Math.max(1, 10 * p);
}

// ---------------------------------------------------------------------------------------------
// Windows and intervals from the job settings.

function jobOf(scenario) {
  return (scenario && scenario.job) || {};
}

/** The window assigner settings in ms, or null when the operator has no windows. */
export function windowSettings(scenario, result) {
  const op = result.operator || jobOf(scenario).operator;
  if (op !== 'window_join' && op !== 'window_aggregate') return null;
  const w = jobOf(scenario).window || {};
  const kind = w.kind || 'tumbling';
  const size = w.size === undefined ? 10000 : toMillis(w.size);
  const slide = w.slide === undefined ? size : toMillis(w.slide);
  const offset = w.offset === undefined ? 0 : toMillis(w.offset);
  const gap = w.gap === undefined ? NaN : toMillis(w.gap);
  return { kind, size, slide: kind === 'sliding' ? slide : size, offset, gap };
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

// ---------------------------------------------------------------------------------------------
// SVG building.

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG_NS, name);
  if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function text(parent, x, y, str, cls, anchor) {
  const t = el('text', { x: fx(x), y: fx(y) }, parent);
  if (cls) t.setAttribute('class', cls);
  if (anchor) t.setAttribute('text-anchor', anchor);
  t.textContent = str;
  return t;
}

const fx = (v) => String(Math.round(v * 10) / 10);

const STREAM_CLASS = ['jl-s0', 'jl-s1'];

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

  const rows = result.rows || [];
  const trace = result.trace || [];
  const traced = trace.length > 0;
  const lastStep = traced ? trace.length - 1 : 0;
  const streams = result.streams && result.streams.length ? result.streams : [{ name: 'input' }];
  const nStreams = streams.length;
  const pa = Math.max(1, result.parallelism || 1);
  const po = Math.max(1, result.operator_parallelism || pa);
  const facts = rowFacts(result);
  const density = rows.length > (options.densityThreshold ?? DENSITY_THRESHOLD);
  const showIntervals = options.showIntervals !== false;
  const showWindows = options.showWindows !== false;

  // Time of each row: its event time, else its arrival (processing) time.
  const eventTimed = rows.some((r) => r.timestamp !== null && r.timestamp !== undefined);
  const tOf = (r) => (r.timestamp !== null && r.timestamp !== undefined ? r.timestamp : r.arrival);
  const times = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) times[i] = tOf(rows[i]);

  // ----- domain
  let d0 = Infinity;
  let d1 = -Infinity;
  for (let i = 0; i < times.length; i++) {
    const t = times[i];
    if (Number.isFinite(t)) {
      if (t < d0) d0 = t;
      if (t > d1) d1 = t;
    }
  }
  const ws = showWindows && eventTimed ? windowSettings(scenario, result) : null;
  const iv = showIntervals && eventTimed ? intervalSettings(scenario, result) : null;
  const firedWindows = collectWindows(result);
  if (Number.isFinite(d0) && ws && ws.kind !== 'session' && ws.size > 0 && ws.slide > 0) {
    // Extend to the whole windows of the first and last rows.
    const firstStart = d0 - mod(d0 - ws.offset, ws.slide);
    const lastEnd = d1 - mod(d1 - ws.offset, ws.slide) + ws.slide;
    if ((lastEnd - firstStart) / ws.slide < 2000) {
      d0 = firstStart;
      d1 = Math.max(d1, lastEnd);
    }
  }
  for (const w of firedWindows) {
    d0 = Math.min(d0, w.start);
    d1 = Math.max(d1, w.end);
  }
  if (iv && Number.isFinite(d0)) {
    const lo = Math.min(iv.sides[0][0], iv.sides[1][0], 0);
    const hi = Math.max(iv.sides[0][1], iv.sides[1][1], 0);
    const span = Math.max(10, d1 - d0);
    // Widen by the interval, but never let a huge bound squash the rows to a dot.
    d0 += Math.max(lo, -4 * span);
    d1 += Math.min(hi, 4 * span);
  }
  for (const w of [...(result.watermarks || []).map((x) => x.watermark), ...(result.assigner_watermarks || []).flat()]) {
    const v = wmValue(w);
    if (Number.isFinite(v) && Number.isFinite(d0) && v > d0 - (d1 - d0) && v < d1 + (d1 - d0)) {
      d0 = Math.min(d0, v);
      d1 = Math.max(d1, v);
    }
  }
  if (!Number.isFinite(d0)) {
    d0 = 0;
    d1 = 10;
  }
  if (d1 - d0 < 1) {
    d0 -= 5;
    d1 += 5;
  }
  let firstT = d0;
  for (let i = 0; i < times.length; i++) if (Number.isFinite(times[i]) && (firstT === d0 || times[i] < firstT)) firstT = times[i];
  const padT = (d1 - d0) * 0.03;
  d0 -= padT;
  d1 += padT;
  const fmt = timeFormat([d0 + padT, d1 - padT, ...(rows.length ? [times[0]] : [])]);

  // ----- geometry
  const width = Math.max(480, Math.floor(options.width || container.clientWidth || 900));
  const labelW = 132;
  const left = labelW;
  const right = width - 18;
  const plotW = right - left;
  const x = (t) => left + ((t - d0) / (d1 - d0)) * plotW;
  const xc = (t) => (t === Infinity ? right : t === -Infinity ? left : Math.max(left - 6, Math.min(right + 6, x(t))));

  const axisTop = 20;
  const axisH = 26;
  let y = axisTop + axisH;

  const svg = el('svg', { class: 'jl-timeline', width, role: 'img', 'font-family': 'inherit' });
  const title = el('title', null, svg);
  title.textContent = `Timeline of ${rows.length} rows: ${result.outputs ? result.outputs.length : 0} outputs, ${result.late ? result.late.length : 0} late`;
  const defs = el('defs', null, svg);
  const clip = el('clipPath', { id: uid('jlclip') }, defs);
  const clipRect = el('rect', { x: left - 8, y: 0, width: plotW + 16, height: 10 }, clip);

  const gBack = el('g', { class: 'jl-back' }, svg);
  const gWin = el('g', { class: 'jl-windows' }, svg);
  const gLanes = el('g', { class: 'jl-lanes' }, svg);
  const gIv = el('g', { class: 'jl-intervals', 'clip-path': `url(#${clip.id})` }, svg);
  const gWm = el('g', { class: 'jl-wm-layer' }, svg);
  const gSel = el('g', { class: 'jl-selection' }, svg);
  const gMarks = el('g', { class: 'jl-marks' }, svg);
  const gAxis = el('g', { class: 'jl-axis' }, svg);

  // ----- windows band
  let windowTracks = 0;
  const windowItems = []; // {start, end, track, fired, text, tip}
  if (ws || firedWindows.length) {
    const kind = ws ? ws.kind : 'session';
    const fired = new Map();
    for (const w of firedWindows) fired.set(`${w.start},${w.end}`, w);
    if (ws && kind !== 'session' && ws.size > 0 && ws.slide > 0 && (d1 - d0) / ws.slide < 1500) {
      const k = Math.ceil(ws.size / ws.slide);
      windowTracks = k;
      let s = d0 - mod(d0 - ws.offset, ws.slide) - (k - 1) * ws.slide;
      for (; s < d1; s += ws.slide) {
        if (s + ws.size <= d0) continue;
        const track = mod(Math.round((s - ws.offset) / ws.slide), k);
        const f = fired.get(`${s},${s + ws.size}`);
        windowItems.push({ start: s, end: s + ws.size, track, fired: f || null });
        if (f) fired.delete(`${s},${s + ws.size}`);
      }
    }
    // Fired windows not on the grid (sessions, or a grid too dense to draw): pack in tracks.
    const rest = [...fired.values()].sort((a, b) => a.start - b.start || a.end - b.end);
    if (rest.length) {
      const ends = [];
      const base = windowTracks;
      for (const w of rest.slice(0, 3000)) {
        let t = ends.findIndex((e) => e <= w.start);
        if (t < 0) {
          if (ends.length < 8) {
            t = ends.length;
            ends.push(0);
          } else t = ends.indexOf(Math.min(...ends));
        }
        ends[t] = w.end;
        windowItems.push({ start: w.start, end: w.end, track: base + t, fired: w });
      }
      windowTracks = base + ends.length;
    }
  }
  const trackH = 15;
  const winTop = y + 4;
  if (windowTracks) {
    const caption = ws ? `${ws.kind} windows` : 'windows';
    text(gWin, 8, winTop + 11, caption, 'jl-lane-label jl-win-caption');
    for (const w of windowItems) {
      const x0 = Math.max(left - 4, x(w.start));
      const x1 = Math.min(right + 4, x(w.end));
      if (x1 <= x0) continue;
      const wy = winTop + w.track * trackH;
      const cls = w.fired ? 'jl-window jl-window-fired' : 'jl-window';
      const r = el('rect', { x: fx(x0 + 0.5), y: fx(wy), width: fx(Math.max(1, x1 - x0 - 1)), height: trackH - 3, rx: 2, class: cls }, gWin);
      r.dataset.window = String(windowItems.indexOf(w));
      w.el = r;
      if (w.fired && x1 - x0 > 34) {
        w.labelEl = text(gWin, (x0 + x1) / 2, wy + 9.5, w.fired.label, 'jl-window-label', 'middle');
      }
    }
    y = winTop + windowTracks * trackH + 6;
  }

  // ----- lanes
  const lanes = [];
  for (let s = 0; s < nStreams; s++) {
    for (let a = 0; a < pa; a++) lanes.push({ stream: s, assigner: a, rows: [] });
  }
  const laneOf = (r) => sideIndex(r.side) * pa + Math.min(pa - 1, r.assigner || 0);
  for (let i = 0; i < rows.length; i++) {
    const L = lanes[laneOf(rows[i])];
    if (L) L.rows.push(i);
  }
  const markR = 4.5;
  const levelH = 12;
  const rowY = new Float64Array(rows.length);
  const rowX = new Float64Array(rows.length);
  for (const L of lanes) {
    L.rows.sort((p, q) => times[p] - times[q] || p - q);
    let levels = 1;
    if (!density) {
      const maxLevels = L.rows.length <= 200 ? 10 : 6;
      const ends = [];
      const lv = new Int32Array(L.rows.length);
      L.rows.forEach((id, k) => {
        const t = times[id];
        const px = x(t);
        rowX[id] = px;
        let a = px - markR - 1;
        let b = px + markR + 1;
        const side = iv && iv.sides[sideIndex(rows[id].side)];
        if (side && L.rows.length <= 200) {
          a = Math.min(a, x(t + side[0]) - 2);
          b = Math.max(b, x(t + side[1]) + 2);
        }
        let level = -1;
        for (let j = 0; j < ends.length; j++) {
          if (ends[j] <= a) {
            level = j;
            break;
          }
        }
        if (level < 0) {
          if (ends.length < maxLevels) {
            level = ends.length;
            ends.push(0);
          } else {
            level = 0;
            for (let j = 1; j < ends.length; j++) if (ends[j] < ends[level]) level = j;
          }
        }
        ends[level] = b;
        lv[k] = level;
      });
      levels = Math.max(1, ends.length);
      L.levels = lv;
    }
    L.top = y;
    L.h = density ? 44 : Math.max(30, 12 + levels * levelH);
    L.levelCount = levels;
    if (!density) {
      L.rows.forEach((id, k) => {
        rowY[id] = L.top + L.h - 10 - L.levels[k] * levelH;
      });
    }
    y += L.h + (L.assigner === pa - 1 ? 8 : 2);
  }
  const lanesTop = lanes.length ? lanes[0].top : y;
  const lanesBottom = y - 4;

  // Lane backgrounds and labels.
  for (const L of lanes) {
    const cls = `jl-lane ${STREAM_CLASS[L.stream] || ''}`;
    el('rect', { x: left - 8, y: L.top, width: plotW + 16, height: L.h, class: cls, rx: 3 }, gBack);
    const full = streams[L.stream] ? streams[L.stream].name : '';
    // Long names are cut to the label column; the whole name is in the label's <title>.
    const name = full.length > 17 ? `${full.slice(0, 16)}…` : full;
    if (L.assigner === 0 || pa > 1) {
      const t = text(gLanes, 8, L.top + (pa > 1 ? L.h / 2 - 1 : L.h / 2 + 4), pa > 1 && L.assigner > 0 ? '' : name, `jl-lane-label ${STREAM_CLASS[L.stream] || ''}`);
      if (name !== full && L.assigner === 0) el('title', null, t).textContent = full;
      if (pa > 1) text(gLanes, 8, L.top + L.h / 2 + 11, `assigner ${L.assigner}`, 'jl-lane-sub');
    }
  }

  // Tumbling window boundaries across the lanes.
  if (ws && ws.kind === 'tumbling' && windowItems.length && windowItems.length < 400) {
    for (const w of windowItems) {
      if (w.start > d0 && w.start < d1) el('line', { x1: fx(x(w.start)), x2: fx(x(w.start)), y1: winTop, y2: lanesBottom, class: 'jl-boundary' }, gBack);
    }
  }

  // ----- axis
  const height = lanesBottom + 36;
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  clipRect.setAttribute('height', height);
  {
    const maxTicks = Math.max(2, Math.floor(plotW / (fmt.dates ? 86 : 70)));
    const step = niceStep(d1 - d0, maxTicks, fmt.dates);
    const ay = axisTop + axisH - 6;
    el('line', { x1: left - 8, x2: right + 8, y1: ay, y2: ay, class: 'jl-axis-line' }, gAxis);
    let t = Math.ceil(d0 / step) * step;
    let count = 0;
    for (; t <= d1 && count < 200; t += step, count++) {
      const px = x(t);
      el('line', { x1: fx(px), x2: fx(px), y1: ay - 4, y2: ay, class: 'jl-tick' }, gAxis);
      el('line', { x1: fx(px), x2: fx(px), y1: ay, y2: lanesBottom, class: 'jl-grid' }, gBack);
      const label = fmt.tick(t, step);
      text(gAxis, px, ay - 7, label, 'jl-tick-label', 'middle');
    }
    const what = eventTimed ? 'event time' : 'arrival time';
    const unit = fmt.dates ? `UTC, ${fmt.day(firstT)}` : step < 1000 ? 'ms' : '';
    text(gAxis, 8, unit ? ay - 16 : ay - 7, what, 'jl-axis-title');
    if (unit) text(gAxis, 8, ay - 5, unit, 'jl-axis-title');
  }

  // ----- intervals (one path per lane and exclusivity; the selected row's is redrawn on top)
  const ivPath = (id, side) => {
    const t = times[id];
    const a = xc(t + side[0]);
    const b = xc(t + side[1]);
    const yy = rowY[id];
    return `M${fx(a)} ${fx(yy)}H${fx(b)}M${fx(a)} ${fx(yy - 3.5)}v7M${fx(b)} ${fx(yy - 3.5)}v7`;
  };
  if (iv && !density) {
    for (const L of lanes) {
      const side = iv.sides[L.stream];
      if (!side || !L.rows.length) continue;
      let d = '';
      for (const id of L.rows) if (rows[id].timestamp !== null && rows[id].timestamp !== undefined) d += ivPath(id, side);
      el('path', { d, class: `jl-interval ${STREAM_CLASS[L.stream] || ''}` }, gIv);
    }
  }

  // ----- marks: one path per (status, stream) — a thousand rows cost a few path strings, not
  // a thousand elements. Hovering and clicking find the row under the pointer by geometry.
  const densityLayer = el('g', { class: 'jl-density' }, gMarks);
  const dotLayer = el('g', { class: 'jl-dots' }, gMarks);
  const retract = new Uint8Array(rows.length);
  const rowStream = new Uint8Array(rows.length);
  for (let i = 0; i < rows.length; i++) rowStream[i] = sideIndex(rows[i].side);
  for (let i = 0; i < rows.length; i++) retract[i] = rows[i].kind === '-D' || rows[i].kind === '-U' ? 1 : 0;
  const dotStr = new Array(rows.length);
  const dotPath = (id) => {
    const px = rowX[id];
    const py = rowY[id];
    if (facts[id].outcome === 'late') return `M${fx(px - 4)} ${fx(py - 4)}l8 8m0 -8l-8 8`;
    return `M${fx(px - markR)} ${fx(py)}a${markR} ${markR} 0 1 0 ${2 * markR} 0a${markR} ${markR} 0 1 0 ${-2 * markR} 0`;
  };
  /** The row under SVG point (px, py), or -1. */
  const rowAt = (px, py) => {
    if (density) return -1;
    let best = -1;
    let bestD = (markR + 3) * (markR + 3);
    for (const L of lanes) {
      if (py < L.top - 4 || py > L.top + L.h + 4) continue;
      const ids = L.rows;
      // Rows are sorted by time, so by x: binary search the first with x >= px - r.
      let lo = 0;
      let hi = ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (rowX[ids[mid]] < px - markR - 3) lo = mid + 1;
        else hi = mid;
      }
      for (let k = lo; k < ids.length && rowX[ids[k]] <= px + markR + 3; k++) {
        const id = ids[k];
        const dx = rowX[id] - px;
        const dy = rowY[id] - py;
        const d = dx * dx + dy * dy;
        if (d <= bestD) {
          bestD = d;
          best = id;
        }
      }
    }
    return best;
  };

  // ----- watermark layer and step status
  const tracker = new WatermarkTracker(result);
  const subtaskClass = (j) => `jl-wm jl-wm${j % 8}`;
  let currentStep = lastStep;
  const drawWatermarks = (step) => {
    while (gWm.firstChild) gWm.removeChild(gWm.firstChild);
    if (!traced) {
      // No trace: the final watermarks.
      const ops = (result.watermarks || []).map((w) => w.watermark);
      drawOperatorLines(ops);
      return;
    }
    const s = tracker.at(step);
    drawOperatorLines(s.operator);
    // Per assigner lane: a tick at its forwarded watermark.
    for (const L of lanes) {
      const w = wmValue(s.assigner[L.stream] ? s.assigner[L.stream][L.assigner] : '-inf');
      const idle = s.idle[L.stream] && s.idle[L.stream][L.assigner];
      const label = `${idle ? 'idle · ' : ''}wm ${fmt.short(w)}`;
      if (w === -Infinity) {
        text(gWm, left - 4, L.top + 10, label, 'jl-awm-label jl-awm-min');
        continue;
      }
      const px = xc(w);
      el('line', { x1: fx(px), x2: fx(px), y1: L.top + 1, y2: L.top + L.h - 1, class: `jl-awm ${STREAM_CLASS[L.stream] || ''}${idle ? ' jl-idle' : ''}` }, gWm);
      const tx = px > right - 60 ? px - 4 : px + 4;
      text(gWm, tx, L.top + 10, label, 'jl-awm-label', px > right - 60 ? 'end' : 'start');
    }
  };
  function drawOperatorLines(ops) {
    // Shade the event time each subtask's watermark has passed; lines with labels merged
    // for subtasks at the same watermark.
    const groups = new Map();
    ops.forEach((w, j) => {
      const v = wmValue(w);
      const key = String(v);
      if (!groups.has(key)) groups.set(key, { v, subtasks: [] });
      groups.get(key).subtasks.push(j);
    });
    const top = windowTracks ? winTop : lanesTop;
    let labelRow = 0;
    const sorted = [...groups.values()].sort((a, b) => a.v - b.v);
    for (const g of sorted) {
      const px = xc(g.v);
      if (g.v !== -Infinity) {
        el('rect', { x: left - 8, y: top, width: fx(Math.max(0, px - left + 8)), height: lanesBottom - top, class: 'jl-wm-shade' }, gWm);
      }
    }
    for (const g of sorted) {
      const px = xc(g.v);
      const who = po > 1 ? `${g.subtasks.length === po ? 'all subtasks' : `subtask${g.subtasks.length > 1 ? 's' : ''} ${g.subtasks.join(',')}`}: ` : '';
      const label = `WM ${who}${fmt.short(g.v)}`;
      const cls = subtaskClass(g.subtasks[0]);
      if (g.v !== -Infinity) {
        el('line', { x1: fx(px), x2: fx(px), y1: top - 2, y2: lanesBottom, class: `${cls} jl-wm-line` }, gWm);
      }
      const ly = lanesBottom + 13 + labelRow * 0;
      const anchor = px > right - 80 ? 'end' : px < left + 80 ? 'start' : 'middle';
      const t = text(gWm, g.v === -Infinity ? left : px, ly, label, `${cls} jl-wm-label`, g.v === -Infinity ? 'start' : anchor);
      t.dataset.subtasks = g.subtasks.join(',');
      labelRow++;
    }
    // Stack labels that would overlap.
    const labels = [...gWm.querySelectorAll('.jl-wm-label')];
    let lastEnd = -Infinity;
    let row = 0;
    for (const lb of labels) {
      const xx = Number(lb.getAttribute('x'));
      const approxW = lb.textContent.length * 6.2;
      const anchor = lb.getAttribute('text-anchor') || 'start';
      const start = anchor === 'middle' ? xx - approxW / 2 : anchor === 'end' ? xx - approxW : xx;
      if (start < lastEnd + 6) row++;
      else row = 0;
      lb.setAttribute('y', fx(lanesBottom + 13 + row * 12));
      lastEnd = start + approxW;
    }
    const need = lanesBottom + 24 + row * 12;
    if (need > Number(svg.getAttribute('height'))) {
      svg.setAttribute('height', need);
      svg.setAttribute('viewBox', `0 0 ${width} ${need}`);
    }
  }

  const applyStatus = (step) => {
    // Windows that have not fired yet as of the step are drawn as not fired.
    for (const w of windowItems) {
      if (!w.el || !w.fired) continue;
      const done = !traced || w.fired.step <= step;
      w.el.setAttribute('class', done ? 'jl-window jl-window-fired' : 'jl-window jl-window-later');
      if (w.labelEl) w.labelEl.style.display = done ? '' : 'none';
    }
    if (density) {
      drawDensity(step);
      return;
    }
    const cur = traced && step <= lastStep ? trace[step] && trace[step].cause : null;
    curRow = cur && cur.type === 'row' ? cur.row : -1;
    const groups = new Map();
    for (let id = 0; id < rows.length; id++) {
      const st = statusAt(facts[id], step, lastStep, traced);
      const stream = rowStream[id];
      const x = facts[id].outcome === 'late' ? 1 : 0;
      const key = ((STATUS_INDEX[st] ?? 15) << 3) | (stream << 2) | (x << 1) | retract[id];
      let g = groups.get(key);
      if (!g) {
        g = { st, stream, shape: x ? 'x' : 'dot', retract: retract[id], d: [], ids: [] };
        groups.set(key, g);
      }
      g.d.push(dotStr[id] || (dotStr[id] = dotPath(id)));
      g.ids.push(id);
    }
    while (dotLayer.firstChild) dotLayer.removeChild(dotLayer.firstChild);
    const order = ['future', 'none', 'dropped', 'buffered', 'pending', 'window', 'side', 'main', 'padded', 'joined', 'late'];
    const sorted = [...groups.values()].sort((p, q) => order.indexOf(p.st) - order.indexOf(q.st) || p.stream - q.stream);
    for (const g of sorted) {
      const cls = `jl-mark jl-o-${g.st} ${STREAM_CLASS[g.stream] || ''} jl-shape-${g.shape}${g.retract ? ' jl-retract' : ''}`;
      const p = el('path', { d: g.d.join(''), class: cls }, dotLayer);
      p.setAttribute('data-count', g.ids.length);
      p.setAttribute('data-rows', g.ids.join(' '));
    }
    drawRings();
  };

  // Rings around the current step's row and the selected row.
  let curRow = -1;
  const gRing = el('g', { class: 'jl-rings' }, gMarks);
  const drawRings = () => {
    while (gRing.firstChild) gRing.removeChild(gRing.firstChild);
    for (const [id, cls] of [[curRow, 'jl-ring jl-ring-current'], [selected, 'jl-ring jl-ring-selected']]) {
      if (id < 0 || !rows[id] || density) continue;
      el('circle', { cx: fx(rowX[id]), cy: fx(rowY[id]), r: markR + 3, class: cls }, gRing);
    }
  };

  const drawDensity = (step) => {
    while (densityLayer.firstChild) densityLayer.removeChild(densityLayer.firstChild);
    const binW = 3;
    const nb = Math.ceil(plotW / binW) + 1;
    const order = ['joined', 'main', 'window', 'side', 'padded', 'none', 'dropped', 'buffered', 'pending', 'late', 'future'];
    for (const L of lanes) {
      const counts = order.map(() => new Uint32Array(nb));
      const oi = new Map(order.map((o, i) => [o, i]));
      for (const id of L.rows) {
        const b = Math.max(0, Math.min(nb - 1, Math.floor((x(times[id]) - left) / binW)));
        counts[oi.get(statusAt(facts[id], step, lastStep, traced))][b]++;
      }
      let max = 1;
      for (let b = 0; b < nb; b++) {
        let s = 0;
        for (const c of counts) s += c[b];
        if (s > max) max = s;
      }
      const hh = L.h - 6;
      const base = L.top + L.h - 3;
      const stack = new Float64Array(nb);
      order.forEach((o, k) => {
        let d = '';
        for (let b = 0; b < nb; b++) {
          const c = counts[k][b];
          if (!c) continue;
          const h = Math.max(1, (Math.sqrt(c) / Math.sqrt(max)) * hh * (c / Math.max(1, sumAt(counts, b))));
          d += `M${fx(left + b * binW)} ${fx(base - stack[b])}h${binW - 0.5}v${fx(-h)}h${-(binW - 0.5)}z`;
          stack[b] += h;
        }
        if (d) el('path', { d, class: `jl-density-${o}` }, densityLayer);
      });
      // An invisible strip per lane for the tooltip.
      const hit = el('rect', { x: left, y: L.top, width: plotW, height: L.h, class: 'jl-hit-strip' }, densityLayer);
      hit.dataset.lane = String(lanes.indexOf(L));
      L.counts = counts;
      L.order = order;
    }
  };
  const sumAt = (counts, b) => {
    let s = 0;
    for (const c of counts) s += c[b];
    return s;
  };

  // ----- selection: the selected row's interval and lines to its partners
  let selected = options.selectedRow ?? -1;
  const drawSelection = () => {
    while (gSel.firstChild) gSel.removeChild(gSel.firstChild);
    if (density || selected < 0 || !rows[selected]) return;
    const r = rows[selected];
    const si = sideIndex(r.side);
    if (iv && r.timestamp !== null && r.timestamp !== undefined) {
      const side = iv.sides[si];
      // The range where partners must lie, across the partner stream's lanes.
      const other = 1 - si;
      const a = xc(r.timestamp + side[0]);
      const b = xc(r.timestamp + side[1]);
      for (const L of lanes) {
        if (L.stream !== other) continue;
        el('rect', { x: fx(Math.min(a, b)), y: L.top, width: fx(Math.max(1, Math.abs(b - a))), height: L.h, class: 'jl-range' }, gSel);
      }
      el('path', { d: ivPath(selected, side), class: 'jl-interval jl-interval-selected' }, gSel);
    }
    const f = facts[selected];
    const outs = result.outputs || [];
    for (const k of f.outputs) {
      const o = outs[k];
      const other = o.left && o.left.id === selected ? o.right : o.left;
      if (!other || !rows[other.id]) continue;
      const x1 = rowX[selected];
      const y1 = rowY[selected];
      const x2 = rowX[other.id];
      const y2 = rowY[other.id];
      const my = (y1 + y2) / 2;
      el('path', { d: `M${fx(x1)} ${fx(y1)}C${fx(x1)} ${fx(my)} ${fx(x2)} ${fx(my)} ${fx(x2)} ${fx(y2)}`, class: 'jl-link' }, gSel);
    }
  };

  // ----- legend
  {
    const present = new Set(facts.map((f) => f.outcome));
    if (traced) present.add('pending');
    const order = ['joined', 'main', 'window', 'side', 'padded', 'none', 'dropped', 'late', 'buffered', 'pending'];
    const legend = document.createElement('div');
    legend.className = 'jl-legend';
    for (const o of order) {
      if (!present.has(o)) continue;
      const item = document.createElement('span');
      item.className = `jl-legend-item jl-legend-${o}`;
      const sw = document.createElement('span');
      sw.className = 'jl-swatch';
      if (o === 'late') sw.textContent = '×';
      item.appendChild(sw);
      item.appendChild(document.createTextNode(OUTCOME_LABEL[o]));
      legend.appendChild(item);
    }
    if (retract.some((x) => x)) {
      const it = document.createElement('span');
      it.className = 'jl-legend-item jl-legend-retract';
      const s3 = document.createElement('span');
      s3.className = 'jl-swatch';
      it.appendChild(s3);
      it.appendChild(document.createTextNode('retraction row (−U / −D)'));
      legend.appendChild(it);
    }
    const wmItem = document.createElement('span');
    wmItem.className = 'jl-legend-item jl-legend-wm';
    const sw = document.createElement('span');
    sw.className = 'jl-swatch';
    wmItem.appendChild(sw);
    wmItem.appendChild(document.createTextNode(po > 1 ? 'operator subtask watermarks' : 'operator watermark'));
    legend.appendChild(wmItem);
    if (iv) {
      const it = document.createElement('span');
      it.className = 'jl-legend-item jl-legend-iv';
      const s2 = document.createElement('span');
      s2.className = 'jl-swatch';
      it.appendChild(s2);
      it.appendChild(document.createTextNode(`partner range (${iv.text})`));
      legend.appendChild(it);
    }
    container.appendChild(svg);
    container.appendChild(legend);
  }

  // ----- tooltip
  const tip = document.createElement('div');
  tip.className = 'jl-tooltip';
  tip.hidden = true;
  container.appendChild(tip);
  const showTip = (lines, ev) => {
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    lines.forEach((l, i) => {
      const d = document.createElement('div');
      if (i === 0) d.className = 'jl-tip-head';
      d.textContent = l;
      tip.appendChild(d);
    });
    tip.hidden = false;
    const host = container.getBoundingClientRect();
    let tx = ev.clientX - host.left + 14;
    const ty = ev.clientY - host.top + 14;
    const w = tip.offsetWidth || 280;
    if (tx + w > host.width) tx = Math.max(4, ev.clientX - host.left - w - 10);
    tip.style.left = `${tx}px`;
    tip.style.top = `${ty}px`;
  };
  const rowTip = (id) => {
    const f = facts[id];
    const st = statusAt(f, currentStep, lastStep, traced);
    const lines = describeRow(result, id, facts, fmt);
    if (st !== f.outcome) lines.splice(1, 0, `as of step ${currentStep + 1}: ${OUTCOME_LABEL[st]}`);
    const side = iv && iv.sides[sideIndex(rows[id].side)];
    if (side && rows[id].timestamp !== null && rows[id].timestamp !== undefined) {
      const t = rows[id].timestamp;
      const other = streamName(result, 1 - sideIndex(rows[id].side));
      lines.push(`matches ${other} rows with ts in ${side[2] ? '(' : '['}${fmt.long(t + side[0])}, ${fmt.long(t + side[1])}${side[3] ? ')' : ']'}`);
    }
    return lines;
  };
  const svgPoint = (ev) => {
    const box = svg.getBoundingClientRect();
    const scale = box.width ? width / box.width : 1;
    return [(ev.clientX - box.left) * scale, (ev.clientY - box.top) * scale];
  };
  let hoverRow = -1;
  const onOver = (ev) => {
    const [px, py] = svgPoint(ev);
    const id = rowAt(px, py);
    if (id !== hoverRow) {
      hoverRow = id;
      svg.classList.toggle('jl-over-mark', id >= 0);
    }
    if (id >= 0) {
      showTip(rowTip(id), ev);
      return;
    }
    const target = ev.target.closest ? ev.target.closest('[data-window],[data-lane]') : null;
    if (!target || !svg.contains(target)) {
      tip.hidden = true;
      return;
    }
    if (target.dataset.window !== undefined) {
      const w = windowItems[Number(target.dataset.window)];
      if (w) showTip(windowTip(w, fmt), ev);
    } else if (target.dataset.lane !== undefined) {
      const L = lanes[Number(target.dataset.lane)];
      if (!L || !L.counts) return;
      const b = Math.max(0, Math.floor((px - left) / 3));
      const t0 = d0 + ((b * 3) / plotW) * (d1 - d0);
      const t1 = d0 + (((b + 1) * 3) / plotW) * (d1 - d0);
      const parts = [];
      let total = 0;
      L.order.forEach((o, k) => {
        const c = L.counts[k][b] || 0;
        if (c) parts.push(`${OUTCOME_LABEL[o]}: ${c}`);
        total += c;
      });
      showTip([`${total} rows with ts in [${fmt.long(Math.round(t0))}, ${fmt.long(Math.round(t1))})`, ...parts], ev);
    }
  };
  const onOut = (ev) => {
    if (!ev.relatedTarget || !svg.contains(ev.relatedTarget)) {
      tip.hidden = true;
      hoverRow = -1;
      svg.classList.remove('jl-over-mark');
    }
  };
  const onClick = (ev) => {
    const [px, py] = svgPoint(ev);
    const id = rowAt(px, py);
    if (id < 0) return;
    handle.setSelectedRow(id === selected ? -1 : id);
    if (options.onSelectRow) options.onSelectRow(id);
  };
  svg.addEventListener('mousemove', onOver);
  svg.addEventListener('mouseout', onOut);
  svg.addEventListener('click', onClick);

  const handle = {
    svg,
    /** The event-time range drawn, [from, to] in ms. */
    domain: [d0, d1],
    get step() {
      return currentStep;
    },
    setStep(step) {
      currentStep = traced ? Math.max(0, Math.min(lastStep, step ?? lastStep)) : 0;
      drawWatermarks(currentStep);
      applyStatus(currentStep);
    },
    setSelectedRow(id) {
      selected = id ?? -1;
      drawSelection();
      drawRings();
    },
    /** The row under a point in the SVG's own coordinates, or -1. */
    rowAt,
    /** Where row `id`'s mark is, in the SVG's own coordinates (null in density mode). */
    /** The trace step at which row `id` arrived (-1 without a trace). */
    rowStep(id) {
      return facts[id] ? facts[id].arrival : -1;
    },
    markPosition(id) {
      return density || !rows[id] ? null : { x: rowX[id], y: rowY[id] };
    },
    destroy() {
      svg.removeEventListener('mousemove', onOver);
      svg.removeEventListener('mouseout', onOut);
      svg.removeEventListener('click', onClick);
      if (container.__jlTimeline === handle) container.__jlTimeline = null;
    },
  };
  container.__jlTimeline = handle;
  drawSelection();
  handle.setStep(options.step ?? lastStep);
  return handle;
}

let uidCounter = 0;
function uid(prefix) {
  uidCounter += 1;
  return `${prefix}${uidCounter}`;
}

/** The windows that produced output, merged over keys: {start, end, label, keys, count}. */
function collectWindows(result) {
  const map = new Map();
  const get = (start, end) => {
    const k = `${start},${end}`;
    let w = map.get(k);
    if (!w) {
      w = { start, end, pairs: 0, keys: new Map(), firings: 0, agg: false, step: Infinity };
      map.set(k, w);
    }
    return w;
  };
  const rows = result.rows || [];
  for (const o of result.outputs || []) {
    if (!o.window) continue;
    const w = get(o.window[0], o.window[1]);
    w.pairs++;
    w.step = Math.min(w.step, o.step);
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
  for (const w of map.values()) {
    if (w.agg) {
      const total = [...w.keys.values()].reduce((s, l) => s + l[l.length - 1].count, 0);
      w.label = w.keys.size === 1 ? `${[...w.keys.keys()][0]}: ${total}` : `${w.keys.size} keys · ${total} rows`;
    } else w.label = `${w.pairs} pair${w.pairs === 1 ? '' : 's'}`;
  }
  return [...map.values()];
}

function windowTip(w, fmt) {
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
  } else {
    lines.push(`${f.pairs} joined pair${f.pairs === 1 ? '' : 's'}`);
    for (const [key, n] of f.keys) lines.push(`key ${key}: ${n}`);
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Side by side: the same rows through two or three joins.

function h(tag, cls, textContent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (textContent !== undefined) e.textContent = textContent;
  return e;
}

/**
 * Draws small multiples comparing runs of the same rows through different joins.
 * `results`: [{ label, result, scenario? }] (or bare results). Each card shows the number of
 * outputs, distinct row pairs, duplicated pairs, pairs it misses that another join produced,
 * null-padded rows and late rows; below, one line per row pair with what each join did with
 * it (✓, ×2 for duplicates, — for missing), so e.g. "tumbling misses pairs across a boundary"
 * and "sliding duplicates" are visible.
 */
export function renderComparison(container, results) {
  while (container.firstChild) container.removeChild(container.firstChild);
  const runs = (results || []).map((r, i) => (r && r.result ? r : { label: `join ${i + 1}`, result: r })).filter((r) => r.result);
  const root = h('div', 'jl-compare');
  container.appendChild(root);
  if (!runs.length) {
    root.appendChild(h('p', 'jl-muted', 'nothing to compare'));
    return;
  }
  const ref = (r) => (r ? `${r.stream}\u0000${r.line}` : '');
  const pairs = new Map(); // key -> {left, right, counts: [per run], kinds: [[kinds]]}
  const stats = runs.map(() => ({ outputs: 0, distinct: 0, dup: 0, padded: 0, late: 0, missed: 0, retract: 0 }));
  runs.forEach((run, ri) => {
    const res = run.result;
    stats[ri].late = (res.late || []).length;
    for (const o of res.outputs || []) {
      stats[ri].outputs++;
      const key = `${ref(o.left)}\u0001${ref(o.right)}`;
      let p = pairs.get(key);
      if (!p) {
        p = { left: o.left, right: o.right, counts: runs.map(() => 0), kinds: runs.map(() => []) };
        pairs.set(key, p);
      }
      const retract = o.kind === '-D' || o.kind === '-U';
      if (retract) stats[ri].retract++;
      p.counts[ri] += retract ? 0 : 1;
      p.kinds[ri].push(o.kind || '+I');
    }
  });
  const list = [...pairs.values()].sort((a, b) => {
    const la = a.left || a.right;
    const lb = b.left || b.right;
    const sa = a.left ? 0 : 1;
    const sb = b.left ? 0 : 1;
    return sa - sb || (la.line - lb.line) || ((a.right ? a.right.line : -1) - (b.right ? b.right.line : -1));
  });
  for (const p of list) {
    const full = p.left && p.right;
    const anyHas = p.counts.some((c) => c > 0);
    p.counts.forEach((c, ri) => {
      if (c > 0) {
        if (full) stats[ri].distinct++;
        else stats[ri].padded++;
        if (c > 1) stats[ri].dup += c - 1;
      } else if (full && anyHas) stats[ri].missed++;
    });
  }

  // Cards.
  const cards = h('div', 'jl-compare-cards');
  const maxOut = Math.max(1, ...stats.map((s) => s.outputs));
  runs.forEach((run, ri) => {
    const s = stats[ri];
    const card = h('div', 'jl-compare-card');
    card.dataset.run = String(ri);
    card.appendChild(h('div', 'jl-compare-title', run.label || run.result.operator));
    const bar = h('div', 'jl-compare-bar');
    const fill = h('span', 'jl-compare-fill');
    fill.style.width = `${Math.round((s.outputs / maxOut) * 100)}%`;
    bar.appendChild(fill);
    card.appendChild(bar);
    const dl = h('dl', 'jl-compare-stats');
    const add = (k, v, cls) => {
      const dt = h('dt', null, k);
      const dd = h('dd', cls || null, String(v));
      dd.dataset.stat = k;
      dl.append(dt, dd);
    };
    add('outputs', s.outputs);
    add('distinct pairs', s.distinct);
    add('duplicates', s.dup, s.dup ? 'jl-bad' : null);
    add('missed pairs', s.missed, s.missed ? 'jl-bad' : null);
    if (s.padded || stats.some((x) => x.padded)) add('null-padded', s.padded);
    if (s.retract) add('retractions', s.retract, 'jl-bad');
    add('late rows', s.late, s.late ? 'jl-bad' : null);
    card.appendChild(dl);
    cards.appendChild(card);
  });
  root.appendChild(cards);

  // The pair matrix.
  root.appendChild(h('p', 'jl-compare-legend', '✓ produced once · ×N produced N times (duplicates) · — not produced, though another join produced it'));
  const tbl = h('table', 'jl-compare-pairs');
  tbl.appendChild(h('caption', null, 'row pairs produced by each join'));
  const hr = h('tr');
  const names = runs[0].result.streams || [];
  hr.appendChild(h('th', null, names[0] ? names[0].name : 'left'));
  if (names.length > 1) hr.appendChild(h('th', null, names[1].name));
  runs.forEach((run) => hr.appendChild(h('th', 'jl-compare-col', run.label || run.result.operator)));
  tbl.appendChild(h('thead')).appendChild(hr);
  const tb = h('tbody');
  const cell = (r) => {
    const td = h('td', 'jl-compare-row');
    if (!r) {
      td.textContent = 'null';
      td.classList.add('jl-muted');
      return td;
    }
    td.appendChild(h('span', 'jl-compare-line', `line ${r.line} `));
    td.appendChild(document.createTextNode(valuesText(r.values)));
    return td;
  };
  for (const p of list) {
    const tr = h('tr');
    const full = p.left && p.right;
    tr.appendChild(cell(p.left));
    if (names.length > 1) tr.appendChild(cell(p.right));
    p.counts.forEach((c, ri) => {
      const kinds = p.kinds[ri];
      let t;
      let cls = 'jl-compare-mark';
      const changelog = kinds.some((k) => k !== '+I');
      if (changelog) t = kinds.join(' ');
      else if (c === 0) t = '—';
      else if (c === 1) t = '✓';
      else t = `×${c}`;
      if (c === 0 && !changelog) cls += full ? ' jl-missed' : ' jl-absent';
      else if (c > 1) cls += ' jl-dup';
      else cls += ' jl-ok';
      const td = h('td', cls, t);
      td.dataset.count = String(c);
      tr.appendChild(td);
    });
    tb.appendChild(tr);
  }
  if (!list.length) {
    const tr = h('tr');
    const td = h('td', 'jl-muted', 'no join produced any output');
    td.colSpan = 2 + runs.length;
    tr.appendChild(td);
    tb.appendChild(tr);
  }
  tbl.appendChild(tb);
  root.appendChild(tbl);
}
