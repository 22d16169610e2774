// urlkey serve: the page. Every piece of data is put into the page as text (textContent,
// createTextNode); no markup is ever built from data. The only requests go to this
// server's own /api paths.
'use strict';

(function () {
  const SAMPLE = [
    'HTTP://Example.com:80/a//b?utm_source=x&id=7',
    '/main/scripts.html?script=One',
    '/main/scripts.html?script=Two',
    '/x?a=1&b=2',
    '/x?b=2&a=1',
    'javascript:alert(1)',
  ].join('\n') + '\n';

  // Text longer than this is kept in memory and shown as a preview, not in the text area.
  const PREVIEW_BYTES = 1024 * 1024;
  const PREVIEW_LINES = 200;

  const $ = (id) => document.getElementById(id);
  const ui = {
    text: $('text'), file: $('file'), drop: $('drop'), fileInfo: $('file-info'),
    preview: $('file-preview'), previewText: $('file-preview-text'), fileClear: $('file-clear'),
    format: $('format'), columnWrap: $('column-wrap'), column: $('column'),
    fieldWrap: $('field-wrap'), field: $('field'), policy: $('policy'), policyDesc: $('policy-desc'),
    sample: $('sample'), run: $('run'), status: $('status'),
    results: $('results'), resultsH: $('results-h'), rows: $('rows'), pageInfo: $('page-info'),
    prev: $('prev'), next: $('next'), pageSize: $('page-size'), exportBtn: $('export'),
    invalidRows: $('invalid-rows'), invalidNone: $('invalid-none'), invalidTable: $('invalid-table'),
    invalidPrev: $('invalid-prev'), invalidNext: $('invalid-next'), invalidInfo: $('invalid-page-info'),
    inspector: $('inspector'), inspectorH: $('inspector-h'), inspectorBody: $('inspector-body'),
    inspectorStatus: $('inspector-status'), inspectorClose: $('inspector-close'),
    main: $('main'), psl: $('psl-version'),
    viewMapper: $('view-mapper'), viewCompare: $('view-compare'),
    mapperView: $('mapper-view'), compareView: $('compare-view'), compareH: $('compare-h'),
    compareText: $('compare-text'), comparePolicy: $('compare-policy'), compareRun: $('compare-run'),
    compareStatus: $('compare-status'), compareResult: $('compare-result'),
    diffFrom: $('diff-from'), diffTo: $('diff-to'), diffRun: $('diff-run'), diffStatus: $('diff-status'),
    diffResult: $('diff-result'), diffCounts: $('diff-counts'), diffMerges: $('diff-merges'),
    diffSplits: $('diff-splits'),
  };

  const state = {
    policies: [],
    // The server's request-body limit (GET /api/policies): a larger request is refused
    // here, before it is sent, instead of with a 413 after uploading all of it.
    maxBody: null,
    // Each view's default policy, from GET /api/policies (urlkey::policy::defaults).
    defaults: {},
    loaded: null, // {name, text} of a large file kept out of the text area
    request: null, // the map request of the last Run (without paging)
    page: 1, invalidPage: 1, classification: 'all',
    seq: 0, last: null, lastRow: null,
    compareSeq: 0, diffSeq: 0,
  };

  // ---------------------------------------------------------------- helpers

  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    if (props) {
      for (const [k, v] of Object.entries(props)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = String(v);
        else e.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (const c of children) {
      if (c === undefined || c === null) continue;
      e.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function setStatus(node, message, kind) {
    node.textContent = message;
    node.classList.toggle('error', kind === 'error');
  }

  function fmt(n) {
    return typeof n === 'number' ? n.toLocaleString('en-US') : String(n);
  }

  function mb(bytes) {
    return (bytes / (1024 * 1024)).toFixed(1) + ' MB';
  }

  function secs(ms) {
    return ms < 1000 ? fmt(Math.round(ms)) + ' ms' : (ms / 1000).toFixed(1) + ' s';
  }

  // The request's size as sent (UTF-8), exactly.
  function byteSize(s) {
    return new Blob([s]).size;
  }

  // The sentence that refuses a request over the server's limit, or null (`more`: the
  // size is a lower bound).
  function tooLarge(bytes, what, more) {
    if (!state.maxBody || bytes <= state.maxBody) return null;
    return what + (more ? ' is more than ' : ' is ') + mb(bytes) + '; this server takes at most ' + mb(state.maxBody) +
      ' in one request. Split the list into parts under that size and run each part.';
  }

  // Resolves after the browser has drawn what was just put in the page, so that a
  // time measured around it is the time a person waited.
  function painted() {
    return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  }

  // POST `json` (a string) with upload progress, which fetch does not report:
  // onPhase('sending', loaded, total), then onPhase('mapping') when all is sent. Resolves
  // to the parsed answer; a refusal is thrown as api() throws it.
  function postJson(path, json, onPhase) {
    return new Promise((resolve, reject) => {
      const x = new XMLHttpRequest();
      x.open('POST', path);
      x.setRequestHeader('content-type', 'application/json');
      x.upload.onprogress = (ev) => onPhase('sending', ev.loaded, ev.total);
      x.upload.onload = () => onPhase('mapping');
      x.onload = () => {
        let j = null;
        try { j = JSON.parse(x.responseText); } catch (_) { /* not JSON */ }
        if (x.status >= 200 && x.status < 300 && j) {
          resolve(j);
          return;
        }
        const err = new Error(j && j.error ? j.error.message : (x.statusText || 'HTTP ' + x.status));
        err.code = j && j.error ? j.error.code : 'http.' + x.status;
        reject(err);
      };
      x.onerror = () => {
        const err = new Error('the request did not reach the server');
        err.code = 'network';
        reject(err);
      };
      onPhase('sending', 0, byteSize(json));
      x.send(json);
    });
  }

  async function api(path, body) {
    const res = await fetch(path, body === undefined ? {} : {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) {
      let code = 'http.' + res.status;
      let message = res.statusText;
      try {
        const j = await res.json();
        if (j && j.error) { code = j.error.code; message = j.error.message; }
      } catch (_) { /* not JSON */ }
      const err = new Error(message);
      err.code = code;
      throw err;
    }
    return res;
  }

  // ---------------------------------------------------------------- input

  function inputText() {
    return state.loaded ? state.loaded.text : ui.text.value;
  }

  // The first CSV/TSV record (quotes may span lines).
  function headerRow(text, delim) {
    const out = [];
    let cell = '';
    let quoted = false;
    let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (quoted) {
        if (c === '"') {
          if (text[i + 1] === '"') { cell += '"'; i++; } else quoted = false;
        } else cell += c;
      } else if (c === '"') quoted = true;
      else if (c === delim) { out.push(cell); cell = ''; }
      else if (c === '\n' || c === '\r') break;
      else cell += c;
    }
    out.push(cell);
    return out;
  }

  function firstJsonFields(text) {
    for (const line of text.slice(0, 1 << 20).split('\n')) {
      const t = line.trim();
      if (!t || t.startsWith('#')) continue;
      try {
        const o = JSON.parse(t);
        if (o && typeof o === 'object' && !Array.isArray(o)) return Object.keys(o);
      } catch (_) { /* not JSON */ }
      return [];
    }
    return [];
  }

  const URLISH = /^(url|uri|link|href|address|observed|location|source)$/i;

  function fillChoices(select, names, previous) {
    clear(select);
    names.forEach((name, i) => {
      const label = name === '' ? '(column ' + (i + 1) + ', no name)' : name;
      // An empty or repeated name is sent as its 1-based number.
      const value = name === '' || names.indexOf(name) !== i ? String(i + 1) : name;
      select.append(el('option', { value }, label));
    });
    if (!names.length) select.append(el('option', { value: '' }, '(no header found)'));
    const keep = Array.from(select.options).find((o) => o.value === previous);
    const urlish = Array.from(select.options).find((o) => URLISH.test(o.value));
    if (keep) select.value = keep.value;
    else if (urlish) select.value = urlish.value;
  }

  function refreshShape() {
    const f = ui.format.value;
    ui.columnWrap.hidden = !(f === 'csv' || f === 'tsv');
    ui.fieldWrap.hidden = f !== 'jsonl';
    const text = inputText();
    if (f === 'csv' || f === 'tsv') {
      fillChoices(ui.column, text.trim() ? headerRow(text, f === 'csv' ? ',' : '\t') : [], ui.column.value);
    } else if (f === 'jsonl') {
      fillChoices(ui.field, firstJsonFields(text), ui.field.value);
    }
  }

  function shapeFromName(name) {
    const n = name.toLowerCase().replace(/\.(gz|zst)$/, '');
    if (n.endsWith('.csv')) return 'csv';
    if (n.endsWith('.tsv')) return 'tsv';
    if (n.endsWith('.jsonl') || n.endsWith('.ndjson')) return 'jsonl';
    return 'lines';
  }

  function setLoaded(loaded) {
    state.loaded = loaded;
    ui.preview.hidden = !loaded;
    ui.text.readOnly = !!loaded;
    if (loaded) {
      const lines = loaded.text.split('\n', PREVIEW_LINES + 1);
      const shown = lines.slice(0, PREVIEW_LINES).join('\n');
      ui.text.value = shown;
      ui.previewText.textContent = (loaded.pasted ? 'The pasted text' : 'File "' + loaded.name + '"') +
        ' (' + fmt(loaded.text.length) + ' characters) is loaded; the text area shows its first ' +
        PREVIEW_LINES + ' lines, read-only. Run uses all of it.';
    }
  }

  async function loadFile(file) {
    if (!file) return;
    setStatus(ui.status, 'Reading ' + file.name + '…');
    let text;
    try {
      text = await file.text();
    } catch (e) {
      setStatus(ui.status, 'Cannot read ' + file.name + ': ' + e.message, 'error');
      return;
    }
    ui.format.value = shapeFromName(file.name);
    if (text.length > PREVIEW_BYTES) {
      setLoaded({ name: file.name, text });
    } else {
      setLoaded(null);
      ui.text.value = text;
    }
    ui.fileInfo.textContent = file.name + ', ' + fmt(file.size) + ' bytes';
    refreshShape();
    const big = tooLarge(file.size, file.name);
    if (big) {
      setStatus(ui.status, big, 'error');
      return;
    }
    setStatus(ui.status, 'Loaded ' + file.name + '. Choose the policy' +
      (ui.format.value === 'csv' || ui.format.value === 'tsv' ? ' and the column' : '') +
      (ui.format.value === 'jsonl' ? ' and the field' : '') + ', then Run.');
  }

  // A paste of more than PREVIEW_BYTES is kept out of the text area, as a large file is:
  // a text area holding 50 MB froze the page for half a minute.
  function onPaste(ev) {
    const text = ev.clipboardData ? ev.clipboardData.getData('text/plain') : '';
    if (text.length <= PREVIEW_BYTES) return;
    ev.preventDefault();
    setLoaded({ name: 'pasted text', text, pasted: true });
    ui.fileInfo.textContent = '';
    refreshShape();
    const big = tooLarge(byteSize(text), 'The pasted text');
    if (big) setStatus(ui.status, big, 'error');
    else setStatus(ui.status, 'Pasted ' + fmt(text.length) + ' characters (' + mb(byteSize(text)) + '). Choose the policy, then Run.');
  }

  // ---------------------------------------------------------------- policies

  async function loadPolicies() {
    try {
      const res = await api('/api/policies');
      const data = await res.json();
      state.policies = data.policies;
      state.defaults = data.defaults;
      state.maxBody = data.max_body_bytes || null;
      for (const select of [ui.policy, ui.comparePolicy, ui.diffFrom, ui.diffTo, $('rd-policy')]) {
        clear(select);
        for (const p of data.policies) {
          select.append(el('option', { value: p.id, title: p.description }, p.id));
        }
      }
      ui.policy.value = data.defaults.map;
      ui.comparePolicy.value = data.defaults.explain;
      ui.diffFrom.value = data.defaults.diff_from;
      ui.diffTo.value = data.defaults.diff_to;
      // `redirects propose` has no default (its --policy is required): the Redirects view
      // starts with the comparison key, as docs/redirects.md's example does.
      $('rd-policy').value = data.defaults.inspect;
      showPolicy();
      ui.psl.textContent = 'Public Suffix List: ' + data.psl + '.';
    } catch (e) {
      setStatus(ui.status, 'Cannot load the policies: ' + e.message, 'error');
    }
  }

  function showPolicy() {
    const p = state.policies.find((x) => x.id === ui.policy.value);
    ui.policyDesc.textContent = p ? p.id + ': ' + p.description : '';
  }

  // ---------------------------------------------------------------- map

  function baseRequest() {
    const f = ui.format.value;
    // With no policy chosen (the list did not load), the server's default: undefined
    // leaves the field out of the request, and the server applies the same default.
    const req = { text: inputText(), policy: ui.policy.value || state.defaults.map, input_format: f };
    if (f === 'csv' || f === 'tsv') req.column = ui.column.value;
    if (f === 'jsonl') req.field = ui.field.value;
    return req;
  }

  async function run() {
    if (ui.format.value !== 'lines') refreshShape();
    state.request = baseRequest();
    state.page = 1;
    state.invalidPage = 1;
    closeInspector(false);
    await load(true);
  }

  async function load(fresh) {
    if (!state.request) return;
    // The time a person waits starts here: building the request of a 50 MB text is
    // part of it, and so is drawing the answer.
    const t0 = performance.now();
    const seq = ++state.seq;
    const root = document.documentElement.dataset;
    const body = Object.assign({}, state.request, {
      page: state.page,
      invalid_page: state.invalidPage,
      page_size: Number(ui.pageSize.value),
      classification: state.classification,
    });
    // A text longer than the limit in UTF-16 units is longer in UTF-8 bytes, and longer
    // again as JSON: refused without the second-long copy that measuring it exactly costs.
    const text = state.request.text || '';
    const json = state.maxBody && text.length > state.maxBody ? null : JSON.stringify(body);
    const size = json === null ? text.length : byteSize(json);
    const big = tooLarge(size, 'The request', json === null);
    if (big) {
      root.mapState = 'error';
      root.mapRefused = 'too-large';
      setStatus(ui.status, 'Not sent. ' + big, 'error');
      return;
    }
    delete root.mapRefused;
    root.mapState = 'running';
    ui.run.disabled = true;
    ui.results.setAttribute('aria-busy', 'true');
    const what = fresh ? 'Running ' + (state.request.policy || 'the default policy') : 'Loading';
    let sent = t0;
    let shownAt = 0;
    const phase = (name, loaded, total) => {
      if (seq !== state.seq) return;
      root.mapPhase = name;
      const now = performance.now();
      if (name === 'sending') {
        // At most ten updates a second: the status is read by screen readers.
        if (loaded > 0 && loaded < total && now - shownAt < 100) return;
        shownAt = now;
        setStatus(ui.status, what + ': sending ' + mb(loaded) + ' of ' + mb(total) +
          (total ? ' (' + Math.floor((100 * loaded) / total) + '%)' : '') + '…');
      } else if (name === 'mapping') {
        sent = now;
        setStatus(ui.status, what + ': sent ' + mb(size) + ' in ' + secs(now - t0) + '; the server is mapping it…');
      } else {
        setStatus(ui.status, what + ': drawing the page…');
      }
    };
    try {
      const data = await postJson('/api/map', json, phase);
      if (seq !== state.seq) return;
      const answered = performance.now();
      phase('drawing');
      render(data);
      await painted();
      if (seq !== state.seq) return;
      const end = performance.now();
      const ms = Math.round(end - t0);
      const parts = data.cached
        ? 'cached result'
        : 'sending ' + secs(sent - t0) + ', waiting for the server ' + secs(answered - sent) +
          ' (mapping ' + secs(data.compute_ms) + '), drawing ' + secs(end - answered);
      setStatus(ui.status, 'Done: ' + fmt(data.summary.records) + ' records under ' + data.policy +
        ' in ' + secs(ms) + ' (' + parts + ').');
      root.mapPhase = 'done';
      root.mapState = 'done';
      root.mapMs = String(ms);
      if (fresh) ui.resultsH.focus();
    } catch (e) {
      if (seq !== state.seq) return;
      root.mapState = 'error';
      root.mapPhase = 'error';
      setStatus(ui.status, 'Error ' + (e.code || '') + ': ' + e.message, 'error');
    } finally {
      if (seq === state.seq) {
        ui.run.disabled = false;
        ui.results.removeAttribute('aria-busy');
      }
    }
  }

  function observedNode(row) {
    const code = el('code', { class: 'observed' });
    const s = row.observed;
    const hl = (row.highlights || []).slice().sort((a, b) => a.start - b.start);
    let at = 0;
    for (const h of hl) {
      if (h.start < at || h.end > s.length) continue;
      if (h.start > at) code.append(document.createTextNode(s.slice(at, h.start)));
      code.append(el('mark', { class: 'removed', title: 'tracking parameter removed from the key: ' + h.name },
        s.slice(h.start, h.end)));
      at = h.end;
    }
    if (at < s.length) code.append(document.createTextNode(s.slice(at)));
    if (!s.length) code.append(el('span', { class: 'muted' }, '(empty)'));
    return code;
  }

  function badge(cls) {
    return el('span', { class: 'badge cls-' + cls }, cls);
  }

  function rowNode(row) {
    const tr = el('tr', { tabindex: '0', class: 'record', 'data-line': row.line, 'data-classification': row.classification });
    tr.append(el('td', { class: 'num' }, String(row.line)));
    tr.append(el('td', null, observedNode(row)));
    if (row.key !== null) {
      tr.append(el('td', null, el('code', { class: 'key' }, row.key)));
    } else {
      tr.append(el('td', { class: 'err' }, el('code', null, row.error_code || ''), ' ', row.error || ''));
    }
    const c = el('td', null, badge(row.classification));
    if (row.duplicate_of !== null) c.append(el('span', { class: 'muted' }, ' same key as line ' + row.duplicate_of));
    tr.append(c);
    const steps = el('td', { class: 'steps' });
    if (row.transformations.length) {
      const ul = el('ul');
      for (const t of row.transformations) ul.append(el('li', null, t.rule + ' (' + t.component + ')'));
      steps.append(ul);
    } else {
      steps.append(el('span', { class: 'muted' }, row.status === 'ok' ? 'none' : '-'));
    }
    tr.append(steps);
    tr.addEventListener('click', () => openInspector(row, tr));
    tr.addEventListener('keydown', (ev) => onRowKey(ev, row, tr));
    return tr;
  }

  function groupHead(row) {
    const label = row.group === null
      ? 'Invalid rows (no key, no group)'
      : 'Group ' + row.group + ': ' + (row.signature || '') + ' · ' +
        row.variants + (row.variants === 1 ? ' distinct key' : ' distinct keys');
    const th = el('th', { colspan: '5', scope: 'rowgroup' }, label + ' ');
    if (row.group !== null) th.append(badge(row.variants > 1 ? 'review' : (row.duplicates > 1 ? 'duplicate' : 'unique')));
    return el('tr', { class: 'group-head' }, th);
  }

  function onRowKey(ev, row, tr) {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      openInspector(row, tr);
    } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      const all = Array.from(tr.closest('tbody').querySelectorAll('tr.record'));
      const i = all.indexOf(tr) + (ev.key === 'ArrowDown' ? 1 : -1);
      if (all[i]) all[i].focus();
    }
  }

  function render(data) {
    ui.results.hidden = false;
    state.last = data;
    const s = data.summary;
    $('count-records').textContent = fmt(s.records);
    $('count-valid').textContent = fmt(s.valid);
    $('count-invalid').textContent = fmt(s.invalid);
    $('count-duplicate-groups').textContent = fmt(s.duplicate_groups);
    $('count-review-groups').textContent = fmt(s.review_groups);
    $('count-distinct-keys').textContent = fmt(s.distinct_keys);
    $('count-skipped').textContent = fmt(s.skipped.blank + s.skipped.comment);
    const cls = data.classifications;
    $('n-all').textContent = '(' + fmt(s.records) + ')';
    for (const k of ['unique', 'duplicate', 'review', 'invalid']) $('n-' + k).textContent = '(' + fmt(cls[k] || 0) + ')';

    clear(ui.rows);
    const frag = document.createDocumentFragment();
    let group;
    for (const row of data.rows.items) {
      if (row.group !== group) {
        frag.append(groupHead(row));
        group = row.group;
      }
      frag.append(rowNode(row));
    }
    if (!data.rows.items.length) {
      frag.append(el('tr', null, el('td', { colspan: '5', class: 'muted' }, 'No records to show.')));
    }
    ui.rows.append(frag);
    const r = data.rows;
    ui.pageInfo.textContent = 'Page ' + r.page + ' of ' + r.pages + ' · ' + fmt(r.total) + ' records shown by this filter';
    state.page = r.page;
    ui.prev.disabled = r.page <= 1;
    ui.next.disabled = r.page >= r.pages;

    clear(ui.invalidRows);
    const inv = data.invalid;
    ui.invalidNone.hidden = inv.total > 0;
    ui.invalidTable.hidden = inv.total === 0;
    const ifrag = document.createDocumentFragment();
    for (const row of inv.items) {
      const tr = el('tr', { tabindex: '0', class: 'record', 'data-line': row.line });
      tr.append(el('td', { class: 'num' }, String(row.line)));
      tr.append(el('td', null, el('code', { class: 'observed' }, row.observed)));
      tr.append(el('td', null, el('code', null, row.error_code || '')));
      tr.append(el('td', null, row.error || ''));
      tr.addEventListener('click', () => openInspector(row, tr));
      tr.addEventListener('keydown', (ev) => onRowKey(ev, row, tr));
      ifrag.append(tr);
    }
    ui.invalidRows.append(ifrag);
    state.invalidPage = inv.page;
    ui.invalidInfo.textContent = inv.total ? 'Page ' + inv.page + ' of ' + inv.pages + ' · ' + fmt(inv.total) + ' invalid rows' : '';
    ui.invalidPrev.disabled = inv.page <= 1;
    ui.invalidNext.disabled = inv.page >= inv.pages;
    ui.invalidPrev.hidden = ui.invalidNext.hidden = inv.pages <= 1;
  }

  // ---------------------------------------------------------------- export

  async function exportCsv() {
    if (!state.request) return;
    setStatus(ui.status, 'Preparing the CSV…');
    try {
      const res = await api('/api/map.csv', state.request);
      const bytes = await res.arrayBuffer();
      const url = URL.createObjectURL(new Blob([bytes], { type: 'text/csv' }));
      const a = el('a', { href: url, download: 'urlkey-map.csv', class: 'hidden-link' });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      setStatus(ui.status, 'Exported urlkey-map.csv (' + fmt(bytes.byteLength) + ' bytes, the output of urlkey map --format csv).');
    } catch (e) {
      setStatus(ui.status, 'Export failed: ' + (e.code || '') + ': ' + e.message, 'error');
    }
  }

  // ---------------------------------------------------------------- inspector

  function closeInspector(refocus) {
    ui.inspector.hidden = true;
    ui.main.classList.remove('with-inspector');
    if (refocus && state.lastRow && document.contains(state.lastRow)) state.lastRow.focus();
  }

  function kv(dl, term, value) {
    dl.append(el('dt', null, term));
    dl.append(el('dd', null, value === null || value === undefined || value === '' ? el('span', { class: 'muted' }, '-') : value));
  }

  function table(caption, heads, rows) {
    const t = el('table', { class: 'mini' }, el('caption', null, caption));
    const hr = el('tr');
    for (const h of heads) hr.append(el('th', { scope: 'col' }, h));
    t.append(el('thead', null, hr));
    const tb = el('tbody');
    for (const r of rows) {
      const tr = el('tr', r.current ? { class: 'current' } : null);
      for (const c of r.cells) tr.append(el('td', null, c));
      tb.append(tr);
    }
    if (!rows.length) tb.append(el('tr', null, el('td', { colspan: String(heads.length), class: 'muted' }, 'none')));
    t.append(tb);
    return t;
  }

  function codeOr(v) {
    return v === null || v === undefined ? el('span', { class: 'muted' }, '-') : el('code', null, v);
  }

  async function openInspector(row, tr) {
    state.lastRow = tr;
    ui.inspector.hidden = false;
    ui.main.classList.add('with-inspector');
    clear(ui.inspectorBody);
    setStatus(ui.inspectorStatus, 'Inspecting line ' + row.line + '…');
    ui.inspectorH.focus();
    const policy = (state.request && state.request.policy) || ui.policy.value || state.defaults.map;
    try {
      const res = await api('/api/inspect', { input: row.observed, policy });
      const i = await res.json();
      if (state.lastRow !== tr) return;
      renderInspection(row, i);
      setStatus(ui.inspectorStatus, 'Line ' + row.line + ' inspected. Escape closes the inspector.');
    } catch (e) {
      setStatus(ui.inspectorStatus, 'Cannot inspect: ' + (e.code || '') + ': ' + e.message, 'error');
    }
  }

  function renderInspection(row, i) {
    const body = ui.inspectorBody;
    body.append(el('h3', null, 'Line ' + row.line));
    body.append(el('p', null, el('code', { class: 'observed block' }, i.input)));

    const dl = el('dl', { class: 'facts' });
    kv(dl, 'Classification', badge(row.classification));
    kv(dl, 'Key under ' + i.policy, i.key !== null ? el('code', null, i.key)
      : i.key_error ? 'invalid: ' + i.key_error.code + ' (' + i.key_error.message + ')' : null);
    kv(dl, 'Valid URL', i.valid ? 'yes' : 'no' + (i.error ? ': ' + i.error.code + ' (' + i.error.message + ')' : ''));
    kv(dl, 'Canonical (webkey@1)', i.canonical === null ? null : el('code', null, i.canonical));
    kv(dl, 'href', i.href === null ? null : el('code', null, i.href));
    kv(dl, 'Facts', i.facts.length ? i.facts.join(', ') : null);
    kv(dl, 'Profile', i.profile ? i.profile.network + ' · ' + i.profile.handle : null);
    kv(dl, 'Registrable domain', i.registrable_domain);
    kv(dl, 'Public suffix', i.public_suffix ? i.public_suffix + (i.suffix_section ? ' (' + i.suffix_section + ')' : '') : null);
    kv(dl, 'Looks like a web address', i.looks_like_web_address ? 'yes' : 'no');
    body.append(el('h4', null, 'Facts and profile'), dl);

    body.append(el('h4', null, 'Keys under every policy'));
    body.append(table('The same input under each policy', ['Policy', 'Key', 'Error'],
      i.keys.map((k) => ({
        current: k.policy === i.policy,
        cells: [k.policy, codeOr(k.key), k.error_code ? el('code', null, k.error_code) : ''],
      }))));

    body.append(el('h4', null, 'Transformations under ' + i.policy));
    body.append(table('Each change, in order', ['Rule', 'Component', 'Before', 'After'],
      i.transformations.map((t) => ({ cells: [t.rule, t.component, codeOr(t.before), codeOr(t.after)] }))));

    const o = i.offsets;
    const spans = [];
    for (const name of ['scheme', 'userinfo', 'host', 'port', 'path', 'query', 'fragment']) {
      const sp = o[name];
      if (!sp) continue;
      spans.push({ cells: [name, sp.utf16.start + '–' + sp.utf16.end, sp.bytes.start + '–' + sp.bytes.end,
        codeOr(i.input.slice(sp.utf16.start, sp.utf16.end))] });
    }
    for (const p of o.params) {
      spans.push({ cells: ['param ' + p.name, p.span.utf16.start + '–' + p.span.utf16.end,
        p.span.bytes.start + '–' + p.span.bytes.end, codeOr(i.input.slice(p.span.utf16.start, p.span.utf16.end))] });
    }
    body.append(el('h4', null, 'Offsets in the input'));
    body.append(table('Spans of each component (UTF-16 and byte offsets)', ['Component', 'UTF-16', 'Bytes', 'Text'], spans));

    body.append(el('h4', null, 'Query pairs'));
    // null when the text is not a well-formed URL: an empty list would read as "no
    // parameters".
    if (i.query_pairs === null) {
      body.append(el('p', null, 'None: not a well-formed URL.'));
    } else {
      body.append(table('The query, form-decoded, in order', ['Name', 'Value'],
        i.query_pairs.map((p) => ({ cells: [codeOr(p[0]), codeOr(p[1])] }))));
    }
  }


  // ---------------------------------------------------------------- views

  // The views, by name: each its section and its button in the banner.
  const VIEWS = {
    mapper: [ui.mapperView, ui.viewMapper],
    compare: [ui.compareView, ui.viewCompare],
    redirects: [$('redirects-view'), $('view-redirects')],
  };

  function showView(name) {
    if (name !== 'mapper') closeInspector(false);
    for (const [n, [view, button]] of Object.entries(VIEWS)) {
      view.hidden = n !== name;
      button.setAttribute('aria-pressed', String(n === name));
    }
    document.documentElement.dataset.view = name;
    if (name === 'compare') ui.compareText.focus();
  }

  // ---------------------------------------------------------------- compare (explain)

  // One input per line, as typed; blank lines are skipped (a CR of CRLF is not kept).
  function compareInputs() {
    return ui.compareText.value.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
  }

  async function runCompare() {
    const inputs = compareInputs();
    const seq = ++state.compareSeq;
    clear(ui.compareResult);
    if (inputs.length < 2) {
      document.documentElement.dataset.compareState = 'error';
      setStatus(ui.compareStatus, 'Give two or more URLs, one per line.', 'error');
      return;
    }
    const policy = ui.comparePolicy.value || state.defaults.explain;
    document.documentElement.dataset.compareState = 'running';
    ui.compareRun.disabled = true;
    setStatus(ui.compareStatus, 'Explaining ' + inputs.length + ' inputs under ' + (policy || 'the default policy') + '…');
    try {
      const res = await api('/api/explain', { inputs, policy });
      const e = await res.json();
      if (seq !== state.compareSeq) return;
      renderExplanation(e);
      setStatus(ui.compareStatus, 'Explained ' + e.inputs.length + ' inputs under ' + e.policy + '.');
      document.documentElement.dataset.compareState = 'done';
    } catch (err) {
      if (seq !== state.compareSeq) return;
      document.documentElement.dataset.compareState = 'error';
      setStatus(ui.compareStatus, 'Error ' + (err.code || '') + ': ' + err.message, 'error');
    } finally {
      if (seq === state.compareSeq) ui.compareRun.disabled = false;
    }
  }

  // A before or after value: an empty one is said, not left blank.
  function valueNode(v) {
    if (v === null || v === undefined) return el('span', { class: 'muted' }, '-');
    return v === '' ? el('span', { class: 'muted' }, '(empty)') : el('code', null, v);
  }

  function renderExplanation(e) {
    const out = ui.compareResult;
    const n = e.inputs.length;
    const invalid = e.keys.some((k) => k === null);
    const verdict = e.same_key ? 'yes' : 'no' + (invalid ? ' (an invalid input shares no key)' : '');
    out.append(el('p', { id: 'compare-verdict', class: 'verdict ' + (e.same_key ? 'same' : 'differ'), 'data-same-key': String(e.same_key) },
      'Same key under ' + e.policy + ': ', el('strong', null, verdict)));

    const t = el('table', { id: 'compare-table', class: 'rows compare' },
      el('caption', null, 'The inputs side by side under ' + e.policy));
    const head = el('tr', null, el('th', { scope: 'col' }, ''));
    for (let i = 0; i < n; i++) head.append(el('th', { scope: 'col' }, 'Input ' + (i + 1)));
    t.append(el('thead', null, head));
    const tb = el('tbody');
    const row = (attrs, label, cells) => {
      const tr = el('tr', attrs, el('th', { scope: 'row' }, label));
      cells.forEach((c, i) => tr.append(el('td', { 'data-input': String(i + 1) }, c)));
      tb.append(tr);
      return tr;
    };
    row({ 'data-row': 'input' }, 'Input', e.inputs.map((x) => el('code', { class: 'observed' }, x)));
    row({ 'data-row': 'key' }, 'Key', e.keys.map((k, i) => k !== null ? el('code', { class: 'key' }, k)
      : el('span', { class: 'err' }, 'invalid: ', el('code', null, e.errors[i] ? e.errors[i].code : ''),
        e.errors[i] ? ' (' + e.errors[i].message + ')' : '')));
    if (e.rules.length) {
      const title = e.same_key ? 'Rules that made them meet' : 'Rules that treated them differently';
      tb.append(el('tr', { class: 'group-head' }, el('th', { colspan: String(n + 1), scope: 'rowgroup' },
        title + ' (each input\'s before → after)')));
      for (const rule of e.rules) {
        row({ 'data-rule': rule }, rule, e.transformations.map((ts) => {
          const mine = ts.filter((x) => x.rule === rule);
          if (!mine.length) return el('span', { class: 'muted' }, '(nothing)');
          const ul = el('ul', { class: 'steps' });
          for (const x of mine) ul.append(el('li', null, x.component + ': ', valueNode(x.before), ' → ', valueNode(x.after)));
          return ul;
        }));
      }
    }
    if (e.differs_in) {
      row({ 'data-row': 'differs', 'data-component': e.differs_in }, 'Differs in ' + e.differs_in,
        e.differing_values.map(valueNode));
    }
    t.append(tb);
    out.append(el('div', { class: 'table-wrap' }, t));

    if (!e.same_key) {
      out.append(el('h3', null, 'One key under'));
      if (e.same_key_under.length) {
        const ul = el('ul', { id: 'compare-same-under', class: 'inline-list' });
        for (const id of e.same_key_under) ul.append(el('li', null, el('code', null, id)));
        out.append(ul);
      } else {
        out.append(el('p', { id: 'compare-same-under-none', class: 'muted' }, 'No builtin policy gives them one key.'));
      }
    }
  }

  // ---------------------------------------------------------------- policy change (diff)

  // Groups shown per list; the JSON (and `urlkey diff --format json`) has them all.
  const DIFF_GROUPS_SHOWN = 50;

  async function runDiff() {
    if (ui.format.value !== 'lines') refreshShape();
    const base = baseRequest();
    delete base.policy;
    const body = Object.assign(base, { from: ui.diffFrom.value, to: ui.diffTo.value });
    const seq = ++state.diffSeq;
    document.documentElement.dataset.diffState = 'running';
    ui.diffRun.disabled = true;
    setStatus(ui.diffStatus, 'Keying the input under ' + body.from + ' and ' + body.to + '…');
    try {
      const res = await api('/api/diff', body);
      const r = await res.json();
      if (seq !== state.diffSeq) return;
      renderDiff(r);
      setStatus(ui.diffStatus, 'Done: ' + fmt(r.records) + ' records from ' + r.from + ' to ' + r.to + '.');
      document.documentElement.dataset.diffState = 'done';
    } catch (err) {
      if (seq !== state.diffSeq) return;
      document.documentElement.dataset.diffState = 'error';
      setStatus(ui.diffStatus, 'Error ' + (err.code || '') + ': ' + err.message, 'error');
    } finally {
      if (seq === state.diffSeq) ui.diffRun.disabled = false;
    }
  }

  // A merge is one --to key reached from several --from keys; a split the reverse.
  function diffGroups(node, groups, r, what) {
    clear(node);
    const [single, many] = what === 'merges' ? [r.to, r.from] : [r.from, r.to];
    if (!groups.length) {
      node.append(el('p', { class: 'muted' }, 'No ' + what + '.'));
      return;
    }
    const records = groups.reduce((a, g) => a + g.records, 0);
    node.append(el('p', { class: 'help' }, fmt(groups.length) + ' ' + what + ' (' + fmt(records) + ' records)' +
      (groups.length > DIFF_GROUPS_SHOWN ? '; the first ' + DIFF_GROUPS_SHOWN + ' are shown (urlkey diff --format json has them all).' : '.')));
    for (const g of groups.slice(0, DIFF_GROUPS_SHOWN)) {
      const art = el('article', { class: 'diff-group', 'data-key': g.key, 'data-records': String(g.records) });
      art.append(el('h4', null, el('code', { class: 'key' }, g.key), ' ',
        el('span', { class: 'muted' }, 'under ' + single + ': ' + g.keys.length + ' keys under ' + many + ', ' +
          fmt(g.records) + (g.records === 1 ? ' record' : ' records'))));
      const ul = el('ul', { class: 'group-keys' });
      for (const k of g.keys) ul.append(el('li', null, el('code', { class: 'key' }, k)));
      art.append(ul);
      const rules = el('p', { class: 'group-rules' }, 'Rules responsible: ');
      if (g.rules.length) g.rules.forEach((name, i) => rules.append(i ? ', ' : '', el('code', null, name)));
      else rules.append(el('span', { class: 'muted' }, 'none'));
      art.append(rules);
      art.append(table('First lines', ['Line', 'Observed', 'Key under ' + r.from, 'Key under ' + r.to],
        g.examples.map((x) => ({ cells: [String(x.line), el('code', { class: 'observed' }, x.observed),
          codeOr(x.key_from), codeOr(x.key_to)] }))));
      node.append(art);
    }
  }

  function renderDiff(r) {
    ui.diffResult.hidden = false;
    clear(ui.diffCounts);
    const counts = [
      ['records', 'Records', r.records],
      ['keys_from', 'Keys under ' + r.from, r.keys_from],
      ['keys_to', 'Keys under ' + r.to, r.keys_to],
      ['merges', 'Merges', r.merge_groups],
      ['splits', 'Splits', r.split_groups],
      ['changed', 'Key changed, same group', r.changed.records],
      ['invalid_from_only', 'Invalid under ' + r.from + ' only', r.invalid_from_only.records],
      ['invalid_to_only', 'Invalid under ' + r.to + ' only', r.invalid_to_only.records],
      ['invalid_both', 'Invalid under both', r.invalid_both],
    ];
    for (const [name, label, n] of counts) {
      ui.diffCounts.append(el('div', null, el('dt', null, label), el('dd', { 'data-count': name }, fmt(n))));
    }
    diffGroups(ui.diffMerges, r.merges, r, 'merges');
    diffGroups(ui.diffSplits, r.splits, r, 'splits');
  }

  // ---------------------------------------------------------------- wiring

  ui.sample.addEventListener('click', () => {
    setLoaded(null);
    ui.text.value = SAMPLE;
    ui.format.value = 'lines';
    refreshShape();
    ui.fileInfo.textContent = '';
    run();
  });
  ui.run.addEventListener('click', run);
  ui.text.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); run(); }
  });
  let shapeTimer = 0;
  ui.text.addEventListener('input', () => {
    if (ui.format.value === 'lines') return;
    clearTimeout(shapeTimer);
    shapeTimer = setTimeout(refreshShape, 300);
  });
  ui.format.addEventListener('change', refreshShape);
  ui.policy.addEventListener('change', showPolicy);
  ui.file.addEventListener('change', () => loadFile(ui.file.files[0]));
  ui.text.addEventListener('paste', onPaste);
  ui.fileClear.addEventListener('click', () => {
    setLoaded(null);
    ui.text.value = '';
    ui.file.value = '';
    ui.fileInfo.textContent = '';
    ui.text.focus();
  });
  ui.drop.addEventListener('dragover', (ev) => { ev.preventDefault(); ui.drop.classList.add('over'); });
  ui.drop.addEventListener('dragleave', () => ui.drop.classList.remove('over'));
  ui.drop.addEventListener('drop', (ev) => {
    ev.preventDefault();
    ui.drop.classList.remove('over');
    if (ev.dataTransfer && ev.dataTransfer.files.length) loadFile(ev.dataTransfer.files[0]);
  });
  for (const r of document.querySelectorAll('input[name="cls"]')) {
    r.addEventListener('change', () => {
      state.classification = r.value;
      state.page = 1;
      load(false);
    });
  }
  ui.pageSize.addEventListener('change', () => { state.page = 1; state.invalidPage = 1; load(false); });
  ui.prev.addEventListener('click', () => { state.page -= 1; load(false); });
  ui.next.addEventListener('click', () => { state.page += 1; load(false); });
  ui.invalidPrev.addEventListener('click', () => { state.invalidPage -= 1; load(false); });
  ui.invalidNext.addEventListener('click', () => { state.invalidPage += 1; load(false); });
  ui.exportBtn.addEventListener('click', exportCsv);
  ui.inspectorClose.addEventListener('click', () => closeInspector(true));
  ui.viewMapper.addEventListener('click', () => showView('mapper'));
  ui.viewCompare.addEventListener('click', () => showView('compare'));
  VIEWS.redirects[1].addEventListener('click', () => showView('redirects'));
  ui.compareRun.addEventListener('click', runCompare);
  ui.compareText.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); runCompare(); }
  });
  ui.diffRun.addEventListener('click', runDiff);
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && !ui.inspector.hidden) closeInspector(true);
  });

  // What the Redirects view (redirects.js, loaded after this file) shares with the others.
  window.urlkeyPage = {
    el, clear, setStatus, fmt, mb, secs, byteSize, tooLarge, postJson, painted,
    headerRow, firstJsonFields, fillChoices, shapeFromName, PREVIEW_BYTES, PREVIEW_LINES,
  };

  refreshShape();
  loadPolicies();
})();
