// The queries page: reloads its table from /ui/api/queries every second, with the page's filters.
// Every value goes in as text (textContent), never as HTML: query texts and tags are user input.
(function () {
  'use strict';
  var body = document.getElementById('query-rows');
  var live = document.getElementById('live');
  if (!body) {
    return;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    return node;
  }

  function cell(child, className) {
    var td = el('td', className);
    if (child !== null && child !== undefined) {
      td.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return td;
  }

  function badge(state) {
    return el('span', 'badge ' + state.toLowerCase(), state);
  }

  function bar(share, label) {
    var outer = el('div', share === null || share === undefined ? 'progress unknown' : 'progress');
    var fill = el('div', 'fill');
    if (share !== null && share !== undefined) {
      fill.style.width = Math.round(share * 1000) / 10 + '%';
    }
    outer.appendChild(fill);
    outer.appendChild(el('span', null, label));
    return outer;
  }

  function row(q) {
    var tr = el('tr');
    tr.setAttribute('data-id', q.id);
    tr.appendChild(cell(badge(q.state)));
    var sql = cell(null, 'sql');
    var link = el('a', null, q.id);
    link.href = '/ui/queries/' + encodeURIComponent(q.id);
    sql.appendChild(link);
    var text = el('div', 'text', q.sql);
    text.title = q.sql;
    sql.appendChild(text);
    tr.appendChild(sql);
    tr.appendChild(cell(q.user));
    tr.appendChild(cell(q.tag ? el('span', 'tag', q.tag) : null));
    tr.appendChild(cell(q.source || ''));
    tr.appendChild(cell(q.created, 'when'));
    tr.appendChild(cell(q.elapsed, 'num'));
    tr.appendChild(cell(q.rows, 'num rows'));
    tr.appendChild(cell(q.bytesScanned, 'num'));
    tr.appendChild(cell(q.peakMemory, 'num'));
    tr.appendChild(cell(bar(q.progress, q.progressText)));
    return tr;
  }

  function render(queries) {
    var rows = document.createDocumentFragment();
    queries.forEach(function (q) { rows.appendChild(row(q)); });
    if (queries.length === 0) {
      var empty = el('tr', 'empty');
      var td = cell('No statements match.');
      td.colSpan = 11;
      empty.appendChild(td);
      rows.appendChild(empty);
    }
    body.replaceChildren(rows);
    document.querySelectorAll('[data-count]').forEach(function (figure) {
      var state = figure.getAttribute('data-count');
      figure.textContent = queries.filter(function (q) { return q.state === state; }).length;
    });
  }

  function poll() {
    fetch('/ui/api/queries' + window.location.search, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (response) {
        if (response.status === 401) {
          window.location = '/ui/login';
          throw new Error('logged out');
        }
        return response.json();
      })
      .then(function (json) {
        render(json.queries);
        live.className = 'live';
        live.textContent = 'live';
      })
      .catch(function () {
        live.className = 'live stale';
        live.textContent = 'reconnecting';
      });
  }

  setInterval(poll, 1000);
})();
