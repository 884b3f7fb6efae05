// A GET whose path is sent byte for byte: a URL parser (fetch's, inject's) would resolve dot
// segments such as `/items/..` away before the server saw them.
import { get } from 'node:http'

/** GETs `path` from the server at `address` (`http://127.0.0.1:port`); the status and the JSON body. */
export async function rawGet (address: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number, body: Record<string, unknown> }> {
  const { hostname, port } = new URL(address)
  return await new Promise((resolve, reject) => {
    get({ host: hostname, port, path, headers }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { text += chunk })
      response.on('end', () => { resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }) })
    }).on('error', reject)
  })
}
