// Who is calling, as the limits on one caller count them: the key, by its fingerprint (never the
// key), or a token's subject, by the fingerprint of its issuer and `sub` (so every token of one
// person or client counts as one), or the address on a request without one (an IPv6 address by its
// /64, as a host holds them).
import { normalizeIP } from '@fastify/rate-limit'
import type { FastifyRequest } from 'fastify'

/** `key:<fingerprint>` for a request auth named a principal for, else `address:<address>`. */
export function callerOf (request: FastifyRequest): string {
  return request.principal === undefined ? `address:${normalizeIP(request.ip)}` : `key:${request.principal.keyId}`
}
