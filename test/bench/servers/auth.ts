// The references' bearer check, written by hand as the gateway does it (a digest compared in
// constant time), so both sides pay for authentication alike.
import { createHash, timingSafeEqual } from 'node:crypto'

/** A check of an Authorization header against the one key the bench uses. */
export function bearerCheck (key: string): (authorization: string | undefined) => boolean {
  const expected = sha256(key)
  return (authorization) => {
    const match = /^\s*bearer +(\S+)\s*$/i.exec(authorization ?? '')
    return match !== null && timingSafeEqual(sha256(match[1]), expected)
  }
}

function sha256 (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}
