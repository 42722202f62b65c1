/**
 * The console's one script (served as /console/assets/console.js): it draws the overview's charts with uPlot from the
 * JSON the page carries in a non-executable <script type="application/json"> block. No inline script anywhere.
 *
 * Axes print as many decimals as their tick step needs (spend in BRL is often a few thousandths); legends show the
 * range's figure (total, or overall percentile) until a point is hovered, then that point's value. Each chart writes
 * the y-axis labels it drew into data-y-ticks, since the canvas itself has no text.
 */
export const CONSOLE_JS = `
(function () {
  'use strict';
  var el = document.getElementById('chart-data');
  if (!el || typeof uPlot === 'undefined') return;
  var data = JSON.parse(el.textContent || '{}');
  function width(node) { return Math.max(200, node.clientWidth - 16); }
  /** Decimals that write a tick step exactly (0.002 needs three, 2.5 one, 5 none), so no two ticks read alike. */
  function decimals(step) {
    for (var d = 0; d < 8; d++) {
      var scaled = step * Math.pow(10, d);
      if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
    }
    return 8;
  }
  function fixed(v, d) { return v == null ? '' : Number(v).toFixed(d); }
  /** A y axis whose labels keep enough precision, recorded on the chart's node. */
  function yAxis(node, label, integers) {
    return {
      label: label,
      size: 60,
      incrs: integers ? [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6] : undefined,
      values: function (u, ticks, axisIdx, space, incr) {
        var d = decimals(incr);
        var out = ticks.map(function (t) { return fixed(t, d); });
        node.setAttribute('data-y-ticks', out.join(' '));
        return out;
      }
    };
  }
  /** A legend value: the point's when one is hovered, else the range's figure. */
  function legendValue(summary, d) {
    return function (u, v, sidx, idx) { return idx == null ? summary : v == null ? '–' : fixed(v, d); };
  }
  function sum(xs) { return (xs || []).reduce(function (a, b) { return a + (b || 0); }, 0); }
  var rangeX = { value: function (u, v, sidx, idx) { return idx == null ? 'whole range' : new Date(v * 1000).toLocaleString(); } };
  function draw(id, build) {
    var node = document.getElementById(id);
    if (!node) return;
    var spec = build(node);
    spec.opts.width = width(node);
    spec.opts.height = 220;
    new uPlot(spec.opts, spec.data, node);
    node.setAttribute('data-drawn', 'true');
  }
  var colors = { ALLOW: '#1a7640', DENY: '#c0392b', REQUIRE_APPROVAL: '#9a5700', ESCALATE: '#8e44ad' };
  var verdicts = ['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE'];
  draw('chart-verdicts', function (node) {
    return {
      opts: {
        title: 'Decisions by verdict',
        scales: { y: { range: function (u, min, max) { return [0, Math.max(1, max)]; } } },
        series: [rangeX].concat(verdicts.map(function (v) {
          return { label: v, stroke: colors[v], width: 2, value: legendValue(String(sum(data.byVerdict[v])), 0) };
        })),
        axes: [{}, yAxis(node, 'decisions', true)]
      },
      data: [data.buckets].concat(verdicts.map(function (v) { return data.byVerdict[v]; }))
    };
  });
  draw('chart-latency', function (node) {
    return {
      opts: {
        title: 'Governance latency (ms)',
        scales: { y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } } },
        series: [
          rangeX,
          { label: 'p50 ms', stroke: '#1f5fbf', width: 2, spanGaps: true, value: legendValue(fixed(data.latencyP50, 2), 2) },
          { label: 'p99 ms', stroke: '#c0392b', width: 2, spanGaps: true, value: legendValue(fixed(data.latencyP99, 2), 2) }
        ],
        axes: [{}, yAxis(node, 'ms', false)]
      },
      data: [data.buckets, data.latencyP50Series, data.latencyP99Series]
    };
  });
  var spend = data.spendByAgent || [];
  if (spend.length > 0) {
    var total = sum(spend.map(function (s) { return s.spend_brl; }));
    draw('chart-spend', function (node) {
      return {
        opts: {
          title: 'Spend by agent (BRL)',
          scales: { x: { time: false, range: [-0.5, spend.length - 0.5] }, y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.15 : 1]; } } },
          series: [
            { label: 'agent', value: function (u, v, sidx, idx) { return idx == null ? 'all agents' : spend[idx] ? spend[idx].agent_id : ''; } },
            { label: 'BRL', fill: 'rgba(31,95,191,0.35)', stroke: '#1f5fbf', paths: uPlot.paths.bars({ size: [0.6, 60] }), value: legendValue(fixed(total, 4), 4) }
          ],
          axes: [
            { incrs: [1], values: function (u, ticks) { return ticks.map(function (i) { return spend[i] ? spend[i].agent_id : ''; }); } },
            yAxis(node, 'BRL', false)
          ]
        },
        data: [spend.map(function (_, i) { return i; }), spend.map(function (s) { return s.spend_brl; })]
      };
    });
  }
})();
`;
