// @ts-check
// The SQL editor's language: @codemirror/lang-sql with a Flink dialect (Flink's DDL and
// streaming keywords, backquoted identifiers) and the tables and columns of the script's own
// CREATE TABLE statements for completion.

import { sql, SQLDialect, StandardSQL } from '@codemirror/lang-sql';

/** Flink SQL's words beyond standard SQL (Flink's SQL grammar: DDL, window TVFs, temporal joins). */
const FLINK_KEYWORDS =
  'watermark tumble hop cumulate session descriptor proctime system_time for_system_time ' +
  'table with if exists temporary view set reset primary key not enforced metadata virtual ' +
  'partitioned comment like including excluding overwriting options constraints interval ' +
  'second minute hour day month year millisecond window_start window_end window_time ' +
  'grouping sets rollup cube lateral match_recognize semi anti enforced catalog database';
const FLINK_TYPES =
  'string bytes tinyint smallint int integer bigint float double decimal boolean date time timestamp ' +
  'timestamp_ltz array map multiset row raw varchar char binary varbinary';

export const FlinkSQL = SQLDialect.define({
  ...StandardSQL.spec,
  keywords: `${StandardSQL.spec.keywords || ''} ${FLINK_KEYWORDS}`,
  types: `${StandardSQL.spec.types || ''} ${FLINK_TYPES}`,
  builtin: 'current_watermark to_timestamp to_timestamp_ltz unix_timestamp date_format coalesce if',
  identifierQuotes: '`',
});

/**
 * The tables of a script's CREATE TABLE statements and their columns: { table: [column, …] }.
 * A light scan (the real parse is the SQL module's): balanced parentheses, top-level commas,
 * constraint lines (WATERMARK, PRIMARY KEY, CONSTRAINT) left out.
 * @param {string} text @returns {Record<string, string[]>}
 */
export function schemaOf(text) {
  /** @type {Record<string, string[]>} */
  const out = {};
  const re = /create\s+(?:temporary\s+)?table\s+(?:if\s+not\s+exists\s+)?(`[^`]+`|[\w.]+)\s*\(/gi;
  let m;
  while ((m = re.exec(text))) {
    const name = m[1].replace(/`/g, '');
    let depth = 1;
    let i = re.lastIndex;
    let start = i;
    /** @type {string[]} */
    const parts = [];
    for (; i < text.length && depth > 0; i++) {
      const c = text[i];
      if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (c === "'") i = Math.max(i, text.indexOf("'", i + 1));
      if ((c === ',' && depth === 1) || depth === 0) {
        parts.push(text.slice(start, i));
        start = i + 1;
      }
      if (i < 0) break;
    }
    out[name] = parts
      .map((p) => p.replace(/--[^\n]*/g, '').trim())
      .filter((p) => p && !/^(watermark|primary|constraint|period)\b/i.test(p))
      .map((p) => (p.match(/^(`[^`]+`|\w+)/) || [''])[0].replace(/`/g, ''))
      .filter(Boolean);
  }
  return out;
}

/** The editor's language support for a script (its tables for completion). @param {string} text */
export function flinkSql(text) {
  return sql({ dialect: FlinkSQL, schema: schemaOf(text), upperCaseKeywords: true });
}
