/**
 * GraphiQL's page at GET /graphql (Yoga's renderer, the whole bundle inlined: no CDN). With a
 * token to give (the demo client's, for a browser on this machine) its Headers tab carries it;
 * without one, a small form gets one from an API client's id and secret (the client credentials
 * grant of the token endpoint), which the page then sends with its operations.
 */
import { GRAPHIQL_EXAMPLE } from './examples.ts';

/**
 * The page may carry a live token (the embedded default's demo client) and runs operations at a
 * click: no other site may frame it (clickjacking), keep it, or learn its URL. Its renderer is
 * one inline script that starts web workers from blobs: a script policy is left to the default,
 * the policy sets what does not depend on it. The token form is never submitted as a form
 * (form-action 'none'): its script posts it to the token endpoint, on the same origin.
 */
export const GRAPHIQL_PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const TOKEN_FORM_STYLE = `#token-panel { position: fixed; right: 16px; bottom: 16px; z-index: 100; width: 22rem;
  padding: 8px 14px; background: #fff; color: #1b2240; border: 1px solid #c8cde0; border-radius: 6px;
  box-shadow: 0 2px 10px rgb(0 0 0 / 0.15); font: 14px/1.4 system-ui, sans-serif; }
#token-panel summary { cursor: pointer; font-weight: 600; }
#token-panel p { margin: 8px 0; }
#token-panel label { display: block; margin-top: 6px; }
#token-panel input { display: block; width: 100%; box-sizing: border-box; padding: 4px; font: inherit; }
#token-panel button { margin-top: 8px; font: inherit; }
#token-panel output { display: block; margin-top: 6px; }`;

const TOKEN_FORM = `<details id="token-panel" open>
  <summary>Access token: none</summary>
  <p>Operations need an access token. Get one with an API client's id and secret (client
  credentials, <code>POST oauth/token.php</code>): it is kept in this page's memory only, and sent
  with every operation whose Headers set no <code>Authorization</code> of their own.</p>
  <form>
    <label>Client id <input name="client_id" autocomplete="off" required></label>
    <label>Client secret <input name="client_secret" type="password" autocomplete="off" required></label>
    <button type="submit">Get a token</button>
    <output role="status"></output>
  </form>
</details>`;

/**
 * The form's script, run before GraphiQL's so that the fetch GraphiQL calls is this one: a
 * request to the endpoint without an Authorization header gets the token, once there is one.
 * The secret leaves the page only to the token endpoint; the token lives in this closure.
 */
const tokenFormScript = (endpoint: string) => `(function () {
  var panel = document.getElementById('token-panel');
  var form = panel.querySelector('form');
  var status = panel.querySelector('output');
  var endpoint = new URL(${JSON.stringify(endpoint)}, location.href);
  var tokenUrl = new URL('oauth/token.php', endpoint).href;
  var token;
  var send = window.fetch;
  window.fetch = function (input, init) {
    var url = new URL(input instanceof Request ? input.url : String(input), location.href);
    if (token && url.origin === endpoint.origin && url.pathname === endpoint.pathname) {
      var headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
      if (!headers.has('Authorization')) {
        headers.set('Authorization', 'Bearer ' + token);
        init = Object.assign({}, init, { headers: headers });
      }
    }
    return send.call(this, input, init);
  };
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    status.textContent = 'Asking the token endpoint...';
    var body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: form.client_id.value,
      client_secret: form.client_secret.value,
    });
    // No credentials of the browser's own: a refusal's Basic challenge would make it ask for some.
    send(tokenUrl, { method: 'POST', body: body, credentials: 'omit' })
      .then(function (res) {
        return res.json().then(function (answer) {
          if (!res.ok) throw new Error(answer.error_description || answer.error || res.statusText);
          token = answer.access_token;
          form.client_secret.value = '';
          var until = new Date(Date.now() + answer.expires_in * 1000).toLocaleTimeString();
          status.textContent = 'Operations from this page now send it. Get another when it expires.';
          panel.querySelector('summary').textContent = 'Access token: ' + answer.scope + ', until ' + until;
          panel.open = false;
          var refetch = document.querySelector('[aria-label="Re-fetch GraphQL schema"]');
          if (refetch) refetch.click();
        });
      })
      .catch(function (error) {
        status.textContent = 'No token: ' + error.message;
      });
  });
})();`;

/**
 * The page for `endpoint` (the path it was asked at), with `token` in its Headers tab, or the
 * token form without one. Its renderer (a 9 MB bundle) is loaded on the first page asked for,
 * not at start: measured, importing it costs a server 80 MB of memory that one never browsed
 * keeps for nothing.
 */
export async function graphiqlHtml(endpoint: string, token: string | undefined): Promise<string> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const html = renderGraphiQL({
    title: 'Master data GraphQL',
    endpoint,
    defaultQuery: GRAPHIQL_EXAMPLE,
    headers: JSON.stringify(token ? { Authorization: `Bearer ${token}` } : {}, null, 2),
    shouldPersistHeaders: false,
  } as Parameters<typeof renderGraphiQL>[0]);
  if (token) return html;
  // Right after the page's root element, before GraphiQL's own script (a function: the
  // replacement is taken as it is).
  const root = '<div id="root"></div>';
  const form = `${root}\n<style>${TOKEN_FORM_STYLE}</style>\n${TOKEN_FORM}\n<script>${tokenFormScript(endpoint)}</script>`;
  return html.replace(root, () => form);
}
