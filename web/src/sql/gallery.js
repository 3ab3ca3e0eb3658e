// The gallery's SQL scripts: every scenarios/*.sql, bundled at build time, listed as
// `NAME.sql`. An entry is a scenario holding only its script (`sql`): the SQL tab reads it when
// it opens (sql/tab.js). Its title and description are the script's leading comment lines.
const files = import.meta.glob('../../../scenarios/*.sql', { query: '?raw', import: 'default', eager: true });

/** @returns {{ name: string, text: string, title: string, description: string, operator: string, valid: boolean }[]} */
export function sqlGallery() {
  return Object.entries(files).map(([path, text]) => {
    const name = path.replace(/^.*\//, '');
    const lead = [];
    for (const line of String(text).split('\n')) {
      const m = line.match(/^\s*--\s?(.*)$/);
      if (!m) break;
      lead.push(m[1]);
    }
    const title = lead[0] || name;
    const description = lead.slice(1).join(' ');
    return { name, text: JSON.stringify({ title, description, sql: text }), title, description, operator: 'flink_sql', valid: true };
  });
}
