/** The console's stylesheet (served as /console/assets/console.css; the CSP allows no inline style). */
export const CONSOLE_CSS = `
:root { --fg: #1d2430; --muted: #5b6676; --line: #dde2ea; --bg: #f6f8fb; --card: #fff; --accent: #1f5fbf; --deny: #c0392b; --hold: #9a5700; --allow: #1a7640; }
/* Badge and legend colours keep 4.5:1 against white (WCAG AA for 12 px text): the former amber of held decisions did not. */
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 24px; padding: 10px 24px; background: #142033; color: #fff; }
header .brand { font-weight: 700; letter-spacing: .04em; }
/* The navigation wraps inside the dark header rather than running past it onto the light page, where its text is unreadable. */
header nav { display: flex; flex-wrap: wrap; gap: 4px 16px; }
header nav a { color: #c9d6ea; text-decoration: none; }
header nav a.active, header nav a:hover { color: #fff; border-bottom: 2px solid #6ea8fe; }
header .who { margin-left: auto; display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; color: #c9d6ea; min-width: 0; overflow-wrap: anywhere; }
header .who button { background: transparent; color: #fff; border: 1px solid #6b7d99; border-radius: 4px; padding: 3px 10px; cursor: pointer; }
main { padding: 20px 24px; max-width: 1280px; }
h1 { font-size: 20px; margin: 0 0 16px; }
h2 { font-size: 16px; margin: 20px 0 8px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 12px; margin-bottom: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
.card .value { font-size: 24px; font-weight: 600; }
.chart { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px; margin-bottom: 16px; min-height: 60px; overflow: hidden; }
.chart .u-legend { text-align: left; }
/* uPlot's legend is a table: keep it plain, not styled as a data table's header. */
.chart .u-legend th, .chart .u-legend td { background: none; border: 0; padding: 2px 4px; text-transform: none; letter-spacing: 0; font-size: 12px; color: var(--fg); }
.chart .u-legend .u-value { font-variant-numeric: tabular-nums; }
/* Wide tables scroll inside their own region (focusable, named: keyboard users can scroll it too), never the page. */
.table-scroll { position: relative; max-width: 100%; overflow-x: auto; margin-bottom: 4px; }
.table-scroll:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--line); }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef2f8; font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
td code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; word-break: break-all; }
.verdict { font-weight: 600; font-size: 12px; padding: 1px 6px; border-radius: 3px; color: #fff; }
.verdict-ALLOW { background: var(--allow); } .verdict-DENY { background: var(--deny); }
.verdict-REQUIRE_APPROVAL, .verdict-ESCALATE { background: var(--hold); }
form.inline { display: inline-flex; gap: 6px; align-items: center; margin: 0; }
form.filters { display: flex; gap: 10px; align-items: end; margin-bottom: 12px; flex-wrap: wrap; }
label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 3px; }
input, select { font: inherit; padding: 5px 8px; border: 1px solid #b9c2d0; border-radius: 4px; background: #fff; }
button { font: inherit; padding: 5px 12px; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
.notice { padding: 10px 14px; border-radius: 6px; margin-bottom: 14px; border: 1px solid; }
.notice.ok { background: #e9f7ef; border-color: #a9dfbf; } .notice.bad { background: #fdedec; border-color: #f5b7b1; }
.login { max-width: 380px; margin: 80px auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 28px; }
.login form { display: flex; flex-direction: column; gap: 12px; }
.login .or { text-align: center; color: var(--muted); margin: 14px 0; }
.login a.idp { display: block; text-align: center; padding: 7px; border: 1px solid var(--accent); border-radius: 4px; color: var(--accent); text-decoration: none; }
.muted { color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
@media (max-width: 640px) {
  header { padding: 10px 14px; }
  header .who { margin-left: 0; }
  main { padding: 14px; }
  .login { margin: 24px auto; padding: 20px; }
  .cards { grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); }
}
.legend-ALLOW { color: var(--allow); } .legend-DENY { color: var(--deny); } .legend-HELD { color: var(--hold); }
/* Decision page: its title holds the decision id (one long word), which must wrap at phone width. */
body[data-page="decisions"] h1 { overflow-wrap: anywhere; }
/* Policy editor: the JSON at the page's width, its buttons in a row; a verdict the dry run would change stands out. */
.policy-editor { display: flex; flex-direction: column; gap: 10px; max-width: 900px; }
.policy-editor textarea { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--fg); padding: 8px; border: 1px solid #b9c2d0; border-radius: 4px; width: 100%; }
.editor-actions { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; }
tr.changed td { background: #fff4d6; }
ol.route-targets { margin: 0; padding-left: 18px; }
#delete-routes-form { margin-top: 18px; }
pre.sample { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; word-break: break-all; max-height: 420px; overflow: auto; padding: 8px; background: var(--card); border: 1px solid var(--line); border-radius: 4px; }
pre.mono { white-space: pre-wrap; overflow-wrap: anywhere; }
`;
