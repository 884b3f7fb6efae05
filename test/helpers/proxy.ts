// A TCP proxy standing between the app and a service (Redis, PostgreSQL), so a test can take the
// service out of reach and bring it back without touching the service itself.
import { once } from 'node:events'
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1; it stays the same across a cut and a restore. */
  readonly port: number
  /** Drops every connection and stops listening: the service is out of reach. */
  cut: () => Promise<void>
  /** Listens again on the same port. */
  restore: () => Promise<void>
  close: () => Promise<void>
}

/** A proxy to `target` (its hostname and port) on a free port. */
export async function tcpProxy (target: URL): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => { client.destroy(); upstream.destroy() })
      }
      client.pipe(upstream).pipe(client)
    })
    server.listen(port, '127.0.0.1')
    await once(server, 'listening')
    port = (server.address() as { port: number }).port
  }
  const cut = async () => {
    for (const socket of sockets) socket.destroy()
    const closing = server!
    closing.close()
    await once(closing, 'close')
  }
  await listen()
  return { port, cut, restore: listen, close: async () => { if (server?.listening === true) await cut() } }
}
