/**
 * How the REST API's OpenAPI document says who may call it: every operation needs a bearer token
 * (an access token from the token endpoint); the token endpoints themselves take the client's
 * credentials (../../auth/openapi.ts).
 */
import type { SecurityRequirementObject, SecuritySchemeObject } from 'openapi3-ts/oas31';
import { CLIENT_BASIC_SCHEME } from '../../auth/openapi.ts';

export const SECURITY_SCHEMES: Record<string, SecuritySchemeObject> = {
  clientBasic: CLIENT_BASIC_SCHEME,
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'An access token from `POST oauth/token.php` (opaque, `mda_...`).',
  },
};

/**
 * Every REST route needs a token; the document and its reference page are open but are not REST
 * routes, and the token endpoints say their own.
 */
export const SECURITY: SecurityRequirementObject[] = [{ bearerAuth: [] }];
