// The review queue of the ledger page (`urlkey serve --ledger DB`). The page's
// only script, served as a file (the CSP allows no inline script). Each merge's form is sent
// here as a fetch POST to /api/ledger/review with the per-run token (read from the queue's
// data-token attribute) in the X-Urlkey-Token header; the CSP's form-action 'none' means a
// form is never submitted natively. The answer is written with textContent, never as markup.
'use strict';
(function () {
  const queue = document.getElementById('review-queue');
  if (!queue || !queue.dataset.token) return;
  const token = queue.dataset.token;
  for (const form of queue.querySelectorAll('form.review-form')) {
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const out = form.querySelector('output');
      const val = (name) => {
        const el = form.elements.namedItem(name);
        return el && el.value.trim() !== '' ? el.value.trim() : null;
      };
      const body = { reviewer: val('reviewer') || '', role: val('role'), merge: val('merge'), note: val('note') };
      const claim = val('claim_support');
      if (claim) {
        // Claim support belongs to an observation; role and merge then go to its key.
        body.observation = val('observation');
        body.claim_support = claim;
      } else {
        body.key = form.dataset.key;
        body.policy = form.dataset.policy;
      }
      out.textContent = 'recording...';
      try {
        const res = await fetch('/api/ledger/review', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Urlkey-Token': token },
          body: JSON.stringify(body),
        });
        const answer = await res.json();
        if (res.ok) {
          out.textContent = 'review ' + answer.review_id + ' recorded';
          form.dataset.recorded = String(answer.review_id);
        } else {
          out.textContent = 'refused: ' + answer.error.code + ': ' + answer.error.message;
        }
      } catch (e) {
        out.textContent = 'not recorded: ' + e;
      }
    });
  }
})();
