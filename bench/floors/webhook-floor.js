// The webhook floor: the least work a correct order webhook acknowledgement must do, served by the
// same runtime as the app. It checks the HMAC over the body and puts the body on a queue (one
// durable write), then answers; its consumer takes the messages and does nothing with them.
let hmac;

async function hmacKey(secret) {
  hmac ??= crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  return hmac;
}

export default {
  async fetch(request, env) {
    const body = await request.arrayBuffer();
    const given = request.headers.get("X-Shopify-Hmac-Sha256") ?? "";
    let signature;
    try {
      signature = Uint8Array.from(atob(given), (c) => c.charCodeAt(0));
    } catch {
      return new Response("Invalid signature", { status: 401 });
    }
    if (!(await crypto.subtle.verify("HMAC", await hmacKey(env.WEBHOOK_SECRET), signature, body)))
      return new Response("Invalid signature", { status: 401 });
    await env.QUEUE.send({ body: new TextDecoder().decode(body), topic: request.headers.get("X-Shopify-Topic") });
    return new Response("Queued");
  },
  async queue(batch) {
    batch.ackAll();
  },
};
