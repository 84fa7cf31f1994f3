/**
 * How the REST API's OpenAPI document says who may call it: every operation needs an access
 * token, given as it is (the bearer scheme) or got by the API reference's "Authorize" from a
 * client id and secret (OAuth 2.0 client credentials at the token endpoint); the token endpoints
 * themselves take the client's credentials (../../auth/openapi.ts).
 */
import type { SecurityRequirementObject, SecuritySchemeObject } from 'openapi3-ts/oas31';
import { CLIENT_BASIC_SCHEME } from '../../auth/openapi.ts';
import { TOKEN_PATH } from '../../auth/token-endpoint.ts';

/**
 * The schemes, for the routes under `basePath`. The token URL is a path from the host, with the
 * base path: Swagger UI resolves it against the server URL, where a relative one would lose the
 * base path's last segment.
 */
export function securitySchemes(basePath: string): Record<string, SecuritySchemeObject> {
  return {
    clientBasic: CLIENT_BASIC_SCHEME,
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description: 'An access token from `POST oauth/token.php` (opaque, `mda_...`).',
    },
    oauth2: {
      type: 'oauth2',
      description:
        'An access token got from the token endpoint with the client credentials grant (a client id and secret; HTTP Basic). Without a scope chosen, the token has every scope of the client.',
      flows: {
        clientCredentials: {
          tokenUrl: `${basePath}${TOKEN_PATH}`,
          scopes: { read: 'read: GET', write: 'write: every other method, and webhooks' },
        },
      },
    },
  };
}

/**
 * Every REST route needs a token, either way; the document and its reference page are open but
 * are not REST routes, and the token endpoints say their own.
 */
export const SECURITY: SecurityRequirementObject[] = [{ bearerAuth: [] }, { oauth2: [] }];
