/* global FixedLengthStream -- a Workers runtime stream */
// The release floor: the least work a large release file can cost through a Worker, on the same
// runtime and local R2 as the app. It streams each part into an R2 multipart upload, joins the
// parts and hashes the object as a stream, and streams the object out again with Range; no
// session, no D1, no checks. The bench measures its processes' memory beside the app's.
const KEY = "floor/release.bin";

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/start") {
      const upload = await env.DOWNLOADS.createMultipartUpload(KEY);
      return Response.json({ uploadId: upload.uploadId });
    }
    if (request.method === "PUT" && url.pathname === "/part") {
      const { readable, writable } = new FixedLengthStream(Number(request.headers.get("Content-Length")));
      const upload = env.DOWNLOADS.resumeMultipartUpload(KEY, url.searchParams.get("uploadId"));
      const [part] = await Promise.all([upload.uploadPart(Number(url.searchParams.get("part")), readable), request.body.pipeTo(writable)]);
      return Response.json(part);
    }
    if (request.method === "POST" && url.pathname === "/finish") {
      const parts = await request.json();
      await env.DOWNLOADS.resumeMultipartUpload(KEY, url.searchParams.get("uploadId")).complete(parts);
      const object = await env.DOWNLOADS.get(KEY);
      const digest = new crypto.DigestStream("SHA-256");
      await object.body.pipeTo(digest);
      const hex = [...new Uint8Array(await digest.digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
      return Response.json({ sha256: hex });
    }
    if (request.method === "GET" && url.pathname === "/file") {
      const object = await env.DOWNLOADS.get(KEY, { range: request.headers });
      if (!object) return new Response("Not found", { status: 404 });
      const headers = new Headers({ "Content-Type": "application/octet-stream", "Accept-Ranges": "bytes" });
      const range = object.range;
      if (request.headers.has("Range") && range && "offset" in range) {
        const end = range.offset + range.length - 1;
        headers.set("Content-Range", `bytes ${range.offset}-${end}/${object.size}`);
        headers.set("Content-Length", String(range.length));
        return new Response(object.body, { status: 206, headers });
      }
      headers.set("Content-Length", String(object.size));
      return new Response(object.body, { headers });
    }
    return new Response("Not found", { status: 404 });
  },
};
