// A command's arguments and options, declared once: node:util's parseArgs reads them, and the same declaration is the
// command's --help, so the two never disagree.
import { parseArgs } from 'node:util';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** Repeatable: `--tenant a --tenant b`. */
  readonly multiple?: boolean;
  readonly required?: boolean;
  /** A one-letter alias: `-f FILE` for `--file FILE`. */
  readonly short?: string;
  /** The value's name in the usage line and the help: `--tenant T`. */
  readonly value?: string;
  readonly help: string;
}

export interface CommandSpec {
  /** As typed after `aduana`: `token create`. */
  readonly name: string;
  /** Its positional arguments, every one required: `['ID']`. */
  readonly args?: readonly string[];
  /** One line, for the command lists. */
  readonly summary: string;
  /** More of its --help, after the summary. */
  readonly details?: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
}

type OptionValue<O extends OptionSpec> = O['type'] extends 'boolean' ? boolean : O['multiple'] extends true ? string[] : string;
type RequiredKeys<O> = { [K in keyof O]: O[K] extends { required: true } ? K : never }[keyof O];
type Options<S extends CommandSpec> = S['options'];
export type OptionValues<S extends CommandSpec> = { [K in RequiredKeys<Options<S>>]: OptionValue<Options<S>[K]> } & {
  [K in Exclude<keyof Options<S>, RequiredKeys<Options<S>>>]?: OptionValue<Options<S>[K]>;
};
export type PositionalValues<S extends CommandSpec> = S extends { readonly args: infer A extends readonly string[] } ? { readonly [I in keyof A]: string } : readonly [];

export interface ParsedCommand<S extends CommandSpec> {
  readonly values: OptionValues<S>;
  readonly args: PositionalValues<S>;
}

export interface CommandIo {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

const STD_IO: CommandIo = { out: process.stdout, err: process.stderr };

/** What every `--help` ends with (README.md, "The command line", says the same). */
export const EXIT_STATUS = `exit status: 0 ok, 1 runtime failure, 2 usage error
  1: it could not finish (a store or database it needs unreachable), or a check found a fault (\`ledger verify\`)
  2: nothing was done: an unknown command or option, a missing argument, or a value the command refuses
`;

/** `--tenant T`; with a short alias, `-f FILE` in a usage line and `-f, --file FILE` in a help. */
function optionLabel(name: string, o: OptionSpec, where: 'usage' | 'help' = 'usage'): string {
  const value = o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : '';
  if (o.short === undefined) return `--${name}${value}`;
  return where === 'usage' ? `-${o.short}${value}` : `-${o.short}, --${name}${value}`;
}

/** `token create --tenant T --role R [--name N]`: the command as its usage line shows it. */
export function synopsis(spec: CommandSpec): string {
  const parts = [spec.name, ...(spec.args ?? [])];
  for (const [name, o] of Object.entries(spec.options)) {
    const label = optionLabel(name, o) + (o.multiple ? '...' : '');
    parts.push(o.required ? label : `[${label}]`);
  }
  return parts.join(' ');
}

function column(left: string, right: string, width: number): string {
  return left.length <= width - 2 ? `  ${left.padEnd(width)}${right}` : `  ${left}\n  ${' '.repeat(width)}${right}`;
}

/** A command's --help. */
export function commandHelp(spec: CommandSpec): string {
  const options = Object.entries(spec.options).map(([name, o]) => column(optionLabel(name, o, 'help'), o.help + (o.required ? ' (required)' : ''), 24));
  options.push(column('-h, --help', 'this help', 24));
  const about = spec.details ? `${spec.summary}\n${spec.details.trimEnd()}` : spec.summary;
  return `usage: aduana ${synopsis(spec)}\n\n${about}\n\noptions:\n${options.join('\n')}\n\n${EXIT_STATUS}`;
}

/** Commands one per line, their summaries beside them: a group's help and the service's. */
export function commandList(specs: readonly CommandSpec[]): string {
  return specs.map((s) => `${column(synopsis(s), s.summary, 30)}\n`).join('');
}

/** `aduana: token create: --tenant is required`, the usage line, and where the rest is: exit 2. */
export function usageError(spec: CommandSpec, message: string, io: CommandIo = STD_IO): number {
  io.err.write(`aduana: ${spec.name}: ${message}\nusage: aduana ${synopsis(spec)}\n(\`aduana ${spec.name} --help\` says more)\n`);
  return 2;
}

function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** parseArgs' message without its advice about `--`, which suits a mistyped option less than the usage line does. */
function firstSentence(message: string): string {
  const line = message.split('\n')[0] ?? message;
  const cut = line.indexOf('. ');
  const sentence = cut < 0 ? line : line.slice(0, cut);
  return sentence.charAt(0).toLowerCase() + sentence.slice(1).replace(/\.$/, '');
}

/**
 * Parses a command's arguments (after its name) by its spec. Returns the exit code instead when there is nothing to
 * run: 0 after printing the help (`--help` or `-h` anywhere before `--`), 2 after a usage error (an unknown option, a
 * missing value, a missing or extra argument, a missing required option).
 */
export function parseCommand<S extends CommandSpec>(spec: S, argv: readonly string[], io: CommandIo = STD_IO): ParsedCommand<S> | number {
  if (asksForHelp(argv)) {
    io.out.write(commandHelp(spec));
    return 0;
  }
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, o] of Object.entries(spec.options)) options[name] = { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short !== undefined ? { short: o.short } : {}) };
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (err) {
    return usageError(spec, firstSentence((err as Error).message), io);
  }
  const expected = spec.args ?? [];
  const { positionals, values } = parsed;
  if (positionals.length < expected.length) return usageError(spec, `${expected[positionals.length]} is required`, io);
  if (positionals.length > expected.length) return usageError(spec, `unexpected argument '${positionals[expected.length]}'`, io);
  for (const [name, o] of Object.entries(spec.options)) if (o.required && values[name] === undefined) return usageError(spec, `--${name} is required`, io);
  return { values: values as OptionValues<S>, args: positionals as unknown as PositionalValues<S> };
}

/**
 * The subcommand of a group (`token create …`): its spec and the arguments after it, or the exit code when there is
 * none to run: 0 after the group's help, 2 when the subcommand is missing or unknown (the group's usage on stderr).
 */
export function selectCommand<S extends CommandSpec>(group: string, specs: readonly S[], argv: readonly string[], io: CommandIo = STD_IO): { spec: S; rest: readonly string[] } | number {
  const [sub, ...rest] = argv;
  const usage = `usage: aduana ${group} <command>\n\n${commandList(specs)}\n\`aduana ${group} <command> --help\` for a command's options\n`;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.out.write(`${usage}\n${EXIT_STATUS}`);
    return 0;
  }
  const spec = specs.find((s) => s.name === `${group} ${sub}`);
  if (spec) return { spec, rest };
  io.err.write(sub === undefined ? `aduana: ${group}: which command?\n${usage}` : `aduana: ${group}: unknown command "${sub}"\n${usage}`);
  return 2;
}

/** A command's spec and what runs it once its arguments parsed. */
export interface CommandHandler {
  readonly spec: CommandSpec;
  run(argv: readonly string[], io?: CommandIo): Promise<number>;
}

export function command<S extends CommandSpec>(spec: S, run: (parsed: ParsedCommand<S>) => Promise<number> | number): CommandHandler {
  return {
    spec,
    run: async (argv, io = STD_IO) => {
      const parsed = parseCommand(spec, argv, io);
      return typeof parsed === 'number' ? parsed : run(parsed);
    },
  };
}

/** `aduana <group> <command> …`: the group's help, or its command parsed and run; exit 2 for a missing or unknown one. */
export async function runCommandGroup(group: string, handlers: readonly CommandHandler[], argv: readonly string[], io: CommandIo = STD_IO): Promise<number> {
  const picked = selectCommand(
    group,
    handlers.map((h) => h.spec),
    argv,
    io,
  );
  if (typeof picked === 'number') return picked;
  const handler = handlers.find((h) => h.spec === picked.spec) as CommandHandler;
  return handler.run(picked.rest, io);
}
