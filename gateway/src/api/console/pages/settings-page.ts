import type { StoredRequestLogSettings } from '../../../request-log/request-log-settings.js';
import { esc } from '../html-headers.js';
import { csrfField, page, type Viewer } from './layout.js';

/**
 * Where this console's request log lives: here; at a sidecar, which takes the settings from its control plane's
 * bundle and samples with its own key; or at a control plane, which sets them for its sidecars and keeps no samples.
 */
export type RequestLogPlace =
  | { kind: 'local'; settings: StoredRequestLogSettings; keyed: boolean }
  | { kind: 'sidecar'; settings: StoredRequestLogSettings; keyed: boolean; controlPlaneUrl: string }
  | { kind: 'control_plane'; settings: StoredRequestLogSettings };

export interface SettingsPageState {
  readonly place: RequestLogPlace;
  readonly error: string;
  readonly saved: boolean;
}

function row(label: string, value: string, id: string): string {
  return `<tr><th scope="row">${esc(label)}</th><td id="${id}">${value}</td></tr>`;
}

function requestLogForm(v: Viewer, s: StoredRequestLogSettings): string {
  return `<form method="post" action="/console/settings/request-log" class="settings" id="request-log-form">${csrfField(v)}
<p><label><input type="checkbox" name="enabled" value="on"${s.enabled ? ' checked' : ''}> Keep a sample of proxied calls' and MCP tool calls' redacted texts</label></p>
<p><label>Sample rate (more than 0, at most 1) <input name="sample_rate" inputmode="decimal" value="${esc(s.sample_rate)}" maxlength="32" required></label></p>
<p><label>Keep samples for (days, 1 to 365) <input name="retention_days" inputmode="numeric" value="${esc(s.retention_days)}" maxlength="8" required></label></p>
<p><button type="submit">Save request log settings</button></p></form>`;
}

/** The tenant's settings (docs/console.md, "Request log"): every role reads them, admins change them. */
export function settingsPage(v: Viewer, state: SettingsPageState): string {
  const intro =
    '<h2>Request log</h2><p>When on, a sample of proxied calls and MCP tool calls keeps the request (of a tool call, its arguments) as it was sent upstream and the answer (of a tool call, its result) as the agent got it, both <strong>after PII redaction</strong>, encrypted at rest, shown on each sampled decision\'s page. Off by default. Turning it off keeps the samples already taken until their retention removes them. Every change is chained in the ledger (see the audit trail).</p>';
  const note = state.error ? `<div class="notice bad" role="alert" id="settings-error">${esc(state.error)}</div>` : state.saved ? '<div class="notice ok" role="status" id="settings-saved">Request log settings saved.</div>' : '';
  const place = state.place;
  const s = place.settings;
  const key =
    place.kind === 'control_plane'
      ? 'not needed here: each sidecar samples with its own REQUEST_LOG_KEY, and a sidecar without one samples nothing'
      : place.kind === 'sidecar'
        ? place.keyed
          ? 'configured at this sidecar (REQUEST_LOG_KEY): it samples, and keeps its samples'
          : 'not configured at this sidecar: it samples nothing (set REQUEST_LOG_KEY here)'
        : place.keyed
          ? 'configured (REQUEST_LOG_KEY)'
          : 'not configured: set REQUEST_LOG_KEY to enable the log';
  const where =
    place.kind === 'control_plane'
      ? '<p class="muted" id="request-log-place">Set here for every sidecar of this control plane: each takes the settings from its bundle, samples with its own REQUEST_LOG_KEY and keeps its samples, shown on its own console\'s decision pages. This control plane keeps none.</p>'
      : place.kind === 'sidecar'
        ? `<p class="muted" id="request-log-place">This gateway is a sidecar: these settings come from its control plane, <span class="mono">${esc(place.controlPlaneUrl)}</span>, where they are changed. The samples it takes stay here.</p>`
        : '';
  const table = `<table id="request-log-settings"><tbody>${row('Enabled', s.enabled ? 'yes' : 'no', 'request-log-enabled')}${row('Sample rate', esc(s.sample_rate), 'request-log-rate')}${row('Retention', `${esc(s.retention_days)} days`, 'request-log-retention')}${row('Last changed', s.updated_at ? `<span class="mono">${esc(s.updated_at)}</span> by <span class="mono">${esc(s.updated_by ?? '')}</span>` : '<span class="muted">never (the default)</span>', 'request-log-changed')}${row('Encryption key', esc(key), 'request-log-key')}</tbody></table>`;
  const form =
    place.kind === 'sidecar' ? '' : v.principal.role === 'admin' ? requestLogForm(v, s) : '<p class="muted" id="request-log-read-only">Only an admin may change these settings.</p>';
  return page(v, 'settings', 'Settings', `${intro}${note}${where}${table}${form}`);
}
