/**
 * The REST layer's OpenAPI document at GET /openapi.json and an interactive API reference at
 * GET /docs, both open (src/auth/bearer.ts).
 *
 * Dependency: swagger-ui-dist, Swagger UI's prebuilt browser bundle (the reference renderer
 * most OpenAPI tooling uses; "Authorize" takes a bearer token, "Try it out" sends requests).
 * Its files are served from node_modules under /docs/, never from a CDN: the machines the
 * service runs on may have no internet, and a CDN link would leave the page blank. Every URL
 * in the page is relative, so it works under BASE_PATH and behind a proxy.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import { API_TITLE } from './openapi/common.ts';
import { JSON_CONTENT_TYPE } from '../http/errors.ts';

export interface ApiDocsOptions {
  /** BASE_PATH (Config.basePath): the document's `servers` entry, so that "Try it out" reaches the routes. */
  basePath: string;
  /**
   * A working access token to open the page authorized with, when there is one to give (the demo
   * client's, for a browser on this machine: app.ts, as GraphiQL's).
   */
  pageToken?: (c: Context) => Promise<string | undefined>;
}

interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
}

function asset(body: string | Uint8Array, type: string): Asset {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return { body: bytes, type, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` };
}

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Files of swagger-ui-dist served as they are, by the name the page uses. */
const PACKAGE_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/**
 * The page's own script (a file, not inline, so a strict Content-Security-Policy holds).
 * `openapi.json` is relative to the page (`<base>/docs`): `<base>/openapi.json`. The token given
 * to "Authorize", or got there from a client id and secret, stays in the page's memory
 * (persistAuthorization off): never in storage. A token the page carries (its `access-token`
 * meta) is applied to the bearer scheme once the document is loaded.
 */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  var given = document.querySelector('meta[name="access-token"]');
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    deepLinking: true,
    docExpansion: 'none',
    filter: true,
    persistAuthorization: false,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    onComplete: function () {
      if (given) window.ui.preauthorizeApiKey('bearerAuth', given.content);
    },
    // No credentials of the browser's own to the token endpoint: a refusal's Basic challenge
    // would make it ask the user for some, and the request would wait for them.
    requestInterceptor: function (request) {
      if (/\\/oauth\\/token\\.php$/.test(new URL(request.url, location.href).pathname)) request.credentials = 'omit';
      return request;
    },
  });
});
`;

const STYLE = `html { box-sizing: border-box; overflow-y: scroll; }
*, *:before, *:after { box-sizing: inherit; }
body { margin: 0; background: #fafafa; }
`;

/** The page; `head` is added to its head (the token it carries). */
const pageHtml = (head = '') => `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${API_TITLE}</title>
    <link rel="stylesheet" href="docs/swagger-ui.css">
    <link rel="stylesheet" href="docs/docs.css">
    <link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">${head}
  </head>
  <body>
    <noscript>This API reference needs JavaScript. The OpenAPI document itself is at <a href="openapi.json">openapi.json</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="docs/swagger-ui-bundle.js"></script>
    <script src="docs/docs.js"></script>
  </body>
</html>
`;

/**
 * Swagger UI styles elements inline and draws icons from data: URLs; everything else comes from
 * this service. "Try it out" calls the API on the same origin.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * The page with an access token in it, for the page's script to authorize with. Never kept by a
 * cache, as GraphiQL's page with its token (src/graphql/http.ts); framing is refused already.
 */
async function pageWithToken(c: Context, token: string): Promise<Response> {
  // Escaped as HTML (hono's html), whatever the token holds: it is text in an attribute.
  const head = await html`\n    <meta name="access-token" content="${token}">`;
  return c.html(pageHtml(head), 200, { ...PAGE_HEADERS, 'Cache-Control': 'no-store' });
}

/** The page's files, read once on first use (Swagger UI's bundle is 1.7 MB: not read by apps that never serve it). */
let assets: Promise<Map<string, Asset>> | undefined;

function loadAssets(): Promise<Map<string, Asset>> {
  assets ??= Promise.all(
    Object.entries(PACKAGE_FILES).map(
      async ([name, type]) => [name, asset(await readFile(join(SWAGGER_UI_DIR, name)), type)] as const,
    ),
  ).then(
    (files) =>
      new Map([
        ...files,
        ['docs.js', asset(INIT_SCRIPT, 'text/javascript; charset=utf-8')],
        ['docs.css', asset(STYLE, 'text/css; charset=utf-8')],
      ]),
  );
  assets.catch(() => (assets = undefined));
  return assets;
}

/** The asset, or 304 when the client holds this version. Revalidated on every use: a new release changes them at the same URL. */
function send(c: Context, file: Asset, headers: Record<string, string> = {}): Response {
  const common = { ETag: file.etag, 'Cache-Control': 'no-cache', ...headers };
  if (
    c.req
      .header('if-none-match')
      ?.split(',')
      .some((tag) => tag.trim() === file.etag)
  )
    return c.body(null, 304, common);
  return c.body(file.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': file.type, ...common });
}

export function apiDocs({ basePath, pageToken }: ApiDocsOptions): Hono {
  const app = new Hono();
  let document: Asset | undefined;
  const page = asset(pageHtml(), 'text/html; charset=utf-8');

  app.get('/openapi.json', async (c) => {
    // Loaded when first asked for: the builder and its dependencies (a YAML library among them)
    // are not held by a server nobody asks for its document.
    const { openApiDocument } = await import('./openapi.ts');
    document ??= asset(JSON.stringify(openApiDocument(basePath)), JSON_CONTENT_TYPE);
    return send(c, document, { 'Access-Control-Allow-Origin': '*' });
  });
  app.get('/docs', async (c) => {
    const token = await pageToken?.(c);
    return token ? pageWithToken(c, token) : send(c, page, PAGE_HEADERS);
  });
  // The relative URLs in the page need it at `<base>/docs`, not `<base>/docs/`.
  app.get('/docs/', (c) => c.redirect('../docs', 301));
  for (const name of [...Object.keys(PACKAGE_FILES), 'docs.js', 'docs.css']) {
    app.get(`/docs/${name}`, async (c) =>
      send(c, (await loadAssets()).get(name)!, { 'X-Content-Type-Options': 'nosniff' }),
    );
  }
  return app;
}
