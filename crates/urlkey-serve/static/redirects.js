// urlkey serve: the Redirects view. OLD and NEW go to POST /api/redirects/propose, which
// answers one proposal per OLD record; the person's decisions, the filters, the pages and
// the exported MAP are all kept here, so no proposal is asked for twice. Data is put into
// the page as text only (the helpers of app.js: el, textContent).
'use strict';

(function () {
  const P = window.urlkeyPage;
  const { el, clear, setStatus, fmt, mb, secs } = P;
  const $ = (id) => document.getElementById(id);
  const STATUSES = ['served', 'same-key', 'candidate', 'none', 'invalid'];
  const TITLEISH = /^(title|title 1|page title|name|h1|h1-1)$/i;
  // A decision per OLD row, by its index in the answer.
  const UNDECIDED = 0;
  const ACCEPT = 1;
  const REJECT = 2;
  const WORDS = ['', 'accept', 'reject'];

  const ui = {
    policy: $('rd-policy'), run: $('rd-run'), status: $('rd-status'), results: $('rd-results'),
    resultsH: $('rd-results-h'), counts: $('rd-counts'), rows: $('rd-rows'), pageInfo: $('rd-page-info'),
    prev: $('rd-prev'), next: $('rd-next'), pageSize: $('rd-page-size'), decisionFilter: $('rd-decision-filter'),
    ambiguousOnly: $('rd-ambiguous-only'), acceptShown: $('rd-accept-shown'), rejectShown: $('rd-reject-shown'),
    clearShown: $('rd-clear-shown'), httpStatus: $('rd-http-status'), exportBtn: $('rd-export'), decided: $('rd-decided'),
  };

  const state = {
    seq: 0,
    data: null, // the last answer
    decisions: null, // Uint8Array, one per proposal
    shown: [], // indexes of the proposals the filters show, in input order
    page: 1,
    status: 'all',
  };

  // ---------------------------------------------------------------- the two inputs

  function makeSide(k) {
    const s = {
      text: $('rd-' + k + '-text'), file: $('rd-' + k + '-file'), clearBtn: $('rd-' + k + '-clear'),
      preview: $('rd-' + k + '-preview'), format: $('rd-' + k + '-format'),
      columnWrap: $('rd-' + k + '-column-wrap'), column: $('rd-' + k + '-column'),
      titleWrap: $('rd-' + k + '-title-wrap'), title: $('rd-' + k + '-title'),
      name: k.toUpperCase(), loaded: null,
    };
    s.value = () => (s.loaded ? s.loaded.text : s.text.value);
    return s;
  }
  const sides = { old: makeSide('old'), new: makeSide('new') };

  function fillTitles(s, names) {
    const previous = s.title.value;
    clear(s.title);
    s.title.append(el('option', { value: '' }, '(none)'));
    names.forEach((name, i) => {
      if (name !== '' && names.indexOf(name) === i) s.title.append(el('option', { value: name }, name));
    });
    const keep = Array.from(s.title.options).find((o) => o.value === previous && previous !== '');
    const titleish = Array.from(s.title.options).find((o) => TITLEISH.test(o.value));
    s.title.value = keep ? keep.value : titleish ? titleish.value : '';
  }

  // The delimiter of a CSV's header line as the server's reader detects it: the most
  // frequent of `,` `;` tab `|` outside quotes (European spreadsheets write `;`).
  function delimiter(text) {
    const counts = { ',': 0, ';': 0, '\t': 0, '|': 0 };
    let quoted = false;
    for (let i = 0; i < text.length && i < 65536; i++) {
      const c = text[i];
      if (c === '"') quoted = !quoted;
      else if (!quoted && (c === '\n' || c === '\r')) break;
      else if (!quoted && c in counts) counts[c]++;
    }
    let best = ',';
    for (const d of [';', '\t', '|']) if (counts[d] > counts[best]) best = d;
    return best;
  }

  // The column (or JSONL field) choices from the text's header, as the Mapper's.
  function refreshSide(s) {
    const f = s.format.value;
    const tabular = f === 'csv' || f === 'tsv';
    s.columnWrap.hidden = !(tabular || f === 'jsonl');
    s.titleWrap.hidden = s.columnWrap.hidden;
    const text = s.value();
    let names = [];
    if (tabular) names = text.trim() ? P.headerRow(text, f === 'csv' ? delimiter(text) : '\t') : [];
    else if (f === 'jsonl') names = P.firstJsonFields(text);
    if (!s.columnWrap.hidden) {
      P.fillChoices(s.column, names, s.column.value);
      fillTitles(s, names);
    }
  }

  function setLoaded(s, loaded) {
    s.loaded = loaded;
    s.preview.hidden = !loaded;
    s.text.readOnly = !!loaded;
    if (loaded) {
      s.text.value = loaded.text.split('\n', P.PREVIEW_LINES + 1).slice(0, P.PREVIEW_LINES).join('\n');
      s.preview.textContent = loaded.label + ' (' + fmt(loaded.text.length) + ' characters) is loaded; the text area shows its first ' +
        P.PREVIEW_LINES + ' lines, read-only. Propose uses all of it.';
    }
  }

  async function loadFile(s, file) {
    if (!file) return;
    let text;
    try {
      text = await file.text();
    } catch (e) {
      setStatus(ui.status, 'Cannot read ' + file.name + ': ' + e.message, 'error');
      return;
    }
    s.format.value = P.shapeFromName(file.name);
    if (text.length > P.PREVIEW_BYTES) setLoaded(s, { label: s.name + ' file "' + file.name + '"', text });
    else {
      setLoaded(s, null);
      s.text.value = text;
    }
    refreshSide(s);
    setStatus(ui.status, 'Loaded ' + file.name + ' as ' + s.name + ' (' + fmt(file.size) + ' bytes).');
  }

  // ---------------------------------------------------------------- propose

  function sideRequest(s) {
    const f = s.format.value;
    const req = { text: s.value(), input_format: f };
    if (f === 'csv' || f === 'tsv') req.column = s.column.value;
    if (f === 'jsonl') req.field = s.column.value;
    if ((f === 'csv' || f === 'tsv' || f === 'jsonl') && s.title.value) req.title_column = s.title.value;
    return req;
  }

  async function propose() {
    for (const s of Object.values(sides)) if (s.format.value !== 'lines') refreshSide(s);
    const root = document.documentElement.dataset;
    const seq = ++state.seq;
    const t0 = performance.now();
    const body = { policy: ui.policy.value, old: sideRequest(sides.old), new: sideRequest(sides.new) };
    if (!body.old.text.trim() || !body.new.text.trim()) {
      root.redirectsState = 'error';
      setStatus(ui.status, 'Give both OLD and NEW: the old site\'s URLs and the new site\'s.', 'error');
      return;
    }
    const json = JSON.stringify(body);
    const big = P.tooLarge(P.byteSize(json), 'OLD and NEW together');
    if (big) {
      root.redirectsState = 'error';
      setStatus(ui.status, 'Not sent. ' + big, 'error');
      return;
    }
    root.redirectsState = 'running';
    ui.run.disabled = true;
    const phase = (name, loaded, total) => {
      if (seq !== state.seq) return;
      if (name === 'sending') setStatus(ui.status, 'Sending ' + mb(loaded) + ' of ' + mb(total) + '…');
      else setStatus(ui.status, 'Sent; the server is proposing targets…');
    };
    try {
      const data = await P.postJson('/api/redirects/propose', json, phase);
      if (seq !== state.seq) return;
      state.data = data;
      state.decisions = new Uint8Array(data.proposals.length);
      state.page = 1;
      renderCounts();
      refilter();
      await P.painted();
      if (seq !== state.seq) return;
      const ms = performance.now() - t0;
      setStatus(ui.status, 'Done: ' + fmt(data.proposals.length) + ' proposals under ' + data.policy + ' for ' +
        fmt(data.new.records) + ' NEW records in ' + secs(ms) + ' (proposing ' + secs(data.compute_ms) + ').');
      root.redirectsState = 'done';
      root.redirectsMs = String(Math.round(ms));
      ui.resultsH.focus();
    } catch (e) {
      if (seq !== state.seq) return;
      root.redirectsState = 'error';
      setStatus(ui.status, 'Error ' + (e.code || '') + ': ' + e.message, 'error');
    } finally {
      if (seq === state.seq) ui.run.disabled = false;
    }
  }

  // ---------------------------------------------------------------- the table

  function renderCounts() {
    const d = state.data;
    ui.results.hidden = false;
    clear(ui.counts);
    const items = [['records', 'OLD records', d.old.records], ['new', 'NEW records', d.new.records]]
      .concat(STATUSES.map((st) => [st, st, d.counts[st] || 0]));
    for (const [name, label, n] of items) {
      ui.counts.append(el('div', null, el('dt', null, label), el('dd', { 'data-count': name }, fmt(n))));
    }
    for (const span of document.querySelectorAll('#rd-filters [data-n]')) {
      const k = span.dataset.n;
      span.textContent = '(' + fmt(k === 'all' ? d.proposals.length : d.counts[k] || 0) + ')';
    }
  }

  function canAccept(p) {
    return p.target !== null && p.status !== 'served' && p.status !== 'invalid';
  }

  function canDecide(p) {
    return p.status !== 'served';
  }

  // The indexes the filters let through, in input order.
  function refilter() {
    const d = state.data;
    if (!d) return;
    const want = ui.decisionFilter.value;
    const amb = ui.ambiguousOnly.checked;
    const dec = state.decisions;
    const out = [];
    for (let i = 0; i < d.proposals.length; i++) {
      const p = d.proposals[i];
      if (state.status !== 'all' && p.status !== state.status) continue;
      if (amb && !p.ambiguous) continue;
      if (want === 'undecided' && dec[i] !== UNDECIDED) continue;
      if (want === 'accept' && dec[i] !== ACCEPT) continue;
      if (want === 'reject' && dec[i] !== REJECT) continue;
      out.push(i);
    }
    state.shown = out;
    renderPage();
  }

  // A score as the engine gives it, to two decimals at most (93, 0.75).
  function score(n) {
    return n === null || n === undefined ? '' : String(Math.round(Number(n) * 100) / 100);
  }

  function codeOr(v) {
    return v === null || v === undefined ? el('span', { class: 'muted' }, '-') : el('code', { class: 'observed' }, v);
  }

  function decisionCell(i, p) {
    const td = el('td', { class: 'decision' });
    if (!canDecide(p)) {
      td.append(el('span', { class: 'muted' }, 'no redirect needed'));
      return td;
    }
    const d = state.decisions[i];
    const accept = el('button', { type: 'button', class: 'accept', 'aria-pressed': String(d === ACCEPT),
      disabled: !canAccept(p), 'aria-label': 'Accept line ' + p.line }, 'Accept');
    const reject = el('button', { type: 'button', class: 'reject', 'aria-pressed': String(d === REJECT),
      'aria-label': 'Reject line ' + p.line }, 'Reject');
    // A second press of the pressed button takes the decision back.
    accept.addEventListener('click', () => decide(i, d === ACCEPT ? UNDECIDED : ACCEPT));
    reject.addEventListener('click', () => decide(i, d === REJECT ? UNDECIDED : REJECT));
    td.append(accept, ' ', reject);
    return td;
  }

  function rowNode(i) {
    const p = state.data.proposals[i];
    const tr = el('tr', { 'data-index': String(i), 'data-line': String(p.line), 'data-status': p.status,
      'data-decision': WORDS[state.decisions[i]] || 'undecided' });
    tr.append(el('td', { class: 'num' }, String(p.line)));
    const src = el('td', null, codeOr(p.source));
    if (p.title) src.append(el('div', { class: 'muted' }, p.title));
    tr.append(src);
    const st = el('td', null, el('span', { class: 'badge st-' + p.status }, p.status));
    if (p.ambiguous) st.append(' ', el('span', { class: 'badge ambiguous', title: 'two targets tie or the runner-up is close' }, 'ambiguous'));
    tr.append(st);
    tr.append(el('td', null, p.status === 'invalid'
      ? el('span', { class: 'err' }, el('code', null, p.error_code || ''), ' ', p.error || '')
      : codeOr(p.target)));
    const ev = el('td', { class: 'steps' });
    if (p.evidence.length) {
      const ul = el('ul');
      for (const e of p.evidence) ul.append(el('li', null, el('code', null, e.kind), e.detail ? ': ' + e.detail : ''));
      ev.append(ul);
    } else ev.append(el('span', { class: 'muted' }, 'none'));
    tr.append(ev);
    tr.append(el('td', { class: 'num' }, p.target === null ? '' : score(p.score)));
    const ru = el('td', null);
    if (p.runner_up !== null) ru.append(codeOr(p.runner_up), ' ', el('span', { class: 'muted' }, score(p.runner_up_score)));
    tr.append(ru);
    tr.append(decisionCell(i, p));
    return tr;
  }

  function renderPage() {
    const size = Number(ui.pageSize.value);
    const total = state.shown.length;
    const pages = Math.max(1, Math.ceil(total / size));
    state.page = Math.min(Math.max(1, state.page), pages);
    const start = (state.page - 1) * size;
    clear(ui.rows);
    const frag = document.createDocumentFragment();
    for (const i of state.shown.slice(start, start + size)) frag.append(rowNode(i));
    if (!total) frag.append(el('tr', null, el('td', { colspan: '8', class: 'muted' }, 'No proposals to show.')));
    ui.rows.append(frag);
    ui.pageInfo.textContent = 'Page ' + state.page + ' of ' + pages + ' · ' + fmt(total) + ' proposals shown by these filters';
    ui.prev.disabled = state.page <= 1;
    ui.next.disabled = state.page >= pages;
    renderDecided();
  }

  function renderDecided() {
    let a = 0;
    let r = 0;
    for (const d of state.decisions) {
      if (d === ACCEPT) a++;
      else if (d === REJECT) r++;
    }
    ui.decided.textContent = fmt(a) + ' accepted, ' + fmt(r) + ' rejected, ' +
      fmt(state.decisions.length - a - r) + ' undecided. The export has the ' + fmt(a + r) + ' decided rows.';
    ui.decided.dataset.accepted = String(a);
    ui.decided.dataset.rejected = String(r);
  }

  function decide(i, d) {
    state.decisions[i] = d;
    // The row stays where it is until the filters change, so that a decision does not
    // move the row under the pointer.
    const tr = ui.rows.querySelector('tr[data-index="' + i + '"]');
    if (tr) {
      const fresh = rowNode(i);
      tr.replaceWith(fresh);
      const b = fresh.querySelector(d === REJECT ? 'button.reject' : 'button.accept');
      if (b) b.focus();
    }
    renderDecided();
  }

  // Decides every shown row that can take `d` (bulk accept leaves ambiguous rows alone).
  function decideShown(d) {
    if (!state.data) return;
    let n = 0;
    let ambiguous = 0;
    for (const i of state.shown) {
      const p = state.data.proposals[i];
      if (!canDecide(p)) continue;
      if (d === ACCEPT && !canAccept(p)) continue;
      if (d === ACCEPT && p.ambiguous) { ambiguous++; continue; }
      state.decisions[i] = d;
      n++;
    }
    renderPage();
    const verb = d === ACCEPT ? 'Accepted ' : d === REJECT ? 'Rejected ' : 'Cleared the decision of ';
    setStatus(ui.status, verb + fmt(n) + ' rows' + (ambiguous ? '; ' + fmt(ambiguous) + ' ambiguous rows left for you to decide one by one.' : '.'));
  }

  // ---------------------------------------------------------------- export

  // A CSV cell (RFC 4180); quoted also when it starts with `#` (a reader may skip such a
  // line as a comment) or has spaces at either end (a reader may trim them).
  function cell(v) {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\r\n]|^[#\s]|\s$/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  // The MAP: the decided rows in OLD's order, with the columns `urlkey redirects check`
  // and `compile` read (source, target, status, decision).
  function mapCsv() {
    const d = state.data;
    const http = ui.httpStatus.value;
    const lines = ['source,target,status,decision'];
    for (let i = 0; i < d.proposals.length; i++) {
      const dec = state.decisions[i];
      if (dec === UNDECIDED) continue;
      const p = d.proposals[i];
      lines.push([p.source, p.target, http, WORDS[dec]].map(cell).join(','));
    }
    return lines.join('\n') + '\n';
  }

  function exportMap() {
    if (!state.data) return;
    const csv = mapCsv();
    const rows = csv.split('\n').length - 2;
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
    const a = el('a', { href: url, download: 'urlkey-redirects-map.csv', class: 'hidden-link' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    setStatus(ui.status, 'Exported urlkey-redirects-map.csv: ' + fmt(rows) + ' decided rows (undecided rows are not in it).');
  }

  // ---------------------------------------------------------------- wiring

  for (const s of Object.values(sides)) {
    s.format.addEventListener('change', () => refreshSide(s));
    s.file.addEventListener('change', () => loadFile(s, s.file.files[0]));
    let timer = 0;
    s.text.addEventListener('input', () => {
      if (s.format.value === 'lines') return;
      clearTimeout(timer);
      timer = setTimeout(() => refreshSide(s), 300);
    });
    // A large paste is kept out of the text area, as the Mapper's is.
    s.text.addEventListener('paste', (ev) => {
      const text = ev.clipboardData ? ev.clipboardData.getData('text/plain') : '';
      if (text.length <= P.PREVIEW_BYTES) return;
      ev.preventDefault();
      setLoaded(s, { label: 'The pasted ' + s.name, text });
      refreshSide(s);
    });
    s.clearBtn.addEventListener('click', () => {
      setLoaded(s, null);
      s.text.value = '';
      s.file.value = '';
      refreshSide(s);
      s.text.focus();
    });
  }
  ui.run.addEventListener('click', propose);
  for (const r of document.querySelectorAll('input[name="rd-status"]')) {
    r.addEventListener('change', () => { state.status = r.value; state.page = 1; refilter(); });
  }
  ui.decisionFilter.addEventListener('change', () => { state.page = 1; refilter(); });
  ui.ambiguousOnly.addEventListener('change', () => { state.page = 1; refilter(); });
  ui.pageSize.addEventListener('change', () => { state.page = 1; renderPage(); });
  ui.prev.addEventListener('click', () => { state.page -= 1; renderPage(); });
  ui.next.addEventListener('click', () => { state.page += 1; renderPage(); });
  ui.acceptShown.addEventListener('click', () => decideShown(ACCEPT));
  ui.rejectShown.addEventListener('click', () => decideShown(REJECT));
  ui.clearShown.addEventListener('click', () => decideShown(UNDECIDED));
  ui.exportBtn.addEventListener('click', exportMap);
  for (const s of Object.values(sides)) refreshSide(s);
})();
