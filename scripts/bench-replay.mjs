// The bench's loopback replay server: answers `session.history` requests with response texts the
// bench page stored beforehand, written in 64 KB pieces as an HTTP server streams a body, so a
// page crosses the browser's network stack as a host's answer does while the host's own serving
// time (a debug build in `npm test`) stays out of the figures. Used only by the bench page
// (tests/pages/src/bench/), cross-origin with plain-text requests (no preflight).
//   POST /store   {"key", "prefix", "suffix"}    keeps one answer (the text around its rpcId)
//   POST /replay  "<key>\n<rpcId>"               answers with prefix + JSON(rpcId) + suffix
import http from 'node:http'

const PIECE = 64 * 1024

/** Starts the server on a free loopback port: `{ url, close() }`. */
export async function startReplay() {
  const store = new Map()
  const server = http.createServer((req, res) => {
    const parts = []
    req.on('data', (c) => parts.push(c))
    req.on('end', () => {
      const text = Buffer.concat(parts).toString()
      const head = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' }
      if (req.method === 'POST' && req.url === '/store') {
        const { key, prefix, suffix } = JSON.parse(text)
        store.set(key, [Buffer.from(prefix), Buffer.from(suffix)])
        res.writeHead(204, head)
        return res.end()
      }
      const nl = text.indexOf('\n')
      const answer = req.method === 'POST' && req.url === '/replay' && nl > 0 ? store.get(text.slice(0, nl)) : undefined
      if (!answer) {
        res.writeHead(404, head)
        return res.end()
      }
      const body = [answer[0], Buffer.from(JSON.stringify(text.slice(nl + 1))), answer[1]]
      const length = body.reduce((n, b) => n + b.length, 0)
      res.writeHead(200, { ...head, 'content-type': 'application/json', 'content-length': length })
      let part = 0
      let at = 0
      const write = () => {
        for (; part < body.length; part++, at = 0) {
          const b = body[part]
          while (at < b.length) {
            const piece = b.subarray(at, at + PIECE)
            at += piece.length
            if (!res.write(piece)) return res.once('drain', write)
          }
        }
        res.end()
      }
      write()
    })
  })
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
  const { port } = server.address()
  return { url: `http://127.0.0.1:${port}`, close: () => {
      server.closeAllConnections()
      return new Promise((ok) => server.close(ok))
    },
  }
}
