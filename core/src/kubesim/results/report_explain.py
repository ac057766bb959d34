"""The report's pod drill-down: `kubesim explain` for every pod, one click or search away.

The section holds one compact JSON document (node, plugin and message names interned,
numbers as arrays) and a small script that renders a pod's attempts only when it is
asked for: by typing its name in the search box or by clicking a row of any table with
namespace and name columns (such as "Pods that failed scheduling"). Nothing is drawn
eagerly, so the page stays light for thousands of pods and nodes; per attempt the page
keeps the best HTML_TOP_SCORES scored nodes (and the chosen one) and at most
HTML_MAX_REJECTED rejected nodes, and says when `kubesim explain` shows more.
"""

from __future__ import annotations

import html
import json
from typing import Any, Generic, TypeVar

import attrs

from kubesim.api import Scenario, ScenarioStep
from kubesim.results.explain import TIE_RULE, Attempt, PodExplanation, explain_pods, is_extender

__all__ = ["HTML_MAX_REJECTED", "HTML_TOP_SCORES", "explain_data", "explain_section"]

HTML_TOP_SCORES = 5
HTML_MAX_REJECTED = 50

T = TypeVar("T")


class _Interned(Generic[T]):
    """Values interned as indexes into one list: a 5,000-node result repeats each node name,
    message and per-plugin score row many times."""

    def __init__(self) -> None:
        self.items: list[T] = []
        self._index: dict[T, int] = {}

    def __call__(self, value: T | None) -> int | None:
        if value is None:
            return None
        i = self._index.get(value)
        if i is None:
            i = self._index[value] = len(self.items)
            self.items.append(value)
        return i


_Names = _Interned[str]
_ScoreRow = tuple[tuple[int | None, int, int, int], ...]  # (plugin, raw, normalized, weighted) per plugin


@attrs.define
class _Pack:
    nodes: _Names = attrs.field(factory=_Names)
    plugins: _Names = attrs.field(factory=_Names)
    texts: _Names = attrs.field(factory=_Names)
    rows: _Interned[_ScoreRow] = attrs.field(factory=_Interned)


def _step(step: ScenarioStep | None) -> str | None:
    return None if step is None else f"{step.major}/{step.minor}"


def _attempt(a: Attempt, pack: _Pack) -> dict[str, Any]:
    nodes, plugins, texts = pack.nodes, pack.plugins, pack.texts
    why = a.why
    out: dict[str, Any] = {"s": _step(a.step), "o": a.outcome, "d": a.detail}
    if why.endswith(TIE_RULE):  # the rule once in the texts, not in every tied attempt's sentence
        why, out["tr"] = why[: -len(TIE_RULE)], 1
    out["w"] = texts(why)
    if a.profile != "default-scheduler":
        out["p"] = texts(a.profile)
    for key, value in (("n", nodes(a.node)), ("m", texts(a.message)), ("c", a.candidate_nodes),
                       ("f", a.feasible_nodes), ("nn", nodes(a.nominated_node))):
        if value is not None:
            out[key] = value
    if a.reasons:
        out["r"] = [[texts(r), n] for r, n in sorted(a.reasons.items(), key=lambda kv: (-kv[1], kv[0]))]
    rejected = [f for f in a.filters if not f.passed]
    if rejected:
        out["x"] = [[nodes(f.node), plugins(f.plugin), texts(f.message)] for f in rejected[:HTML_MAX_REJECTED]]
        out["xn"] = len(rejected)
    if a.filters:
        out["pn"] = sum(f.passed for f in a.filters)
    if a.scores:
        shown = a.scores[:HTML_TOP_SCORES]
        if a.node is not None and a.node not in {s.node for s in shown}:
            shown += [s for s in a.scores if s.node == a.node]
        out["sc"] = [[nodes(s.node), s.total, pack.rows(tuple(
                         (plugins(p), v.raw_score, v.normalized_score, v.final_score) for p, v in s.plugins.items()))]
                     for s in shown]
        out["sn"] = len(a.scores)
    if len(a.tied) > 1:
        out["t"] = [nodes(n) for n in a.tied]
    if a.victims:
        out["v"] = [[f"{v.namespace}/{v.name}", nodes(v.node), v.priority, _step(v.step)] for v in a.victims]
    if a.notes:
        out["no"] = [texts(n) for n in a.notes]
    return out


def _instance(p: PodExplanation, pack: _Pack) -> dict[str, Any]:
    out: dict[str, Any] = {"st": p.state, "pr": p.priority, "cr": _step(p.created),
                           "a": [_attempt(a, pack) for a in p.attempts]}
    if p.node is not None:
        out["n"] = pack.nodes(p.node)
    if p.profile != "default-scheduler":
        out["p"] = pack.texts(p.profile)
    if p.preempted_by:
        out["pb"], out["pa"] = p.preempted_by, _step(p.preempted_at)
    return out


def explain_data(result: Scenario) -> dict[str, Any]:
    """Every pod's explanation in the page's compact form (see the renderer in _SCRIPT)."""
    pack = _Pack()
    pods = {key: [_instance(p, pack) for p in instances] for key, instances in explain_pods(result).items()}
    return {"nodes": pack.nodes.items, "plugins": pack.plugins.items,
            "extenders": [is_extender(p) for p in pack.plugins.items], "texts": pack.texts.items,
            "scoreRows": [[list(cell) for cell in row] for row in pack.rows.items], "tieRule": TIE_RULE,
            "pods": pods, "topScores": HTML_TOP_SCORES, "maxRejected": HTML_MAX_REJECTED}


def _json_for_script(data: Any) -> str:
    """JSON safe inside <script>: no '</' (which would end the element) and no U+2028/2029."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


_CSS = """
.explain .search input { font-size: 1em; padding: 4px 8px; width: 28em; max-width: 100%; }
.explain .matches button { margin: 2px 4px 2px 0; font-size: 0.85em; cursor: pointer; }
.explain .attempt { border-left: 3px solid #d9e2ec; padding-left: 12px; margin: 14px 0; }
.explain .attempt.scheduled { border-color: #3ebd93; } .explain .attempt.unschedulable { border-color: #d64545; }
.explain .attempt.error { border-color: #f0b429; }
.explain .why { margin: 4px 0; } .explain td.num { text-align: right; }
.explain h4 { margin: 16px 0 6px; } .explain h5 { margin: 12px 0 2px; } .explain table.data { margin: 2px 0 6px; }
table.data tr.clickable-pod:hover td { background: #fffbea; cursor: pointer; }
"""

# Renders one pod from the data (PodExplanation's fields in short keys, names as indexes).
_SCRIPT = r"""
(function () {
  if (window.kubesimExplain) return;
  var cache = {};
  function data(id) {
    if (!cache[id]) cache[id] = JSON.parse(document.getElementById(id + '-explain-data').textContent);
    return cache[id];
  }
  function esc(s) {
    return String(s == null ? '' : s).replace(/[&<>"']/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
    });
  }
  function table(head, rows) {
    return '<div class="scroll"><table class="data"><thead><tr>' + head.map(function (h) {
      return '<th>' + esc(h) + '</th>'; }).join('') + '</tr></thead><tbody>' + rows.map(function (r) {
      return '<tr>' + r.map(function (c) {
        return (typeof c === 'number' ? '<td class="num">' : '<td>') + esc(c) + '</td>'; }).join('') + '</tr>';
    }).join('') + '</tbody></table></div>';
  }
  function attempt(D, a, i) {
    var N = D.nodes, P = function (j) { return D.plugins[j] + (D.extenders[j] ? ' (extender)' : ''); };
    var T = D.texts, h = [];
    var counts = [];
    if (a.c != null) counts.push(a.c + ' node(s) considered');
    if (a.f != null) counts.push(a.f + ' feasible');
    h.push('<div class="attempt ' + esc(a.o) + '" data-attempt="' + (i + 1) + '"><h4>Attempt ' + (i + 1) +
           ': step ' + esc(a.s) + ', profile ' + esc(a.p != null ? T[a.p] : 'default-scheduler') + ', ' +
           esc(a.o) + (a.n != null ? ' on ' + esc(N[a.n]) : '') + ' (' + esc(a.d) + ' detail' +
           (counts.length ? '; ' + esc(counts.join(', ')) : '') + ')</h4>');
    if (a.m != null) h.push('<p class="why"><b>message:</b> ' + esc(T[a.m]) + '</p>');
    h.push('<p class="why"><b>why:</b> ' + esc(T[a.w] + (a.tr ? D.tieRule : '')) + '</p>');
    if (a.t) h.push('<p class="why"><b>tied at the best total:</b> ' + esc(a.t.map(function (j) { return N[j]; }).join(', ')) + '</p>');
    if (a.r) h.push('<h5>Filter: rejection reasons (nodes per reason)</h5>' +
                    table(['reason', 'nodes'], a.r.map(function (r) { return [T[r[0]], r[1]]; })));
    if (a.x) {
      h.push('<h5>Filter: nodes rejected (the first plugin that rejected each node)</h5>' +
             table(['node', 'plugin', 'message'], a.x.map(function (r) { return [N[r[0]], P(r[1]), T[r[2]]]; })));
      if (a.xn > a.x.length) h.push('<p class="note">showing ' + a.x.length + ' of ' + a.xn +
                                   ' rejected nodes: kubesim explain lists every one</p>');
    }
    if (a.pn) h.push('<p class="note">' + a.pn + ' node(s) passed every filter plugin</p>');
    if (a.sc) {
      var rows = [];
      a.sc.forEach(function (s) {
        var mark = s[0] === a.n ? ' (chosen)' : (a.t && a.t.indexOf(s[0]) >= 0 ? ' (tied)' : '');
        D.scoreRows[s[2]].forEach(function (p, k) { rows.push([k ? '' : N[s[0]] + mark, P(p[0]), p[1], p[2], p[3], '']); });
        rows.push(['', 'total', '', '', '', s[1]]);
      });
      h.push('<h5>Scores: raw, normalized, weighted (normalized x plugin weight); total = sum of weighted</h5>' +
             table(['node', 'plugin', 'raw', 'normalized', 'weighted', 'total'], rows));
      if (a.sn > a.sc.length) h.push('<p class="note">showing the ' + a.sc.length + ' best of ' + a.sn +
                                   ' scored nodes: kubesim explain --top 0 lists every one</p>');
    }
    if (a.v) h.push('<h5>Preemption: victims evicted (nominated node: ' + esc(a.nn != null ? N[a.nn] : 'none') +
                    ')</h5>' + table(['pod', 'node', 'priority', 'step'], a.v.map(function (v) {
                      return [v[0], v[1] != null ? N[v[1]] : '', v[2], v[3]]; })));
    (a.no || []).forEach(function (n) { h.push('<p class="note">' + esc(T[n]) + '</p>'); });
    h.push('</div>');
    return h.join('');
  }
  function overview(D, attempts) {
    return table(['#', 'step', 'outcome', 'node', 'detail', 'message'], attempts.map(function (a, i) {
      var where = a.n != null ? D.nodes[a.n] : (a.nn != null ? '(nominated ' + D.nodes[a.nn] + ')' : '');
      return [i + 1, a.s, a.o, where, a.d, a.m != null ? D.texts[a.m] : ''];
    }));
  }
  function show(id, key) {
    var D = data(id), out = document.getElementById(id + '-explain-pod');
    var found = D.pods[key];
    if (!found) { out.innerHTML = '<p class="note">no pod ' + esc(key) + ' in this result</p>'; return; }
    out.innerHTML = found.map(function (p, k) {
      var state = p.st + (p.n != null && (p.st === 'bound' || p.st === 'preempted') ? ' on ' + D.nodes[p.n] : '') +
                  (p.pb ? ', preempted by ' + p.pb + ' at step ' + p.pa : '');
      return '<div class="pod" data-pod="' + esc(key) + '"><h4>Pod ' + esc(key) +
             (found.length > 1 ? ' (instance ' + (k + 1) + ' of ' + found.length + ')' : '') + '</h4>' +
             '<p>priority ' + p.pr + ', profile ' + esc(p.p != null ? D.texts[p.p] : 'default-scheduler') +
             ', created at step ' + esc(p.cr) + '; state: ' + esc(state) + '; ' + p.a.length + ' attempt(s)</p>' +
             (p.a.length ? overview(D, p.a) + p.a.map(function (a, i) { return attempt(D, a, i); }).join('')
                         : '<p class="note">the scheduler recorded no attempt for this pod</p>') + '</div>';
    }).join('');
    document.getElementById(id + '-explain').scrollIntoView();
    if (history.replaceState) history.replaceState(null, '', '#' + id + '-pod=' + encodeURIComponent(key));
  }
  function search(id, text) {
    var D = data(id), out = document.getElementById(id + '-explain-matches'), q = text.trim();
    if (!q) { out.innerHTML = ''; return; }
    if (D.pods[q]) { show(id, q); }
    var names = Object.keys(D.pods), hits = [];
    for (var i = 0; i < names.length && hits.length < 20; i++) if (names[i].indexOf(q) >= 0) hits.push(names[i]);
    out.innerHTML = hits.map(function (n) { return '<button type="button" data-pod="' + esc(n) + '">' + esc(n) + '</button>'; }).join('') +
                    (hits.length ? '' : '<span class="note">no pod matches</span>');
  }
  window.kubesimExplain = {show: show, search: search};
  document.addEventListener('click', function (ev) {
    var el = ev.target.closest ? ev.target.closest('button[data-pod], tr') : null;
    if (!el) return;
    var section = el.closest('section[id$="-explain"]');
    if (el.tagName === 'BUTTON' && section) { show(section.id.slice(0, -8), el.getAttribute('data-pod')); return; }
    // a row of a table with namespace and name columns, in a scenario section with a drill-down
    var tbl = el.closest('table'), head = tbl && tbl.tHead ? Array.prototype.map.call(tbl.tHead.rows[0].cells, function (c) { return c.textContent; }) : [];
    var ns = head.indexOf('namespace'), nm = head.indexOf('name');
    if (el.parentNode.tagName !== 'TBODY' || ns < 0 || nm < 0) return;
    var sec = tbl.closest('section[id]'), id = sec ? sec.id.split('-')[0] : null;
    if (id && document.getElementById(id + '-explain')) show(id, el.cells[ns].textContent + '/' + el.cells[nm].textContent);
  });
  document.addEventListener('DOMContentLoaded', function () {
    // #s0-pod=namespace%2Fname (what show() puts in the address) or #pod=... for the first scenario
    var m = /^#(?:(s\d+)-)?pod=(.+)$/.exec(location.hash);
    if (m && document.getElementById((m[1] || 's0') + '-explain')) show(m[1] || 's0', decodeURIComponent(m[2]));
    document.querySelectorAll('table.data').forEach(function (t) {
      var head = t.tHead ? Array.prototype.map.call(t.tHead.rows[0].cells, function (c) { return c.textContent; }) : [];
      if (head.indexOf('namespace') >= 0 && head.indexOf('name') >= 0)
        Array.prototype.forEach.call(t.tBodies[0].rows, function (r) { r.className += ' clickable-pod'; });
    });
  });
})();
"""


def explain_section(result: Scenario, ident: str) -> str:
    """The drill-down section of one scenario (`ident` is its section id, e.g. "s0")."""
    data = explain_data(result)
    count = len(data["pods"])
    sid = html.escape(ident)
    return (
        f'<style>{_CSS}</style>\n'
        f'<section id="{sid}-explain" class="explain"><h3>Pod drill-down</h3>'
        '<p class="note">Why a pod went where it went: every scheduling attempt, the filter verdict per node, '
        'the scores per node and plugin, the chosen node and why it won, preemption victims. Search a pod '
        f'({count} in this result) or click a row of a pods table. The same, in full, in a terminal: '
        '<code>kubesim explain RESULT POD</code>.</p>'
        f'<div class="search"><input type="search" id="{sid}-explain-search" placeholder="namespace/name or part of it" '
        f'aria-label="pod name" oninput="kubesimExplain.search(\'{sid}\', this.value)"></div>'
        f'<div class="matches" id="{sid}-explain-matches"></div><div id="{sid}-explain-pod"></div>'
        f'<script type="application/json" id="{sid}-explain-data">{_json_for_script(data)}</script>'
        f'<script>{_SCRIPT}</script></section>'
    )
