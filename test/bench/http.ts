// The bench's requests outside autocannon: the key, the headers of each audience, and a body
// fetched whole (to compare bytes before measuring).

export const KEY = 'bench-key-0123456789abcdef'
export const AUTH: Record<string, string> = { authorization: `Bearer ${KEY}` }
export const AGENT: Record<string, string> = { ...AUTH, 'x-audience': 'agent' }

/** The body of GET `url`, refusing anything but a 200. */
export async function body (url: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(url, { headers })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${text.slice(0, 300)}`)
  return text
}
