// End-to-end test of `urlkey serve` in Debian's headless Chromium, driven by playwright-core.
// Usage: node e2e.mjs BASE_URL URLKEY_BIN OUT_DIR BIG_FILE
// Prints one line per check and writes OUT_DIR/e2e-result.json ({passed, failed, ...}).
import { chromium } from 'playwright-core';
import { execFileSync, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaleChecks } from './scale.mjs';
import { redirectsChecks } from './redirects.mjs';

const [base, bin, outDir, bigFile] = process.argv.slice(2);
if (!base || !bin || !outDir) {
  console.error('usage: node e2e.mjs BASE_URL URLKEY_BIN OUT_DIR [BIG_FILE]');
  process.exit(2);
}
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SAMPLE_LINES = [
  'HTTP://Example.com:80/a//b?utm_source=x&id=7',
  '/main/scripts.html?script=One',
  '/main/scripts.html?script=Two',
  '/x?a=1&b=2',
  '/x?b=2&a=1',
  'javascript:alert(1)',
];
const NOTICE = 'No URL is fetched. Every row requires manual review.';
// citation@1 keeps `www.` and the path's case, webkey@1 drops both: citation@1 -> webkey@1
// merges lines 1-2 and 3-4 (rules registrable-domain, lowercase-path), the reverse splits
// them; line 5 only changes its key; line 6 is invalid under citation@1 only.
const DIFF_LINES = [
  'https://www.example.com/A',
  'https://example.com/a',
  'https://example.com/Docs?utm_source=x',
  'https://www.example.com/docs',
  'https://example.org/same',
  'javascript:alert(1)',
];

let passed = 0;
let failed = 0;
const timings = {};

function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log('ok    ' + name);
  } else {
    failed++;
    console.log('FAIL  ' + name + (detail !== undefined ? ': ' + detail : ''));
  }
}

async function step(name, fn) {
  try {
    await fn();
  } catch (e) {
    check(name, false, e && e.message ? e.message.split('\n')[0] : String(e));
  }
}

// The CSV `urlkey map --format csv` writes for a file.
function cliCsv(file, extra = []) {
  return execFileSync(bin, ['map', '--format', 'csv', '--quiet', ...extra, file], {
    maxBuffer: 1 << 30,
  });
}

// `urlkey explain --format json` (exit 0 or 1 are both answers, so no throw on 1).
function cliExplain(policy, inputs) {
  const r = spawnSync(bin, ['explain', '--format', 'json', '--policy', policy, ...inputs], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error('urlkey explain exited ' + r.status + ': ' + r.stderr);
  return JSON.parse(r.stdout);
}

// `urlkey diff --format json` (exit 0: the sides do not differ, 1: they do; both answers).
function cliDiff(from, to, file) {
  const r = spawnSync(bin, ['diff', '--quiet', '--format', 'json', '--from', from, '--to', to, file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0 && r.status !== 1) throw new Error('urlkey diff exited ' + r.status + ': ' + r.stderr);
  const report = JSON.parse(r.stdout);
  if (r.status !== (report.records > report.unchanged + report.invalid_both ? 1 : 0)) {
    throw new Error('urlkey diff exited ' + r.status + ' for a report that ' + (r.status ? 'does not differ' : 'differs'));
  }
  return report;
}

// Waits for a view's run to finish: document.documentElement.dataset[name] is `done` or
// `error` (the page sets it to `running` when the run starts; the caller clears it first).
async function waitState(page, name, timeout = 30000) {
  await page.waitForFunction((n) => ['done', 'error'].includes(document.documentElement.dataset[n]), name, { timeout });
  return page.evaluate((n) => document.documentElement.dataset[n], name);
}

async function explainInPage(page, policy, inputs) {
  await page.evaluate(() => { delete document.documentElement.dataset.compareState; });
  await page.selectOption('#compare-policy', policy);
  await page.fill('#compare-text', inputs.join('\n') + '\n');
  await page.getByRole('button', { name: 'Explain', exact: true }).click();
  return waitState(page, 'compareState');
}

// The compare table as shown: the verdict, each row's cells by input, the rule rows.
async function shownExplanation(page) {
  return page.evaluate(() => {
    const cells = (sel) => Array.from(document.querySelectorAll(sel + ' td')).map((td) => td.textContent);
    const differs = document.querySelector('#compare-table tr[data-row="differs"]');
    return {
      same: document.getElementById('compare-verdict').dataset.sameKey,
      inputs: cells('#compare-table tr[data-row="input"]'),
      keys: cells('#compare-table tr[data-row="key"]'),
      rules: Array.from(document.querySelectorAll('#compare-table tr[data-rule]')).map((tr) => ({
        rule: tr.dataset.rule, cells: Array.from(tr.cells).slice(1).map((td) => td.textContent),
      })),
      differs: differs ? { component: differs.dataset.component, values: Array.from(differs.cells).slice(1).map((td) => td.textContent) } : null,
      under: Array.from(document.querySelectorAll('#compare-same-under li')).map((li) => li.textContent),
    };
  });
}

async function diffInPage(page, from, to) {
  await page.evaluate(() => { delete document.documentElement.dataset.diffState; });
  await page.selectOption('#diff-from', from);
  await page.selectOption('#diff-to', to);
  await page.getByRole('button', { name: 'Diff policies', exact: true }).click();
  return waitState(page, 'diffState');
}

// The policy-change report as shown: the counts and each merge and split.
async function shownDiff(page) {
  return page.evaluate(() => {
    const counts = {};
    for (const dd of document.querySelectorAll('#diff-counts dd[data-count]')) {
      counts[dd.dataset.count] = Number(dd.textContent.replace(/,/g, ''));
    }
    const groups = (id) => Array.from(document.querySelectorAll('#' + id + ' article.diff-group')).map((a) => ({
      key: a.dataset.key,
      keys: Array.from(a.querySelectorAll('.group-keys li')).map((li) => li.textContent),
      records: Number(a.dataset.records),
      rules: Array.from(a.querySelectorAll('.group-rules code')).map((c) => c.textContent),
      lines: Array.from(a.querySelectorAll('table tbody tr')).map((tr) => Number(tr.cells[0].textContent)),
    }));
    return { counts, merges: groups('diff-merges'), splits: groups('diff-splits') };
  });
}

// The same fields from `urlkey diff --format json`.
function expectedDiff(r) {
  const groups = (gs) => gs.slice(0, 50).map((g) => ({
    key: g.key, keys: g.keys, records: g.records, rules: g.rules, lines: g.examples.map((e) => e.line),
  }));
  return {
    counts: {
      records: r.records, keys_from: r.keys_from, keys_to: r.keys_to, merges: r.merges.length,
      splits: r.splits.length, changed: r.changed.records, invalid_from_only: r.invalid_from_only.records,
      invalid_to_only: r.invalid_to_only.records, invalid_both: r.invalid_both,
    },
    merges: groups(r.merges),
    splits: groups(r.splits),
  };
}

async function waitDone(page, timeout = 60000) {
  await page.waitForFunction(() => document.documentElement.dataset.mapState === 'done' ||
    document.documentElement.dataset.mapState === 'error', null, { timeout });
  return page.evaluate(() => document.documentElement.dataset.mapState);
}

const userDataDir = mkdtempSync(join(tmpdir(), 'urlkey-e2e-chromium-'));
let context;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1440, height: 1000 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      // A DNS-rebinding page, simulated: this name resolves to the server's loopback address.
      '--host-resolver-rules=MAP rebind.example 127.0.0.1',
    ],
  });
} catch (e) {
  check('chromium starts', false, e.message.split('\n')[0]);
  writeFileSync(join(outDir, 'e2e-result.json'), JSON.stringify({ passed, failed, timings }));
  process.exit(1);
}
check('chromium starts', true);

const page = context.pages()[0] || await context.newPage();
const foreign = [];
const consoleErrors = [];
page.on('request', (r) => {
  const u = r.url();
  if (!u.startsWith(base) && !u.startsWith('blob:') && !u.startsWith('data:')) foreign.push(u);
});
page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
page.on('pageerror', (e) => consoleErrors.push(String(e)));

const sampleFile = join(outDir, 'sample.txt');

try {
  await step('page loads', async () => {
    const res = await page.goto(base, { waitUntil: 'load' });
    check('page loads', res.ok(), res.status());
    const csp = res.headers()['content-security-policy'] || '';
    check('strict CSP header', csp.includes("default-src 'self'") && csp.includes("frame-ancestors 'none'"), csp);
  });

  await step('notice always visible', async () => {
    const notice = page.locator('#notice');
    check('notice always visible', (await notice.isVisible()) && (await notice.textContent()).trim() === NOTICE,
      await notice.textContent());
  });

  await step('policies listed with descriptions', async () => {
    await page.waitForFunction(() => document.querySelectorAll('#policy option').length >= 2);
    const ids = await page.$$eval('#policy option', (os) => os.map((o) => o.value));
    const desc = await page.textContent('#policy-desc');
    check('policies listed with descriptions', ids.includes('mapper@1') &&
      (await page.inputValue('#policy')) === 'mapper@1' && desc.includes('Legacy URL Mapper'), ids.join(','));
  });

  await step('every control has a label', async () => {
    const unlabeled = await page.$$eval('textarea, select, input', (els) =>
      els.filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map((e) => e.id || e.name));
    check('every control has a label', unlabeled.length === 0, unlabeled.join(','));
  });

  await step('load sample and run', async () => {
    await page.getByRole('button', { name: 'Load sample' }).click();
    const st = await waitDone(page);
    check('load sample and run', st === 'done', st + ' ' + (await page.textContent('#status')));
    writeFileSync(sampleFile, await page.inputValue('#text'));
  });

  await step('sample text is seed 000', async () => {
    check('sample text is seed 000', readFileSync(sampleFile, 'utf8') === SAMPLE_LINES.join('\n') + '\n');
  });

  await step('summary counts', async () => {
    const counts = {};
    for (const k of ['records', 'valid', 'invalid', 'duplicate-groups', 'review-groups']) {
      counts[k] = (await page.textContent('#count-' + k)).trim();
    }
    const want = { records: '6', valid: '5', invalid: '1', 'duplicate-groups': '1', 'review-groups': '1' };
    check('summary counts', JSON.stringify(counts) === JSON.stringify(want), JSON.stringify(counts));
  });

  await step('classifications shown', async () => {
    const shown = await page.$$eval('#rows tr.record', (trs) =>
      trs.map((tr) => tr.dataset.line + ':' + tr.querySelector('.badge').textContent));
    const want = ['1:unique', '2:review', '3:review', '4:duplicate', '5:duplicate', '6:invalid'];
    check('classifications shown (grouped, seed 000)', JSON.stringify(shown) === JSON.stringify(want), shown.join(' '));
    const heads = await page.$$eval('#rows tr.group-head', (trs) => trs.length);
    check('group headers', heads === 4, heads);
  });

  await step('removed tracking parameter highlighted', async () => {
    const marks = await page.$$eval('#rows tr[data-line="1"] mark.removed', (ms) => ms.map((m) => m.textContent));
    const whole = await page.textContent('#rows tr[data-line="1"] code.observed');
    check('removed tracking parameter highlighted', marks.length === 1 && marks[0] === 'utm_source=x' &&
      whole === SAMPLE_LINES[0], JSON.stringify(marks));
    const key = await page.textContent('#rows tr[data-line="1"] code.key');
    check('key shown', key === 'http://example.com/a/b?id=7', key);
  });

  await step('invalid rows with their error', async () => {
    const inv = await page.$$eval('#invalid-rows tr', (trs) => trs.map((tr) => tr.textContent));
    check('invalid rows with their error', inv.length === 1 && inv[0].includes('javascript:alert(1)') &&
      inv[0].includes('mapper.unsupported-scheme'), JSON.stringify(inv));
  });

  await step('filter by classification', async () => {
    await page.check('input[name="cls"][value="review"]');
    await page.waitForFunction(() => {
      const b = Array.from(document.querySelectorAll('#rows tr.record .badge')).map((x) => x.textContent);
      return b.length === 2 && b.every((t) => t === 'review');
    }, null, { timeout: 10000 });
    check('filter by classification', true);
    await page.check('input[name="cls"][value="all"]');
    await page.waitForFunction(() => document.querySelectorAll('#rows tr.record').length === 6, null, { timeout: 10000 });
  });

  await step('inspector by keyboard', async () => {
    await page.focus('#rows tr[data-line="1"]');
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(() => document.activeElement.dataset.line);
    check('arrow keys move between rows', focused === '2', focused);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /inspected/.test(document.getElementById('inspector-status').textContent),
      null, { timeout: 10000 });
    const keys = await page.$$eval('#inspector-body table', (ts) => {
      const t = ts.find((x) => x.caption.textContent.includes('each policy'));
      return Array.from(t.tBodies[0].rows).map((r) => [r.cells[0].textContent, r.cells[1].textContent]);
    });
    const mapper = keys.find((k) => k[0] === 'mapper@1');
    check('inspector: key under every policy', keys.length >= 5 && mapper && mapper[1] === 'http://example.com/a/b?id=7',
      JSON.stringify(keys));
    const body = await page.textContent('#inspector-body');
    check('inspector: facts, offsets, query pairs', body.includes('tracking-parameters-removed') &&
      body.includes('param utm_source') && body.includes('Query pairs') && body.includes('example.com'),
      body.slice(0, 200));
  });

  await step('screenshot', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(outDir, 'serve.png'), fullPage: true });
    check('screenshot saved', true);
  });

  await step('escape closes the inspector', async () => {
    await page.keyboard.press('Escape');
    const hidden = await page.locator('#inspector').isHidden();
    const focused = await page.evaluate(() => document.activeElement.dataset.line);
    check('escape closes the inspector and returns focus', hidden && focused === '1', focused);
  });

  await step('export CSV equals urlkey map', async () => {
    const [dl] = await Promise.all([
      page.waitForEvent('download', { timeout: 20000 }),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const got = readFileSync(await dl.path());
    writeFileSync(join(outDir, 'sample-export.csv'), got);
    const want = cliCsv(sampleFile);
    check('export CSV equals `urlkey map --format csv` byte for byte', Buffer.compare(got, want) === 0,
      got.length + ' vs ' + want.length + ' bytes');
    check('export file name', dl.suggestedFilename() === 'urlkey-map.csv', dl.suggestedFilename());
  });

  await step('markup in URLs stays text', async () => {
    const evil = 'https://a.example/<img src=x onerror="window.__xss=1">?q=<script>window.__xss=2</script>';
    await page.fill('#text', evil + '\n');
    await page.getByRole('button', { name: 'Run' }).click();
    await waitDone(page);
    const shown = await page.textContent('#rows tr[data-line="1"] code.observed');
    const xss = await page.evaluate(() => window.__xss);
    const imgs = await page.$$eval('#rows img, #rows script', (x) => x.length);
    check('markup in URLs stays text', shown === evil && xss === undefined && imgs === 0, shown);
  });


  // The Compare view: `urlkey explain` side by side.
  await step('compare view: a pair that meets', async () => {
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const shownViews = await page.evaluate(() => [document.getElementById('compare-view').hidden,
      document.getElementById('mapper-view').hidden, document.getElementById('view-compare').getAttribute('aria-pressed')]);
    check('compare view replaces the mapper view', JSON.stringify(shownViews) === '[false,true,"true"]', JSON.stringify(shownViews));
    const inputs = ['https://Example.com/a?utm_source=x', 'https://example.com/a'];
    const st = await explainInPage(page, 'citation@1', inputs);
    const got = await shownExplanation(page);
    const cli = cliExplain('citation@1', inputs);
    check('compare: a pair that meets says yes', st === 'done' && got.same === 'true' && cli.same_key === true, st + ' ' + JSON.stringify(got));
    check('compare: inputs and keys side by side as `urlkey explain`', JSON.stringify(got.inputs) === JSON.stringify(inputs) &&
      JSON.stringify(got.keys) === JSON.stringify(cli.keys), JSON.stringify([got.inputs, got.keys]));
    check('compare: the rules that made them meet are `urlkey explain`\'s', JSON.stringify(got.rules.map((r) => r.rule)) === JSON.stringify(cli.rules) &&
      cli.rules.includes('remove-tracking-parameters'), JSON.stringify(got.rules));
    const tracking = got.rules.find((r) => r.rule === 'remove-tracking-parameters');
    check('compare: each input\'s before and after', tracking && tracking.cells[0] === 'query: ?utm_source=x → (empty)' &&
      tracking.cells[1] === '(nothing)', JSON.stringify(tracking));
    check('compare: no differs_in when they meet', got.differs === null && cli.differs_in === null, JSON.stringify(got.differs));
    await page.screenshot({ path: join(outDir, 'compare.png'), fullPage: true });
  });

  await step('compare view: a pair that does not meet', async () => {
    const inputs = ['https://www.example.com/A', 'http://example.com/a'];
    const st = await explainInPage(page, 'citation@1', inputs);
    const got = await shownExplanation(page);
    const cli = cliExplain('citation@1', inputs);
    check('compare: a pair that does not meet says no', st === 'done' && got.same === 'false' && cli.same_key === false, JSON.stringify(got));
    check('compare: differs_in shown (component and values)', got.differs && got.differs.component === cli.differs_in &&
      got.differs.component === 'scheme' && JSON.stringify(got.differs.values) === JSON.stringify(cli.differing_values),
      JSON.stringify(got.differs));
    check('compare: the builtin policies that give one key', JSON.stringify(got.under) === JSON.stringify(cli.same_key_under) &&
      got.under.includes('webkey@1'), JSON.stringify(got.under));
  });

  await step('compare view: markup in URLs stays text', async () => {
    const evil = 'https://a.example/<img src=x onerror="window.__xss=3">?q=<script>window.__xss=4</script>';
    const st = await explainInPage(page, 'citation@1', [evil, 'https://a.example/x']);
    const got = await shownExplanation(page);
    const xss = await page.evaluate(() => window.__xss);
    const tags = await page.$$eval('#compare-result img, #compare-result script', (x) => x.length);
    check('compare: markup in URLs stays text', st === 'done' && got.inputs[0] === evil && xss === undefined && tags === 0,
      JSON.stringify(got.inputs) + ' ' + tags);
  });

  await step('back to the mapper view', async () => {
    await page.getByRole('button', { name: 'Mapper', exact: true }).click();
    const hidden = await page.evaluate(() => [document.getElementById('compare-view').hidden, document.getElementById('mapper-view').hidden]);
    check('the mapper view comes back', JSON.stringify(hidden) === '[true,false]', JSON.stringify(hidden));
  });

  // The Mapper's policy pair: `urlkey diff --from P --to Q` on the loaded list.
  await step('policy pair on a loaded list', async () => {
    const list = join(outDir, 'diff-list.txt');
    writeFileSync(list, DIFF_LINES.join('\n') + '\n');
    await page.setInputFiles('#file', list);
    await page.waitForFunction((want) => document.getElementById('text').value === want, DIFF_LINES.join('\n') + '\n', { timeout: 10000 });
    const st = await diffInPage(page, 'citation@1', 'webkey@1');
    const got = await shownDiff(page);
    const cli = cliDiff('citation@1', 'webkey@1', list);
    const want = expectedDiff(cli);
    check('policy pair citation@1 -> webkey@1 runs', st === 'done', st + ' ' + (await page.textContent('#diff-status')));
    check('policy pair: counts as `urlkey diff --format json`', JSON.stringify(got.counts) === JSON.stringify(want.counts),
      JSON.stringify(got.counts) + ' vs ' + JSON.stringify(want.counts));
    check('policy pair: merges as `urlkey diff --format json` (keys, records, rules, lines)',
      JSON.stringify(got.merges) === JSON.stringify(want.merges), JSON.stringify(got.merges));
    const www = got.merges.find((m) => m.key === 'example.com/a');
    await page.locator('#diff-panel').screenshot({ path: join(outDir, 'diff.png') });
    check('policy pair: citation@1 -> webkey@1 merges www. and path case', got.merges.length === 2 && got.splits.length === 0 && www &&
      JSON.stringify(www.keys) === JSON.stringify(['https://www.example.com/A', 'https://example.com/a']) &&
      www.rules.includes('registrable-domain') && www.rules.includes('lowercase-path'), JSON.stringify(got.merges));

    const st2 = await diffInPage(page, 'webkey@1', 'citation@1');
    const back = await shownDiff(page);
    const wantBack = expectedDiff(cliDiff('webkey@1', 'citation@1', list));
    check('policy pair webkey@1 -> citation@1: counts, splits as `urlkey diff`', st2 === 'done' &&
      JSON.stringify(back) === JSON.stringify(wantBack), JSON.stringify(back));
    check('policy pair: the reverse splits them', back.merges.length === 0 && back.splits.length === 2 &&
      back.splits.every((g) => g.keys.length === 2), JSON.stringify(back.splits));
    const tags = await page.$$eval('#diff-result img, #diff-result script', (x) => x.length);
    check('policy pair: no markup built from the list', tags === 0, tags);
  });

  if (bigFile) {
    await step('100,000 lines', async () => {
      const lines = readFileSync(bigFile, 'utf8').split('\n').filter((l) => l !== '').length;
      await page.setInputFiles('#file', bigFile);
      await page.waitForFunction(() => !document.getElementById('file-preview').hidden, null, { timeout: 60000 });
      const t0 = Date.now();
      await page.getByRole('button', { name: 'Run' }).click();
      const st = await waitDone(page, 180000);
      await page.waitForSelector('#rows tr.record');
      const ms = Date.now() - t0;
      timings.run_100k_ms = ms;
      const records = (await page.textContent('#count-records')).replace(/,/g, '');
      const rows = await page.$$eval('#rows tr.record', (x) => x.length);
      check('100,000 lines mapped and shown', st === 'done' && records === String(lines) && rows === 100,
        'records ' + records + ', rows ' + rows + ', ' + st);
      console.log('time to show ' + lines.toLocaleString('en-US') + ' lines (Run click to table shown): ' + ms + ' ms');

      const t1 = Date.now();
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.waitForFunction(() => /^Page 2 of/.test(document.getElementById('page-info').textContent), null, { timeout: 30000 });
      timings.next_page_ms = Date.now() - t1;
      console.log('next page of the 100,000-line result (cached): ' + timings.next_page_ms + ' ms');
      check('next page is served from the cache', /cached/.test(await page.textContent('#status')),
        await page.textContent('#status'));

      const t2 = Date.now();
      const [dl] = await Promise.all([
        page.waitForEvent('download', { timeout: 120000 }),
        page.getByRole('button', { name: 'Export CSV' }).click(),
      ]);
      const got = readFileSync(await dl.path());
      timings.export_100k_ms = Date.now() - t2;
      const want = cliCsv(bigFile);
      check('100,000-line export equals `urlkey map --format csv`', Buffer.compare(got, want) === 0,
        got.length + ' vs ' + want.length + ' bytes');
      console.log('export CSV of 100,000 lines: ' + timings.export_100k_ms + ' ms, ' + got.length + ' bytes');
    });
  }

  // The ledger page (`serve --ledger`): server-rendered, no script, the style sheet and
  // the SVG charts under the same strict CSP. Figures from the ledger fixture's README.
  await step('ledger page', async () => {
    const res = await page.goto(base + 'ledger', { waitUntil: 'load' });
    check('ledger page loads', res.ok(), res.status());
    const csp = res.headers()['content-security-policy'] || '';
    check('ledger page has the strict CSP', csp.includes("script-src 'self'") && csp.includes("form-action 'none'"), csp);
    const m = async (name) => page.$$eval('[data-measure="' + name + '"]', (els) => els.map((e) => e.textContent.trim()));
    const got = {
      observations: (await m('observations')).join(),
      valid: (await m('valid_observations')).join(),
      keys: (await m('unique_keys')).join(),
      publishers: (await m('unique_publishers')).join(),
      top1: (await m('top1_share')).join(),
      hhi: (await m('hhi')).join(),
      jaccard: (await m('publishers_jaccard')).join() + '/' + (await m('keys_jaccard')).join(),
    };
    const want = { observations: '27', valid: '24', keys: '15', publishers: '8', top1: '0.2917', hhi: '0.1667', jaccard: '0.8750/0.4000' };
    check('ledger measures', JSON.stringify(got) === JSON.stringify(want), JSON.stringify(got));
    // The report's review figures, before any decision: roles, claim support,
    // merges to review, split keys, unique keys with splits applied.
    const review = await page.$$eval('table.review tr[data-figure]', (trs) => trs.map((t) =>
      t.dataset.figure + '=' + t.querySelector('[data-measure="review"]').textContent.trim()));
    check('ledger review figures', review.join(' ') === 'source_role=unclassified=24 claim_support=unreviewed=24 merges_to_review=3 split_keys=0 unique_keys_with_splits=15', review.join(' '));
    const sample = (await m('sample')).join();
    check('ledger sample stated', sample.startsWith('27 observations; prompt-set versions: ps-2026-10, ps-2026-11;'), sample);
    const scripts = await page.evaluate(() => Array.from(document.scripts).map((s) => s.getAttribute('src') || 'inline'));
    check('ledger page has only the review queue script file', scripts.length === 1 && scripts[0] === '/ledger.js', scripts.join());
    const border = await page.$eval('.sample', (e) => getComputedStyle(e).borderLeftStyle);
    check('ledger style sheet applied under the CSP', border === 'solid', border);
    const charts = await page.$$eval('figure.chart svg', (ss) => ss.map((s) => {
      const r = s.getBoundingClientRect();
      return { w: Math.round(r.width), h: Math.round(r.height), texts: Array.from(s.querySelectorAll('text')).map((t) => t.textContent.trim()) };
    }));
    check('ledger charts drawn', charts.length === 2 && charts.every((c) => c.w > 300 && c.h > 100) &&
      charts[0].texts.includes('docs.example.org') && charts[0].texts.includes('0.2917 (7/24)') &&
      charts[1].texts.includes('cumulative share'), JSON.stringify(charts.map((c) => [c.w, c.h, c.texts.length])));
    const keys = await page.$$eval('table.keys tr[data-key]', (trs) => trs.map((t) => t.dataset.key));
    check('ledger top keys', keys.length === 5 && keys[0] === 'https://docs.example.org/guide', keys.join(' '));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(outDir, 'ledger.png'), fullPage: true });

    await page.getByRole('link', { name: 'by answer system and market' }).click();
    await page.waitForLoadState('load');
    const groups = await page.$$eval('section[data-group] h2', (hs) => hs.map((h) => h.textContent));
    check('ledger view by answer system and market', groups.length === 4 &&
      groups[0] === 'answer_system = assistant-a, market = de', groups.join(' | '));

    await page.getByRole('link', { name: 'c-2026-11-01 to c-2026-11-08' }).click();
    await page.waitForLoadState('load');
    const gone = (await m('change_publishers_gone')).join();
    const svgs = await page.$$eval('svg', (ss) => ss.length);
    check('ledger compare view', gone === '3' && svgs === 5, gone + ' gone, ' + svgs + ' charts');
  });

  // The review queue: merges to review first, each key's spellings as rows, a decision
  // recorded through the page's form (external script, per-run token) and read back with
  // `urlkey ledger review list`; a foreign Host refused (421), also in the browser.
  await step('ledger review queue', async () => {
    const res = await page.goto(base + 'ledger', { waitUntil: 'load' });
    check('review queue page loads', res.ok(), res.status());
    const arts = await page.$$eval('#review-queue article', (as) => as.map((a) => ({
      review: a.classList.contains('to-review'), key: a.dataset.key,
      variants: a.querySelectorAll('table.variants.first tbody tr').length,
      columns: Array.from(a.querySelectorAll('table.variants.first thead th')).map((t) => t.textContent),
    })));
    const firstNot = arts.findIndex((a) => !a.review);
    check('review queue lists merges to review first', arts.length >= 3 && arts[0].review &&
      arts.filter((a) => a.review).length === 3 && (firstNot === -1 || arts.slice(firstNot).every((a) => !a.review)),
      JSON.stringify(arts.map((a) => [a.key, a.review])));
    check('review queue shows each key\'s spellings as rows', arts.every((a) => a.variants >= 2) &&
      ['observed URL', 'status', 'title', 'final URL', 'canonical', 'claim'].every((r) => arts[0].columns.includes(r)),
      JSON.stringify(arts[0]));
    const summary = await page.$eval('#review-queue .queue-summary', (p) => p.textContent);
    check('review queue counts 3 to review', summary.includes('3 to review'), summary);
    const form = page.locator('#review-queue form.review-form').first();
    const key = await form.getAttribute('data-key');
    await form.locator('select[name="merge"]').selectOption('split');
    await form.locator('select[name="role"]').selectOption('evidence');
    await form.locator('input[name="reviewer"]').fill('e2e-browser');
    await form.locator('input[name="note"]').fill('decided in headless Chromium');
    await form.getByRole('button', { name: 'Record decision' }).click();
    await page.waitForFunction(() => {
      const o = document.querySelector('#review-queue form.review-form output');
      return o && /recorded|refused|not recorded/.test(o.textContent);
    }, null, { timeout: 10000 });
    const said = await form.locator('output').textContent();
    check('decision recorded through the page', /^review \d+ recorded$/.test(said), said);
    const db = process.env.E2E_LEDGER_DB || join(outDir, 'ledger.sqlite');
    const list = JSON.parse(execFileSync(bin, ['ledger', '--db', db, 'review', 'list', '--format', 'json']).toString());
    const row = list[list.length - 1] || {};
    check('decision read back with `urlkey ledger review list`', list.length === 1 && row.normalized_key === key &&
      row.merge_decision === 'split' && row.source_role === 'evidence' && row.reviewer === 'e2e-browser' &&
      row.note === 'decided in headless Chromium' && said === 'review ' + row.review_id + ' recorded', JSON.stringify(list));
    await page.reload({ waitUntil: 'load' });
    const after = await page.$eval('#review-queue .queue-summary', (p) => p.textContent);
    check('review queue counts 2 to review after it', after.includes('2 to review'), after);
    await page.screenshot({ path: join(outDir, 'review-queue.png'), fullPage: true });

    // Outside the browser: a foreign Host, and a write without the token.
    const port = new URL(base).port;
    const raw = (method, path, headers, body) => new Promise((resolve, reject) => {
      const r = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        let text = '';
        res.on('data', (d) => { text += d; });
        res.on('end', () => resolve({ status: res.statusCode, text }));
      });
      r.on('error', reject);
      r.end(body || '');
    });
    const evil = await raw('GET', '/ledger', { Host: 'evil.example:' + port });
    check('a foreign Host gets 421', evil.status === 421 && evil.text.includes('request.misdirected'), evil.status + ' ' + evil.text);
    const body = JSON.stringify({ key, merge: 'confirm', reviewer: 'mallory' });
    const noToken = await raw('POST', '/api/ledger/review', { Host: '127.0.0.1:' + port, 'Content-Type': 'application/json' }, body);
    check('a write without the token gets 403', noToken.status === 403 && noToken.text.includes('review.bad-token'), noToken.status + ' ' + noToken.text);
    const count = JSON.parse(execFileSync(bin, ['ledger', '--db', db, 'review', 'list', '--format', 'json']).toString()).length;
    check('nothing recorded by the refused write', count === 1, count);

    // In the browser: a page under another name that resolves to 127.0.0.1 (DNS rebinding)
    // gets 421 from every path, so its script could not reach the API.
    const rebind = await context.newPage();
    try {
      const r = await rebind.goto('http://rebind.example:' + port + '/ledger', { waitUntil: 'load' });
      const text = await rebind.evaluate(() => document.body.textContent);
      check('a rebinding name is refused in the browser (421)', r.status() === 421 && text.includes('request.misdirected'), r.status() + ' ' + text.slice(0, 200));
    } finally {
      await rebind.close();
    }
  });

  // The Redirects view (redirects.mjs): upload, decisions, the exported MAP, 50,000 rows.
  await step('redirects view', () => redirectsChecks({ page, base, bin, outDir, check, step, timings }));

  // The pages people read, at real sizes (scale.mjs): its own ledger and server.
  await step('scale checks', () => scaleChecks({ context, bin, outDir, check, step, timings }));

  check('no request left the server', foreign.length === 0, foreign.slice(0, 5).join(' '));
  check('no console errors (CSP violations included)', consoleErrors.length === 0, consoleErrors.slice(0, 5).join(' | '));
} finally {
  await context.close().catch(() => {});
  rmSync(userDataDir, { recursive: true, force: true });
  writeFileSync(join(outDir, 'e2e-result.json'), JSON.stringify({ passed, failed, timings }));
}
process.exit(failed ? 1 : 0);
