// Request and response hardening applied by the Worker to everything it serves.
import { introHeadScript } from "~/lib/intro";
import { toBase64 } from "~/server/platform/tokens.server";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cross-site request forgery guard: a state-changing request must come from our own pages.
 * Browsers say where a request comes from in Sec-Fetch-Site and Origin; a request that says
 * "another site", or says nothing at all, is refused. Webhooks are exempt (they prove
 * themselves with an HMAC) and are routed before this check.
 */
export function isCrossSiteRequest(request: Request): boolean {
  if (SAFE_METHODS.has(request.method)) return false;
  const site = request.headers.get("Sec-Fetch-Site");
  if (site) return site !== "same-origin";
  const origin = request.headers.get("Origin");
  return origin === null || origin !== new URL(request.url).origin;
}

export function createNonce(): string {
  return toBase64(crypto.getRandomValues(new Uint8Array(16)));
}

// Static inline scripts the pages carry, allowed by their SHA-256 instead of a nonce.
const STATIC_INLINE_SCRIPTS = [introHeadScript];
let scriptHashes: Promise<string[]> | undefined;

export function staticScriptHashes(): Promise<string[]> {
  scriptHashes ??= Promise.all(
    STATIC_INLINE_SCRIPTS.map(async (script) => {
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(script));
      return `'sha256-${toBase64(new Uint8Array(digest))}'`;
    }),
  );
  return scriptHashes;
}

export interface CspSources {
  nonce: string;
  scriptHashes: string[];
  dev: boolean;
}

export function contentSecurityPolicy({ nonce, scriptHashes, dev }: CspSources): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' ${scriptHashes.join(" ")}`.trim(),
    // Inline style attributes (React `style`) and, in development, Vite's injected CSS.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https://cdn.shopify.com https://cdn.discordapp.com",
    "media-src 'self' https://cdn.shopify.com",
    "font-src 'self'",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "frame-src https://www.youtube-nocookie.com",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Returns a copy of `response` carrying the security headers every response should have. */
export function withSecurityHeaders(response: Response, csp: CspSources, method = "GET"): Response {
  const secured = new Response(response.body, response);
  const headers = secured.headers;
  headers.set("X-Content-Type-Options", "nosniff");
  // A page may ask for a stricter policy (the password reset page sends no Referer at all).
  if (!headers.has("Referrer-Policy")) headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("X-Frame-Options", "DENY");
  headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload");
  headers.set("Cross-Origin-Opener-Policy", "same-origin-allow-popups");
  headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
  if (headers.get("Content-Type")?.startsWith("text/html")) {
    headers.set("Content-Security-Policy", contentSecurityPolicy(csp));
  }
  // Anything that did not ask to be cached publicly is private to its recipient, and so is every
  // answer to a state-changing request and every error.
  if (!headers.has("Cache-Control") || !SAFE_METHODS.has(method) || secured.status >= 400) {
    headers.set("Cache-Control", "private, no-store");
  }
  return secured;
}

export function forbiddenCrossSite(): Response {
  return new Response("Cross-site request refused.", {
    status: 403,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}
