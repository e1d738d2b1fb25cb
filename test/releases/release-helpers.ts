// Releases as staff and programs meet them through the Worker: uploaded in parts on the Releases
// page, finished, published; asked for by the licence API's releases/latest.
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { ORIGIN } from "../helpers";

export const hex = async (bytes: Uint8Array<ArrayBuffer>) =>
  Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join("");

/** A request through the Worker as our own page's script sends it (same origin, signed in). */
export function send(path: string, init: { method: string; cookie: string; body?: BodyInit; headers?: Record<string, string> }) {
  const headers = new Headers({
    Origin: ORIGIN,
    Cookie: init.cookie,
    "CF-Connecting-IP": "198.51.100.7",
    Accept: "application/json",
    ...init.headers,
  });
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { method: init.method, headers, body: init.body, redirect: "manual" }));
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields);

export function bytesOf(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

export interface UploadFields {
  version: string;
  product?: string;
  channel?: string;
  entitlement?: string;
  size: number;
  fileName?: string;
}

/** Starts a release's upload on the Releases page, as `cookie`; the product defaults to Vertex Rust. */
export async function startUpload(fields: UploadFields, cookie: string) {
  const response = await send("/dashboard/releases/uploads", {
    method: "POST",
    cookie,
    body: form({
      intent: "start",
      product: fields.product ?? "Vertex Rust",
      version: fields.version,
      channel: fields.channel ?? "stable",
      notes: "**Faster** start-up",
      entitlement: fields.entitlement ?? "",
      fileName: fields.fileName ?? "Vertex Setup.exe",
      size: String(fields.size),
      contentType: "application/octet-stream",
    }),
  });
  return {
    response,
    json: (await response.json()) as {
      ok: boolean;
      value: { id: string; parts: number; partBytes: number };
      problem?: { field?: string; message: string };
      fieldErrors?: Record<string, string>;
    },
  };
}

export const putPart = (id: string, n: number, bytes: Uint8Array<ArrayBuffer>, cookie: string) =>
  send(`/dashboard/releases/uploads/${id}?part=${n}`, {
    method: "PUT",
    cookie,
    body: bytes,
    headers: { "Content-Length": String(bytes.byteLength) },
  });

export const finish = (id: string, cookie: string) => send(`/dashboard/releases/uploads/${id}`, { method: "POST", cookie });

export const change = (intent: "publish" | "yank" | "discard", releaseId: string, cookie: string) =>
  send("/dashboard/releases", { method: "POST", cookie, body: form({ intent, releaseId }), headers: { Accept: "*/*" } });

/** A one-part release, uploaded, finished and (unless told) published through the Worker by `cookie`. */
export async function published(
  cookie: string,
  version: string,
  options: Omit<UploadFields, "version" | "size"> & { publish?: boolean } = {},
) {
  const bytes = bytesOf(4096 + Math.floor(Math.random() * 512), version.length);
  const { json } = await startUpload({ version, size: bytes.byteLength, ...options }, cookie);
  expect(json.ok).toBe(true);
  expect((await putPart(json.value.id, 1, bytes, cookie)).status).toBe(200);
  expect((await finish(json.value.id, cookie)).status).toBe(200);
  if (options.publish !== false) expect((await change("publish", json.value.id, cookie)).status).toBe(200);
  return { id: json.value.id, bytes };
}

/** The program's auto-update question, from a client address of its own. */
export const latest = (key: string, pc: string, channel?: string) =>
  exports.default.fetch(
    new Request(`${ORIGIN}/api/v1/releases/latest`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": `203.0.113.${Math.floor(Math.random() * 250)}` },
      body: JSON.stringify({ key, hwid: pc, nonce: crypto.randomUUID().replaceAll("-", ""), ...(channel ? { channel } : {}) }),
    }),
  );

export interface Offer {
  version: string;
  sha256: string;
  url: string;
  size: number;
}

/** The release releases/latest offers `key` on `channel` (null when none). */
export async function offerFor(key: string, pc: string, channel?: string): Promise<Offer | null> {
  return ((await (await latest(key, pc, channel)).json()) as { release: Offer | null }).release;
}
