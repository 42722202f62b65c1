/**
 * A provider credential's name (docs/routing.md, "Provider credentials"): lower-case letters, digits, `.`, `_` and `-`,
 * starting with a letter or digit, at most 64 characters. Lower case only, so that a name and its environment
 * variable map one way and a route's name never differs from the stored one by case alone.
 */
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const CREDENTIAL_NAME_RULE = 'lower-case letters, digits, ".", "_" and "-", starting with a letter or digit, at most 64 characters';

export function isCredentialName(name: string): boolean {
  return NAME.test(name);
}

/** Where a name is looked up in the process's environment (Kubernetes Secrets are handed to a pod as variables). */
export const CREDENTIAL_ENV_PREFIX = 'ADUANA_CREDENTIAL_';

/** `ADUANA_CREDENTIAL_<NAME>`: the name upper-cased, every character outside A-Z and 0-9 as `_`. */
export function credentialEnvVariable(name: string): string {
  return CREDENTIAL_ENV_PREFIX + name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/**
 * The credentials the environment holds, by the name each one lists under (its variable's suffix, lower-cased): the
 * variables with the prefix, a value, and a suffix that makes a valid name. Several names reach one variable
 * (`openai-prod` and `openai_prod` both read ADUANA_CREDENTIAL_OPENAI_PROD); the list shows it once.
 */
export function environmentCredentials(env: Readonly<Record<string, string | undefined>>): { name: string; variable: string }[] {
  const out: { name: string; variable: string }[] = [];
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith(CREDENTIAL_ENV_PREFIX) || !value) continue;
    const name = variable.slice(CREDENTIAL_ENV_PREFIX.length).toLowerCase();
    if (isCredentialName(name) && credentialEnvVariable(name) === variable) out.push({ name, variable });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
