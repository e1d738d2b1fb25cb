// The licence floor: the least work any correct licence check must do, served by the same runtime
// as the app. Two rate-limit calls (per client, per key), one indexed D1 read of a table of the
// same keys, a conditional bind when the key is free, and an Ed25519 signature over the answer's
// exact bytes. No router, no schema library, no ORM: what the app spends beyond this is its own.
let signer;

async function signingKey(secret) {
  signer ??= crypto.subtle.importKey(
    "pkcs8",
    Uint8Array.from(atob(secret), (c) => c.charCodeAt(0)),
    { name: "Ed25519" },
    false,
    ["sign"],
  );
  return signer;
}

const refuse = (status) =>
  new Response(JSON.stringify({ error: { code: status === 429 ? "RATE_LIMITED" : "INVALID_REQUEST" } }), {
    status,
    headers: { "Content-Type": "application/json" },
  });

export default {
  async fetch(request, env) {
    if (!(await env.CLIENT_LIMIT.limit({ key: request.headers.get("CF-Connecting-IP") ?? "" })).success) return refuse(429);
    let input;
    try {
      input = await request.json();
    } catch {
      return refuse(400);
    }
    const { key, hwid, nonce } = input ?? {};
    if (typeof key !== "string" || typeof hwid !== "string" || typeof nonce !== "string") return refuse(400);
    if (!(await env.KEY_LIMIT.limit({ key })).success) return refuse(429);
    const now = Date.now();
    let row = await env.DB.prepare("select hwid, plan, expires_at from licences where key = ?").bind(key).first();
    if (row && row.hwid === null) {
      row =
        (await env.DB.prepare(
          "update licences set hwid = ?, activated_at = ? where key = ? and hwid is null returning hwid, plan, expires_at",
        )
          .bind(hwid, now, key)
          .first()) ?? row;
    }
    const code = !row ? "NOT_FOUND" : row.hwid === hwid ? "VALID" : "HWID_MISMATCH";
    const bytes = new TextEncoder().encode(
      JSON.stringify({ valid: code === "VALID", code, key, hwid, nonce, issuedAt: new Date(now).toISOString() }),
    );
    const signature = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, await signingKey(env.SIGNING_KEY), bytes));
    return new Response(bytes, {
      headers: { "Content-Type": "application/json", "Licence-Signature": btoa(String.fromCharCode(...signature)) },
    });
  },
};
