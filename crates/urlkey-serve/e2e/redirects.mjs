// The Redirects view in Chromium: OLD uploaded as a file (a crawl export: CSV with a BOM,
// CRLF, a title column), NEW pasted; the proposals shown as the API gives them, counts that
// add up, the status filter, accept/reject by row and by status, and the exported MAP read
// back with urlkey's own CSV reader (the reader `RedirectMap` uses: `urlkey map
// --input-format csv --column source --keep-columns all`). Then 50,000 OLD rows against
// 50,000 NEW: the answer, the pages, a bulk decision and the export stay usable.
//
// Run by e2e.mjs (`redirectsChecks`), or alone against a running server:
//   node redirects.mjs BASE_URL URLKEY_BIN OUT_DIR
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const MARKUP = 'https://example.com/<img src=x onerror=alert(1)>';
// A crawl export of the old site: BOM, CRLF, quoted cells (a comma and quotes in a URL).
const OLD_ROWS = [
  ['http://www.example.com/About.html', 'About us'],
  ['https://example.com/a', 'A'],
  ['/relative/path', 'No scheme'],
  ['https://example.com/retired-page', 'Retired'],
  ['http://www.example.com/Shop/Blue,Widget?ref="x"', 'Blue widget'],
  [MARKUP, 'Markup'],
  ['http://www.example.com/Contact', 'Contact'],
];
const NEW_LINES = [
  'https://example.com/about.html',
  'https://example.com/a',
  'https://example.com/shop/blue,widget?ref="x"',
  'https://example.com/contact',
  'https://example.com/new-only',
];
const POLICY = 'webkey@1';
const SCALE = 50000;

function csvCell(s) {
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

export function oldCsv() {
  return '\ufeffAddress,Title\r\n' + OLD_ROWS.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

// The exported MAP read back by urlkey's CSV reader: [source, target, status, decision].
function readMap(bin, file) {
  const out = execFileSync(bin, ['map', '--quiet', '--input-format', 'csv', '--column', 'source',
    '--keep-columns', 'all', '--format', 'jsonl', file], { maxBuffer: 1 << 30, encoding: 'utf8' });
  return out.split('\n').filter((l) => l).map((l) => {
    const r = JSON.parse(l);
    return [r.observed, r.target, r['input:status'], r.decision];
  });
}

// The API's answer for the same request, outside the browser.
async function apiPropose(base, body) {
  const res = await fetch(new URL('/api/redirects/propose', base), {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error('propose answered ' + res.status + ': ' + (await res.text()).slice(0, 300));
  return res.json();
}

async function proposeInPage(page, timeout) {
  await page.evaluate(() => { delete document.documentElement.dataset.redirectsState; });
  await page.click('#rd-run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.documentElement.dataset.redirectsState), null, { timeout });
  return page.evaluate(() => document.documentElement.dataset.redirectsState);
}

function shownRows(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll('#rd-rows tr[data-index]')).map((tr) => ({
    line: Number(tr.dataset.line), status: tr.dataset.status, decision: tr.dataset.decision,
    source: tr.cells[1].querySelector('code') ? tr.cells[1].querySelector('code').textContent : '',
    target: tr.cells[3].querySelector('code.observed') ? tr.cells[3].querySelector('code.observed').textContent : null,
    evidence: Array.from(tr.cells[4].querySelectorAll('li code')).map((c) => c.textContent),
    buttons: tr.querySelectorAll('button').length,
  })));
}

async function filterStatus(page, status) {
  await page.check('input[name="rd-status"][value="' + status + '"]');
}

async function exportMap(page, file) {
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 60000 }),
    page.click('#rd-export'),
  ]);
  await download.saveAs(file);
  return readFileSync(file, 'utf8');
}

export async function redirectsChecks({ page, base, bin, outDir, check, step, timings }) {
  await step('redirects: the view', async () => {
    await page.goto(base, { waitUntil: 'load' });
    await page.click('#view-redirects');
    const v = await page.evaluate(() => ({
      shown: !document.getElementById('redirects-view').hidden,
      mapper: document.getElementById('mapper-view').hidden,
      review: document.querySelector('#redirects-view .review-required').textContent,
      policy: document.getElementById('rd-policy').value,
    }));
    check('redirects: the view opens, the Mapper hides', v.shown && v.mapper, JSON.stringify(v));
    check('redirects: MANUAL REVIEW REQUIRED shown', v.review.includes('MANUAL REVIEW REQUIRED'), v.review);
    check('redirects: a policy is chosen', v.policy !== '', v.policy);
  });

  const oldFile = join(outDir, 'redirects-old.csv');
  writeFileSync(oldFile, oldCsv());
  let api = null;
  await step('redirects: upload OLD, paste NEW, propose', async () => {
    await page.setInputFiles('#rd-old-file', oldFile);
    await page.waitForFunction(() => document.getElementById('rd-old-format').value === 'csv');
    const shape = await page.evaluate(() => ({
      column: document.getElementById('rd-old-column').value, title: document.getElementById('rd-old-title').value,
    }));
    check('redirects: the file\'s shape, URL column and title column found', shape.column === 'Address' && shape.title === 'Title', JSON.stringify(shape));
    await page.fill('#rd-new-text', NEW_LINES.join('\n'));
    await page.selectOption('#rd-policy', POLICY);
    const st = await proposeInPage(page, 60000);
    check('redirects: propose answers', st === 'done', await page.textContent('#rd-status'));
    api = await apiPropose(base, {
      policy: POLICY,
      old: { text: oldCsv(), input_format: 'csv', column: 'Address', title_column: 'Title' },
      new: { text: NEW_LINES.join('\n') },
    });
    const rows = await shownRows(page);
    const want = api.proposals.map((p) => ({ line: p.line, source: p.source, status: p.status, target: p.status === 'invalid' ? null : p.target,
      evidence: p.evidence.map((e) => e.kind) }));
    const got = rows.map((r) => ({ line: r.line, source: r.source, status: r.status, target: r.target, evidence: r.evidence }));
    check('redirects: one row per OLD record, in order, as the API says', JSON.stringify(got) === JSON.stringify(want),
      JSON.stringify(got) + ' vs ' + JSON.stringify(want));
    check('redirects: lines 2 to 8 of the upload', JSON.stringify(got.map((r) => r.line)) === '[2,3,4,5,6,7,8]', JSON.stringify(got.map((r) => r.line)));
    const sum = Object.values(api.counts).reduce((a, b) => a + b, 0);
    const shownCounts = await page.evaluate(() => Object.fromEntries(Array.from(document.querySelectorAll('#rd-counts dd'))
      .map((d) => [d.dataset.count, Number(d.textContent.replace(/,/g, ''))])));
    check('redirects: counts add up to the OLD records', sum === OLD_ROWS.length && shownCounts.records === OLD_ROWS.length &&
      ['served', 'same-key', 'candidate', 'none', 'invalid'].every((s) => shownCounts[s] === (api.counts[s] || 0)), JSON.stringify(shownCounts));
    const by = Object.fromEntries(got.map((r) => [r.source, r]));
    check('redirects: the same page under another spelling is same-key', by[OLD_ROWS[0][0]].status === 'same-key' &&
      by[OLD_ROWS[0][0]].target === NEW_LINES[0] && by[OLD_ROWS[4][0]].target === NEW_LINES[2], JSON.stringify(by));
    check('redirects: an exact URL is served, a relative one invalid', by['https://example.com/a'].status === 'served' &&
      by['/relative/path'].status === 'invalid', JSON.stringify(by));
    const markup = await page.evaluate(() => document.querySelectorAll('#rd-rows img').length);
    check('redirects: markup in a URL stays text', markup === 0 && by[MARKUP] !== undefined, String(markup));
  });

  await step('redirects: filter, accept and reject', async () => {
    await filterStatus(page, 'same-key');
    let rows = await shownRows(page);
    check('redirects: the status filter shows only that status', rows.length === (api.counts['same-key'] || 0) &&
      rows.every((r) => r.status === 'same-key'), JSON.stringify(rows));
    await page.click('#rd-accept-shown');
    rows = await shownRows(page);
    const ambiguous = api.proposals.filter((p) => p.status === 'same-key' && p.ambiguous).length;
    check('redirects: accept all same-key', rows.filter((r) => r.decision === 'accept').length === rows.length - ambiguous,
      JSON.stringify(rows));
    await filterStatus(page, 'all');
    rows = await shownRows(page);
    const served = rows.find((r) => r.status === 'served');
    check('redirects: a served row takes no decision', served && served.buttons === 0, JSON.stringify(served));
    // Reject the retired page; accept then take back the markup row's decision.
    const retired = rows.find((r) => r.source === 'https://example.com/retired-page');
    await page.click('#rd-rows tr[data-line="' + retired.line + '"] button.reject');
    const contact = rows.find((r) => r.source === 'http://www.example.com/Contact');
    await page.click('#rd-rows tr[data-line="' + contact.line + '"] button.reject');
    await page.click('#rd-rows tr[data-line="' + contact.line + '"] button.reject');
    rows = await shownRows(page);
    check('redirects: reject, and a second press takes it back',
      rows.find((r) => r.line === retired.line).decision === 'reject' && rows.find((r) => r.line === contact.line).decision === 'undecided',
      JSON.stringify(rows));
    await page.selectOption('#rd-decision-filter', 'undecided');
    rows = await shownRows(page);
    check('redirects: the decision filter', rows.every((r) => r.decision === 'undecided') && rows.some((r) => r.line === contact.line), JSON.stringify(rows));
    await page.selectOption('#rd-decision-filter', 'any');
  });

  await step('redirects: export the MAP and read it back', async () => {
    await page.selectOption('#rd-http-status', '308');
    const file = join(outDir, 'redirects-map.csv');
    const text = await exportMap(page, file);
    // Every same-key row was accepted, but Contact's decision was taken back.
    const decided = api.proposals.filter((p) => (p.status === 'same-key' && !p.ambiguous && p.source !== 'http://www.example.com/Contact') ||
      p.source === 'https://example.com/retired-page');
    const want = decided.map((p) => p.source === 'https://example.com/retired-page'
      ? [p.source, p.target || '', '308', 'reject'] : [p.source, p.target, '308', 'accept']);
    const got = readMap(bin, file);
    check('redirects: the exported MAP has exactly the decided rows, in OLD order', JSON.stringify(got) === JSON.stringify(want),
      JSON.stringify(got) + ' vs ' + JSON.stringify(want) + ' from ' + JSON.stringify(text));
    check('redirects: the MAP\'s header', text.startsWith('source,target,status,decision\n'), text.slice(0, 60));
    await page.screenshot({ path: join(outDir, 'redirects.png'), fullPage: true });
  });

  await step('redirects: a semicolon CSV\'s columns', async () => {
    const file = join(outDir, 'redirects-new-semicolon.csv');
    writeFileSync(file, 'Status Code;Address;Title 1\r\n200;https://example.com/a;A\r\n');
    await page.setInputFiles('#rd-new-file', file);
    await page.waitForFunction(() => document.getElementById('rd-new-format').value === 'csv');
    const shape = await page.evaluate(() => ({
      columns: Array.from(document.getElementById('rd-new-column').options).map((o) => o.value),
      column: document.getElementById('rd-new-column').value, title: document.getElementById('rd-new-title').value,
    }));
    check('redirects: a semicolon CSV\'s columns are offered', JSON.stringify(shape.columns) === '["Status Code","Address","Title 1"]' &&
      shape.column === 'Address' && shape.title === 'Title 1', JSON.stringify(shape));
    await page.click('#rd-new-clear');
    await page.selectOption('#rd-new-format', 'lines');
  });

  await step('redirects: a refusal is said', async () => {
    await page.fill('#rd-new-text', '');
    const st = await proposeInPage(page, 10000);
    check('redirects: an empty NEW is refused with words', st === 'error' && (await page.textContent('#rd-status')).includes('NEW'),
      await page.textContent('#rd-status'));
  });

  await step('redirects: 50,000 OLD rows', () => scaleCheck({ page, base, bin, outDir, check, timings }));
}

// OLD: 50,000 crawled URLs; NEW: the same pages after a migration (https, no www,
// lowercased), a tenth retired, and every hundredth served unchanged.
function scaleInputs() {
  const old = ['Address,Title'];
  const neu = ['Address,Title'];
  for (let i = 0; i < SCALE; i++) {
    const path = '/Section-' + (i % 50) + '/Page-' + i + '.html';
    if (i % 100 === 0) {
      old.push('https://example.com' + path.toLowerCase() + ',Page ' + i);
      neu.push('https://example.com' + path.toLowerCase() + ',Page ' + i);
    } else {
      old.push('http://www.example.com' + path + ',Page ' + i);
      if (i % 10 !== 3) neu.push('https://example.com' + path.toLowerCase() + ',Page ' + i);
    }
  }
  return { old: old.join('\n') + '\n', neu: neu.join('\n') + '\n' };
}

async function scaleCheck({ page, base, bin, outDir, check, timings }) {
  const { old, neu } = scaleInputs();
  const oldFile = join(outDir, 'redirects-old-50k.csv');
  const newFile = join(outDir, 'redirects-new-50k.csv');
  writeFileSync(oldFile, old);
  writeFileSync(newFile, neu);
  await page.goto(base, { waitUntil: 'load' });
  await page.click('#view-redirects');
  await page.setInputFiles('#rd-old-file', oldFile);
  await page.setInputFiles('#rd-new-file', newFile);
  await page.waitForFunction(() => document.getElementById('rd-new-format').value === 'csv' && document.getElementById('rd-new-column').value === 'Address');
  await page.selectOption('#rd-policy', POLICY);
  const t0 = Date.now();
  const st = await proposeInPage(page, 300000);
  timings.redirects_50k_ms = Date.now() - t0;
  check('redirects 50k: propose answers (' + timings.redirects_50k_ms + ' ms)', st === 'done', await page.textContent('#rd-status'));
  const info = await page.evaluate(() => ({
    rows: document.querySelectorAll('#rd-rows tr[data-index]').length,
    info: document.getElementById('rd-page-info').textContent,
    records: document.querySelector('#rd-counts [data-count="records"]').textContent,
  }));
  check('redirects 50k: one page of rows drawn, all counted', info.rows === 100 && info.records === '50,000' && info.info.includes('of 500'),
    JSON.stringify(info));
  let t = Date.now();
  await page.click('#rd-next');
  await page.waitForFunction(() => document.getElementById('rd-page-info').textContent.startsWith('Page 2 '));
  timings.redirects_50k_page_ms = Date.now() - t;
  const first = await page.evaluate(() => Number(document.querySelector('#rd-rows tr[data-index]').dataset.line));
  check('redirects 50k: the next page in input order (' + timings.redirects_50k_page_ms + ' ms)', first === 102, String(first));
  t = Date.now();
  await filterStatus(page, 'same-key');
  await page.click('#rd-accept-shown');
  timings.redirects_50k_accept_ms = Date.now() - t;
  const accepted = await page.evaluate(() => Number(document.getElementById('rd-decided').dataset.accepted));
  const sameKey = await page.evaluate(() => Number(document.querySelector('#rd-counts [data-count="same-key"]').textContent.replace(/,/g, '')));
  // Of 50,000: 500 served (i % 100 == 0), 5,000 retired (i % 10 == 3), 44,500 moved.
  check('redirects 50k: accept all same-key (' + timings.redirects_50k_accept_ms + ' ms)', sameKey === 44500 && accepted === sameKey, accepted + ' of ' + sameKey);
  t = Date.now();
  const file = join(outDir, 'redirects-map-50k.csv');
  await exportMap(page, file);
  timings.redirects_50k_export_ms = Date.now() - t;
  const got = readMap(bin, file);
  check('redirects 50k: the exported MAP has every accepted row (' + timings.redirects_50k_export_ms + ' ms)',
    got.length === accepted && got.every((r) => r[3] === 'accept' && r[1].startsWith('https://example.com/section-')) &&
    got[0][0] === 'http://www.example.com/Section-1/Page-1.html', got.length + ' ' + JSON.stringify(got[0]));
}

// Alone: node redirects.mjs BASE_URL URLKEY_BIN OUT_DIR
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [base, bin, outDir] = process.argv.slice(2);
  let passed = 0;
  let failed = 0;
  const timings = {};
  const check = (name, ok, detail) => {
    if (ok) { passed++; console.log('ok    ' + name); } else { failed++; console.log('FAIL  ' + name + (detail !== undefined ? ': ' + detail : '')); }
  };
  const step = async (name, fn) => {
    try { await fn(); } catch (e) { check(name, false, e && e.message ? e.message.split('\n')[0] : String(e)); }
  };
  const dir = mkdtempSync(join(tmpdir(), 'urlkey-e2e-redirects-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, acceptDownloads: true,
    viewport: { width: 1440, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  try {
    await redirectsChecks({ page, base, bin, outDir, check, step, timings });
    check('redirects: no console errors', errors.length === 0, errors.slice(0, 5).join(' | '));
  } finally {
    await context.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(timings));
  console.log(passed + ' passed, ' + failed + ' failed');
  process.exit(failed ? 1 : 0);
}
