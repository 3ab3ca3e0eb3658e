// @ts-check
// Keeping a script in step with edits made outside the SQL editor (the row editors, the
// controls): the script is split into statements, and only the statements whose meaning
// changed are replaced by the printer's (`scenario_to_sql`); every other statement keeps the
// user's text, comments and layout exactly.

/**
 * Splits a script into statements, each with its leading comments and blank lines and its `;`.
 * Quotes, backquotes and comments are skipped (a `;` in them ends nothing).
 * @param {string} text @returns {{ text: string, key: string }[]}
 */
export function splitStatements(text) {
  /** @type {{ text: string, key: string }[]} */
  const out = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '`' || c === '"') {
      const j = text.indexOf(c, i + 1);
      i = j < 0 ? text.length : j;
    } else if (c === '-' && text[i + 1] === '-') {
      const j = text.indexOf('\n', i);
      i = j < 0 ? text.length : j;
    } else if (c === '/' && text[i + 1] === '*') {
      const j = text.indexOf('*/', i + 2);
      i = j < 0 ? text.length : j + 1;
    } else if (c === ';') {
      out.push(stmt(text.slice(start, i + 1)));
      start = i + 1;
    }
  }
  if (text.slice(start).trim()) out.push(stmt(text.slice(start)));
  else if (out.length && start < text.length) out[out.length - 1].text += text.slice(start);
  return out;
}

/** The statement's body without its leading comments and blanks. @param {string} s */
export function body(s) {
  return s.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/, '');
}

/** @param {string} s */
function stmt(s) {
  const b = body(s);
  let m;
  const name = (/** @type {string} */ n) => n.replace(/`/g, '').toLowerCase();
  if ((m = b.match(/^create\s+(?:temporary\s+)?table\s+(?:if\s+not\s+exists\s+)?(`[^`]+`|[\w.]+)/i))) return { text: s, key: `create:${name(m[1])}` };
  if ((m = b.match(/^insert\s+into\s+(`[^`]+`|[\w.]+)\s+values\b/i))) return { text: s, key: `values:${name(m[1])}` };
  if ((m = b.match(/^set\s+'([^']+)'/i))) return { text: s, key: `set:${m[1]}` };
  if (/^(select|insert|with)\b/i.test(b)) return { text: s, key: 'query' };
  return { text: s, key: `other:${b.slice(0, 40)}` };
}

/**
 * The user's script with the statements of the parts that changed replaced by the printed
 * script's. `changed(key)` says whether a statement's part differs between the script and the
 * scenario (a table's rows, a table's definition, the job).
 * @param {string} user @param {string} printed @param {(key: string) => boolean} changed
 */
export function mergeScript(user, printed, changed) {
  const mine = splitStatements(user);
  const theirs = splitStatements(printed);
  const byKey = new Map(theirs.map((s) => [s.key, s]));
  const have = new Set(mine.map((s) => s.key));
  /** @type {string[]} */
  const out = [];
  let q = -1;
  for (const s of mine) {
    const t = byKey.get(s.key);
    if (s.key === 'query' && q < 0) q = out.length;
    if (!changed(s.key)) out.push(s.text);
    else if (t) out.push(s.text.slice(0, s.text.length - body(s.text).length) + body(t.text));
    // a changed statement the printer no longer writes (a SET back to its default) goes
  }
  // Statements the printer writes and the script lacks (a new SET) go before the query.
  const added = theirs.filter((t) => !have.has(t.key) && changed(t.key)).map((t) => `\n${body(t.text)}`);
  if (added.length) out.splice(q < 0 ? out.length : q, 0, ...added);
  return out.join('');
}
