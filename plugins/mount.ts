// The route helper: `app.mount(declaration)` serves one declaration both ways, with the gateway's
// zone and handle wording fixed once for every mount.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { mountRoute, type Mount, type MountSettings } from '../src/mount/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    mount: (mount: Mount) => void
  }
}

/** The gateway's sentence for a handle whose marking declares no description of its own. */
export const HANDLE_DESCRIPTION = 'An identifier: pass it as it is to other tools that take it, and never read it out to the user.'

export interface GatewayOptions {
  timeZone: string
  handleDescription?: string
}

async function gateway (app: FastifyInstance, options: GatewayOptions): Promise<void> {
  const settings: MountSettings = { timeZone: options.timeZone, handleDescription: options.handleDescription ?? HANDLE_DESCRIPTION }
  app.decorate('mount', function mount (this: FastifyInstance, definition: Mount) {
    this.route(mountRoute(definition, settings))
  })
}

export default fp(gateway, { name: 'gateway', dependencies: ['audience', 'auth', 'problems'] })
