// A static file server on localhost, for the playground (`npm run playground`), the docs site (`npm run docs:serve`)
// and the browser tests. With `csp`,
// every page is served under `Content-Security-Policy: script-src 'self'` (no eval, no inline scripts).
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2",
};

/** Serves `root` on 127.0.0.1 (`port` 0: any free port); resolves to its URL and a close function. */
export function serve(root, { port = 0, csp = false } = {}) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    const file = join(root, path.endsWith("/") ? `${path}index.html` : path);
    if (!file.startsWith(root)) return void res.writeHead(403).end();
    try {
      const body = await readFile(file);
      const headers = {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      };
      if (csp) headers["content-security-policy"] = "script-src 'self'";
      res.writeHead(200, headers).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address();
      const close = () =>
        new Promise((r) => {
          server.close(r);
          server.closeAllConnections();
        });
      resolve({ url: `http://127.0.0.1:${bound}/`, close });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The folder to serve is the argument (default: the playground's site/).
  const dir = process.argv[2]
    ? join(process.cwd(), process.argv[2], "/")
    : fileURLToPath(new URL("../site/", import.meta.url));
  const { url } = await serve(dir, { port: Number(process.env.PORT ?? 8080) });
  console.log(`serving ${dir} at ${url} (Ctrl-C stops)`);
}
