// The licence API's contract as an OpenAPI 3.1 document, served at /api/v1/openapi.json. Codes,
// plans, channels, the re-check interval, the download link's life and the device name's rule come
// from the code that uses them; the limits stated are wrangler.toml's [[ratelimits]] bindings.
// The Worker does not carry this module (decision 119): its output is openapi.json beside it, a
// static file the Worker reads from the asset layer. A test compares the two, and `npm run
// openapi` writes the file again after a change here or in the code it names.
import { LICENCE_PLANS } from "~/lib/plans";
import { RELEASE_CHANNELS } from "~/lib/releases";
import { DOWNLOAD_LINK_SECONDS } from "~/server/releases/release-links.server";
import { MAX_DEVICE_LENGTH } from "~/lib/schemas/licences";
import { LICENCE_CODES, RECHECK_SECONDS } from "~/server/licences/validation.server";
import { sellerPaths, sellerSchemas, sellerSecuritySchemes } from "./openapi-seller";
import { WEBHOOK_SCHEMAS, webhookOperations } from "./openapi-webhooks";
import { DEACTIVATION_CODES } from "~/server/licences/licences.server";

const errorBody = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: {
          type: "string",
          enum: ["INVALID_REQUEST", "REQUEST_TOO_LARGE", "RATE_LIMITED", "UNAVAILABLE", "NOT_FOUND", "FORBIDDEN", "METHOD_NOT_ALLOWED"],
        },
        message: { type: "string" },
        field: { type: "string", description: "The request field the problem is about, for INVALID_REQUEST." },
      },
    },
  },
} as const;

const problem = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** A signed answer and the refusals every signed POST shares. */
const signedResponses = (schema: string) => ({
  "200": {
    description: "The verdict, signed",
    headers: {
      "Licence-Signature": {
        required: true,
        schema: { type: "string" },
        description: "Base64 Ed25519 signature of the exact response body bytes.",
      },
    },
    content: { "application/json": { schema: { $ref: schema } } },
  },
  "400": problem("The body is not JSON, or a field breaks its rule"),
  "413": problem("The body is larger than 64 KB"),
  "429": problem("Rate limited", { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait." } }),
  "503": problem("Licence checks are not configured on this server"),
});

const downloadHeaders = {
  "Content-Length": { schema: { type: "integer" } },
  "Accept-Ranges": { schema: { const: "bytes" } },
  ETag: { schema: { type: "string" } },
  "X-Checksum-SHA256": { schema: { type: "string" }, description: "The whole file's SHA-256 in hex, whatever range is sent." },
  "Repr-Digest": { schema: { type: "string" }, description: "RFC 9530: sha-256=:<base64>: of the whole file." },
};

const download = (description: string, extra: Record<string, unknown> = {}) => ({
  description,
  headers: { ...downloadHeaders, ...extra },
  content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
});

export function openApiDocument() {
  return {
    openapi: "3.1.0",
    info: {
      title: "Licence and seller API",
      version: "1.0.0",
      description:
        "Checks a licence key for the shop's program. Answers are signed with Ed25519: verify the `Licence-Signature` header over the exact body bytes with the public key from `/licences/signing-key` (pinned in your program), then check that `nonce`, `key` and `hwid` are the ones you sent. A VALID answer carries a signed offline `lease`; keep the answer and its signature to work offline until `lease.until`, refusing it if the local clock reads earlier than the newest `issuedAt` you have trusted.\n\n" +
        "Limits: 300 calls per minute per client address; per key, 60 per minute from the PC it is bound to and 60 from every other caller together; more answer 429 with `Retry-After`. Bodies are at most 64 KB.\n\n" +
        "The seller API (`/seller/…`) is for resellers' and staff's own programs: it takes an API token as a bearer token, answers errors as problem details (RFC 9457) with the same codes, and states its per-token limit in `RateLimit` header fields.",
    },
    // Relative to the shop's address; the Worker answers it resolved against the request's origin.
    servers: [{ url: "/api/v1" }],
    paths: {
      "/licences/validate": {
        post: {
          operationId: "validateLicence",
          summary: "Check a key on this PC; the first valid call activates it",
          description:
            "The first call with a hardware id binds the key to that PC and, for timed plans, starts its clock (a weekly key runs 7 days from activation). Later calls from another PC answer HWID_MISMATCH and change nothing. Refunded or cancelled keys answer REVOKED, banned keys, PCs or owners' accounts BANNED, keys staff paused SUSPENDED (their clock stands still until resumed), keys whose payment is disputed or that were used from too many places SUSPENDED with a `reason`, keys past `expiresAt` EXPIRED. A PC, address, range or country on the shop's blocklist answers BANNED, with a `reason`, for any key.",
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/ValidateRequest" } } } },
          responses: signedResponses("#/components/schemas/Validation"),
        },
      },
      "/licences/deactivate": {
        post: {
          operationId: "deactivateLicence",
          summary: "Release this PC: the key is free for the next PC that checks it",
          description:
            "Only the PC the key is bound to can release it: any other hwid (or a key bound to no PC) answers HWID_MISMATCH. It spends the key's move allowance, the same as the owner's Reset PC in the hub (once every HWID_RESET_COOLDOWN_DAYS, 7 by default): TOO_SOON with `nextReleaseAt` until then. Refused (BANNED, REVOKED, SUSPENDED) where the hub's reset is. Audited, and shown in the key's reset history. A later validate from this PC binds it again if the key is still free. Rate-limited as validate (per client address, and per key).",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["key", "hwid", "nonce"],
                  properties: {
                    key: { $ref: "#/components/schemas/ValidateRequest/properties/key" },
                    hwid: { $ref: "#/components/schemas/ValidateRequest/properties/hwid" },
                    nonce: { $ref: "#/components/schemas/ValidateRequest/properties/nonce" },
                    device: { $ref: "#/components/schemas/ValidateRequest/properties/device" },
                  },
                },
              },
            },
          },
          responses: signedResponses("#/components/schemas/Deactivation"),
        },
      },
      "/releases/latest": {
        post: {
          operationId: "latestRelease",
          summary: "The newest release this licence may have on a channel (the program's auto-update)",
          description:
            "Runs validate's checks and limits (it activates a new key as validate does) and answers the same signed body with `channel` and `release`. `release` is null unless the answer is VALID and the licence includes what the newest published release on the channel needs: the beta channel needs the `beta` entitlement, a release may need one more. A release staff yanked is never offered. Verify the answer as validate's, then that `channel` is the one asked, before trusting `release`.",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  allOf: [
                    { $ref: "#/components/schemas/ValidateRequest" },
                    { type: "object", properties: { channel: { type: "string", enum: RELEASE_CHANNELS, default: "stable" } } },
                  ],
                },
              },
            },
          },
          responses: signedResponses("#/components/schemas/LatestRelease"),
        },
      },
      "/releases/{id}/download": {
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" } },
          {
            name: "licence",
            in: "query",
            required: true,
            schema: { type: "integer" },
            description: "The licence the link was issued for; every use checks it may still have the release.",
          },
          {
            name: "expires",
            in: "query",
            required: true,
            schema: { type: "integer" },
            description: "When the link stops working, ms since the epoch.",
          },
          {
            name: "signature",
            in: "query",
            required: true,
            schema: { type: "string" },
            description: "The shop's Ed25519 signature of the release, the licence and the expiry (base64url).",
          },
        ],
        get: {
          operationId: "downloadRelease",
          summary: "A release's bytes, by the signed link in a releases/latest answer (no session)",
          description: `The link works for ${DOWNLOAD_LINK_SECONDS / 60} minutes. Send \`Range: bytes=N-\` to resume (206 with Content-Range; a range past the end answers 416). Hash what you saved and compare it with the signed answer's sha256 before running it.`,
          parameters: [{ name: "Range", in: "header", required: false, schema: { type: "string", example: "bytes=1048576-" } }],
          responses: {
            "200": download("The whole file"),
            "206": download("The range asked for", {
              "Content-Range": { schema: { type: "string" }, description: "bytes first-last/size" },
            }),
            "403": problem(
              "The link's signature is not the shop's, it has expired, or its licence may no longer have the release: expired, revoked, refunded, banned, paused or without an entitlement it needs (FORBIDDEN; the message says what is missing): ask releases/latest again",
            ),
            "404": problem("No such release, or staff yanked it since (NOT_FOUND)"),
            "416": {
              description: "The range starts past the end of the file",
              headers: { "Content-Range": { schema: { type: "string" }, description: "bytes */size" } },
            },
          },
        },
        head: {
          operationId: "releaseHead",
          summary: "The download's headers (size, checksum) without its bytes",
          responses: {
            "200": { description: "As GET, without a body", headers: downloadHeaders },
            "403": { description: "As GET" },
            "404": { description: "As GET" },
          },
        },
      },
      "/licences/signing-key": {
        get: {
          operationId: "signingKey",
          summary: "The Ed25519 public key that signs validation answers",
          responses: {
            "200": {
              description: "The public key",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["alg", "publicKey"],
                    properties: {
                      alg: { const: "Ed25519" },
                      publicKey: { type: "string", description: "Base64 of the 32 raw public-key bytes." },
                    },
                  },
                },
              },
            },
            "503": problem("Licence checks are not configured on this server"),
          },
        },
      },
      ...sellerPaths,
    },
    // The events the shop sends to the endpoints staff register (Standard Webhooks).
    webhooks: webhookOperations(),
    components: {
      securitySchemes: sellerSecuritySchemes,
      schemas: {
        ...sellerSchemas,
        ...WEBHOOK_SCHEMAS,
        Error: errorBody,
        ValidateRequest: {
          type: "object",
          required: ["key", "hwid", "nonce"],
          additionalProperties: true,
          properties: {
            key: { type: "string", minLength: 1, maxLength: 200 },
            hwid: {
              type: "string",
              minLength: 16,
              maxLength: 256,
              pattern: "^[\\x20-\\x7e]*$",
              description: "The PC's hardware id: 16 to 256 printable ASCII characters.",
            },
            nonce: {
              type: "string",
              minLength: 16,
              maxLength: 64,
              pattern: "^[\\x20-\\x7e]*$",
              description: "Chosen fresh by the client for every call; echoed in the signed answer.",
            },
            activate: {
              type: "boolean",
              default: true,
              description: "false only looks: a key never used answers NOT_ACTIVATED instead of binding this PC.",
            },
            device: {
              type: "string",
              maxLength: MAX_DEVICE_LENGTH,
              pattern: "^[\\x20-\\x7e]*$",
              description:
                "Optional name of the PC (its computer name), shown to the key's owner in the hub beside the bound PC. Trimmed; blank means none.",
            },
          },
        },
        Deactivation: {
          type: "object",
          required: ["released", "code", "key", "hwid", "nonce", "issuedAt", "nextReleaseAt"],
          properties: {
            released: { type: "boolean", description: "True exactly when code is RELEASED." },
            code: { type: "string", enum: DEACTIVATION_CODES },
            key: { type: "string", description: "The request's key, as in a validation's answer." },
            hwid: { type: "string", description: "The request's hwid, likewise." },
            nonce: { type: "string", description: "The request's nonce." },
            issuedAt: {
              type: "string",
              format: "date-time",
              description: "The server's time when it answered, as in a validation's answer.",
            },
            nextReleaseAt: {
              type: ["string", "null"],
              format: "date-time",
              description: "TOO_SOON: when the key's PC can next be released or reset; null otherwise.",
            },
          },
        },
        LatestRelease: {
          allOf: [
            { $ref: "#/components/schemas/Validation" },
            {
              type: "object",
              required: ["channel", "release"],
              properties: {
                channel: {
                  type: "string",
                  enum: RELEASE_CHANNELS,
                  description: "The channel asked about: check it, so an answer about another channel cannot pass for yours.",
                },
                release: {
                  oneOf: [
                    { type: "null" },
                    {
                      type: "object",
                      required: ["version", "channel", "notes", "fileName", "size", "sha256", "publishedAt", "url", "urlExpiresAt"],
                      properties: {
                        version: { type: "string", description: "Semantic version; the newest on the channel that the licence may have." },
                        channel: { type: "string", enum: RELEASE_CHANNELS },
                        notes: { type: "string", description: "Release notes, Markdown." },
                        fileName: { type: "string" },
                        size: { type: "integer", minimum: 0 },
                        sha256: {
                          type: "string",
                          pattern: "^[0-9a-f]{64}$",
                          description: "The file's SHA-256 in hex: compare the bytes you saved with it.",
                        },
                        publishedAt: { type: "string", format: "date-time" },
                        url: {
                          type: "string",
                          format: "uri",
                          description: `A signed download link, no session needed, valid ${DOWNLOAD_LINK_SECONDS / 60} minutes.`,
                        },
                        urlExpiresAt: { type: "string", format: "date-time" },
                      },
                    },
                  ],
                  description:
                    "null when the licence is not VALID, its plan lacks the channel's (or the release's) entitlement, or nothing is published on the channel.",
                },
              },
            },
          ],
        },
        Validation: {
          type: "object",
          required: ["valid", "code", "key", "hwid", "nonce", "issuedAt", "ttl", "licence", "lease"],
          properties: {
            valid: { type: "boolean", description: "True exactly when code is VALID." },
            code: { type: "string", enum: LICENCE_CODES },
            key: { type: "string", description: "The request's key: check it, so an answer about another key cannot pass for yours." },
            hwid: { type: "string", description: "The request's hwid, likewise." },
            nonce: { type: "string", description: "The request's nonce." },
            issuedAt: {
              type: "string",
              format: "date-time",
              description:
                "The server's time when it answered: the program's trusted time (a local clock earlier than it, less a few minutes of skew, was rolled back).",
            },
            ttl: {
              type: "integer",
              minimum: 0,
              maximum: RECHECK_SECONDS,
              description:
                "Seconds until the program should check again (its heartbeat): 600 for VALID answers, never past expiresAt; 0 for all others.",
            },
            licence: {
              oneOf: [
                { type: "null" },
                {
                  type: "object",
                  required: ["product", "plan", "activatedAt", "expiresAt", "entitlements"],
                  properties: {
                    product: { type: "string" },
                    plan: { type: "string", enum: LICENCE_PLANS },
                    activatedAt: { type: ["string", "null"], format: "date-time" },
                    expiresAt: {
                      type: ["string", "null"],
                      format: "date-time",
                      description: "null for lifetime keys, and for timed keys not yet activated.",
                    },
                    entitlements: {
                      type: "array",
                      items: { type: "string", pattern: "^[a-z][a-z0-9-]*$" },
                      description:
                        "What the licence grants (beta, configs, ...): its plan's at the sale, plus or minus what staff changed on this key.",
                    },
                    renewUrl: {
                      type: ["string", "null"],
                      format: "uri",
                      description:
                        "Where the licence's owner renews it, keeping the same key (the program opens it in a browser: \"3 days left — renew\"): a link signed by the shop that works for 7 days, to the checkout of the licence's plan once the owner has signed in. Present on VALID and EXPIRED answers of a timed licence; null for lifetime licences and every other answer. Renewing adds the plan's term to expiresAt while the licence runs, and runs it again from the payment once it has ended; the next check reads the new expiresAt. Absent from answers of shops older than this field.",
                    },
                  },
                },
              ],
              description:
                "The key's terms, for the PC the key is bound to only (and, while no PC is, in a NOT_ACTIVATED answer). null for NOT_FOUND, HWID_MISMATCH and BANNED, and for an EXPIRED, REVOKED or SUSPENDED answer to any PC but the bound one: a caller that only knows the key learns the code and nothing more.",
            },
            lease: {
              oneOf: [
                { type: "null" },
                {
                  type: "object",
                  required: ["until"],
                  properties: {
                    until: {
                      type: "string",
                      format: "date-time",
                      description:
                        "Until when the program may keep working on this answer without reaching the shop: issuedAt plus LICENCE_OFFLINE_HOURS (72 by default), never past licence.expiresAt.",
                    },
                  },
                },
              ],
              description: "The signed offline lease: present on VALID answers, null on every other.",
            },
            reason: {
              type: "string",
              description:
                "Present only on a SUSPENDED or BANNED answer the shop's fraud rules gave: why, in words the program may show its user (a disputed payment, a key used from too many places, a blocked PC or network). Inside the signed body.",
            },
          },
        },
      },
    },
  };
}
