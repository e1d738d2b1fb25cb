// Reference client for the licence API (see licence-api.md). Plain TypeScript over web standards
// (fetch, Web Crypto's Ed25519, TextEncoder), so it runs as-is in Node 22+, Deno, Bun and browsers.
// Copy it into your program. It trusts an answer only if the shop's Ed25519 signature over the exact
// body bytes verifies and the answer names the nonce, key and PC of this very call (and, if the
// program says which product it is, that product); a VALID answer is then kept for its `ttl`, so
// the program keeps working offline for that long.

export type LicenceCode = "VALID" | "NOT_FOUND" | "NOT_ACTIVATED" | "EXPIRED" | "SUSPENDED" | "REVOKED" | "BANNED" | "HWID_MISMATCH";

export interface LicenceAnswer {
  valid: boolean;
  code: LicenceCode;
  key: string;
  hwid: string;
  nonce: string;
  issuedAt: string;
  ttl: number;
  licence: { product: string; plan: string; activatedAt: string | null; expiresAt: string | null } | null;
}

export interface LicenceClientOptions {
  /** The shop's address, e.g. "https://shop.example.com". */
  baseUrl: string;
  /** The shop's public key (base64, from GET /api/v1/licences/signing-key), built into the program. */
  publicKey: string;
  /** This program's product, as the shop names it ("Vertex Rust"): keys for other products are refused. */
  product?: string;
  /** For tests and unusual runtimes; defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Milliseconds since the epoch; defaults to Date.now. */
  now?: () => number;
}

/** The call failed, or its answer could not be trusted. `retryAfterSeconds` is set for 429. */
export class LicenceCheckError extends Error {
  readonly retryAfterSeconds?: number;

  constructor(message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = "LicenceCheckError";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

const base64Bytes = (value: string) => Uint8Array.from(atob(value), (c) => c.charCodeAt(0));

function freshNonce(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export class LicenceClient {
  private readonly options: LicenceClientOptions;
  private readonly key: Promise<CryptoKey>;
  private readonly cache = new Map<string, { answer: LicenceAnswer; until: number }>();

  constructor(options: LicenceClientOptions) {
    this.options = options;
    this.key = crypto.subtle.importKey("raw", base64Bytes(options.publicKey), { name: "Ed25519" }, false, ["verify"]);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Checks `key` on the PC `hwid` (16 to 256 printable characters), from the cache while it holds. */
  async validate(key: string, hwid: string): Promise<LicenceAnswer> {
    const cacheKey = JSON.stringify([key, hwid]);
    const cached = this.cache.get(cacheKey);
    if (cached && this.now() < cached.until) return cached.answer;
    this.cache.delete(cacheKey);

    const nonce = freshNonce();
    const request = new Request(new URL("/api/v1/licences/validate", this.options.baseUrl), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ key, hwid, nonce }),
    });
    const response = await (this.options.fetch ?? fetch)(request);
    if (response.status === 429) {
      throw new LicenceCheckError("Too many licence checks", Number(response.headers.get("Retry-After") ?? 60));
    }
    if (!response.ok) throw new LicenceCheckError(`Licence check failed with HTTP ${response.status}`);

    const body = new Uint8Array(await response.arrayBuffer());
    const signature = response.headers.get("Licence-Signature");
    if (!signature) throw new LicenceCheckError("The answer is not signed");
    let genuine = false;
    try {
      genuine = await crypto.subtle.verify({ name: "Ed25519" }, await this.key, base64Bytes(signature), body);
    } catch {
      genuine = false;
    }
    if (!genuine) throw new LicenceCheckError("The answer's signature does not verify");
    const answer = JSON.parse(new TextDecoder().decode(body)) as LicenceAnswer;
    // A genuine answer to another question (replayed, or asked about another key or PC by a proxy
    // that kept our nonce) names what it was asked; it must be exactly what we asked.
    if (answer.nonce !== nonce || answer.key !== key || answer.hwid !== hwid) {
      throw new LicenceCheckError("The answer is not for this request");
    }
    if (answer.valid && this.options.product !== undefined && answer.licence?.product !== this.options.product) {
      throw new LicenceCheckError("The key is for another product");
    }

    if (answer.valid && answer.ttl > 0) this.cache.set(cacheKey, { answer, until: this.now() + answer.ttl * 1000 });
    return answer;
  }
}
