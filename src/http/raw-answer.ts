// A problem written on the raw socket, then the connection closed: for what fails before a request
// (and so a reply) exists, or what Node answers by itself (a CONNECT). Security headers included.
import { STATUS_CODES, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { PROBLEM_MEDIA_TYPE } from '../audience.js'
import type { ProblemResponse } from '../core/problem.js'

export function writeRawProblem (socket: Duplex, { status, body, headers }: ProblemResponse, security: Readonly<Record<string, string>>): void {
  // A socket the client already reset takes nothing more.
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const text = JSON.stringify(body)
  const lines = Object.entries(closingHeaders(text, headers, security)).map(([name, value]) => `${name}: ${value}\r\n`)
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}\r\n${text}`)
}

/** The same problem as the answer to a request Node holds no route for (an expectation it cannot meet). */
export function endWithProblem (response: ServerResponse, { status, body, headers }: ProblemResponse, security: Readonly<Record<string, string>>): void {
  const text = JSON.stringify(body)
  response.writeHead(status, closingHeaders(text, headers, security)).end(text)
}

/** The headers of a problem answered outside Fastify: the security headers, its own, its type and length, then the connection closed. */
function closingHeaders (text: string, headers: Readonly<Record<string, string>>, security: Readonly<Record<string, string>>): Record<string, string> {
  return { ...security, ...headers, 'Content-Type': `${PROBLEM_MEDIA_TYPE}; charset=utf-8`, 'Content-Length': String(Buffer.byteLength(text)), Connection: 'close' }
}
