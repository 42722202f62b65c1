/**
 * The console's one script (served as /console/assets/console.js): it draws the overview's charts with uPlot from the
 * JSON the page carries in a non-executable <script type="application/json"> block. No inline script anywhere.
 */
export const CONSOLE_JS = `
(function () {
  'use strict';
  var el = document.getElementById('chart-data');
  if (!el || typeof uPlot === 'undefined') return;
  var data = JSON.parse(el.textContent || '{}');
  function width(node) { return Math.max(320, node.clientWidth - 16); }
  function draw(id, opts, series) {
    var node = document.getElementById(id);
    if (!node) return;
    opts.width = width(node);
    opts.height = 220;
    new uPlot(opts, series, node);
    node.setAttribute('data-drawn', 'true');
  }
  var colors = { ALLOW: '#1e8449', DENY: '#c0392b', REQUIRE_APPROVAL: '#d68910', ESCALATE: '#8e44ad' };
  var verdicts = ['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE'];
  draw('chart-verdicts', {
    title: 'Decisions by verdict',
    series: [{}].concat(verdicts.map(function (v) { return { label: v, stroke: colors[v], width: 2 }; })),
    axes: [{}, { label: 'decisions' }]
  }, [data.buckets].concat(verdicts.map(function (v) { return data.byVerdict[v]; })));
  draw('chart-latency', {
    title: 'Governance latency (ms)',
    series: [{}, { label: 'p50', stroke: '#1f5fbf', width: 2, spanGaps: true }, { label: 'p99', stroke: '#c0392b', width: 2, spanGaps: true }],
    axes: [{}, { label: 'ms' }]
  }, [data.buckets, data.latencyP50Series, data.latencyP99Series]);
  var spend = data.spendByAgent || [];
  if (spend.length > 0) {
    draw('chart-spend', {
      title: 'Spend by agent (BRL)',
      scales: { x: { time: false } },
      series: [{ label: 'agent' }, { label: 'BRL', fill: 'rgba(31,95,191,0.35)', stroke: '#1f5fbf', paths: uPlot.paths.bars({ size: [0.6, 60] }) }],
      axes: [{ values: function (u, ticks) { return ticks.map(function (i) { return spend[i] ? spend[i].agent_id : ''; }); } }, { label: 'BRL' }]
    }, [spend.map(function (_, i) { return i; }), spend.map(function (s) { return s.spend_brl; })]);
  }
})();
`;
