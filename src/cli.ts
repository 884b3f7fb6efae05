#!/usr/bin/env node
// The `audience-gateway` command: serve a declaration file (or the demo), check one, print the
// OpenAPI document it would serve, or serve its mounts as MCP tools over stdio. Configured by the
// same environment as the server (docs/configuration.md). Exit codes: 0 ok, 1 invalid input (a
// file, a setting), 2 usage (an unknown command or option, a missing argument).
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { pino } from 'pino'
import { principalOfKey } from '../plugins/auth.js'
import { EXIT, plural, type Io } from './command-io.js'
import { DeclarationFileError, refusalReport, type LoadedFile } from './config-file/index.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import declaredApp from './declared-app.js'
import { initAsked, INIT_HELP, INIT_OPTIONS, INIT_USAGE, init } from './init/command.js'
import { serveMcpStdio } from './mcp/stdio.js'
import { readDeclarationFile } from './reload.js'
import { appSettings, loggerOptions, serve, startRefusal, type FilelessApp } from './server.js'
import pkg from '../package.json' with { type: 'json' }

export { EXIT, type Io }

/** The variable naming the key an MCP client over stdio acts with: one of API_KEYS, with its scopes. */
export const STDIO_KEY_VARIABLE = 'MCP_STDIO_KEY'

interface Command {
  readonly usage: string
  readonly summary: string
  readonly help: string
  readonly options: NonNullable<ParseArgsConfig['options']>
  /** The positional arguments it takes: at least `min`, at most `max`. */
  readonly min: number
  readonly max: number
  readonly run: (positionals: readonly string[], values: Record<string, unknown>, io: Io) => Promise<number | undefined>
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const

const COMMANDS: Readonly<Record<string, Command>> = {
  serve: {
    usage: 'audience-gateway serve [FILE]',
    summary: 'Serve FILE (or GATEWAY_CONFIG\'s file, or the demo) over HTTP',
    help: 'Serves the declaration file FILE (JSON or YAML): its mounts as HTTP routes and MCP tools at /mcp, with its OpenAPI document at /openapi.json. Without FILE, the file GATEWAY_CONFIG names; without either, the demo. Configured by the environment (PORT, HOST, DATABASE_URL, API_KEYS, ...). SIGHUP reads FILE again; SIGTERM drains and stops.',
    options: HELP_OPTION,
    min: 0,
    max: 1,
    run: async ([path]) => {
      // The demo is loaded only when it is served: a user's file needs none of it.
      await serve(path, async () => (await import('../demo/app.js')).default as FilelessApp)
      return undefined
    }
  },
  check: {
    usage: 'audience-gateway check FILE [--json]',
    summary: 'Check FILE against the schema and the database it names',
    help: 'Reads FILE and checks it as a start does: against the schema, then its records, sources and mounts against each other, the tables and columns of the database DATABASE_URL names, and the settings of its upstreams (their variables set; the upstreams are not called). Prints every problem on a line of its own and exits 1, or one line saying what it declares and exits 0.\n\n  --json  one JSON object on stdout: { "file", "valid", "problems" } or { "file", "valid", "records", "sources", "mounts" }',
    options: { ...HELP_OPTION, json: { type: 'boolean' } },
    min: 1,
    max: 1,
    run: async ([path], values, io) => await check(path, values.json === true, io)
  },
  openapi: {
    usage: 'audience-gateway openapi FILE',
    summary: 'Print the OpenAPI document FILE would serve',
    help: 'Prints the OpenAPI 3.1 document serving FILE would publish at /openapi.json (checking FILE as `check` does first).',
    options: HELP_OPTION,
    min: 1,
    max: 1,
    run: async ([path], _values, io) => await openapi(path, io)
  },
  mcp: {
    usage: 'audience-gateway mcp --stdio FILE',
    summary: 'Serve FILE\'s mounts as MCP tools over stdio',
    help: `Serves FILE's mounts as MCP tools over stdio, for a client that starts the server as a command (a desktop or IDE client): the same tools, answers and refusals as /mcp. The client acts with the key ${STDIO_KEY_VARIABLE} names, which must be one of API_KEYS (its scopes are the ones API_KEYS gives it); without it, only the tools open to anyone are listed. stdout carries protocol messages only; logs go to stderr. It stops when the client closes stdin.\n\n  --stdio  the transport (required: the only one; HTTP is \`serve\`)`,
    options: { ...HELP_OPTION, stdio: { type: 'boolean' } },
    min: 1,
    max: 1,
    run: async ([path], values, io) => {
      if (values.stdio !== true) return usageError('mcp: --stdio is required (it is the only transport here; `serve` serves MCP over HTTP at /mcp).', 'mcp', io)
      return await mcpStdio(path, io)
    }
  },
  init: {
    usage: INIT_USAGE,
    summary: 'Draft a declaration file from a database\'s tables or an upstream\'s OpenAPI document',
    help: INIT_HELP,
    options: { ...HELP_OPTION, ...INIT_OPTIONS },
    min: 0,
    max: 0,
    run: async (_positionals, values, io) => {
      const asked = initAsked(values)
      return 'usage' in asked ? usageError(`init: ${asked.usage}`, 'init', io) : await init(asked, io)
    }
  }
}

/** The usage's first column: each command's usage, or an option, then two spaces. */
const USAGE = `Usage: audience-gateway <command> [options]

One declaration, served to plain HTTP clients as raw JSON and to AI agents as projected, paged envelopes.

Commands:
${Object.values(COMMANDS).map(commandLine).join('\n')}

Options:
  -h, --help            Show this help, or a command's (audience-gateway <command> --help)
  -v, --version         Print the version

Exit codes: 0 ok, 1 invalid input (a file, a setting), 2 usage.
Configured by the environment: PORT, HOST, DATABASE_URL, API_KEYS, TIME_ZONE, LOG_LEVEL, ...
`

/** A command's line in the usage: its usage, then its summary (on a line of its own past 22 columns). */
function commandLine (command: Command): string {
  const usage = command.usage.replace('audience-gateway ', '')
  return `  ${usage.length < 22 ? usage.padEnd(22) : `${usage}\n${' '.repeat(24)}`}${command.summary}`
}

/**
 * Runs the command `argv` names (the arguments after the program's). Resolves with the exit code,
 * or with undefined for a command that goes on serving (serve, mcp).
 */
export async function run (argv: readonly string[], io: Io): Promise<number | undefined> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io[name === undefined ? 'stderr' : 'stdout'].write(USAGE)
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${pkg.version}\n`)
    return EXIT.ok
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (command === undefined) return usageError(`Unknown command ${JSON.stringify(name.slice(0, 40))}: the commands are ${Object.keys(COMMANDS).join(', ')}.`, undefined, io)
  let parsed
  try {
    parsed = parseArgs({ args: [...rest], options: command.options, allowPositionals: true, strict: true })
  } catch (error) {
    return usageError(`${name}: ${(error as Error).message}`, name, io)
  }
  if (parsed.values.help === true) {
    io.stdout.write(`Usage: ${command.usage}\n\n${command.help}\n`)
    return EXIT.ok
  }
  const { positionals } = parsed
  if (positionals.length < command.min) return usageError(`${name}: FILE is missing.`, name, io)
  if (positionals.length > command.max) return usageError(`${name}: ${command.max === 0 ? 'takes no FILE' : 'one FILE at most'}; got ${positionals.length} argument${positionals.length === 1 ? '' : 's'}.`, name, io)
  return await command.run(positionals, parsed.values, io)
}

function usageError (message: string, command: string | undefined, io: Io): number {
  io.stderr.write(`${message}\n${command === undefined ? USAGE : `Usage: ${COMMANDS[command].usage} (--help says more)\n`}`)
  return EXIT.usage
}

/** Why a command stopped short: its exit code, each problem (for --json) and what is said of them. */
interface Refused {
  readonly code: number
  readonly problems: readonly string[]
  readonly report: string
}

/** A refusal of one line: a setting, or a start that could not go on. */
function refusedOnce (report: string): Refused {
  return { code: EXIT.invalid, problems: [report.trimEnd()], report }
}

/**
 * The file's app, ready and not listening, or why not. `logger` makes its logger from the
 * configuration (default: none).
 */
async function built (path: string, io: Io, logger?: (config: Config) => pino.Logger): Promise<{ app: FastifyInstance, file: LoadedFile, config: Config } | Refused> {
  let config: Config
  try {
    config = loadConfig(io.env)
  } catch (error) {
    // loadConfig throws only ConfigErrors, each naming its variable.
    return refusedOnce((error as ConfigError).report)
  }
  let file: LoadedFile
  try {
    file = await readDeclarationFile(path)
  } catch (error) {
    // readDeclarationFile throws only DeclarationFileErrors.
    return fileRefused(error as DeclarationFileError)
  }
  const app = Fastify(logger === undefined ? { logger: false } : { loggerInstance: logger(config) }) as unknown as FastifyInstance
  try {
    // A check never creates a database: a SQLite file that is not there is refused.
    await app.register(fp(declaredApp), { ...appSettings(config), file, env: io.env, createDatabase: false })
    await app.ready()
  } catch (error) {
    await app.close()
    if (error instanceof DeclarationFileError) return fileRefused(error)
    // What the start would end on (a database that cannot be reached, or is not there): said on one line, no stack.
    return refusedOnce(startRefusal(error))
  }
  return { app, file, config }
}

function fileRefused (error: DeclarationFileError): Refused {
  return { code: EXIT.invalid, problems: error.lines, report: refusalReport(error.lines) }
}

async function check (path: string, json: boolean, io: Io): Promise<number> {
  const result = await built(path, io)
  if ('code' in result) {
    if (json) io.stdout.write(`${JSON.stringify({ file: path, valid: false, problems: result.problems })}\n`)
    else io.stderr.write(result.report)
    return result.code
  }
  const { declarations } = result.file
  await result.app.close()
  const counts = { records: Object.keys(declarations.records).length, sources: Object.keys(declarations.sources).length, mounts: declarations.mounts.length }
  if (json) io.stdout.write(`${JSON.stringify({ file: path, valid: true, ...counts })}\n`)
  else io.stdout.write(`${path}: valid: ${plural(counts.records, 'record')}, ${plural(counts.sources, 'source')}, ${plural(counts.mounts, 'mount')}\n`)
  return EXIT.ok
}

async function openapi (path: string, io: Io): Promise<number> {
  const result = await built(path, io)
  if ('code' in result) {
    io.stderr.write(result.report)
    return result.code
  }
  try {
    io.stdout.write(`${JSON.stringify(result.app.swagger(), null, 2)}\n`)
  } finally {
    await result.app.close()
  }
  return EXIT.ok
}

/** Serves until the client closes stdin (or a signal stops it); resolves once serving. */
async function mcpStdio (path: string, io: Io): Promise<number | undefined> {
  // Every log line on stderr: stdout is the protocol's.
  const result = await built(path, io, (config) => pino(loggerOptions(config.logLevel), pino.destination(2)))
  if ('code' in result) {
    io.stderr.write(result.report)
    return result.code
  }
  const { app } = result
  // The root app's log is the logger it was given: the pino one above.
  const log = app.log as pino.Logger
  const key = io.env[STDIO_KEY_VARIABLE]
  // Set, it must name a key (an empty one names none); unset, the client is anonymous.
  const principal = key === undefined ? undefined : principalOfKey(key, result.config.apiKeys)
  if (key !== undefined && principal === undefined) {
    await app.close()
    io.stderr.write(new ConfigError(`${STDIO_KEY_VARIABLE} must be one of the keys in API_KEYS.`).report)
    return EXIT.invalid
  }
  const served = await serveMcpStdio({
    resources: app.resources,
    actions: app.actions,
    info: { name: 'audience-gateway', version: pkg.version },
    principal,
    keyHint: `start the server with ${STDIO_KEY_VARIABLE} set to one of API_KEYS.`,
    log,
    onRows: (tool, rows, clamped) => { app.metrics.rows(tool, 'mcp', rows, clamped) }
  })
  let stopping: Promise<void> | undefined
  const stop = async (): Promise<void> => {
    stopping ??= (async () => {
      await served.close()
      await app.close()
      log.flush()
    })()
    await stopping
  }
  process.stdin.once('end', stop).once('close', stop)
  process.once('SIGINT', stop).once('SIGTERM', stop)
  log.info({ tools: app.resources.length + app.actions.length, keyId: principal?.keyId ?? null }, 'serving MCP over stdio')
  return undefined
}

// Run when started as the command, not when imported (tests run `run` in process).
if (realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const code = await run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env })
  if (code !== undefined) process.exitCode = code
}
