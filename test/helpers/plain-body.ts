// The text of a plain list as the core serves it: a buffer when answered whole, a stream otherwise.

export async function plainText (body: unknown): Promise<string> {
  if (Buffer.isBuffer(body)) return body.toString()
  const chunks: Buffer[] = []
  for await (const chunk of body as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks).toString()
}
