// Shared test helpers: requests through the real Worker, and accounts created in the real D1.
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { database } from "~/server/platform/db/client.server";
import { profiles, userRoles, users } from "~/server/platform/db/schema.server";
import { hashPassword } from "~/server/accounts/password.server";

export const ORIGIN = "https://shop.test";
export const db = database(env.DB);

let counter = 0;
/** A fresh, unique suffix so tests never collide on e-mail or username. */
export function unique(prefix = "u"): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}${Math.random().toString(36).slice(2, 6)}`;
}

/** A random 64-hex-digit transaction ID, as a wallet shows one. */
export function transactionId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export interface TestAccount {
  id: string;
  email: string;
  username: string;
  password: string;
}

export async function createAccount(
  options: { verified?: boolean; admin?: boolean; password?: string } = {},
): Promise<TestAccount> {
  const username = unique("member");
  const account = {
    id: crypto.randomUUID(),
    email: `${username}@example.test`,
    username,
    password: options.password ?? "correct-horse-1",
  };
  const now = Date.now();
  await db.batch([
    db.insert(users).values({
      id: account.id,
      email: account.email,
      passwordHash: await hashPassword(account.password),
      emailVerifiedAt: options.verified === false ? null : now,
      createdAt: now,
    }),
    db.insert(profiles).values({ id: account.id, username, createdAt: now }),
  ]);
  if (options.admin) await db.insert(userRoles).values({ userId: account.id, role: "admin" });
  return account;
}

export async function deleteAccount(id: string) {
  await db.delete(users).where(eq(users.id, id));
}

/** A request through the Worker exactly as a browser on our own site would send it. */
export function call(
  path: string,
  init: { method?: string; form?: Record<string, string>; cookie?: string; ip?: string; headers?: HeadersInit } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  const method = init.method ?? (init.form ? "POST" : "GET");
  if (method !== "GET" && !headers.has("Origin") && !headers.has("Sec-Fetch-Site")) headers.set("Origin", ORIGIN);
  if (init.cookie) headers.set("Cookie", init.cookie);
  headers.set("CF-Connecting-IP", init.ip ?? "198.51.100.1");
  return exports.default.fetch(
    new Request(`${ORIGIN}${path}`, {
      method,
      headers,
      body: init.form ? new URLSearchParams(init.form) : undefined,
      redirect: "manual",
    }),
  );
}

/** The `name=value` pair of a cookie the response sets, ready for a Cookie header. */
export function cookieFrom(response: Response, name: string): string | null {
  for (const header of response.headers.getSetCookie()) {
    const [pair] = header.split(";");
    if (pair?.startsWith(`${name}=`)) return pair;
  }
  return null;
}

export async function signIn(account: { email: string; password: string }, ip?: string): Promise<string> {
  const response = await call("/auth", {
    form: { intent: "login", emailOrUsername: account.email, password: account.password },
    ip,
  });
  const cookie = cookieFrom(response, "__Host-session");
  if (response.status !== 302 || !cookie) throw new Error(`sign-in failed with ${response.status}`);
  return cookie;
}

/** A request body made on demand, telling how much of it was read and whether it was cancelled. */
export interface PulledBody {
  stream: ReadableStream<Uint8Array>;
  /** The bytes handed out so far: what the reader pulled, plus at most what the runtime buffers. */
  pulledBytes(): number;
  cancelled(): boolean;
}

/** `chunk` repeated `times`, each copy made only when it is pulled; nothing is read ahead. */
export function pulledBody(chunk: string, times: number): PulledBody {
  const bytes = new TextEncoder().encode(chunk);
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled === times) return controller.close();
        pulled += 1;
        controller.enqueue(bytes.slice());
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulledBytes: () => pulled * bytes.byteLength, cancelled: () => cancelled };
}
