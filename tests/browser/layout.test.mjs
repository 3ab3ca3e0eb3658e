// Layout (issue 11): from a phone (360 px) to a wide screen, no element is wider than the page
// (wide tables and the timeline scroll inside their panel), and an embed in a docs column
// (600–800 px) shows its panels without clipping. A screenshot of each width is kept in
// tests/browser/screenshots/ (not committed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, openPage, ROOT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'tests/browser/screenshots');
let env;
before(async () => {
  env = await setup();
  fs.mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await env?.close();
});

/** Elements reaching past the viewport that are not inside a box that scrolls (or clips) them. */
const overflowing = (page) =>
  page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const out = [];
    for (const e of document.querySelectorAll('body *')) {
      const b = e.getBoundingClientRect();
      if ((b.width === 0 && b.height === 0) || (b.right <= vw + 0.5 && b.left >= -0.5)) continue;
      let p = e.parentElement;
      let contained = false;
      for (; p && p !== document.body; p = p.parentElement) {
        const ox = getComputedStyle(p).overflowX;
        if ((ox === 'auto' || ox === 'scroll' || ox === 'hidden') && p.getBoundingClientRect().right <= vw + 0.5) {
          contained = true;
          break;
        }
      }
      if (!contained) out.push(`${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.classList.length ? `.${[...e.classList].join('.')}` : ''} [${Math.round(b.left)}, ${Math.round(b.right)}]`);
    }
    return { vw, scrollWidth: document.documentElement.scrollWidth, out: out.slice(0, 10) };
  });

for (const width of [360, 768, 1400]) {
  test(`${width} px: no element wider than the page`, async () => {
    for (const [name, url] of [
      ['page', ''],
      ['gallery-agg', '#scenario=agg-parallel-watermark'],
    ]) {
      const { page, context, problems } = await openPage(env, url, { width, height: 900 });
      await page.locator('[data-panel="timeline"]').scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      const r = await overflowing(page);
      assert.equal(r.scrollWidth, r.vw, `${name} at ${width}: the page scrolls sideways (${r.out.join('; ')})`);
      assert.deepEqual(r.out, [], `${name} at ${width}`);
      if (name === 'page') await page.screenshot({ path: path.join(SHOTS, `page-${width}.png`), fullPage: true });
      assert.deepEqual(problems, []);
      await context.close();
    }
  });
}

for (const width of [600, 800]) {
  test(`an embed in a ${width} px docs column shows its panels without clipping`, async () => {
    const { page, context, problems } = await openPage(env, '?embed&panels=playback,streams,outputs,late,timeline', { width, height: 700 });
    for (const p of ['playback', 'streams', 'outputs', 'late', 'timeline']) assert.equal(await page.isVisible(`[data-panel="${p}"]`), true, p);
    const r = await overflowing(page);
    assert.equal(r.scrollWidth, r.vw, `the embed scrolls sideways (${r.out.join('; ')})`);
    assert.deepEqual(r.out, []);
    await page.screenshot({ path: path.join(SHOTS, `embed-${width}.png`), fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });
}
