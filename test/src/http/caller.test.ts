// The caller the limits count: a principal by its fingerprint, else the address (an IPv6 one by its
// /64), the address normalized once per connection and again whenever the connection's requests
// name another (a proxy trusted to name its clients).
import type { FastifyRequest } from 'fastify'
import t from 'tap'
import { callerOf } from '../../../src/http/caller.js'

/** A request on `socket` from `ip`, with or without a principal. */
function request (socket: object, ip: string, keyId?: string): FastifyRequest {
  return { ip, raw: { socket }, principal: keyId === undefined ? undefined : { keyId, scopes: 'all' } } as unknown as FastifyRequest
}

t.test('a principal is counted by its fingerprint, whatever its address', async (t) => {
  t.equal(callerOf(request({}, '127.0.0.1', 'abc123')), 'key:abc123')
})

t.test('an address is normalized: IPv4 as it is, IPv6 by its /64, a mapped IPv4 as IPv4', async (t) => {
  t.equal(callerOf(request({}, '127.0.0.1')), 'address:127.0.0.1')
  t.equal(callerOf(request({}, '2001:db8:1:2:3:4:5:6')), 'address:2001:db8:1:2::')
  t.equal(callerOf(request({}, '::ffff:10.0.0.7')), 'address:10.0.0.7')
})

t.test('one connection\'s requests are one caller, until a request names another address', async (t) => {
  const socket = {}
  t.equal(callerOf(request(socket, '2001:db8:1:2:3:4:5:6')), 'address:2001:db8:1:2::')
  t.equal(callerOf(request(socket, '2001:db8:1:2:ffff::1')), 'address:2001:db8:1:2::', 'the same /64 on the same connection')
  t.equal(callerOf(request(socket, '192.0.2.9')), 'address:192.0.2.9', 'another address on the same connection is another caller')
  t.equal(callerOf(request(socket, '2001:db8:1:2:3:4:5:6')), 'address:2001:db8:1:2::', 'and back')
  t.equal(callerOf(request({}, '192.0.2.9')), 'address:192.0.2.9', 'another connection from that address is the same caller')
})
