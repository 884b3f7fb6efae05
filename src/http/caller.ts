// Who is calling, as the limits on one caller count them: the key, by its fingerprint (never the
// key), or a token's subject, by the fingerprint of its issuer and `sub` (so every token of one
// person or client counts as one), or the address on a request without one (an IPv6 address by its
// /64, as a host holds them).
import type { Socket } from 'node:net'
import { normalizeIP } from '@fastify/rate-limit'
import type { FastifyRequest } from 'fastify'

/** `key:<fingerprint>` for a request auth named a principal for, else `address:<address>`. */
export function callerOf (request: FastifyRequest): string {
  return request.principal === undefined ? addressOf(request) : `key:${request.principal.keyId}`
}

/**
 * Each connection's caller by address, with the address it was made from: a connection's requests
 * nearly always come from one (a proxy trusted to name the client may name another), and
 * normalizing it (an IPv6 test, a /64 cut) costs a request about a microsecond each time it is asked.
 */
const addresses = new WeakMap<Socket, { readonly ip: string, readonly caller: string }>()

function addressOf (request: FastifyRequest): string {
  const { ip } = request
  const socket = request.raw.socket
  const known = addresses.get(socket)
  if (known?.ip === ip) return known.caller
  const caller = `address:${normalizeIP(ip)}`
  addresses.set(socket, { ip, caller })
  return caller
}
