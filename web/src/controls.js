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
  ['window_tvf_aggregate', 'SQL window aggregation (TUMBLE / HOP / CUMULATE / SESSION)'],
  ['window_tvf_join', 'SQL window join (window TVF)'],
  ['temporal_join', 'SQL temporal join (FOR SYSTEM_TIME AS OF rowtime)'],
  ['lookup_join', 'SQL lookup join (FOR SYSTEM_TIME AS OF proctime)'],
];
export const TWO_INPUTS = new Set(['window_join', 'interval_join', 'sql_interval_join', 'regular_join', 'window_tvf_join', 'temporal_join', 'lookup_join']);
/** The Flink SQL operators (crate/src/scenario.rs `OperatorKind::is_sql`). */
const SQL_OPS = ['sql_interval_join', 'regular_join', 'window_tvf_aggregate', 'window_tvf_join', 'temporal_join', 'lookup_join'];

/**
 * What each operator does, in a few sentences, with the Flink class that does it (shown under
 * the operator's choice; the engine's rules are in crate/src/operators/).
 */
export const OPERATOR_EXPLANATIONS = {
  window_join:
    'JoinedStreams with event-time windows (WindowOperator): both streams are buffered per key and window; when the watermark passes the window end − 1 ms the window fires and emits every pair of the same key in it. Rows whose windows all ended before the watermark (plus allowed lateness) are late and dropped.',
  interval_join:
    'IntervalJoinOperator: each row is buffered per key and joined at once with the buffered rows of the other stream whose time lies in its interval; the watermark only cleans the buffers. A row behind the watermark is late: dropped, or sent to sideOutputLeftLateData / sideOutputRightLateData.',
  sql_interval_join:
    'Flink SQL interval join (RowTimeIntervalJoin): rows are cached per key while a partner can still come and joined with the other side\'s cached rows in range; nothing is dropped as late: a row that can no longer be matched is not cached (LEFT / RIGHT / FULL pad it with nulls at once), and cached rows without a partner are padded when the watermark passes their range. The output watermark is held back by the interval.',
  regular_join:
    'Flink SQL regular join (StreamingJoinOperator): every row is kept in state forever (or until table.exec.state.ttl) and joined with every row of the other side; outer joins retract (−U / −D) and re-emit as partners arrive. A PRIMARY KEY on an input changes how its state is kept (JoinInputSideSpec).',
  window_aggregate:
    'DataStream keyBy().window().aggregate() (WindowOperator): counts (and sums) per key and window, emitted when the watermark passes the window end − 1 ms; later rows within allowed lateness fire the window again, later still they are late (dropped, or sideOutputLateData).',
  split: 'A ProcessFunction that routes each row to the main output (out.collect) or to a tagged side output (ctx.output), by one column\'s value.',
  window_tvf_aggregate:
    'Flink SQL window aggregation over a window TVF (WindowAggOperator with slices, SliceAssigners): each row goes into its TUMBLE / HOP / CUMULATE slice or SESSION window; a window\'s result rows are emitted once, when the watermark passes window_end − 1 ms (insert-only; HOP and CUMULATE windows share slices, so one row counts in several windows, and CUMULATE emits its growing windows early). A row whose window has already fired is late: dropped (numLateRecordsDropped), never a side output. By default Flink plans two phases: a local aggregate before the shuffle and a global one after it.',
  window_tvf_join:
    'Flink SQL window join (WindowJoinOperator): both inputs are windowed by the same TVF; rows are kept per window until the watermark passes window_end − 1 ms, then the window is joined (INNER, LEFT / RIGHT / FULL padded with nulls, SEMI for IN / EXISTS, ANTI for NOT IN / NOT EXISTS) and its state cleared. Nothing is emitted before the window ends; a row whose window already fired is dropped as late. Flink plans it only when the ON condition equates both window_start and window_end. With SESSION, each input first goes through its own SESSION window TVF (UnalignedWindowTableFunctionOperator, PARTITION BY the key), which holds rows until their session closes and drops a row whose session already ended (numLateRecordsDropped); the join then matches sessions of the same key by window_end alone.',
  temporal_join:
    'Flink SQL event-time temporal join (TemporalRowTimeJoinOperator): the right table is versioned by its PRIMARY KEY; each probe row waits until the watermark of both inputs passes its time, then joins the latest version at or before its own time (LEFT: padded with nulls when there is none). Results are final; versions older than the one valid at the watermark are cleaned up. Flink 2.3.0 checks no lateness here: a probe or version row behind the watermark is kept, but the version it needed may already be gone.',
  lookup_join:
    'Flink SQL lookup join (LookupJoinRunner): processing time only. Each probe row asks the dimension table once, at its arrival, and sees the table as it stands then; later changes to the table never update or retract earlier results. It keeps no state and sets no timers, and watermarks play no part in it; it runs on the subtask the probe row arrives on.',
};

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
const tvfKind = (sc) => getPath(sc, 'job.tvf.kind') || 'tumble';
const streamLabel = (sc, i) => {
  const s = (sc.streams || [])[i];
  return s && s.name ? s.name : i === 0 ? 'the left stream' : 'the right stream';
};

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
    title: 'Window TVF',
    when: opIn('window_tvf_aggregate', 'window_tvf_join'),
    items: [
      {
        path: 'job.tvf.kind',
        label: 'Window TVF',
        type: 'select',
        options: [
          ['tumble', 'TUMBLE'],
          ['hop', 'HOP'],
          ['cumulate', 'CUMULATE'],
          ['session', 'SESSION'],
        ],
        def: 'tumble',
        hint: 'TABLE(TUMBLE | HOP | CUMULATE | SESSION(TABLE t, DESCRIPTOR(rowtime), …))',
      },
      { path: 'job.tvf.size', label: (sc) => (tvfKind(sc) === 'cumulate' ? 'Max size' : 'Size'), type: 'duration', def: 10000, when: (sc) => tvfKind(sc) !== 'session', hint: (sc) => (tvfKind(sc) === 'cumulate' ? "CUMULATE's max window size" : 'the window size') },
      { path: 'job.tvf.slide', label: 'Slide', type: 'duration', optional: true, placeholder: 'required', when: (sc) => tvfKind(sc) === 'hop', hint: 'HOP(TABLE t, DESCRIPTOR(rt), slide, size)' },
      { path: 'job.tvf.step', label: 'Step', type: 'duration', optional: true, placeholder: 'required', when: (sc) => tvfKind(sc) === 'cumulate', hint: 'CUMULATE(TABLE t, DESCRIPTOR(rt), step, size)' },
      { path: 'job.tvf.gap', label: 'Gap', type: 'duration', optional: true, placeholder: 'required', when: (sc) => tvfKind(sc) === 'session', hint: 'SESSION(TABLE t PARTITION BY keys, DESCRIPTOR(rt), gap)' },
      { path: 'job.tvf.offset', label: 'Offset', type: 'duration', def: 0, when: (sc) => tvfKind(sc) !== 'session', hint: 'the optional offset argument: windows start at offset + k · slide' },
    ],
  },
  {
    title: 'GROUP BY and aggregates',
    when: opIn('window_tvf_aggregate'),
    items: [
      { path: 'job.group.keys', label: 'GROUP BY window_start, window_end,', type: 'list', optional: true, placeholder: 'no keys', hint: 'the grouping columns besides the window, comma separated (SESSION partitions by them)' },
      { path: 'job.group.aggregates', label: 'Aggregates', type: 'aggregates', hint: 'COUNT(*), COUNT([DISTINCT] col), SUM, MIN, MAX, AVG' },
    ],
  },
  {
    title: 'SQL join',
    when: opIn('sql_interval_join', 'regular_join', 'window_tvf_join', 'temporal_join', 'lookup_join'),
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
          ['semi', 'SEMI (IN / EXISTS)'],
          ['anti', 'ANTI (NOT IN / NOT EXISTS)'],
        ],
        // Which join types each operator has (Flink: SEMI / ANTI only on the window join here;
        // temporal and lookup joins are INNER or LEFT only).
        allowed: (sc) => (op(sc) === 'window_tvf_join' ? null : ['temporal_join', 'lookup_join'].includes(op(sc)) ? ['inner', 'left'] : ['inner', 'left', 'right', 'full']),
        def: 'inner',
      },
      {
        path: 'job.sql.window_columns',
        label: 'ON window columns',
        type: 'select',
        options: [
          ['both', 'L.window_start = R.window_start AND L.window_end = R.window_end'],
          ['start_only', 'only L.window_start = R.window_start'],
          ['end_only', 'only L.window_end = R.window_end'],
        ],
        def: 'both',
        hint: 'Flink plans a window join only when both window columns are equated',
        when: opIn('window_tvf_join'),
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
    title: 'Tables',
    when: (sc) => SQL_OPS.includes(op(sc)),
    items: [0, 1].map((i) => ({
      path: `streams.${i}.primary_key`,
      label: (sc) => `PRIMARY KEY of ${streamLabel(sc, i)}`,
      type: 'list',
      optional: true,
      placeholder: 'none',
      hint: (sc) => (op(sc) === 'temporal_join' && i === 1 ? 'PRIMARY KEY (…) NOT ENFORCED: the versioned table\'s key' : 'PRIMARY KEY (…) NOT ENFORCED, comma separated columns'),
      when: (sc) => !!(sc.streams || [])[i] && (i === 0 || TWO_INPUTS.has(op(sc))),
    })).concat(
      [0, 1].map((i) => ({
        path: `streams.${i}.scan_watermark_idle_timeout`,
        label: (sc) => `'scan.watermark.idle-timeout' of ${streamLabel(sc, i)}`,
        type: 'duration',
        optional: true,
        placeholder: 'table.exec.source.idle-timeout',
        hint: "the table's own idle timeout (overrides table.exec.source.idle-timeout; 0 switches idleness off)",
        when: (sc) => !!(sc.streams || [])[i] && (i === 0 || TWO_INPUTS.has(op(sc))),
      })),
    ),
  },
  {
    title: 'SQL settings',
    when: (sc) => SQL_OPS.includes(op(sc)),
    items: [
      { path: 'job.settings.source_idle_timeout', label: 'table.exec.source.idle-timeout', type: 'duration', optional: true, placeholder: 'none', hint: 'a source subtask without rows for this long is idle: the watermark ignores it' },
      { path: 'job.settings.state_ttl', label: 'table.exec.state.ttl', type: 'duration', optional: true, placeholder: 'none (kept forever)', hint: 'state not touched for this long (processing time) expires', when: opIn('regular_join') },
      { path: 'job.settings.state_ttl_left', label: "STATE_TTL hint 'left'", type: 'duration', optional: true, placeholder: 'none', hint: "/*+ STATE_TTL('left' = '…') */ on the left input", when: opIn('regular_join') },
      { path: 'job.settings.state_ttl_right', label: "STATE_TTL hint 'right'", type: 'duration', optional: true, placeholder: 'none', hint: "/*+ STATE_TTL('right' = '…') */ on the right input", when: opIn('regular_join') },
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
  } else if (item.type === 'list') {
    // A list of column names, typed comma separated ("user, region").
    input = h('input', { id, type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: item.placeholder || '' });
    input.addEventListener('input', () => commit(listValue(input.value)));
  } else if (item.type === 'routes') {
    return buildRoutes(item, ctx, wrap, labelEl, errEl);
  } else if (item.type === 'aggregates') {
    return buildAggregates(item, ctx, wrap, labelEl, errEl);
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

  /** The select's options for the scenario as it is (`item.allowed` narrows them per operator). */
  let shownOptions = '';
  function selectOptions() {
    const sc = ctx.scenario;
    const allowed = item.allowed ? item.allowed(sc) : null;
    const cur = String(getPath(sc, item.path) ?? item.def);
    // A value the operator does not take is still shown (the engine says why it is wrong).
    const opts = item.options.filter(([val]) => !allowed || allowed.includes(val) || String(val) === cur);
    const sig = opts.map(([val]) => val).join('|');
    if (sig !== shownOptions) {
      shownOptions = sig;
      fill(input, ...opts.map(([val, text]) => h('option', { value: String(val) }, text)));
    }
    input.value = cur;
  }

  function load() {
    const sc = ctx.scenario;
    const v = getPath(sc, item.path);
    if (item.type === 'select') {
      shownOptions = '';
      selectOptions();
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
    } else if (item.type === 'list') {
      if (document.activeElement !== input) input.value = Array.isArray(v) ? v.join(', ') : v === undefined || v === null ? '' : String(v);
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
    if (item.allowed && !wrap.hidden) selectOptions();
  }

  if (item.type === 'bool') wrap.append(input, labelEl, errEl);
  else wrap.append(labelEl, input, errEl);
  return { el: wrap, path: item.path, load, refresh, setError };
}

/** "user, region" → ['user', 'region']; empty → undefined. */
function listValue(text) {
  const cols = text
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  return cols.length ? cols : undefined;
}

const AGG_FUNCS = [
  ['count', 'COUNT'],
  ['sum', 'SUM'],
  ['min', 'MIN'],
  ['max', 'MAX'],
  ['avg', 'AVG'],
];

/**
 * The aggregate calls of a SQL window aggregation (`job.group.aggregates`): one line per call,
 * FUNC([DISTINCT] column) AS alias; COUNT without a column is COUNT(*).
 */
function buildAggregates(item, ctx, wrap, labelEl, errEl) {
  const list = h('div', { class: 'aggregates' });
  const add = h('button', { type: 'button', class: 'small' }, '+ aggregate');
  const calls = () => getPath(ctx.scenario, item.path) || [];
  const save = (cs) => {
    setPath(ctx.scenario, item.path, cs.length ? cs : undefined);
    ctx.onChange(item.path);
  };
  add.addEventListener('click', () => {
    save([...calls(), { func: 'count' }]);
    load();
  });
  function load() {
    const cols = columnNames((ctx.scenario.streams || [])[0]);
    fill(
      list,
      ...calls().map((c, i) => {
        const n = i + 1;
        const func = h('select', { 'aria-label': `aggregate ${n} function` }, ...AGG_FUNCS.map(([v, t]) => h('option', { value: v }, t)));
        func.value = c.func || 'count';
        const colOpts = [['', c.func === 'count' || !c.func ? '*' : '(choose)'], ...cols.map((x) => [x, x])];
        if (c.column && !cols.includes(c.column)) colOpts.push([c.column, `${c.column} (no such column)`]);
        const col = h('select', { 'aria-label': `aggregate ${n} column` }, ...colOpts.map(([v, t]) => h('option', { value: v }, t)));
        col.value = c.column || '';
        const distinct = h('input', { type: 'checkbox', 'aria-label': `aggregate ${n} DISTINCT` });
        distinct.checked = !!c.distinct;
        const alias = h('input', { type: 'text', value: c.alias || '', placeholder: 'alias', 'aria-label': `aggregate ${n} alias (AS)`, spellcheck: 'false' });
        const del = h('button', { type: 'button', class: 'small', title: 'remove this aggregate', 'aria-label': `remove aggregate ${n}` }, '×');
        const upd = () => {
          const next = calls().map((x) => ({ ...x }));
          const call = { func: func.value };
          if (col.value) call.column = col.value;
          if (distinct.checked) call.distinct = true;
          if (alias.value) call.alias = alias.value;
          next[i] = call;
          save(next);
        };
        func.addEventListener('change', () => {
          upd();
          load();
        });
        col.addEventListener('change', upd);
        distinct.addEventListener('change', upd);
        alias.addEventListener('input', upd);
        del.addEventListener('click', () => {
          save(calls().filter((_, j) => j !== i));
          load();
        });
        for (const x of [func, col, distinct, alias, del]) x.disabled = !!ctx.readOnly;
        return h('div', { class: 'aggregate', dataset: { path: `${item.path}[${i}]` } }, func, h('span', null, '('), h('label', { class: 'distinct' }, distinct, 'DISTINCT'), col, h('span', null, ') AS'), alias, del);
      }),
    );
    add.disabled = !!ctx.readOnly;
    refresh();
  }
  function refresh() {
    labelEl.textContent = labelOf(item, ctx.scenario);
    wrap.hidden = item.when ? !item.when(ctx.scenario) : false;
  }
  const hint = hintOf(item, ctx.scenario);
  if (hint) wrap.title = hint;
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
  // What the chosen operator does (OPERATOR_EXPLANATIONS), under its choice.
  const explain = h('p', { class: 'note op-explain', id: 'op-explain', 'aria-live': 'polite' });
  for (const g of GROUPS) {
    const fs = h('fieldset', { class: 'group' }, h('legend', null, g.title));
    for (const item of g.items) {
      const c = buildControl(item, ctx);
      controls.push(c);
      fs.append(c.el);
      if (item.path === 'job.operator') fs.append(explain);
    }
    groups.push({ g, fs });
    container.append(fs);
  }
  return controlSet(controls, () => {
    for (const { g, fs } of groups) fs.hidden = g.when ? !g.when(ctx.scenario) : false;
    const text = OPERATOR_EXPLANATIONS[op(ctx.scenario)] || '';
    if (explain.textContent !== text) explain.textContent = text;
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
