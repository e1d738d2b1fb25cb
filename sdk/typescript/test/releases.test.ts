// The TypeScript SDK's auto-update: latestRelease through the client (what it sends, what it
// believes), and downloadRelease into a target: a good file, a corrupted one (discarded, never
// committed), one cut off and resumed with Range, a server that ignores the range, an expired link.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import vectors from "../../vectors/licence-vectors.json";
import { LicenceClient } from "../src/licence-client";
import { type DownloadTarget, downloadRelease, type Release } from "../src/releases";

const FILE = Uint8Array.from({ length: 300 * 1024 }, (_, i) => (i * 31 + 7) & 0xff);
const release: Release = {
  version: "1.4.0",
  channel: "stable",
  notes: "",
  fileName: "Vertex.exe",
  size: FILE.byteLength,
  sha256: bytesToHex(sha256(FILE)),
  publishedAt: "2030-01-15T12:00:00.000Z",
  url: "https://shop.test/api/v1/releases/1/download?expires=1&signature=x",
  urlExpiresAt: "2030-01-15T12:15:00.000Z",
};

/** A target in memory, as a program's ".part" file would behave. */
function memoryTarget(saved: Uint8Array[] = []) {
  const state = { chunks: [...saved], committed: null as Uint8Array | null, discarded: 0 };
  const target: DownloadTarget = {
    saved: async function* () {
      yield* state.chunks;
    },
    write: async (chunk) => void state.chunks.push(chunk.slice()),
    discard: async () => {
      state.chunks = [];
      state.discarded++;
    },
    commit: async () => {
      const whole = new Uint8Array(state.chunks.reduce((n, c) => n + c.byteLength, 0));
      let at = 0;
      for (const chunk of state.chunks) whole.set(chunk, (at += chunk.byteLength) - chunk.byteLength);
      state.committed = whole;
    },
  };
  return { target, state };
}

/** The download server: the file (or `served`) in 16 KB chunks, honouring `Range: bytes=N-` unless told not to. */
function server(options: { served?: Uint8Array; status?: number; ignoreRange?: boolean; cutAfter?: number } = {}) {
  const asked: (string | null)[] = [];
  const fetch = async (request: Request) => {
    asked.push(request.headers.get("Range"));
    if (options.status) return new Response(null, { status: options.status });
    const file = options.served ?? FILE;
    const from = options.ignoreRange ? 0 : Number(/^bytes=(\d+)-$/.exec(request.headers.get("Range") ?? "")?.[1] ?? 0);
    const end = options.cutAfter ? Math.min(file.byteLength, from + options.cutAfter) : file.byteLength;
    let at = from;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= end) return end < file.byteLength ? controller.error(new Error("connection reset")) : controller.close();
        controller.enqueue(file.slice(at, Math.min(at + 16 * 1024, end)));
        at += 16 * 1024;
      },
    });
    const headers: Record<string, string> = from > 0 ? { "Content-Range": `bytes ${from}-${file.byteLength - 1}/${file.byteLength}` } : {};
    return new Response(body, { status: from > 0 ? 206 : 200, headers });
  };
  return { fetch, asked };
}

describe("downloadRelease", () => {
  it("commits a good file, hashed as it streams", async () => {
    const { target, state } = memoryTarget();
    expect(await downloadRelease(release, target, server())).toEqual({ ok: true, status: 200, resumedFrom: 0 });
    expect(state.committed).toEqual(FILE);
  });

  it("discards a corrupted file and never commits it", async () => {
    const served = FILE.slice();
    served[150_000]! ^= 1;
    const { target, state } = memoryTarget();
    expect(await downloadRelease(release, target, server({ served }))).toMatchObject({ ok: false, error: "checksum" });
    expect(state.committed).toBeNull();
    expect(state.chunks).toEqual([]);
  });

  it("keeps the bytes of a download cut off and resumes from them with Range", async () => {
    const { target, state } = memoryTarget();
    expect(await downloadRelease(release, target, server({ cutAfter: 100_000 }))).toMatchObject({ ok: false, error: "unreachable" });
    expect(state.committed).toBeNull();
    const kept = state.chunks.reduce((n, c) => n + c.byteLength, 0);
    expect(kept).toBeGreaterThan(0);
    const resumed = server();
    expect(await downloadRelease(release, target, resumed)).toEqual({ ok: true, status: 206, resumedFrom: kept });
    expect(resumed.asked).toEqual([`bytes=${kept}-`]);
    expect(state.committed).toEqual(FILE);
  });

  it("starts again when the server sends the whole file instead of the range", async () => {
    const { target, state } = memoryTarget([FILE.slice(0, 5000)]);
    expect(await downloadRelease(release, target, server({ ignoreRange: true }))).toEqual({ ok: true, status: 200, resumedFrom: 5000 });
    expect(state.discarded).toBe(1);
    expect(state.committed).toEqual(FILE);
  });

  it("refuses a resume onto corrupted earlier bytes as a whole", async () => {
    const spoiled = FILE.slice(0, 5000);
    spoiled[10]! ^= 1;
    const { target, state } = memoryTarget([spoiled]);
    expect(await downloadRelease(release, target, server())).toMatchObject({ ok: false, error: "checksum", resumedFrom: 5000 });
    expect(state.committed).toBeNull();
  });

  it("refuses an expired link with its status, and more bytes than the release", async () => {
    expect(await downloadRelease(release, memoryTarget().target, server({ status: 403 }))).toMatchObject({
      ok: false,
      error: "status",
      status: 403,
      message: expect.stringContaining("expired"),
    });
    const { target, state } = memoryTarget();
    expect(await downloadRelease({ ...release, size: 1000 }, target, server())).toMatchObject({ ok: false, error: "too-large" });
    expect(state.committed).toBeNull();
  });
});

describe("LicenceClient.latestRelease", () => {
  it("asks releases/latest with the channel and a fresh nonce, and believes only a verified answer", async () => {
    const vector = vectors.releaseCases.find((c) => c.name === "the newest stable release for a weekly key")!;
    const sent: Request[] = [];
    const client = new LicenceClient({
      baseUrl: "https://shop.example",
      publicKey: vectors.publicKey,
      fetch: async (request) => {
        sent.push(request);
        // The recorded answer names the vectors' nonce, not this call's: a replay.
        return new Response("body" in vector.response ? vector.response.body : "", {
          headers: { "Licence-Signature": vector.response.signature! },
        });
      },
    });
    const result = await client.latestRelease(vector.request.key, vector.request.hwid, "stable");
    expect(new URL(sent[0]!.url).pathname).toBe("/api/v1/releases/latest");
    const body = (await sent[0]!.json()) as Record<string, string>;
    expect(body).toMatchObject({ key: vector.request.key, hwid: vector.request.hwid, channel: "stable" });
    expect(body.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(result).toMatchObject({ error: "tampered", release: null, licence: { outcome: "tampered", reason: "nonce" } });
  });

  it("offers the release of a genuine answer to this call, signed by the shop", async () => {
    const vector = vectors.releaseCases.find((c) => c.name === "the newest stable release for a weekly key")!;
    const key = await crypto.subtle.importKey(
      "pkcs8",
      Uint8Array.from(atob(vectors.testOnlyPrivateKey.pkcs8Base64), (c) => c.charCodeAt(0)),
      { name: "Ed25519" },
      false,
      ["sign"],
    );
    const client = new LicenceClient({
      baseUrl: "https://shop.example",
      publicKey: vectors.publicKey,
      fetch: async (request) => {
        const { nonce } = (await request.json()) as { nonce: string };
        const recorded = "body" in vector.response ? (vector.response.body ?? "") : "";
        const body = new TextEncoder().encode(recorded.replace(vector.request.nonce, nonce));
        const signature = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.sign("Ed25519", key, body))));
        return new Response(body, { headers: { "Licence-Signature": signature } });
      },
    });
    const result = await client.latestRelease(vector.request.key, vector.request.hwid, "stable");
    expect(result).toMatchObject({
      error: null,
      licence: { outcome: "valid" },
      release: { version: "1.4.0", sha256: vector.expect.release!.sha256, url: vector.expect.release!.url },
    });
    expect(result.licence.hasEntitlement("config-library")).toBe(true);
  });
});
