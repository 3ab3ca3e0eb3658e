// Reading and writing scenario settings by path ("job.window.size", "streams.0.watermark.delay").

export function getPath(obj, path) {
  let o = obj;
  for (const k of path.split('.')) {
    if (o === null || o === undefined || typeof o !== 'object') return undefined;
    o = o[k];
  }
  return o;
}

/** Sets a value; `undefined` deletes it, and objects left empty are removed (but not streams). */
export function setPath(obj, path, value) {
  const keys = path.split('.');
  const chain = [obj];
  let o = obj;
  for (let i = 0; i < keys.length - 1; i++) {
    const k = keys[i];
    if (o[k] === null || typeof o[k] !== 'object') {
      if (value === undefined) return;
      o[k] = {};
    }
    o = o[k];
    chain.push(o);
  }
  const last = keys[keys.length - 1];
  if (value === undefined) delete o[last];
  else o[last] = value;
  // Prune empty objects (not inside streams: an empty `watermark` there is meaningful).
  if (keys[0] === 'streams') return;
  for (let i = keys.length - 2; i >= 1; i--) {
    const parent = chain[i];
    const child = chain[i + 1];
    if (Array.isArray(parent) || Array.isArray(child)) break;
    if (Object.keys(child).length === 0) delete parent[keys[i]];
    else break;
  }
  if (keys.length >= 2 && chain[1] && !Array.isArray(chain[1]) && Object.keys(chain[1]).length === 0) {
    delete obj[keys[0]];
  }
}

/** Column names of a stream spec ("n:int" → "n"). */
export function columnNames(stream) {
  return (stream && Array.isArray(stream.columns) ? stream.columns : []).map((c) => String(c).split(':')[0].trim()).filter(Boolean);
}
