// Controls for every engine setting of the scenario (crate/src/scenario.rs).

import { h, fill } from './dom.js';
import { getPath, setPath, columnNames } from './scenario-path.js';
import { fmtDuration } from './format.js';

export const OPERATORS = [
  ['window_join', 'Window join (DataStream)'],
  ['interval_join', 'Interval join (DataStream)'],
  ['sql_interval_join', 'SQL interval join'],
  ['regular_join', 'SQL regular join (changelog)'],
  ['window_aggregate', 'Window aggregation (count, sum)'],
  ['split', 'Split into side outputs (ProcessFunction)'],
];
export const TWO_INPUTS = new Set(['window_join', 'interval_join', 'sql_interval_join', 'regular_join']);

const STRATEGIES = [
  ['bounded', 'bounded out-of-orderness (max ts − delay − 1)'],
  ['monotonous', 'monotonous (max ts − 1)'],
  ['legacy', 'legacy extractor (max ts − delay)'],
  ['punctuated', 'punctuated (WM rows only)'],
  ['none', 'none (only the end-of-input watermark)'],
];

const op = (sc) => (sc.job && sc.job.operator) || 'window_join';
const opIn = (...ops) => (sc) => ops.includes(op(sc));
const wmStrategy = (prefix) => (sc) => getPath(sc, `${prefix}.strategy`) || 'bounded';
const windowKind = (sc) => getPath(sc, 'job.window.kind') || 'tumbling';

function watermarkItems(prefix) {
  return [
    { path: `${prefix}.strategy`, label: 'Strategy', type: 'select', options: STRATEGIES, def: 'bounded', hint: 'WatermarkStrategy' },
    { path: `${prefix}.delay`, label: 'Delay', type: 'duration', def: 0, hint: 'forBoundedOutOfOrderness(delay)', when: (sc) => ['bounded', 'legacy'].includes(wmStrategy(prefix)(sc)) },
    { path: `${prefix}.per_event`, label: 'Emit per event', type: 'bool', def: true, hint: 'a generator that emits in onEvent' },
    { path: `${prefix}.interval`, label: 'Periodic interval', type: 'duration', def: 0, hint: 'pipeline.auto-watermark-interval (simulated processing time; 0 = off)' },
    { path: `${prefix}.idle_timeout`, label: 'Idle timeout', type: 'duration', optional: true, hint: 'withIdleness(timeout); checked on periodic emits', placeholder: 'none' },
  ];
}

export const GROUPS = [
  {
    title: 'Operator and topology',
    items: [
      { path: 'job.operator', label: 'Operator', type: 'select', options: OPERATORS, def: 'window_join' },
      { path: 'job.parallelism', label: 'Parallelism', type: 'select', options: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, String(n)]), def: 1, number: true, hint: 'assigner stage and operator (1–8)' },
      { path: 'job.max_parallelism', label: 'Max parallelism', type: 'int', optional: true, min: 1, max: 32768, placeholder: "Flink's default", hint: 'pipeline.max-parallelism: the number of key groups' },
      {
        path: 'job.arrival',
        label: 'Arrival order',
        type: 'select',
        options: [
          ['by_time', 'by arrival time (a=, else event time)'],
          ['left_first', 'all left rows, then all right'],
          ['interleave', 'one of each in turn'],
        ],
        def: 'by_time',
      },
      { path: 'job.final_watermark', label: 'Final watermark at end of input', type: 'bool', def: true, hint: 'Watermark(Long.MAX_VALUE) when the bounded input ends; off shows what stays buffered' },
    ],
  },
  { title: 'Watermarks', items: watermarkItems('job.watermark') },
  {
    title: 'Window',
    when: opIn('window_join', 'window_aggregate'),
    items: [
      {
        path: 'job.window.kind',
        label: 'Kind',
        type: 'select',
        options: [
          ['tumbling', 'tumbling'],
          ['sliding', 'sliding'],
          ['session', 'session'],
        ],
        def: 'tumbling',
      },
      { path: 'job.window.size', label: 'Size', type: 'duration', def: 10000, when: (sc) => windowKind(sc) !== 'session' },
      { path: 'job.window.slide', label: 'Slide', type: 'duration', optional: true, when: (sc) => windowKind(sc) === 'sliding', placeholder: 'required' },
      { path: 'job.window.gap', label: 'Gap', type: 'duration', optional: true, when: (sc) => windowKind(sc) === 'session', placeholder: 'required' },
      { path: 'job.window.offset', label: 'Offset', type: 'duration', def: 0, when: (sc) => windowKind(sc) !== 'session' },
      { path: 'job.allowed_lateness', label: 'Allowed lateness', type: 'duration', def: 0, hint: 'allowedLateness(...)' },
    ],
  },
  {
    title: 'Interval',
    when: opIn('interval_join'),
    items: [
      { path: 'job.interval.lower', label: 'Lower bound', type: 'duration', def: 0, hint: 'left.ts + lower <= right.ts' },
      { path: 'job.interval.upper', label: 'Upper bound', type: 'duration', def: 0, hint: 'right.ts <= left.ts + upper' },
      { path: 'job.interval.lower_exclusive', label: 'Lower bound exclusive', type: 'bool', def: false, hint: 'lowerBoundExclusive()' },
      { path: 'job.interval.upper_exclusive', label: 'Upper bound exclusive', type: 'bool', def: false, hint: 'upperBoundExclusive()' },
    ],
  },
  {
    title: 'SQL join',
    when: opIn('sql_interval_join', 'regular_join'),
    items: [
      {
        path: 'job.sql.join',
        label: 'Join type',
        type: 'select',
        options: [
          ['inner', 'JOIN'],
          ['left', 'LEFT JOIN'],
          ['right', 'RIGHT JOIN'],
          ['full', 'FULL OUTER JOIN'],
        ],
        def: 'inner',
      },
      { path: 'job.sql.lower', label: 'Lower bound', type: 'duration', def: 0, hint: 'L.t BETWEEN R.t + lower AND …', when: opIn('sql_interval_join') },
      { path: 'job.sql.upper', label: 'Upper bound', type: 'duration', def: 0, hint: '… AND R.t + upper', when: opIn('sql_interval_join') },
      { path: 'job.sql.lower_strict', label: 'Strict lower end (>)', type: 'bool', def: false, when: opIn('sql_interval_join') },
      { path: 'job.sql.upper_strict', label: 'Strict upper end (<)', type: 'bool', def: false, when: opIn('sql_interval_join') },
      {
        path: 'job.sql.time',
        label: 'Time',
        type: 'select',
        options: [
          ['event', 'event time (rowtime)'],
          ['processing', 'processing time (proctime)'],
        ],
        def: 'event',
        when: opIn('sql_interval_join'),
      },
      { path: 'job.sql.min_cleanup', label: 'Min cleanup interval', type: 'duration', def: 0, hint: 'table.exec.interval-join.min-cleanup-interval', when: opIn('sql_interval_join') },
    ],
  },
  {
    title: 'Late data',
    when: opIn('interval_join', 'window_aggregate'),
    items: [
      { path: 'job.late_output.left', label: (sc) => (op(sc) === 'window_aggregate' ? 'Late side-output tag' : 'Left late tag'), type: 'text', optional: true, placeholder: 'none: dropped', hint: (sc) => (op(sc) === 'window_aggregate' ? 'sideOutputLateData(tag)' : 'sideOutputLeftLateData(tag)') },
      { path: 'job.late_output.right', label: 'Right late tag', type: 'text', optional: true, placeholder: 'none: dropped', hint: 'sideOutputRightLateData(tag)', when: opIn('interval_join') },
    ],
  },
  {
    title: 'Aggregate',
    when: opIn('window_aggregate'),
    items: [{ path: 'job.aggregate.sum', label: 'Sum of column', type: 'column', optional: true, placeholder: '(count only)' }],
  },
  {
    title: 'Split',
    when: opIn('split'),
    items: [
      { path: 'job.split.column', label: 'Column', type: 'column', optional: true, placeholder: '(choose)' },
      { path: 'job.split.routes', label: 'Routes', type: 'routes' },
      { path: 'job.split.otherwise', label: 'Anything else to', type: 'text', optional: true, placeholder: 'dropped', hint: '"main" or a side-output tag; empty drops the row' },
    ],
  },
];

export const STREAM_WATERMARK_ITEMS = (i) => watermarkItems(`streams.${i}.watermark`);

const labelOf = (item, sc) => (typeof item.label === 'function' ? item.label(sc) : item.label);
const hintOf = (item, sc) => (typeof item.hint === 'function' ? item.hint(sc) : item.hint);

function durationValue(text) {
  const t = text.trim();
  if (t === '') return undefined;
  if (/^-?\d+$/.test(t)) return Number(t);
  return t;
}

/**
 * Builds one control. ctx: { get scenario(), onChange(path), validateDuration(text) -> msg|null, readOnly }.
 * Returns { el, path, load(), refresh(), setError(msg) }.
 */
export function buildControl(item, ctx) {
  const id = `c-${item.path.replace(/\W/g, '-')}`;
  let input;
  const errEl = h('div', { class: 'control-error', role: 'alert' });
  const labelEl = h('label', { for: id });
  const wrap = h('div', { class: `control control-${item.type}`, dataset: { path: item.path } });

  const commit = (value) => {
    setPath(ctx.scenario, item.path, value);
    ctx.onChange(item.path);
  };

  if (item.type === 'select' || item.type === 'column') {
    input = h('select', { id });
    input.addEventListener('change', () => {
      const v = input.value;
      if (item.type === 'column') commit(v === '' ? undefined : v);
      else commit(item.number ? Number(v) : v);
    });
  } else if (item.type === 'bool') {
    input = h('input', { id, type: 'checkbox' });
    input.addEventListener('change', () => commit(input.checked === item.def ? undefined : input.checked));
  } else if (item.type === 'duration') {
    input = h('input', { id, type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: item.placeholder || (item.def !== undefined ? fmtDuration(item.def) : '') });
    input.addEventListener('input', () => {
      const v = durationValue(input.value);
      const msg = typeof v === 'string' && ctx.validateDuration ? ctx.validateDuration(v) : null;
      setError(msg);
      commit(v === undefined && !item.optional && item.def !== undefined ? undefined : v);
    });
  } else if (item.type === 'int') {
    input = h('input', { id, type: 'number', min: item.min, max: item.max, placeholder: item.placeholder || '' });
    input.addEventListener('input', () => {
      const t = input.value.trim();
      commit(t === '' ? undefined : Number(t));
    });
  } else if (item.type === 'text') {
    input = h('input', { id, type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: item.placeholder || '' });
    input.addEventListener('input', () => commit(input.value === '' ? undefined : input.value));
  } else if (item.type === 'routes') {
    return buildRoutes(item, ctx, wrap, labelEl, errEl);
  }

  function setError(msg) {
    errEl.textContent = msg || '';
    wrap.classList.toggle('invalid', !!msg);
    if (input) input.setAttribute('aria-invalid', msg ? 'true' : 'false');
  }

  function columnOptions() {
    const cols = columnNames((ctx.scenario.streams || [])[0]);
    const cur = getPath(ctx.scenario, item.path);
    const opts = [['', item.placeholder || '(none)'], ...cols.map((c) => [c, c])];
    if (cur && !cols.includes(cur)) opts.push([cur, `${cur} (no such column)`]);
    return opts;
  }

  function load() {
    const sc = ctx.scenario;
    const v = getPath(sc, item.path);
    if (item.type === 'select') {
      fill(input, ...item.options.map(([val, text]) => h('option', { value: String(val) }, text)));
      input.value = String(v === undefined ? item.def : v);
    } else if (item.type === 'column') {
      fill(input, ...columnOptions().map(([val, text]) => h('option', { value: val }, text)));
      input.value = v === undefined || v === null ? '' : String(v);
    } else if (item.type === 'bool') {
      input.checked = v === undefined ? item.def : !!v;
    } else if (item.type === 'duration') {
      if (document.activeElement !== input) input.value = v === undefined || v === null ? '' : typeof v === 'number' ? fmtDuration(v) : String(v);
    } else if (item.type === 'int') {
      if (document.activeElement !== input) input.value = v === undefined || v === null ? '' : String(v);
    } else if (item.type === 'text') {
      if (document.activeElement !== input) input.value = v === undefined || v === null ? '' : String(v);
    }
    input.disabled = !!ctx.readOnly;
    refresh();
  }

  function refresh() {
    const sc = ctx.scenario;
    labelEl.textContent = labelOf(item, sc);
    const hint = hintOf(item, sc);
    if (hint) wrap.title = hint;
    else wrap.removeAttribute('title');
    wrap.hidden = item.when ? !item.when(sc) : false;
  }

  if (item.type === 'bool') wrap.append(input, labelEl, errEl);
  else wrap.append(labelEl, input, errEl);
  return { el: wrap, path: item.path, load, refresh, setError };
}

function buildRoutes(item, ctx, wrap, labelEl, errEl) {
  const list = h('div', { class: 'routes' });
  const add = h('button', { type: 'button', class: 'small' }, '+ route');
  const routes = () => getPath(ctx.scenario, item.path) || [];
  const save = (rs) => {
    setPath(ctx.scenario, item.path, rs.length ? rs : undefined);
    ctx.onChange(item.path);
  };
  add.addEventListener('click', () => {
    const rs = routes().slice();
    rs.push({ value: '', to: 'main' });
    save(rs);
    load();
  });
  function load() {
    const rs = routes();
    fill(
      list,
      ...rs.map((r, i) => {
        const v = h('input', { type: 'text', value: r.value, placeholder: 'value', 'aria-label': `route ${i + 1} value`, spellcheck: 'false' });
        const to = h('input', { type: 'text', value: r.to, placeholder: 'main or a tag', 'aria-label': `route ${i + 1} target`, spellcheck: 'false' });
        const del = h('button', { type: 'button', class: 'small', title: 'remove this route' }, '×');
        const upd = () => {
          const next = routes().map((x) => ({ ...x }));
          next[i] = { value: v.value, to: to.value };
          save(next);
        };
        v.addEventListener('input', upd);
        to.addEventListener('input', upd);
        del.addEventListener('click', () => {
          const next = routes().filter((_, j) => j !== i);
          save(next);
          load();
        });
        for (const x of [v, to, del]) x.disabled = !!ctx.readOnly;
        return h('div', { class: 'route', dataset: { path: `${item.path}[${i}]` } }, v, h('span', { class: 'arrow' }, '→'), to, del);
      }),
    );
    add.disabled = !!ctx.readOnly;
    refresh();
  }
  function refresh() {
    labelEl.textContent = labelOf(item, ctx.scenario);
    wrap.hidden = item.when ? !item.when(ctx.scenario) : false;
  }
  wrap.title = 'rows whose column equals the value go to "main" (out.collect) or to a side-output tag (ctx.output)';
  wrap.append(labelEl, list, add, errEl);
  return {
    el: wrap,
    path: item.path,
    load,
    refresh,
    setError(msg) {
      errEl.textContent = msg || '';
      wrap.classList.toggle('invalid', !!msg);
    },
  };
}

/** Builds all groups into `container`; returns { load(), refresh(), markError(field, msg), clearErrors() }. */
export function buildControls(container, ctx) {
  const controls = [];
  const groups = [];
  fill(container);
  for (const g of GROUPS) {
    const fs = h('fieldset', { class: 'group' }, h('legend', null, g.title));
    for (const item of g.items) {
      const c = buildControl(item, ctx);
      controls.push(c);
      fs.append(c.el);
    }
    groups.push({ g, fs });
    container.append(fs);
  }
  return controlSet(controls, () => {
    for (const { g, fs } of groups) fs.hidden = g.when ? !g.when(ctx.scenario) : false;
  });
}

/** A set of controls with shared load/refresh/error marking. */
export function controlSet(controls, extraRefresh) {
  return {
    controls,
    load() {
      for (const c of controls) c.load();
      extraRefresh && extraRefresh();
    },
    refresh() {
      for (const c of controls) c.refresh();
      extraRefresh && extraRefresh();
    },
    /** Marks the control of a config error's field ("job.window.size", "streams[0].watermark.delay"). */
    markError(field, msg) {
      const path = field.replace(/\[(\d+)\]/g, '.$1');
      let best = null;
      for (const c of controls) {
        const p = c.path;
        if (path === p || path.startsWith(`${p}.`)) {
          if (!best || p.length > best.path.length) best = c;
        }
      }
      if (best) best.setError(msg);
      return !!best;
    },
    clearErrors(keepDurationErrors) {
      for (const c of controls) if (!keepDurationErrors || !c.el.classList.contains('control-duration')) c.setError(null);
    },
  };
}
