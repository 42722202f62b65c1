import { isValidTenantId } from '../../identity/tenants/tenant-store.js';

/** A prompt id as OpenAI mints them (`pmpt_…`): letters, digits, _ and -. */
const PROMPT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,255}$/;
const NONE: ReadonlySet<string> = new Set();

/**
 * OPENAI_PROMPTS: the stored prompts (`prompt.id` in a Responses call) each tenant may name, as
 * `{"acme": ["pmpt_…", …]}`, read once at start. A stored prompt is made in the provider's dashboard, outside the
 * gateway, under the provider key its tenants share: its text reaches the model without any policy reading it, and any
 * tenant could name another's. So none is usable until the operator lists it for a tenant.
 */
export class StoredPrompts {
  private constructor(private readonly byTenant: ReadonlyMap<string, ReadonlySet<string>>) {}

  /** Parses the setting; anything malformed stops the start with a message naming it. */
  static parse(setting: string): StoredPrompts {
    const byTenant = new Map<string, ReadonlySet<string>>();
    if (setting.trim() === '') return new StoredPrompts(byTenant);
    let parsed: unknown;
    try {
      parsed = JSON.parse(setting);
    } catch {
      throw new Error('OPENAI_PROMPTS: not valid JSON (expected {"tenant": ["pmpt_…", …]})');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('OPENAI_PROMPTS: must be a JSON object of tenant → list of prompt ids');
    for (const [tenant, ids] of Object.entries(parsed as Record<string, unknown>)) {
      if (!isValidTenantId(tenant)) throw new Error(`OPENAI_PROMPTS: "${tenant.slice(0, 64)}" is not a tenant id`);
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || !PROMPT_ID.test(id))) {
        throw new Error(`OPENAI_PROMPTS.${tenant}: a list of prompt ids (letters, digits, _ -, at most 256)`);
      }
      byTenant.set(tenant, new Set(ids as string[]));
    }
    return new StoredPrompts(byTenant);
  }

  /** Whether the tenant's calls may name this stored prompt. */
  allows(tenant: string, id: string): boolean {
    return (this.byTenant.get(tenant) ?? NONE).has(id);
  }
}
