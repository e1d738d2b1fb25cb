// A release's bytes as HTTP: GET whole or one `Range` (206, or 416 when it cannot be met), HEAD
// with the same headers and no body, streamed from R2 and never buffered. The SHA-256 travels as
// `Repr-Digest` (RFC 9530: the digest of the whole file, whatever range is sent) and, for tools
// that predate it, `X-Checksum-SHA256` in hex, as members see it on the page (decision 056).
import { type Release, releaseObject } from "~/server/releases/release-shelves.server";
import { fromHex, toBase64 } from "~/server/platform/tokens.server";

/** `attachment` with a safe ASCII fallback name and the real name for browsers that read RFC 5987. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

type ByteRange = { offset: number; length: number };

/**
 * The one range `header` asks of a file of `size` bytes: null for the whole file (no header, a
 * header we do not serve such as several ranges, which RFC 9110 lets us ignore), "unsatisfiable"
 * when it starts past the end.
 */
export function requestedRange(header: string | null, size: number): ByteRange | null | "unsatisfiable" {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match) return null;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return null;
  if (first === "") {
    // A suffix: the last n bytes.
    const length = Math.min(Number(last), size);
    return length === 0 ? "unsatisfiable" : { offset: size - length, length };
  }
  const offset = Number(first);
  if (offset >= size) return "unsatisfiable";
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  return end < offset ? null : { offset, length: end - offset + 1 };
}

const hasBody = (object: R2Object): object is R2ObjectBody => "body" in object;

/** The release's bytes (or a range of them) as a response; `cacheControl` says who may keep it. */
export async function releaseResponse(bucket: R2Bucket, release: Release, request: Request, cacheControl: string): Promise<Response> {
  const headers = new Headers({
    "Content-Type": release.contentType,
    "Content-Disposition": contentDisposition(release.fileName),
    "Cache-Control": cacheControl,
    "Accept-Ranges": "bytes",
    "X-Content-Type-Options": "nosniff",
  });
  if (release.sha256) {
    headers.set("Repr-Digest", `sha-256=:${toBase64(fromHex(release.sha256))}:`);
    headers.set("X-Checksum-SHA256", release.sha256);
  }
  const range = requestedRange(request.headers.get("Range"), release.size);
  if (range === "unsatisfiable") {
    headers.set("Content-Range", `bytes */${release.size}`);
    return new Response(null, { status: 416, headers });
  }
  const headOnly = request.method === "HEAD";
  const object = await releaseObject(bucket, release, range, headOnly);
  if (!object)
    return new Response("Release file missing", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  headers.set("ETag", object.httpEtag);
  headers.set("Content-Length", String(range ? range.length : object.size));
  if (range) headers.set("Content-Range", `bytes ${range.offset}-${range.offset + range.length - 1}/${object.size}`);
  const body = hasBody(object) ? object.body : null;
  return new Response(body, { status: range ? 206 : 200, headers });
}
