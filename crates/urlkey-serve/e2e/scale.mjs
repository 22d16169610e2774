// The pages people read, at real sizes: a 50,000-citation ledger (3,025 keys, one with 386
// spellings, about a thousand merges to review) made at test time with `urlkey ledger
// ingest`, served by its own `urlkey serve` (with a small request limit, so the Mapper's
// refusal is tested without a 70 MB paste), and read in a 1400 px window.
//
// Checks: no page wider than the window (the review queue, the HTML report, the compare
// report, the Mapper); the queue paged by keys and by spellings; the report's first screen
// leads with the measures, the compare report's with the change; no command-line wording
// in either report; the Mapper refuses an over-limit paste without sending a request and
// shows progress, pages and the real time for a large one.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const WIDTH = 1400;
const HEIGHT = 900;
const KEYS = 3025;
const OBSERVATIONS = 50000;
const BIG_KEY_SPELLINGS = 386;
// The scale server's request limit: 8 MiB.
const MAX_BODY = 8 * 1024 * 1024;

// The generated ledger's CSV: key 0 has 386 spellings over 400 observations; key i has
// 1 + 2 * (i % 6) spellings (tracking parameters, fragments and, for even i, a trailing
// slash: the risky rule that makes a merge to review); every 50th key has a 260-character
// path segment with nothing to break a line at. Two collections, a week apart.
export function ledgerCsv() {
  const lines = ['observation_id,prompt_id,prompt_version,answer_system,market,collection,run_timestamp,observed_url'];
  const slug = (i) => (i % 50 === 3 ? 'a-very-long-unbroken-slug-' + 'x'.repeat(240) + i : 'article-' + i);
  const url = (i, v) => {
    const base = 'https://news' + (i % 97) + '.example' + (i % 7) + '.com/section/' + slug(i);
    if (v === 0) return base;
    if (v === 1 && i % 2 === 0) return base + '/';
    return base + '?utm_source=n' + v + '&utm_medium=email' + (v % 3 === 0 ? '#part-' + v : '');
  };
  let n = 0;
  const push = (i, v) => {
    const day = n % 2 ? '08' : '01';
    lines.push(['o' + n, 'p-' + (n % 300), n % 3 ? 'ps-2' : 'ps-1', n % 2 ? 'assistant-a' : 'assistant-b',
      n % 5 ? 'us' : 'de', 'c-2026-11-' + day, '2026-11-' + day + 'T09:' + String(n % 60).padStart(2, '0') + ':00Z',
      url(i, v)].join(','));
    n++;
  };
  for (let j = 0; j < 400; j++) push(0, j % BIG_KEY_SPELLINGS);
  for (let m = 0; n < OBSERVATIONS; m++) {
    const i = 1 + (m % (KEYS - 1));
    push(i, Math.floor(m / (KEYS - 1)) % (1 + (i % 6) * 2));
  }
  return lines.join('\n') + '\n';
}

// Starts `urlkey serve` on a free loopback port; resolves to { url, stop }.
function serve(bin, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['serve', '--addr', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error('no server URL in 20 s: ' + log)); }, 20000);
    const read = (d) => {
      log += d;
      const m = log.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[0], stop: () => child.kill() });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error('server exited ' + code + ': ' + log)); });
  });
}

// Every `--word` that reads as a flag (a punycode host's `xn--` does not).
const flags = (html) => html.match(/(?<![A-Za-z0-9])--[a-z][a-z-]*/g) || [];

// The document's width and height, and the window's.
const size = (page) => page.evaluate(() => ({
  width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight, window: window.innerWidth,
}));

export async function scaleChecks({ context, bin, outDir, check, step, timings }) {
  const t0 = Date.now();
  const csv = join(outDir, 'ledger-50k.csv');
  const db = join(outDir, 'ledger-50k.sqlite');
  for (const f of [db, db + '-wal', db + '-shm']) rmSync(f, { force: true });
  writeFileSync(csv, ledgerCsv());
  execFileSync(bin, ['ledger', '--db', db, 'ingest', csv], { stdio: 'ignore' });
  const merges = JSON.parse(execFileSync(bin, ['ledger', '--db', db, 'merges', '--format', 'json'], { maxBuffer: 1 << 28 }).toString());
  const toReview = merges.filter((m) => m.to_review).length;
  check('scale: a 50,000-citation ledger (3,025 keys, ' + merges.length + ' merged, ' + toReview + ' to review)',
    merges.length > 2000 && toReview > 900, merges.length + ' merged, ' + toReview + ' to review');
  timings.scale_ledger_ms = Date.now() - t0;

  const server = await serve(bin, ['--ledger', db, '--max-body-bytes', String(MAX_BODY)]);
  const page = await context.newPage();
  await page.setViewportSize({ width: WIDTH, height: HEIGHT });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  const bigKey = 'https://news0.example0.com/section/article-0';
  try {
    await step('scale: review queue', async () => {
      const t = Date.now();
      await page.goto(server.url + 'ledger', { waitUntil: 'load' });
      timings.scale_queue_page_ms = Date.now() - t;
      const s = await size(page);
      check('scale: the ledger page fits the 1400 px window', s.width <= WIDTH, JSON.stringify(s));
      const q = await page.$eval('#review-queue nav.queue-pages', (n) => ({ ...n.dataset, text: n.textContent }));
      const articles = await page.$$eval('#review-queue article', (as) => as.map((a) => ({
        key: a.dataset.key, spellings: Number(a.dataset.spellings), review: a.classList.contains('to-review'),
        rows: a.querySelectorAll('table.variants.first tbody tr').length,
        open: a.querySelector('details.all-spellings') ? a.querySelector('details.all-spellings').open : null,
      })));
      check('scale: the queue is paged by keys (50 of ' + merges.length + ')', articles.length === 50 &&
        Number(q.total) === merges.length && Number(q.pages) === Math.ceil(merges.length / 50) && q.page === '1' &&
        q.text.startsWith('Keys 1–50 of '), JSON.stringify(q) + ' ' + articles.length);
      check('scale: merges to review first, in the order of `urlkey ledger merges`',
        JSON.stringify(articles.map((a) => a.key)) === JSON.stringify(merges.slice(0, 50).map((m) => m.normalized_key)) &&
        articles.every((a) => a.review), JSON.stringify(articles.slice(0, 3)));
      const big = articles.find((a) => a.key === bigKey);
      check('scale: 386 spellings folded to 5 rows', big && big.spellings === BIG_KEY_SPELLINGS && big.rows === 5 && big.open === false,
        JSON.stringify(big));
      check('scale: every key shows at most 5 spellings unfolded', articles.every((a) => a.rows === Math.min(5, a.spellings)),
        JSON.stringify(articles.filter((a) => a.rows > 5)));
      await page.screenshot({ path: join(outDir, 'scale-queue.png') });

      // "show all 386 spellings": the first 50, then the next page of them.
      const art = page.locator('#review-queue article[data-key="' + bigKey + '"]');
      await art.locator('details.all-spellings summary').click();
      const shown = await art.locator('details.all-spellings table tbody tr').count();
      const pages = await art.locator('.spelling-pages').getAttribute('data-pages');
      check('scale: "show all" opens a page of 50 spellings (of 8 pages)', shown === 50 && pages === '8', shown + ' rows, ' + pages + ' pages');
      await art.getByRole('link', { name: 'next spellings' }).click();
      await page.waitForLoadState('load');
      const next = await page.$eval('#review-queue article[data-key="' + bigKey + '"] details.all-spellings', (d) => ({
        open: d.open, first: d.querySelector('tbody tr th').textContent, rows: d.querySelectorAll('tbody tr').length,
        info: d.querySelector('.spelling-pages').textContent,
      }));
      check('scale: the next page of spellings (51–100, still open)', next.open && next.first.startsWith('variant 51 ') &&
        next.rows === 50 && next.info.startsWith('spellings 51–100 of 386'), JSON.stringify(next));
      const s2 = await size(page);
      check('scale: the open spelling list fits the window', s2.width <= WIDTH, JSON.stringify(s2));
      await page.locator('#review-queue article[data-key="' + bigKey + '"]').screenshot({ path: join(outDir, 'scale-spellings.png') });

      // The next page of keys.
      await page.locator('#review-queue nav.queue-pages').first().getByRole('link', { name: 'next keys' }).click();
      await page.waitForLoadState('load');
      const p2 = await page.$eval('#review-queue nav.queue-pages', (n) => ({ ...n.dataset, text: n.textContent }));
      const keys2 = await page.$$eval('#review-queue article', (as) => as.map((a) => a.dataset.key));
      check('scale: the next page of keys (51–100)', p2.page === '2' && p2.text.startsWith('Keys 51–100 of ') &&
        JSON.stringify(keys2) === JSON.stringify(merges.slice(50, 100).map((m) => m.normalized_key)), JSON.stringify(p2));
      const s3 = await size(page);
      check('scale: page 2 of the queue fits the window', s3.width <= WIDTH, JSON.stringify(s3));
    });

    await step('scale: HTML report', async () => {
      const file = join(outDir, 'scale-report.html');
      execFileSync(bin, ['ledger', '--db', db, 'report', '--format', 'html', '-o', file]);
      const html = readFileSync(file, 'utf8');
      check('scale: no command-line wording in the HTML report', flags(html).length === 0, flags(html).slice(0, 5).join(' '));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const s = await size(page);
      check('scale: the HTML report fits the 1400 px window', s.width <= WIDTH, JSON.stringify(s));
      const lead = await page.evaluate(() => {
        const l = document.getElementById('lead');
        const first = document.querySelector('table');
        return {
          top: l ? l.getBoundingClientRect().top : null,
          bottom: l ? l.getBoundingClientRect().bottom : null,
          observations: (document.querySelector('[data-headline="observations"]') || {}).textContent,
          keys: (document.querySelector('[data-headline="unique_keys"]') || {}).textContent,
          review: (document.querySelector('[data-headline="merges_to_review"]') || {}).textContent,
          firstTable: first ? first.className : null,
        };
      });
      check('scale: the report\'s first screen leads with the measures', lead.top !== null && lead.bottom < HEIGHT &&
        lead.observations === '50,000' && lead.keys === '3,025' && lead.review === toReview.toLocaleString('en-US') &&
        lead.firstTable === 'measures', JSON.stringify(lead));
      await page.screenshot({ path: join(outDir, 'scale-report.png') });
    });

    await step('scale: compare report', async () => {
      const file = join(outDir, 'scale-compare.html');
      execFileSync(bin, ['ledger', '--db', db, 'report', '--format', 'html', '--compare', 'c-2026-11-01', 'c-2026-11-08', '-o', file]);
      const html = readFileSync(file, 'utf8');
      check('scale: no command-line wording in the compare report', flags(html).length === 0, flags(html).slice(0, 5).join(' '));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const s = await size(page);
      check('scale: the compare report fits the 1400 px window', s.width <= WIDTH, JSON.stringify(s));
      const change = await page.evaluate(() => {
        const c = document.getElementById('change');
        return { top: c ? c.getBoundingClientRect().top : null, gone: (document.querySelector('[data-measure="change_keys_gone"]') || {}).textContent };
      });
      check('scale: the compare report\'s first screen leads with the change', change.top !== null && change.top < HEIGHT / 3 &&
        Number(change.gone) > 0, JSON.stringify(change));
      await page.screenshot({ path: join(outDir, 'scale-compare.png') });
      // The same comparison on the ledger page.
      await page.goto(server.url + 'ledger?compare=c-2026-11-01&compare=c-2026-11-08', { waitUntil: 'load' });
      const s2 = await size(page);
      check('scale: the ledger page\'s comparison fits the window', s2.width <= WIDTH, JSON.stringify(s2));
    });

    await step('scale: Mapper', async () => {
      await page.goto(server.url, { waitUntil: 'load' });
      await page.waitForFunction(() => document.querySelectorAll('#policy option').length >= 2);
      const mapRequests = [];
      page.on('request', (r) => { if (r.url().includes('/api/map')) mapRequests.push(r.url()); });
      // Every status line the page shows, in order.
      await page.evaluate(() => {
        window.__statuses = [];
        new MutationObserver(() => window.__statuses.push(document.getElementById('status').textContent))
          .observe(document.getElementById('status'), { childList: true, characterData: true, subtree: true });
      });
      // A paste the browser would take from the clipboard: `lines` URLs (fewer when they
      // reach `chars` characters), every 50th with a long unbroken path.
      const paste = (lines, chars = Infinity) => page.evaluate(([n, max]) => {
        const parts = [];
        let length = 0;
        for (let i = 0; i < n && length < max; i++) {
          parts.push(i % 50 === 3 ? 'https://news' + (i % 97) + '.example.com/' + 'y'.repeat(300) + '?utm_source=' + i
            : 'https://news' + (i % 97) + '.example.com/section/article-' + (i % 20000) + '?utm_source=n' + (i % 7) + '&id=' + i);
          length += parts[parts.length - 1].length + 1;
        }
        const text = parts.join('\n') + '\n';
        const dt = new DataTransfer();
        dt.setData('text/plain', text);
        const ta = document.getElementById('text');
        ta.focus();
        ta.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
        return { bytes: new Blob([text]).size, chars: text.length, inTextArea: ta.value.length };
      }, [lines, chars]);

      const over = await paste(150000);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.waitForFunction(() => document.documentElement.dataset.mapState === 'error', null, { timeout: 20000 });
      const refused = await page.evaluate(() => ({
        refused: document.documentElement.dataset.mapRefused, status: document.getElementById('status').textContent,
      }));
      check('scale: an over-limit paste (' + (over.bytes / 1048576).toFixed(1) + ' MB > 8 MB) is refused before sending',
        over.bytes > MAX_BODY && refused.refused === 'too-large' && refused.status.includes('at most 8.0 MB') &&
        mapRequests.length === 0, JSON.stringify(refused) + ' requests: ' + mapRequests.length);
      check('scale: a large paste stays out of the text area', over.inTextArea < 1024 * 1024, over.inTextArea);
      // Under the limit as text, over it as the JSON request (each newline sent as `\n`):
      // measured exactly, and refused too.
      const near = await paste(1000000, MAX_BODY - 100000);
      await page.evaluate(() => { delete document.documentElement.dataset.mapState; });
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.waitForFunction(() => document.documentElement.dataset.mapState === 'error', null, { timeout: 20000 });
      const nearStatus = await page.textContent('#status');
      check('scale: a paste under the limit whose request is over it is refused before sending',
        near.chars < MAX_BODY && /^Not sent\. The request is 8\.\d MB;/.test(nearStatus) &&
        !nearStatus.includes('more than') && mapRequests.length === 0, nearStatus + ' requests: ' + mapRequests.length);

      const large = await paste(60000);
      await page.evaluate(() => { window.__statuses.length = 0; delete document.documentElement.dataset.mapState; });
      const t = Date.now();
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.waitForFunction(() => ['done', 'error'].includes(document.documentElement.dataset.mapState), null, { timeout: 120000 });
      const wall = Date.now() - t;
      timings.scale_paste_run_ms = wall;
      const got = await page.evaluate(() => ({
        state: document.documentElement.dataset.mapState, ms: Number(document.documentElement.dataset.mapMs),
        statuses: window.__statuses.slice(), status: document.getElementById('status').textContent,
        rows: document.querySelectorAll('#rows tr.record').length, info: document.getElementById('page-info').textContent,
        records: document.getElementById('count-records').textContent,
      }));
      check('scale: a large paste (' + (large.bytes / 1048576).toFixed(1) + ' MB) is mapped and shown a page at a time',
        got.state === 'done' && got.records === '60,000' && got.rows === 100 && /^Page 1 of 600 /.test(got.info),
        JSON.stringify({ ...got, statuses: undefined }));
      check('scale: the Mapper shows its progress (sending, server, drawing)',
        got.statuses.some((s) => /sending [\d.]+ MB of [\d.]+ MB/.test(s)) && got.statuses.some((s) => /the server is mapping it/.test(s)) &&
        got.statuses.some((s) => /drawing the page/.test(s)), JSON.stringify(got.statuses.slice(0, 6)));
      // The time stated is the time waited: from the click to the drawn page (the
      // browser's clock against this script's, which also polls: within 1 s or 25%).
      check('scale: the Mapper states the real time (' + got.ms + ' ms stated, ' + wall + ' ms waited)',
        got.ms > 0 && got.ms <= wall + 50 && wall - got.ms < Math.max(1000, wall / 4) && got.status.startsWith('Done: 60,000 records'),
        got.status);
      const s = await size(page);
      check('scale: the Mapper page fits the 1400 px window', s.width <= WIDTH, JSON.stringify(s));
      await page.screenshot({ path: join(outDir, 'scale-mapper.png') });
    });
    check('scale: no console errors', errors.length === 0, errors.slice(0, 5).join(' | '));
  } finally {
    await page.close().catch(() => {});
    server.stop();
  }
  timings.scale_total_ms = Date.now() - t0;
  console.log('scale checks: ' + timings.scale_total_ms + ' ms (ledger ' + timings.scale_ledger_ms + ' ms)');
}
