// A query's page: refreshes its figures, progress and the plan's per-operator figures from
// /ui/api/queries/<id> every second while the statement is live, and reloads the page once it has ended (final timeline, error, no kill button).
(function () {
  'use strict';
  var page = document.getElementById('query');
  if (!page) {
    return;
  }
  var id = page.getAttribute('data-id');
  var live = ['PLANNING', 'QUEUED', 'RUNNING'];
  if (live.indexOf(page.getAttribute('data-state')) < 0) {
    return;
  }

  function update(q) {
    document.querySelectorAll('[data-field]').forEach(function (node) {
      var value = q[node.getAttribute('data-field')];
      node.textContent = value === null || value === undefined || value === '' ? '–' : value;
    });
    var badge = document.querySelector('#state .badge');
    badge.className = 'badge ' + q.state.toLowerCase();
    badge.textContent = q.state;
    var bar = document.querySelector('#progress .progress');
    var fill = bar.querySelector('.fill');
    if (q.progress === null || q.progress === undefined) {
      bar.className = 'progress unknown';
      fill.style.width = '';
    } else {
      bar.className = 'progress';
      fill.style.width = Math.round(q.progress * 1000) / 10 + '%';
    }
    bar.querySelector('span').textContent = q.progressText;
    var plan = document.getElementById('plan');
    if (plan && q.plan) {
      plan.textContent = q.plan;
    }
    if (live.indexOf(q.state) < 0) {
      window.location.reload();
    }
  }

  var timer = setInterval(function () {
    fetch('/ui/api/queries/' + encodeURIComponent(id), { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
      .then(update)
      .catch(function () { clearInterval(timer); });
  }, 1000);
})();
