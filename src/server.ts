// The process: configuration from the environment, the logger, listening, and a graceful close
// on SIGTERM/SIGINT that lets in-flight requests finish.
import closeWithGrace from 'close-with-grace'
import Fastify, { type FastifyServerOptions } from 'fastify'
import app from './app.js'
import { ConfigError, loadConfig, type Config } from './config.js'

/** Never log credentials: the bearer key is redacted wherever a request is logged. */
export function loggerOptions (level: Config['logLevel']): FastifyServerOptions['logger'] {
  return { level, redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' } }
}

async function main (): Promise<void> {
  let config: Config
  try {
    config = loadConfig(process.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`Invalid configuration: ${error.message}\n`)
    process.exit(1)
  }
  const server = Fastify({ logger: loggerOptions(config.logLevel), forceCloseConnections: 'idle' })
  await server.register(app, config)
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err !== undefined) server.log.error({ err }, 'closing after an error')
    else server.log.info({ signal }, 'closing')
    await server.close()
  })
  await server.listen({ port: config.port, host: config.host })
}

await main()
